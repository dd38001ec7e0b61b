"""The ladder's incremental fit and match state over a real store (SQLite and PostgreSQL, rules §5.4):
the checkpoint plus the games after it gives the full fit's ratings and intervals, whatever order the
games finished in and across a version change; the stored checkpoint is the same text whatever that
order; the matchmaker's state from the store's aggregates is the state of recording every table."""

from __future__ import annotations

import json
import random

import pytest

import league.competition.ladder as ladder_mod
from league.integrity import fairness
from league.competition.ladder import (
    LadderRunner,
    create_ladder,
    entrant_index,
    ladder_fit,
    match_state,
    played_counts,
    seat_entrants,
)
from league.competition.matchmaking import MatchState
from league.ratings.ratings_ml import fit_bradley_terry
from referee.games import spec
from store import GameStatus, Store
from tests.a_game import game_without_luck
from tests.store.conftest import finish

STRENGTH_ORDER = [3, 0, 2, 1]  # rank of each of the four bots (index in ``bots``): bot 1 best


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 7 games and pages of 5, so a few dozen games cross several blocks and pages."""
    monkeypatch.setattr(ladder_mod, "CHECKPOINT_BLOCK", 7)
    monkeypatch.setattr(ladder_mod, "READ_PAGE", 5)


def tables(bots: list[int], n: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [rng.sample(bots, 3) for _ in range(n)]


def schedule(store: Store, lid: int, bots: list[int], n: int, seed: int = 1) -> None:
    """Append ``n`` tables of 3 (drawn with ``seed``) to the ladder's open epoch."""
    store.ladders.sync_entrants(lid)
    epoch = store.ladders.current_epoch(lid)
    count = store.seasons.season_progress(epoch.id)["total"]
    games = [(10_000 + count + i, t) for i, t in enumerate(tables(bots, n, seed))]
    assert store.ladders.append_games(epoch.id, games, count)


def places(store: Store, gid: int, rank: dict[int, int], rng: random.Random) -> list[int]:
    """Places of a game: mostly by ``rank`` (bot id -> rank), sometimes upset, sometimes shared."""
    seats = [s.bot_id for s in store.game_reads.get_game(gid).seats]
    key = {b: rank[b] + rng.gauss(0, 1.2) for b in seats}
    order = sorted(seats, key=lambda b: key[b])
    out = [order.index(b) + 1 for b in seats]
    if rng.random() < 0.1:  # a shared place
        out = [min(p, 2) for p in out]
    return out


def pending(store: Store, lid: int) -> list[int]:
    return [g.id for g in store.ladders.ladder_games(lid, status=[GameStatus.PENDING])]


def full_fit(store: Store, lid: int):
    """``fit_bradley_terry`` over every done game of the ladder, read game by game (the reference)."""
    by_version, latest = entrant_index(store.ladders.entrants(lid))
    rated = []
    for g in store.ladders.ladder_games(lid, status=[GameStatus.DONE]):
        rated.append((seat_entrants(g.seats, by_version, latest), [p for _, _, p in g.seats]))
    return fit_bradley_terry(rated), len(rated)


def assert_same_fit(store: Store, lid: int) -> None:
    incremental = ladder_fit(store, lid)
    full, n = full_fit(store, lid)
    assert incremental.bots == full.bots
    for e in full.bots:
        assert incremental.rating[e] == pytest.approx(full.rating[e], abs=1e-4)
        assert incremental.sd(e) == pytest.approx(full.sd(e), rel=0.05)
        low, high = incremental.interval(e)
        flow, fhigh = full.interval(e)
        assert low == pytest.approx(flow, abs=0.1 * (fhigh - flow)) and high == pytest.approx(fhigh, abs=0.1 * (fhigh - flow))
    counts = played_counts(store, lid)
    assert sum(counts.values()) == 3 * n


