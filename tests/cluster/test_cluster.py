"""The deploy guide run as a cluster of hosts (network namespaces, deploy.cluster), and the network cut
between them: a worker host, the bot host, the store host, the broker host; a ladder (the guide's
ladder commands) with a worker host cut; and a ladder of hosted bots (submitted code) played on both worker hosts. Each season, and each of the ladder's epochs, is audited:
games per status, attempts, results per game, stored Elo against Elo recomputed, faults charged to bots;
the ladder's closed epochs are verified and its standings' totals checked against the store.

Needs root and ``ip netns`` (CI runs as root) and PostgreSQL's initdb/pg_ctl; skips saying which is
missing otherwise. ``CARDARENA_CLUSTER_PROFILE=long`` plays longer seasons and repeats each fault
(``TRIALS``; the suspension and clock tests run once); the default (short) profile is CI's. Each
test appends its row to the fault table (``fault_table.jsonl`` in the deployment's work directory,
printed at the end of the module).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from deploy.cluster.audit import Audit
from deploy.cluster.harness import REPO, Cluster, Deployment, Proc, new_workdir, start_deployment, unavailable, wait_port
from league.competition.ladder import WINDOW
from league.policy import POLICY
from store import GameStatus, Store, open_store
from tests.workers.test_busy_retry_clock import MAX_IDLE_S, longest_idle_s
from tests.workers.test_clocks import LIBFAKETIME, shifted

LONG = os.environ.get("CARDARENA_CLUSTER_PROFILE", "short") == "long"
#: Games per season, and trials per fault.
GAMES = 600 if LONG else 160
TRIALS = 3 if LONG else 1
#: The workers' lease (CARDARENA_LEASE_S), seconds: a worker host cut longer than this loses its games.
LEASE_S = 6.0

pytestmark = pytest.mark.skipif(bool(unavailable()), reason=f"no cluster here: {unavailable()}")


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    cluster = Cluster(new_workdir())
    try:
        cluster.up()
        yield start_deployment(cluster, lease_s=LEASE_S)
    finally:
        table = cluster.workdir / "fault_table.jsonl"
        if table.exists():
            print("\nfault table:\n" + table.read_text())
        cluster.down()


@pytest.fixture
def store(deployment: Deployment) -> Iterator[Store]:
    s = open_store(deployment.db_url, run_migrations=False, policy=POLICY)
    yield s
    s.close()


@dataclass
class Run:
    """One season run with a fault: season run's exit code and output, the audit, seconds to recover."""

    code: int
    output: str
    audit: Audit
    recovery_s: float | None


def done_count(store: Store, season_id: int) -> int | None:
    try:
        return store.seasons.season_progress(season_id)["done"]
    except Exception:  # the store host cut: nothing to read now
        return None


def play(dep: Deployment, store: Store, name: str, fault: Callable[[int], float | None] | None = None,
         games: int = GAMES, suspend_after_s: float = 600.0, after_done: int = 20, time_bank_s: float = 10.0) -> Run:
    """Create and run season ``name`` on the cluster; once ``after_done`` games are done, call
    ``fault(season_id)`` (it cuts and restores a link and returns its recovery seconds, or None); wait
    for ``season run`` to exit and audit."""
    dep.season_create(name, games, suspend_after_s, time_bank_s=time_bank_s)
    season_id = store.seasons.get_season_by_name(name).id
    runner: Proc = dep.season_run(name, stall_timeout_s=90)
    recovery = None
    if fault is not None:
        deadline = time.monotonic() + 120
        while (done_count(store, season_id) or 0) < after_done and time.monotonic() < deadline and runner.alive():
            time.sleep(0.05)
        assert runner.alive(), f"the season ended before its fault:\n{runner.log.read_text()[-2000:]}"
        recovery = fault(season_id)
    runner.process.wait(300)
    audit = Audit.of(store, season_id)
    return Run(runner.process.returncode, runner.log.read_text(errors="replace"), audit, recovery)


def record(dep: Deployment, fault: str, run: Run) -> None:
    row = {"fault": fault, "profile": "long" if LONG else "short", "exit": run.code,
           "recovery_s": None if run.recovery_s is None else round(run.recovery_s, 1), **run.audit.row()}
    with (dep.cluster.workdir / "fault_table.jsonl").open("a") as out:
        out.write(json.dumps(row) + "\n")


