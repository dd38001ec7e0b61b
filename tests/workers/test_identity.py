"""Identity, capacity and version at game start (rules §4.9): real bot processes on 127.0.0.1 swapped
behind their endpoints mid-season, real SQLite and PostgreSQL stores, the local pool and `season run`."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from cli.demo import register_or_update
from config import Settings, get_settings
from dashboard.main import create_app
from league.competition.seasons import create_season
from league.competition.standings import standings_of
from league.entry.identity import ANOTHER_BOT
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.clients import GrpcBotClient
from referee.games import spec
from store import GameStatus, Store, open_store
from tests.a_game import GAME, QUICK, STRONG
from tests.workers.conftest import REPO, free_port_outside_the_ephemeral_range
from tests.workers.identity_bots import CAPACITY_FILE_ENV
from workers.identity import DESCRIBE_CACHE_S, IdentityCheck
from workers.local import run_local
from workers.service import Outcome, run_game

BOTS = "tests.workers.identity_bots"


@pytest.fixture
def others() -> Iterator[list[BotProcess]]:
    """Three reference bots of this test alone."""
    started = [start_bot_process(name, seed) for name, seed in ((STRONG, 0), ("random", 1), (STRONG, 2))]
    yield started
    for bot in started:
        bot.stop()


class Swappable:
    """A bot process on a fixed port that can be replaced by another program on the same port."""

    def __init__(self, bot: str) -> None:
        self.port = free_port_outside_the_ephemeral_range()
        self.process = start_bot_process(f"{BOTS}:{bot}", 3, threads=4, port=self.port)
        self.endpoint = self.process.endpoint

    def swap(self, bot: str) -> None:
        self.process.stop()
        self.process = start_bot_process(f"{BOTS}:{bot}", 3, threads=4, port=self.port)

    def stop(self) -> None:
        self.process.stop()


@pytest.fixture
def swappable(request: pytest.FixtureRequest) -> Iterator[Swappable]:
    bot = Swappable(request.param)
    yield bot
    bot.stop()


def season(db_url: str, others: list[BotProcess], bot: Swappable, name: str, games: int,
           suspend_after_s: float = 600) -> tuple[Store, int, list[str]]:
    """Register the three others and the swappable bot (its name last) and make a Slippery Sam season."""
    store = open_store(db_url, policy=POLICY)
    names = [register_or_update(store, f"{name}-{b.name}-{i}", b.endpoint, GrpcBotClient(b.endpoint).describe())
             for i, b in enumerate(others)]
    names.append(register_or_update(store, f"{name}-swapped", bot.endpoint, GrpcBotClient(bot.endpoint).describe()))
    sid = create_season(store, name, spec(GAME), names, [3], games, 11, params=dict(QUICK),
                        suspend_after_s=suspend_after_s)
    return store, sid, names


def play_until_seated(store: Store, sid: int, name: str, at_least: int) -> list[int]:
    """Play the season's games in schedule order in this process until ``name`` has played
    ``at_least`` of them; the ids played."""
    played: list[int] = []
    seated = 0
    for gid in store.seasons.next_pending(sid, 1000):
        assert run_game(store, gid).outcome == Outcome.DONE
        played.append(gid)
        game = store.game_reads.get_game(gid)
        assert game is not None
        seated += name in {s.bot_name for s in game.seats}
        if seated >= at_least:
            return played
    raise AssertionError(f"{name} never played {at_least} games")


@pytest.mark.parametrize("swappable", ["VersionOne"], indirect=True)
def test_a_reconnected_channel_reads_describe_again(swappable: Swappable) -> None:
    """With answers kept for an hour, only the reconnect can make the check read Describe again."""
    check = IdentityCheck(GrpcBotClient, ttl_s=3600)
    endpoint = swappable.endpoint
    first = check.describe([endpoint])[endpoint]
    assert first is not None and not isinstance(first, str) and first.name == "versioned"
    assert check.describe([endpoint])[endpoint] == first and check.reads == 1  # kept
    swappable.swap("Impostor")
    deadline = time.monotonic() + 120  # a bound, not a timing margin: the reconnect waits on gRPC's backoff
    while True:
        answer = check.describe([endpoint])[endpoint]
        if answer is not None and not isinstance(answer, str) and answer.name == "impostor":
            break
        assert time.monotonic() < deadline, "the reconnect did not make the check read Describe again"
        time.sleep(0.2)
    assert check.reads == 2


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize("swappable", ["VersionOne"], indirect=True)
def test_another_bot_behind_the_endpoint_is_deferred_never_rated_and_named(
        tmp_path, others: list[BotProcess], swappable: Swappable, backend: str, request: pytest.FixtureRequest,
        transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On each transport (the referee's client here and `season run`'s workers, by the setting)."""
    monkeypatch.setenv("CARDARENA_BOT_TRANSPORT", transport)
    get_settings.cache_clear()
    request.addfinalizer(get_settings.cache_clear)
    db_url = f"sqlite:///{tmp_path / 'swap.db'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    store, sid, names = season(db_url, others, swappable, "swapped", 16, suspend_after_s=2.0)
    victim = names[-1]
    victim_id = store.bots.get_bot_by_name(victim).id  # type: ignore[union-attr]
    before = play_until_seated(store, sid, victim, 3)
    assert store.bots.get_bot(victim_id).described_name == "versioned"  # type: ignore[union-attr]  # first check
    rated_before = {r.name: r.games for r in standings_of(store, sid)}[victim]
    assert rated_before >= 3

    swappable.swap("Impostor")
    # in this process: the channel reconnects to the other bot, and the next game with it is deferred
    pending = [g for g in store.game_reads.list_games(sid, status=GameStatus.PENDING, limit=100)
               if victim in {s.bot_name for s in g.seats}]
    deadline = time.monotonic() + 30
    while (result := run_game(store, pending[0].id)).outcome != Outcome.DEFERRED:
        assert result.outcome != Outcome.DONE, "a game was played against the other bot under the registered name"
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert f"{ANOTHER_BOT}impostor" in result.detail

    # `season run` names it, defers its games, suspends it after the setting, plays the rest
    run = subprocess.run([sys.executable, "-m", "cli.main", "season", "run", "swapped", "--db", db_url,
                          "--workers", "2"], cwd=REPO, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert f"{victim} at {swappable.endpoint}: {ANOTHER_BOT}impostor" in output, output
    assert f"{victim}: suspended" in output and ANOTHER_BOT in output, output

    games = store.game_reads.list_games(sid, limit=100)
    after = [g for g in games if g.id not in before]
    assert {g.status for g in games} <= {GameStatus.DONE, GameStatus.NOT_PLAYED}
    assert all(g.status == GameStatus.NOT_PLAYED for g in after if victim in {s.bot_name for s in g.seats})
    assert all(g.status == GameStatus.DONE for g in after if victim not in {s.bot_name for s in g.seats})
    # every game with the victim that was played, was played before the swap, by the registered bot
    assert {g.id for g in games if g.status == GameStatus.DONE and victim in {s.bot_name for s in g.seats}} <= set(before)
    rows = {r.name: r for r in standings_of(store, sid)}
    assert rows[victim].games == rated_before and rows[victim].suspended
    [status] = [a for a in store.seasons.season_availability(sid) if a.name == victim]
    assert status.reason is not None and status.reason.startswith(f"{ANOTHER_BOT}impostor")

    with TestClient(create_app(Settings(db_url=db_url))) as client:
        page = client.get(f"/bots/{victim_id}")
        assert page.status_code == 200 and f"{ANOTHER_BOT}impostor" in page.text
        assert f"{ANOTHER_BOT}impostor" in client.get(f"/seasons/{sid}").text
        problems = client.get(f"/api/v1/bots/{victim_id}").json()["problems"]
        assert problems[0]["season_id"] == sid and problems[0]["reason"].startswith(ANOTHER_BOT)


def game_spans(store: Store, sid: int, name: str) -> list[tuple[float, float, int]]:
    """``(started, finished, number)`` of the done games ``name`` played, from their replays."""
    spans = []
    for game in store.game_reads.list_games(sid, status=GameStatus.DONE, limit=1000):
        if name in {s.bot_name for s in game.seats}:
            record = store.replays.get_replay(game.id)
            assert record is not None
            spans.append((record.started_at, record.finished_at, game.number))
    return spans


def most_at_once(spans: list[tuple[float, float, int]]) -> int:
    """The most of ``spans`` that overlap at one moment."""
    edges = sorted([(a, 1) for a, _, _ in spans] + [(b, -1) for _, b, _ in spans], key=lambda e: (e[0], e[1]))
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_capacity_lowered_mid_season_is_honoured_from_the_next_game(
        tmp_path, others: list[BotProcess], backend: str, request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch) -> None:
    db_url = f"sqlite:///{tmp_path / 'cap.db'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    capacity = tmp_path / "capacity"
    capacity.write_text("3")
    monkeypatch.setenv(CAPACITY_FILE_ENV, str(capacity))
    adjustable = Swappable("Adjustable")
    try:
        store, sid, names = season(db_url, others, adjustable, "shrinking", 40)
        bot = names[-1]
        bot_id = store.bots.get_bot_by_name(bot).id  # type: ignore[union-attr]
        assert store.bots.get_bot(bot_id).capacity == 3  # type: ignore[union-attr]
        ids = store.seasons.next_pending(sid, 100)
        results: list = []
        runner = threading.Thread(target=lambda: results.extend(run_local(db_url, ids, processes=3)), daemon=True)
        runner.start()
        deadline = time.monotonic() + 120
        while len(game_spans(store, sid, bot)) < 2:
            assert time.monotonic() < deadline, "no game of the bot was played"
            time.sleep(0.1)
        capacity.write_text("1")  # the author lowers it; the bot keeps running
        lowered_at = time.time()
        runner.join(300)
        assert not runner.is_alive(), "the season did not finish"
    finally:
        adjustable.stop()
    assert sorted(r.game_id for r in results) == sorted(ids)
    assert store.bots.get_bot(bot_id).capacity == 1  # type: ignore[union-attr]  # what it declares now
    spans = game_spans(store, sid, bot)
    assert most_at_once([s for s in spans if s[1] < lowered_at]) > 1  # before, its games did overlap
    # games started once every worker read the new answer (at the latest when a kept answer runs
    # out): never two at once
    later = [s for s in spans if s[0] > lowered_at + DESCRIBE_CACHE_S]
    assert len(later) >= 3, (lowered_at, spans)
    assert most_at_once(later) == 1, f"games of {bot} overlap after its capacity was lowered to 1: {later}"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize("swappable", ["VersionOne"], indirect=True)
def test_a_version_changed_mid_season_is_recorded_per_game_and_no_update_relabels_the_past(
        tmp_path, others: list[BotProcess], swappable: Swappable, backend: str, request: pytest.FixtureRequest) -> None:
    db_url = f"sqlite:///{tmp_path / 'ver.db'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    store, sid, names = season(db_url, others, swappable, "versions", 16)
    bot = names[-1]
    bot_id = store.bots.get_bot_by_name(bot).id  # type: ignore[union-attr]

    def versions() -> dict[int, str | None]:
        return {g.id: s.version for g in store.game_reads.list_games(sid, status=GameStatus.DONE, limit=100)
                for s in g.seats if s.bot_name == bot}

    first = play_until_seated(store, sid, bot, 3)
    assert set(versions().values()) == {"1.0"}
    swappable.swap("VersionTwo")
    time.sleep(0.5)  # the old server's connections are closed: the channel reconnects at the next call
    second = play_until_seated(store, sid, bot, 3)
    by_game = versions()
    assert {by_game[g] for g in first if g in by_game} == {"1.0"}
    assert {by_game[g] for g in second if g in by_game} == {"2.0"}
    assert store.bots.get_bot(bot_id).version == "2.0"  # type: ignore[union-attr]

    # what `bot update --version` does (arena.registry: the version alone): no past game relabelled
    store.bots.update_bot(bot_id, version="2.0-hotfix")
    assert versions() == by_game
    third = play_until_seated(store, sid, bot, 1)  # Describe still says 2.0: the version set stays
    assert {versions()[g] for g in third if g in versions()} == {"2.0-hotfix"}
    played = versions()
    counts = {v: sum(1 for x in played.values() if x == v) for v in set(played.values())}

    with TestClient(create_app(Settings(db_url=db_url))) as client:
        detail = client.get(f"/api/v1/bots/{bot_id}").json()
        assert detail["version"] == "2.0-hotfix"
        assert {v["version"]: v["games"] for v in detail["versions"]} == counts
        assert [v["version"] for v in detail["versions"]] == ["1.0", "2.0", "2.0-hotfix"]  # in order of first play
        page = client.get(f"/bots/{bot_id}").text
        assert 'id="by-version"' in page and "<td>1.0</td>" in page and "<td>2.0</td>" in page
        game = client.get(f"/api/v1/games/{first[0]}").json()
        assert [s["version"] for s in game["seats"] if s["bot_name"] == bot] in ([], ["1.0"])


@pytest.mark.parametrize("swappable", ["VersionOne"], indirect=True)
def test_a_bot_enters_at_most_five_new_versions_a_day_in_ladders(tmp_path, swappable: Swappable) -> None:
    """Each new version is a new ladder entrant rated from scratch (rules §5.2), so a bot that declared versions
    without end could shed a bad rating at will. After five versions entered in a day, the next one declared by
    its Describe is a problem: its games wait as for another bot at its endpoint, its version stays, and serving
    the current version again clears it."""
    from datetime import UTC, datetime, timedelta

    from league.competition.ladder import create_ladder
    from league.entry.identity import MAX_NEW_VERSIONS, TOO_MANY_VERSIONS
    from workers.identity import bots_of

    store = open_store(f"sqlite:///{tmp_path / 'versions.db'}", policy=POLICY)
    bot = register_or_update(store, "versions-bot", swappable.endpoint, GrpcBotClient(swappable.endpoint).describe())
    bot_id = store.bots.get_bot_by_name(bot).id  # type: ignore[union-attr]
    lid = create_ladder(store, "versions-ladder", spec(GAME), [3], window=8, epoch_games=50)
    store.ladders.sync_entrants(lid)  # 1.0 entered
    for i in range(MAX_NEW_VERSIONS - 1):  # the operator's `bot update --version`: four more, within the hour
        store.bots.update_bot(bot_id, version=f"0.{i}")
        store.ladders.sync_entrants(lid)
    store.bots.update_bot(bot_id, version="1.0")  # back where Describe says: nothing new for the identity check
    assert store.bots.versions_entered_since(bot_id, datetime.now(UTC) - timedelta(hours=1)) == MAX_NEW_VERSIONS

    check = IdentityCheck(GrpcBotClient, ttl_s=3600)
    assert check.problems(store, bots_of(store, [bot_id])) == {}  # Describe says 1.0: no change
    swappable.swap("VersionTwo")
    time.sleep(0.5)  # the old server's connections are closed: the channel reconnects at the next call
    problems = check.problems(store, bots_of(store, [bot_id]))
    assert set(problems) == {bot_id} and problems[bot_id].startswith(TOO_MANY_VERSIONS)
    assert "'1.0' again" in problems[bot_id] and "rules §5.2" in problems[bot_id]
    assert store.bots.get_bot(bot_id).version == "1.0"  # type: ignore[union-attr]  # the version stays
    swappable.swap("VersionOne")
    time.sleep(0.5)
    assert check.problems(store, bots_of(store, [bot_id])) == {}
    store.close()
