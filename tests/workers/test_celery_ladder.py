"""A ladder on real Celery workers over a real redis-server, with real bot processes that join, change
version (through Describe), crash and retire while it runs (rules §5): every game stored once, none
started against a retired or crashed bot, the new version placed as a new entrant, the epochs verified."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from referee.games import spec
from sqlalchemy import func, select

from cli.demo import register_or_update
from league.competition.ladder import create_ladder, ladder_standings, verify_ladder
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.clients import GrpcBotClient
from store import GameStatus, Store, open_store
from store.models import GameAttempt, Replay
from tests.a_game import GAME, QUICK, STRONG
from tests.workers.conftest import REPO, Workers, free_port_outside_the_ephemeral_range

GAMES = 48


def register(store: Store, name: str, process: BotProcess) -> int:
    register_or_update(store, name, process.endpoint, GrpcBotClient(process.endpoint).describe())
    return store.bots.get_bot_by_name(name).id


def wait_for(what: str, check, timeout_s: float = 90.0, log: Path | None = None) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() >= deadline:
            tail = log.read_text(errors="replace")[-4000:] if log is not None and log.exists() else ""
            raise AssertionError(f"timed out waiting for {what}" + (f"; the run's log ends:\n{tail}" if tail else ""))
        time.sleep(0.1)


def test_a_ladder_on_celery_with_bots_joining_updating_crashing_and_retiring(
        workers: Workers, db_url: str, broker: str, tmp_path: Path) -> None:
    port = free_port_outside_the_ephemeral_range()
    procs = {"strong": start_bot_process(STRONG, 0), "random": start_bot_process("random", 1),
             "crasher": start_bot_process(STRONG, 2), "versioned": start_bot_process(
                 "tests.workers.identity_bots:VersionOne", 3, port=port)}
    late = None
    run = None
    try:
        store = open_store(db_url, policy=POLICY)
        ids = {name: register(store, name, p) for name, p in procs.items()}
        lid = create_ladder(store, "lad", spec(GAME), [3], params=dict(QUICK), suspend_after_s=4.0,
                            epoch_games=16, window=6)
        workers.start(concurrency=2)
        log = (tmp_path / "run.log").open("w")
        run = subprocess.Popen([sys.executable, "-m", "cli.main", "ladder", "run", "lad", "--broker", broker,
                                "--db", db_url, "--games", str(GAMES), "--stall-timeout", "60"],
                               cwd=REPO, stdout=log, stderr=subprocess.STDOUT, text=True)

        def done() -> int:
            return store.ladders.ladder_progress(lid)["done"]

        wait_for("the first games", lambda: done() >= 6, log=tmp_path / "run.log")
        late = start_bot_process("random", 4)  # a bot registered while the ladder runs joins it
        ids["late"] = register(store, "late", late)
        wait_for("more games", lambda: done() >= 12, log=tmp_path / "run.log")
        procs["versioned"].stop()  # its author deploys version 2.0 behind the same endpoint
        procs["versioned"] = start_bot_process("tests.workers.identity_bots:VersionTwo", 3, port=port)
        wait_for("version 2.0 seen by a worker", lambda: store.bots.get_bot(ids["versioned"]).version == "2.0")
        wait_for("more games", lambda: done() >= 20, log=tmp_path / "run.log")
        killed_at = datetime.now(UTC)
        procs["crasher"].process.kill()  # crashes and stays down
        # marked down in some epoch: suspended if a table of its was waiting for it, else only paused (a bot that
        # crashed mid-game with no table pending has nothing to be suspended from, rules §5.3)
        wait_for("the crashed bot marked down", lambda: any(
            a.bot_id == ids["crasher"] and (a.suspended_at is not None or a.unavailable_since is not None)
            for e in store.ladders.epochs(lid) for a in store.seasons.season_availability(e.id)),
            log=tmp_path / "run.log")
        store.games.retire_bot(ids["random"])  # what `bot retire` does through the Arena
        # once the retirement has committed: a claim that held the epoch's lock before it may start a game just after
        # a time taken before the call
        retired_at = datetime.now(UTC)
        assert run.wait(120) == 0, (tmp_path / "run.log").read_text()
    finally:
        if run is not None and run.poll() is None:
            run.kill()
        for p in [*procs.values(), *([late] if late else [])]:
            p.stop()
    out = (tmp_path / "run.log").read_text()
    assert "crasher is down" in out and "paused in the ladder" in out, out

    # games per status: everything scheduled ended, played or not played, none failed
    progress = store.ladders.ladder_progress(lid)
    assert progress["pending"] == progress["running"] == progress["failed"] == 0, progress
    assert progress["done"] + progress["not_played"] >= GAMES, progress
    games = store.ladders.ladder_games(lid)
    gids = [g.id for g in games]
    # each game recorded exactly once: one done attempt and one replay per done game, none otherwise
    with store.engine.connect() as conn:
        replays = dict(conn.execute(select(Replay.game_id, func.count()).where(Replay.game_id.in_(gids))
                                    .group_by(Replay.game_id)).all())
        done_attempts = dict(conn.execute(select(GameAttempt.game_id, func.count()).where(
            GameAttempt.game_id.in_(gids), GameAttempt.outcome == "done").group_by(GameAttempt.game_id)).all())
    for g in games:
        want = 1 if g.status == GameStatus.DONE else 0
        assert replays.get(g.id, 0) == done_attempts.get(g.id, 0) == want, g
        if g.status == GameStatus.NOT_PLAYED:
            assert "suspended from the season" in store.game_reads.get_game(g.id).detail
    # no game started against the retired bot after its retirement, nor against the crashed one after its crash
    slack = timedelta(seconds=1)  # a health check answered just before the kill
    for g in games:
        bots = {bot for bot, _, _ in g.seats}
        starts = [a.started_at for a in store.game_reads.attempts(g.id) if a.outcome == "done"]
        if ids["random"] in bots:
            assert all(t <= retired_at for t in starts), (g, starts, retired_at)
        if ids["crasher"] in bots:
            assert all(t <= killed_at + slack for t in starts), (g, starts, killed_at)
    # the late bot joined and played; the new version is a new entrant that played, the old one kept its record
    rows = {(r.name, r.version): r for r in ladder_standings(store, lid, with_luck=False)}
    assert rows[("late", "1.0.0")].games > 0
    old, new = rows[("versioned", "1.0")], rows[("versioned", "2.0")]
    assert old.games > 0 and new.games > 0 and new.latest and not old.latest and old.status == "superseded"
    assert rows[("random", "1.0.0")].status == "retired"
    # every closed epoch verifies (keys published, seeds, replays, chains)
    checks = verify_ladder(store, lid)
    assert len(checks) >= 3 and not [c for c in checks if c.state == "failed"], [(c.epoch, c.lines) for c in checks]
    assert sum(c.state == "verified" for c in checks) >= 2