def wait_done_grows(store: Store, season_id: int, since: int | None, timeout_s: float = 120) -> float:
    """Seconds until the season's done count exceeds ``since`` (read again until it can be)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        now = done_count(store, season_id)
        if now is not None and since is not None and now > since:
            return time.monotonic() - started
        if since is None:
            since = now
        time.sleep(0.1)
    raise AssertionError(f"no game was done within {timeout_s} s of the link's restoring")


def assert_clean(run: Run) -> None:
    assert run.code == 0, run.output[-3000:]
    assert run.audit.problems() == [], run.audit.problems()


def test_a_season_across_the_cluster(deployment: Deployment, store: Store) -> None:
    for trial in range(TRIALS):
        run = play(deployment, store, f"plain-{trial}", games=GAMES // 2)
        record(deployment, "none", run)
        assert_clean(run)
        assert run.audit.statuses == {"done": sum(run.audit.statuses.values())}
        assert sum(run.audit.faults.values()) == 0  # nothing of ours is charged to a bot
        assert all(n == 1 for n in run.audit.attempts.values())
    # both worker hosts played: the attempts name their pool processes (host name:pid)
    pids = {host: children(proc.process.pid) for host, proc in deployment.workers.items()}
    owners = {int(a.worker.rsplit(":", 1)[1]) for g in store.game_reads.list_games(store.seasons.get_season_by_name("plain-0").id,
                                                                          limit=10**6) for a in store.game_reads.attempts(g.id)}
    assert all(owners & kids for kids in pids.values()), (owners, pids)


def children(pid: int) -> set[int]:
    """Pids of the processes whose parent is ``pid``."""
    kids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                kids.add(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return kids


def cut_worker_a(dep: Deployment, store: Store, season_ids: Callable[[], list[int]]) -> float:
    """Cut worker-a's link while it holds a game of the seasons ``season_ids()`` names, for the lease and
    6 s more, then restore it; returns the seconds from the cut to the last done attempt of a game played
    again (0 if none)."""
    def on_worker_a() -> set[int]:
        """Ids of the games running now on worker-a's pool processes (their lease owner is host:pid)."""
        kids = children(dep.workers["worker-a"].process.pid)
        return {g.id for sid in season_ids() for g in store.game_reads.list_games(sid, status=GameStatus.RUNNING, limit=10**6)
                if g.lease_owner and int(g.lease_owner.rsplit(":", 1)[1]) in kids}

    # cut while worker-a holds a game: cut as soon as one runs there, and if every game it held
    # finished before the link went down, restore and try again (a bound, not a timing margin: on a busy
    # machine worker-b may play every game for a while)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if not on_worker_a():
            time.sleep(0.02)
            continue
        cut_at = time.time()
        dep.cluster.cut("worker-a")
        # a commit the store received before the cut lands within this, even on a busy machine (make test runs
        # 3 processes): a game still running after it is held there (worker-a cannot reach the store to finish it).
        # A try whose games all finished is given up as soon as that is seen, so that the next try comes at once (a
        # ladder's games last tens of milliseconds: a whole run may take 15 s, a few tries of 2 s each)
        settle = time.monotonic() + 2.0
        held = on_worker_a()
        while held and time.monotonic() < settle:
            time.sleep(0.1)
            held = on_worker_a()
        if held:
            break
        dep.cluster.restore("worker-a")
    else:
        raise AssertionError("worker-a never held a game long enough to be cut")
    time.sleep(LEASE_S + 6)
    # a held game's result is refused only once another worker has claimed it again (a late result of an
    # expired lease nobody took is still its game's, store.lifecycle); on a loaded machine the sweep may come
    # after the 6 s above, so the host stays cut until one was claimed again (a bound, not a margin)
    end = time.monotonic() + 120
    while time.monotonic() < end and not any(len(store.game_reads.attempts(g)) > 1 for g in held):
        time.sleep(0.2)
    dep.cluster.restore("worker-a")
    # its games were voided (lease expired) and done again on worker-b: seconds from the cut to the last
    games = [g for sid in season_ids() for g in store.game_reads.list_games(sid, limit=10**6) if len(store.game_reads.attempts(g.id)) > 1]
    ends = [a.ended_at.timestamp() for g in games for a in store.game_reads.attempts(g.id) if a.ended_at and
            str(a.outcome) == "done"]
    return max(ends) - cut_at if ends else 0.0


def stale_refusals(dep: Deployment) -> int:
    """How many late attempts worker-a's log says were refused (the service's outcome "stale")."""
    return len(re.findall(r"game \d+: stale", dep.workers["worker-a"].log.read_text(errors="replace")))


