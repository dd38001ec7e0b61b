"""Claims within the bots' capacity, under real concurrency, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from league.competition.seasons import create_season
from league.policy import POLICY
from referee.bots import load_bot
from referee.clients import GrpcBotClient
from referee.games import spec
from store import BotsBusy, Claim, Store, open_store
from tests.a_game import GAME, QUICK
from tests.workers.slowbots import SleepyOdds
from workers.service import SEND_FENCE, Heartbeat, Outcome, run_game
from workers.sweeper import sweep


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'claims.db'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    st = open_store(url, policy=POLICY)
    yield st
    st.close()


def season(store: Store, capacity: int, games: int) -> tuple[int, list[int]]:
    """A season of GAME, of ``games`` games, all with bot 'x' (capacity ``capacity``) and two roomy bots."""
    x = store.bots.register_bot("x", "127.0.0.1:1", "1", "t", [GAME], capacity=capacity)
    others = [store.bots.register_bot(n, "127.0.0.1:2", "1", "t", [GAME], capacity=100) for n in ("y", "z")]
    sid = store.seasons.create_season("s", GAME, {}, {}, 1, {}, [(i, [x, *others]) for i in range(games)])
    return sid, store.seasons.next_pending(sid, games)


def claim_at_once(store: Store, games: list[int]) -> dict[int, Claim | BotsBusy | None]:
    """Each of ``games`` claimed within capacity by a thread of its own, all released at once by a barrier."""
    barrier = threading.Barrier(len(games))
    results: dict[int, Claim | BotsBusy | None] = {}

    def claim(gid: int) -> None:
        barrier.wait()
        results[gid] = store.games.claim_within_capacity(gid, f"t{gid}", 30)

    threads = [threading.Thread(target=claim, args=(gid,)) for gid in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.parametrize("capacity", [1, 3])
def test_concurrent_claims_never_exceed_a_bots_capacity(store: Store, capacity: int) -> None:
    _, games = season(store, capacity, 12)
    results = claim_at_once(store, games)
    claimed = [gid for gid, r in results.items() if isinstance(r, Claim)]
    busy = [r for r in results.values() if isinstance(r, BotsBusy)]
    assert len(claimed) == capacity and len(busy) == len(games) - capacity
    assert all(b.bots == (("x", capacity),) and str(b) == f"waiting for x (capacity {capacity})" for b in busy)
    # room again once a game ends: voiding one lets exactly one more in
    store.games.void_game(claimed[0], 1, "test")
    waiting = [gid for gid in games if gid not in claimed]
    again = [store.games.claim_within_capacity(gid, "late", 30) for gid in waiting]
    assert sum(isinstance(r, Claim) for r in again) == 1


def test_one_rotation_of_a_deal_at_a_time_under_concurrent_claims(store: Store) -> None:
    """rules §0.6: of a deal group's rotations claimed at once (bots with room for them all), exactly one
    starts; the others are refused naming the rotation in play, and another group's game is not held back.
    Once the rotation ends, exactly one more of its group starts."""
    bots = [store.bots.register_bot(n, "127.0.0.1:2", "1", "t", [GAME], capacity=100) for n in ("a", "b", "c")]
    sid = store.seasons.create_season("dup", GAME, {}, {}, 1, {}, [(7, bots)] * 4 + [(8, bots)],
                                      deal_groups=[0, 0, 0, 0, 1])
    games = store.seasons.next_pending(sid, 5)
    results = claim_at_once(store, games)
    group = games[:4]
    started = [gid for gid in group if isinstance(results[gid], Claim)]
    assert len(started) == 1 and isinstance(results[games[4]], Claim)
    number = results[started[0]].number  # type: ignore[union-attr]
    refused = [results[gid] for gid in group if gid not in started]
    assert all(isinstance(r, BotsBusy) and r.rotation == number and r.bots == () for r in refused)
    assert str(refused[0]) == f"waiting for game {number}, a rotation of the same deal, to end"
    store.games.void_game(started[0], 1, "test")  # the rotation ends (here: voided, pending again)
    again = [store.games.claim_within_capacity(gid, "late", 30) for gid in group]
    assert sum(isinstance(r, Claim) for r in again) == 1


def test_the_service_leaves_a_busy_game_pending(store: Store, bot_server) -> None:  # type: ignore[no-untyped-def]
    _, (first, second) = season(store, 1, 2)
    endpoint = bot_server(load_bot("random", 1))  # the bots answer their health check: only capacity holds it back
    for bot in store.bots.list_bots():
        store.bots.update_bot(bot.id, endpoint=endpoint)
    assert isinstance(store.games.claim_within_capacity(first, "other", 30), Claim)
    result = run_game(store, second, lease_s=5)
    assert result.outcome == Outcome.BUSY and result.detail == "waiting for x (capacity 1)"
    assert store.game_reads.get_game(second).status == "pending" and store.game_reads.attempts(second) == []  # type: ignore[union-attr]
    assert run_game(store, first, lease_s=5).outcome == Outcome.SKIPPED  # running elsewhere: left alone


class Slow(SleepyOdds):
    """The odds bot at 250 ms per decision: a game outlasts a 1 s lease several times."""

    sleep_s = 0.25


def test_the_heartbeat_keeps_a_long_game_through_the_sweeper(store: Store, bot_server) -> None:  # type: ignore[no-untyped-def]
    names = []
    for i in range(3):
        endpoint = bot_server(Slow(seed=i), threads=4)
        store.bots.register_bot(f"slow{i}", endpoint, "1", "t", [GAME], capacity=4)
        names.append(f"slow{i}")
    season_id = create_season(store, "long", spec(GAME), names, [3], 1, 1, params=dict(QUICK))
    (game_id,) = store.seasons.next_pending(season_id, 1)
    stop = threading.Event()
    swept: list[int] = []

    def sweeper() -> None:
        while not stop.wait(0.05):
            swept.extend(sweep(store))

    thread = threading.Thread(target=sweeper)
    thread.start()
    started = time.monotonic()
    try:
        # lease 1 s, renewed every 1/3 s: a stall of the heartbeat thread under load must pass 2/3 s to lose it
        result = run_game(store, game_id, lease_s=1.0)
    finally:
        stop.set()
        thread.join()
    elapsed = time.monotonic() - started
    assert elapsed > 3.0  # three leases long
    assert result.outcome == Outcome.DONE and swept == []
    # the run's time in the store (claim, result) is measured apart from the game it played
    assert 0 < result.store_s < elapsed / 2
    assert [a.outcome.value for a in store.game_reads.attempts(game_id)] == ["done"]  # type: ignore[union-attr]


class Counted(SleepyOdds):
    """The odds bot, counting the requests that reach it."""

    sleep_s = 0.0

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.requests = 0

    def decide(self, field: str, view: Any, ctx: Any) -> Any:
        self.requests += 1
        return super().decide(field, view, ctx)


def test_a_call_held_up_past_the_lease_is_never_sent_and_nothing_is_stored(
        store: Store, bot_server, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """run_game gives each client its attempt's fence: a stall of the whole process (the heartbeat's renewals
    stop too) that falls after the referee's check and before the send, while the lease runs out and the sweeper
    releases the game, withholds the call; the referee's confirmation then finds the lease lost, the attempt ends
    STALE with nothing stored, and the bot never sees the request."""
    bots = [Counted(seed=i) for i in range(3)]
    names = []
    for i, bot in enumerate(bots):
        store.bots.register_bot(f"c{i}", bot_server(bot, threads=4), "1", "t", [GAME], capacity=4)
        names.append(f"c{i}")
    season_id = create_season(store, "stall", spec(GAME), names, [3], 1, 1, params=dict(QUICK))
    (game_id,) = store.seasons.next_pending(season_id, 1)
    lease_s, stall_at, sent = 1.5, 6, []
    real_call, real_renew = GrpcBotClient.call_bytes, Heartbeat.renew
    stalled = threading.Event()

    def call_bytes(self: GrpcBotClient, request: Any, timeout_s: float) -> bytes:
        sent.append(1)
        if len(sent) == stall_at:  # past the referee's check, before the send: the whole process stops
            stalled.set()
            deadline = time.monotonic() + 10 * lease_s
            while not sweep(store):  # meanwhile the lease runs out and the sweeper releases the game
                assert time.monotonic() < deadline, "the lease never ran out"
                time.sleep(0.1)
            stalled.clear()  # the process resumes
        return real_call(self, request, timeout_s)

    def renew(self: Heartbeat, live: Any = None) -> bool | None:
        return real_renew(self, live) if not stalled.is_set() else None  # stopped with the process

    monkeypatch.setattr(GrpcBotClient, "call_bytes", call_bytes)
    monkeypatch.setattr(Heartbeat, "renew", renew)
    result = run_game(store, game_id, lease_s=lease_s)
    assert result.outcome == Outcome.STALE and "call not sent" in result.detail, result
    assert sum(b.requests for b in bots) == stall_at - 1  # the held-up request never reached its bot
    game = store.game_reads.get_game(game_id)
    attempts = [(a.outcome.value if a.outcome else None, a.detail) for a in store.game_reads.attempts(game_id)]
    assert game.status.value == "pending" and attempts == [("voided", "lease expired")], (game, attempts)
