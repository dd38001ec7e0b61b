"""Capacity per bot: a bot that says capacity 1 (served with one thread) never plays two games at once."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.games import spec
from store import open_store
from tests.a_game import GAME, QUICK
from tests.workers.conftest import Workers
from tests.workers.conftest import register
from tests.workers.test_celery_season import assert_each_game_once
from tests.workers.test_failures import Follow
from workers.local import run_local
from workers.tasks import BUSY_COUNTDOWN_S


def check_one_at_a_time(db_url: str, season_id: int, slow: str) -> int:
    """Assert the slow bot's games never overlap (game times and its decisions' send times) and
    no seat faulted; returns the number of its games."""
    store = open_store(db_url, policy=POLICY)
    spans = []
    for game in store.game_reads.list_games(season_id, limit=10**6):
        record = store.replays.get_replay(game.id)
        assert record is not None and record.faults == [], (game.number, record and record.faults)
        seats = [s.seat for s in game.seats if s.bot_name == slow]
        if seats:
            sent = [d.sent_at for d in record.decisions if d.seat == seats[0]]
            assert record.started_at <= min(sent) <= max(sent) <= record.finished_at
            spans.append((record.started_at, record.finished_at, game.number))
    for (a0, a1, an), (b0, b1, bn) in combinations(sorted(spans), 2):
        assert a1 <= b0 or b1 <= a0, f"games {an} and {bn} of {slow} overlap"
    return len(spans)


def test_a_capacity_1_bot_plays_one_game_at_a_time_on_two_workers(
        workers: Workers, db_url: str, broker: str, reference_bots: list[BotProcess]) -> None:
    slow = start_bot_process("tests.workers.slowbots:OneAtATime", 5, threads=1)
    try:
        store = open_store(db_url, policy=POLICY)
        names = register(store, [*reference_bots, slow])
        assert store.bots.get_bot_by_name(names[4]).capacity == 1  # from its Describe
        season_id = create_season(store, "capacity", spec(GAME), names, [3], 30, 3, params=dict(QUICK))
        workers.start(concurrency=2)
        workers.start(concurrency=2)
        progress = Follow(store, broker, season_id).join()
        assert_each_game_once(store, season_id, progress["total"])
        assert check_one_at_a_time(db_url, season_id, names[4]) >= 10
    finally:
        slow.stop()


def test_the_local_pool_respects_capacity_too(tmp_path: Path, reference_bots: list[BotProcess]) -> None:
    slow = start_bot_process("tests.workers.slowbots:OneAtATime", 6, threads=1)
    try:
        db_url = f"sqlite:///{tmp_path / 'pool.db'}"
        store = open_store(db_url, policy=POLICY)
        names = register(store, [*reference_bots, slow])
        season_id = create_season(store, "capacity-pool", spec(GAME), names, [3], 16, 4, params=dict(QUICK))
        results = run_local(db_url, store.seasons.next_pending(season_id, 100), processes=3)
        assert sorted(r.game_id for r in results) == sorted(g.id for g in store.game_reads.list_games(season_id))
        assert check_one_at_a_time(db_url, season_id, names[4]) >= 6
    finally:
        slow.stop()
    assert BUSY_COUNTDOWN_S <= 1.0  # a full bot delays a game by about this, not by a broker redelivery


def test_the_local_pool_plays_one_rotation_of_a_deal_at_a_time(tmp_path: Path,
                                                              reference_bots: list[BotProcess]) -> None:
    """rules §0.6: in a duplicate season on three pool processes, bots with room for many games at once never
    play two rotations of one deal at the same time (so the order they played them, which the audit reads, is
    the order they could learn in), and every game is played once."""
    db_url = f"sqlite:///{tmp_path / 'dup.db'}"
    store = open_store(db_url, policy=POLICY)
    names = register(store, reference_bots)
    for name in names:
        store.bots.update_bot(store.bots.get_bot_by_name(name).id, capacity=8)
    season_id = create_season(store, "dup-pool", spec(GAME), names, [3], 36, 5, params=dict(QUICK), duplicate=True)
    results = run_local(db_url, store.seasons.next_pending(season_id, 100), processes=3)
    games = store.game_reads.list_games(season_id, limit=10**6)
    assert sorted(r.game_id for r in results) == sorted(g.id for g in games)
    spans: dict[int, list[tuple[float, float, int]]] = {}
    deals = {number: group for _, number, group, _, _ in store.seasons.season_deals(season_id)}
    for game in games:
        record = store.replays.get_replay(game.id)
        assert record is not None
        spans.setdefault(deals[game.number], []).append((record.started_at, record.finished_at, game.number))
    assert len(spans) == 12 and all(len(s) == 3 for s in spans.values())
    for group in spans.values():
        for (a0, a1, an), (b0, b1, bn) in combinations(sorted(group), 2):
            assert a1 <= b0, f"games {an} and {bn}, rotations of one deal, overlap"
    # the store's start times order each group as the records' do: the order the audit reads
    played = store.seasons.played_at(season_id)
    for group in spans.values():
        by_record = [n for _, _, n in sorted(group)]
        assert by_record == sorted(by_record, key=played.__getitem__)