def wait_stale_refusals(dep: Deployment, more_than: int, timeout_s: float = 240.0) -> int:
    """worker-a's refused late attempts, once more than ``more_than`` (or after ``timeout_s``): a restored
    host's TCP retransmits back off, so its late attempts may be refused after the run has ended. After a cut
    of 12 s the next retransmit may come about a minute after the restore (a CI run: worker-a silent from the
    restore until then, the ladder run over 4 s after it; in a later CI run none within 120 s), and the next test
    needs worker-a back."""
    deadline = time.monotonic() + timeout_s
    while stale_refusals(dep) <= more_than and time.monotonic() < deadline:
        time.sleep(0.2)
    return stale_refusals(dep)


def test_a_worker_host_cut_past_its_lease(deployment: Deployment, store: Store) -> None:
    def cut_worker(season_id: int) -> float:
        return cut_worker_a(deployment, store, lambda: [season_id])

    for trial in range(TRIALS):
        run = play(deployment, store, f"worker-cut-{trial}", cut_worker)
        record(deployment, "worker host cut 12 s (lease 6 s)", run)
        assert_clean(run)
        # the games worker-a held were played again: a second attempt, one result
        again = [g for g, n in run.audit.attempts.items() if n > 1]
        assert again, "no game was running on worker-a when it was cut"
        assert run.audit.voided, run.audit.voided
        assert sum(run.audit.faults.values()) == 0  # the cut worker's bot calls failed, charged to no bot
        # worker-a is back, and its late attempts were refused: stopped before a bot call, or their result
        # rejected (the service's outcome "stale": nothing stored)
        assert deployment.workers["worker-a"].alive()
        assert wait_stale_refusals(deployment, trial) >= trial + 1, "worker-a's late attempts were not refused"


def test_the_bot_host_cut_briefly(deployment: Deployment, store: Store) -> None:
    def cut_bots(season_id: int) -> float:
        deployment.cluster.cut("bots")
        time.sleep(3)
        since = done_count(store, season_id)
        deployment.cluster.restore("bots")
        return wait_done_grows(store, season_id, since)

    for trial in range(TRIALS):
        run = play(deployment, store, f"bots-blip-{trial}", cut_bots)
        record(deployment, "bot host cut 3 s", run)
        assert_clean(run)
        assert run.audit.statuses == {"done": sum(run.audit.statuses.values())}


def test_the_bot_host_cut_past_the_suspension_window(deployment: Deployment, store: Store) -> None:
    def cut_bots(season_id: int) -> None:
        deployment.cluster.cut("bots")
        time.sleep(25)
        deployment.cluster.restore("bots")

    # a small time bank: games under way when the link goes end soon (their seats' faults, rules §4.2),
    # so that workers get to start games, find the bots not answering and defer them (rules §4.9)
    run = play(deployment, store, "bots-gone", cut_bots, suspend_after_s=5, time_bank_s=0.5)
    record(deployment, "bot host cut 25 s (suspend after 5 s)", run)
    assert run.audit.problems() == [], run.audit.problems()
    assert run.audit.statuses.get("not_played", 0) > 0, run.audit.statuses
    assert re.search(r"suspended at .*UTC", run.output), run.output[-3000:]
    assert f"{run.audit.statuses['not_played']} game(s) not played" in run.output


@pytest.mark.parametrize("host", ["store", "broker"])
def test_the_store_or_the_broker_host_cut_and_restored(deployment: Deployment, store: Store, host: str) -> None:
    def cut(season_id: int) -> float:
        since = done_count(store, season_id)
        deployment.cluster.cut(host)
        time.sleep(5)
        deployment.cluster.restore(host)
        return wait_done_grows(store, season_id, since)

    for trial in range(TRIALS):
        run = play(deployment, store, f"{host}-cut-{trial}", cut)
        record(deployment, f"{host} host cut 5 s", run)
        assert_clean(run)
        assert run.audit.statuses == {"done": sum(run.audit.statuses.values())}


#: The ladder's run: games (``ladder run --games``) and games per epoch (``--epoch-games``). Enough games for worker-a
#: to be cut while it holds one after the first ten: 60 games took 10 s in all once refills took a few ms, and under
#: load the run ended before a cut caught a game there.
LADDER_GAMES = 240 if LONG else 160
EPOCH_GAMES = 20