def test_incremental_fit_is_the_full_fit_when_games_finish_out_of_order(store: Store, bots: list[int]) -> None:
    lid = create_ladder(store, "inc", spec(game_without_luck()), [3])
    rank = {b: STRENGTH_ORDER[i] for i, b in enumerate(bots)}
    rng = random.Random(5)
    schedule(store, lid, bots, 60)
    todo = pending(store, lid)
    rng.shuffle(todo)  # workers finish in any order
    for k, gid in enumerate(todo):
        finish(store, gid, places(store, gid, rank, rng))
        if k % 9 == 4:
            assert_same_fit(store, lid)  # checkpoint moves forward block by block meanwhile
    assert_same_fit(store, lid)
    _, through = store.ladders.fit_checkpoint(lid)
    ids = sorted(g.id for g in store.ladders.ladder_games(lid))
    assert through == ids[7 * (60 // 7) - 1]  # whole blocks of 7, all final
    best = max(ladder_fit(store, lid).rating.items(), key=lambda kv: kv[1])[0]
    assert {e.id: e.bot_id for e in store.ladders.entrants(lid)}[best] == bots[1]


def test_a_pending_game_holds_the_checkpoint_and_later_games_are_still_rated(store: Store, bots: list[int]) -> None:
    lid = create_ladder(store, "hold", spec(game_without_luck()), [3])
    rank = {b: STRENGTH_ORDER[i] for i, b in enumerate(bots)}
    rng = random.Random(2)
    schedule(store, lid, bots, 30)
    todo = pending(store, lid)
    held = todo[3]
    for gid in todo:
        if gid != held:
            finish(store, gid, places(store, gid, rank, rng))
    assert_same_fit(store, lid)
    assert store.ladders.fit_checkpoint(lid)[1] == -1  # the first block has a game still pending
    finish(store, held, places(store, held, rank, rng))
    assert_same_fit(store, lid)
    assert store.ladders.fit_checkpoint(lid)[1] == sorted(todo)[27]


def checkpoint_by_bot(store: Store, lid: int) -> dict:
    """The stored checkpoint with each entrant id replaced by ``bot@version`` (two ladders compared)."""
    text, _ = store.ladders.fit_checkpoint(lid)
    entrants = {e.id: f"{e.bot_id}@{e.version}" for e in store.ladders.entrants(lid)}
    data = json.loads(text)
    bt = data["bt"]
    bt["pairs"] = [[entrants[a], entrants[b], w, n] for a, b, w, n in bt["pairs"]]
    bt["meat"] = [[entrants[a], entrants[b], v] for a, b, v in bt["meat"]]
    bt["theta"] = [[entrants[e], t] for e, t in bt["theta"]]
    data["played"] = [[entrants[e], n] for e, n in data["played"]]
    return data


def two_ladders(store: Store, bots: list[int]) -> tuple[int, int, list[tuple[int, int, list[int]]]]:
    """Two ladders with the same 40 tables; ``(one, two, [(game of one, game of two, places)])``."""
    one = create_ladder(store, "one", spec(game_without_luck()), [3])
    two = create_ladder(store, "two", spec(game_without_luck()), [3])
    for lid in (one, two):
        schedule(store, lid, bots, 40, seed=3)
    rank = {b: STRENGTH_ORDER[i] for i, b in enumerate(bots)}
    rng = random.Random(9)
    return one, two, [(g1, g2, places(store, g1, rank, rng))
                      for g1, g2 in zip(pending(store, one), pending(store, two), strict=True)]


def test_the_checkpoint_is_the_same_text_whatever_order_games_finished_in(store: Store, bots: list[int]) -> None:
    one, two, games = two_ladders(store, bots)
    in_order = list(games)
    shuffled = list(games)
    rng = random.Random(3)
    for k in range(0, len(shuffled), 5):  # workers finish neighbours in any order
        chunk = shuffled[k:k + 5]
        rng.shuffle(chunk)
        shuffled[k:k + 5] = chunk
    for (g1, _, p1), (_, g2, p2) in zip(in_order, shuffled, strict=True):
        finish(store, g1, p1)
        finish(store, g2, p2)
        ladder_fit(store, one)
        ladder_fit(store, two)
    a, b = checkpoint_by_bot(store, one), checkpoint_by_bot(store, two)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert len(a["bt"]["pairs"]) == 6 and sum(n for _, n in a["played"]) == 3 * 35


def test_blocks_caught_up_at_once_give_the_same_checkpoint_but_for_the_sandwich(store: Store, bots: list[int]) -> None:
    one, two, games = two_ladders(store, bots)
    for g1, _, p in games:
        finish(store, g1, p)
        ladder_fit(store, one)
    for _, g2, p in reversed(games):  # the first block completes last: all five at one look
        finish(store, g2, p)
    ladder_fit(store, two)
    a, b = checkpoint_by_bot(store, one), checkpoint_by_bot(store, two)
    assert a["played"] == b["played"] and a["bt"]["pairs"] == b["bt"]["pairs"]
    assert [x for x, _ in a["bt"]["theta"]] == [x for x, _ in b["bt"]["theta"]]
    for (_, t1), (_, t2) in zip(a["bt"]["theta"], b["bt"]["theta"], strict=True):
        assert t1 == pytest.approx(t2, abs=1e-8)
    fa, fb = ladder_fit(store, one), ladder_fit(store, two)
    entrant_of = {e.id: e.bot_id for lid in (one, two) for e in store.ladders.entrants(lid)}
    sd_a = {entrant_of[e]: fa.sd(e) for e in fa.bots}
    sd_b = {entrant_of[e]: fb.sd(e) for e in fb.bots}
    assert sd_a == pytest.approx(sd_b, rel=0.05)


def test_a_new_version_is_rated_apart_incrementally(store: Store, bots: list[int]) -> None:
    a = bots[0]
    lid = create_ladder(store, "ver", spec(game_without_luck()), [3])
    rank = {b: STRENGTH_ORDER[i] for i, b in enumerate(bots)}
    rng = random.Random(4)
    schedule(store, lid, bots, 20, seed=1)
    for gid in pending(store, lid):
        finish(store, gid, places(store, gid, rank, rng))
    assert_same_fit(store, lid)
    store.bots.update_bot(a, version="2.0")
    rank[a] = -1  # the new version is the best
    schedule(store, lid, bots, 25, seed=2)
    todo = pending(store, lid)
    rng.shuffle(todo)
    for k, gid in enumerate(todo):
        finish(store, gid, places(store, gid, rank, rng))
        if k == 10:
            assert_same_fit(store, lid)
    assert_same_fit(store, lid)
    entrants = {(e.bot_id, e.version): e.id for e in store.ladders.entrants(lid)}
    counts = played_counts(store, lid)
    assert counts[entrants[(a, "1.0")]] > 0 and counts[entrants[(a, "2.0")]] > 0


def test_the_match_state_from_aggregates_is_the_state_of_every_table(store: Store, bots: list[int],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # the epochs' keys from a seeded stream, so the tables drawn (and so the room left for the fresh runner's
    # table at the end) are the same in every run: a fresh secret key each run left no table to seat now and then
    keys = random.Random(1)
    monkeypatch.setattr(fairness, "new_key", lambda: keys.randbytes(32))
    store.bots.register_bot("e", "127.0.0.1:5100", "1.0", "t", [game_without_luck()], capacity=3)
    lid = create_ladder(store, "ms", spec(game_without_luck()), [3, 4], window=6)
    runner = LadderRunner(store, lid)
    rng = random.Random(1)
    for step in range(12):
        runner.refill()
        if step == 6:
            store.bots.update_bot(bots[2], version="2.0")
        todo = pending(store, lid)
        for gid in todo[: len(todo) - 2]:  # some stay pending (no version yet)
            seats = store.game_reads.get_game(gid).seats
            finish(store, gid, rng.sample(range(1, len(seats) + 1), len(seats)))
    by_version, latest = entrant_index(store.ladders.entrants(lid))
    want = MatchState.from_tables(seat_entrants(g.seats, by_version, latest) for g in store.ladders.ladder_games(lid))
    got, last = match_state(store, lid, by_version, latest)
    assert last == max(g.id for g in store.ladders.ladder_games(lid))
    assert (got.games, got.played, got.last_met, got.first_seat, got.last_seat) == \
        (want.games, want.played, want.last_met, want.first_seat, want.last_seat)
    assert got.seat_counts == want.seat_counts
    assert (got.met, got.met_pairs, got.met_bits) == (want.met, want.met_pairs, want.met_bits)  # its fast reading
    # a new runner starts from the aggregates and follows on from there
    fresh = LadderRunner(store, lid)
    assert fresh.refill().added > 0
    # the tables it just added, as its next refill records them
    fresh._follow(store.ladders.refill_view(lid, fresh._seen).new_games, by_version, latest)
    assert fresh.state.games == len(store.ladders.ladder_games(lid))