def test_a_ladder_across_the_cluster_with_a_worker_host_cut(deployment: Deployment, store: Store) -> None:
    """The guide's ladder commands on the organiser host (every bot of the bot host an entrant), played by
    both worker hosts on Celery, worker-a cut past its lease mid-run: every epoch audited, the closed
    epochs verified, the standings' totals the store's. Before the clock test, which adds a bot."""
    name = "ladder-0"
    deployment.ladder_create(name, EPOCH_GAMES)
    ladder = store.ladders.get_ladder_by_name(name)
    assert ladder is not None
    epoch_ids = lambda: [e.id for e in store.ladders.epochs(ladder.id)]  # noqa: E731
    refused = stale_refusals(deployment)
    runner = deployment.ladder_run(name, LADDER_GAMES, stall_timeout_s=90)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and runner.alive():
        try:
            if store.ladders.ladder_progress(ladder.id)["done"] >= 10:
                break
        except Exception:  # noqa: BLE001 - read again
            pass
        time.sleep(0.05)
    assert runner.alive(), f"the ladder run ended before its fault:\n{runner.log.read_text()[-2000:]}"
    recovery = cut_worker_a(deployment, store, epoch_ids)
    runner.process.wait(300)
    output = runner.log.read_text(errors="replace")
    epochs = store.ladders.epochs(ladder.id)
    audits = {e.epoch: Audit.of(store, e.id) for e in epochs}
    run = Run(runner.process.returncode, output, Audit.combined(list(audits.values())), recovery)
    record(deployment, f"ladder, worker host cut {LEASE_S + 6:g} s (lease {LEASE_S:g} s, epochs of {EPOCH_GAMES})", run)
    assert run.code == 0, output[-3000:]
    for number, audit in audits.items():
        assert audit.problems() == [], (number, audit.problems())
    total = run.audit.statuses
    assert set(total) == {"done"} and total["done"] >= LADDER_GAMES, total
    assert [g for g, n in run.audit.attempts.items() if n > 1], "no game was running on worker-a when it was cut"
    assert run.audit.voided, run.audit.voided
    assert sum(run.audit.faults.values()) == 0  # the cut worker's bot calls failed, charged to no bot
    # both worker hosts played the ladder, and worker-a's late attempts were refused once it was back
    # (attempts name their pool processes, host name:pid; the hosts share one host name)
    pids = {host: children(proc.process.pid) for host, proc in deployment.workers.items()}
    owners = {int(a.worker.rsplit(":", 1)[1]) for g in run.audit.attempts for a in store.game_reads.attempts(g)}
    assert all(owners & kids for kids in pids.values()), (owners, pids)
    assert wait_stale_refusals(deployment, refused) > refused, "worker-a's late attempts were not refused"
    # every closed epoch verifies (keys, seeds, replays, chains); the last may still be open
    # an epoch is closed once it holds EPOCH_GAMES games, and the refill that reaches the count adds at most the
    # ladder's pending window (WINDOW, the guide's default) of games: so each epoch holds at most EPOCH_GAMES - 1 + WINDOW
    closed = len(epochs) - 1
    assert closed >= -(-total["done"] // (EPOCH_GAMES - 1 + WINDOW)) - 1, [e.epoch for e in epochs]
    verify = deployment.ladder("ladder verify", name)
    assert verify.returncode == 0, verify.stdout[-3000:] + verify.stderr[-2000:]
    verified = int(re.search(r"(\d+) epoch\(s\) verified, 0 failed", verify.stdout).group(1))
    assert verified >= closed, verify.stdout[-3000:]
    # the standings' totals are the store's: games per status, and each bot's done games
    shown = deployment.ladder("ladder standings", name)
    assert shown.returncode == 0, shown.stderr[-2000:]
    standings = json.loads(shown.stdout)
    assert {k: n for k, n in standings["progress"].items() if k != "total" and n} == total, standings["progress"]
    assert standings["progress"]["total"] == sum(total.values())
    seats: Counter[str] = Counter()
    for e in epochs:
        r = store.season_reads.season_results(e.id)
        seats.update(r.names[bot] for _number, bot, _place in r.placings)
    games: Counter[str] = Counter()
    for row in standings["standings"]:
        games[row["name"]] += row["games"]
    assert +games == seats and set(seats) == set(deployment.bots), (games, seats)


#: The hosted bots of the hosted ladder: the Python example submitted under these names.
HOSTED = ("hosted-1", "hosted-2", "hosted-3")


def test_a_ladder_of_hosted_bots_across_the_cluster(deployment: Deployment, store: Store) -> None:
    """Bots submitted as code (the guide's ``bot submit``, through the organiser host's Arena, which runs their
    entry checks in its sandbox) play a ladder on both worker hosts, each host fetching them from the store and
    running them in sandboxes of its own: every epoch audited, no fault, closed epochs verified. After the first
    ladder's test (these bots would be its entrants too) and before the clock test."""
    for name in HOSTED:
        done = deployment.submit(name, REPO / "examples" / "python")
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    hosted_ids = {store.bots.get_bot_by_name(name).id for name in HOSTED}
    assert all(store.bots.get_bot(i).endpoint.startswith("hosted:") for i in hosted_ids)
    name = "hosted-ladder"
    deployment.ladder_create(name, EPOCH_GAMES)
    ladder = store.ladders.get_ladder_by_name(name)
    runner = deployment.ladder_run(name, LADDER_GAMES, stall_timeout_s=120)
    runner.process.wait(600)
    output = runner.log.read_text(errors="replace")
    assert runner.process.returncode == 0, output[-3000:]
    epochs = store.ladders.epochs(ladder.id)
    audits = [Audit.of(store, e.id) for e in epochs]
    for audit in audits:
        assert audit.problems() == [], audit.problems()
    combined = Audit.combined(audits)
    assert set(combined.statuses) == {"done"} and combined.statuses["done"] >= LADDER_GAMES, combined.statuses
    assert sum(combined.faults.values()) == 0, combined.faults
    # the hosted bots played, on both worker hosts (attempts name their pool processes, host name:pid)
    hosted_games = [g for e in epochs for g in store.game_reads.list_games(e.id, limit=10**5)
                    if any(s.bot_id in hosted_ids for s in g.seats)]
    assert len(hosted_games) >= LADDER_GAMES // 2, len(hosted_games)
    pids = {host: children(proc.process.pid) for host, proc in deployment.workers.items()}
    owners = {int(a.worker.rsplit(":", 1)[1]) for g in hosted_games for a in store.game_reads.attempts(g.id)}
    assert all(owners & kids for kids in pids.values()), (owners, pids)
    for host in deployment.workers:  # each host unpacked the bot in its own cache
        assert list((deployment.cluster.workdir / "hosting" / host / "artifacts").iterdir()), host
    verify = deployment.ladder("ladder verify", name)
    assert verify.returncode == 0, verify.stdout[-3000:] + verify.stderr[-2000:]


@pytest.mark.parametrize("skew_s", [60])
def test_a_worker_host_a_minute_off(deployment: Deployment, store: Store, skew_s: int) -> None:
    """Last in the module: worker-b runs with its clock a minute off (libfaketime) beside worker-a, in a
    season with a capacity-1 bot: no game refused for capacity waits on a worker's clock. (The follower's
    resend of a message unclaimed for 10 s bounds such a wait here; tests/workers/test_busy_retry_clock.py
    turns that off and shows the minute-long hold the old retry made.)"""
    if not LIBFAKETIME.exists():
        pytest.skip(f"libfaketime is not installed ({LIBFAKETIME}): apt-get install faketime")
    addr = deployment.cluster.addr("bots")
    values = {"BOT": "tests.workers.slowbots:OneAtATime", "BOT_ADDR": addr, "BOT_PORT": "50070", "SEED": "5"}
    deployment.cluster.start("bots", "bot-one-at-a-time", deployment.cardarena("bot", values), {"PYTHONPATH": str(REPO)})
    wait_port(addr, 50070, 60, "the capacity-1 bot")
    done = deployment.cluster.run("bots", deployment.cardarena("register", {
        **values, "NAME": "one-at-a-time", "SERVER_ADDR": deployment.cluster.addr("organiser")}), timeout_s=180)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert store.bots.get_bot_by_name("one-at-a-time").capacity == 1
    deployment.cluster.stop(deployment.workers.pop("worker-b"))
    deployment.start_worker("worker-b", extra_env=shifted(skew_s))
    deployment.bots.append("one-at-a-time")
    try:
        run = play(deployment, store, f"skew-{skew_s}", games=30)
    finally:
        deployment.bots.remove("one-at-a-time")
    record(deployment, f"worker-b clock {skew_s:+d} s, a capacity-1 bot", run)
    assert_clean(run)
    idle_s, games = longest_idle_s(deployment.db_url, store.seasons.get_season_by_name(f"skew-{skew_s}").id, "one-at-a-time")
    assert games >= 10 and idle_s < MAX_IDLE_S, f"one-at-a-time sat idle {idle_s:.1f} s between two of its {games} games"
