"""The store's operations and the life of a game (rules §4.3), on both databases."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from league.competition.standings import standings_of
from referee.record import EndReason
from store import (
    AttemptInfo,
    GameStatus,
    InvalidRecord,
    NameTaken,
    NotFound,
    SeasonExists,
    SeasonStatus,
    Store,
    VoidResult,
)
from referee.games import games as registered_games
from tests.a_game import GAME, game_without_luck, games_of
from tests.store.conftest import finish, make_record, quick_params

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


# ---------------------------------------------------------------- bots


def test_register_and_read_bots(store: Store) -> None:
    bot_id = store.bots.register_bot("alpha", "10.0.0.1:50051", "2.1", "ann", [GAME], capacity=4, token_hash="h")
    bot = store.bots.get_bot(bot_id)
    assert bot is not None
    assert (bot.name, bot.endpoint, bot.version, bot.author, bot.games, bot.capacity, bot.token_hash) == (
        "alpha", "10.0.0.1:50051", "2.1", "ann", (GAME,), 4, "h")
    assert bot.created_at.tzinfo is not None and bot.retired_at is None
    assert store.bots.get_bot_by_name("alpha") == bot
    assert store.bots.get_bot(999) is None and store.bots.get_bot_by_name("nobody") is None
    other = store.bots.register_bot("beta", "h:2", "1", "bob", [g for g in registered_games() if g != GAME] or [GAME])
    assert store.bots.get_bot(other).capacity == 1  # type: ignore[union-attr]
    store.games.retire_bot(other)
    assert [b.name for b in store.bots.list_bots()] == ["alpha", "beta"]
    assert [b.name for b in store.bots.list_bots(include_retired=False)] == ["alpha"]


def test_update_bot(store: Store) -> None:
    bot_id = store.bots.register_bot("alpha", "h:1", "1", "ann", [GAME])
    bot = store.bots.update_bot(bot_id, endpoint="h:2", version="2", games=games_of(GAME), capacity=3)
    assert (bot.endpoint, bot.version, bot.author, bot.games, bot.capacity) == ("h:2", "2", "ann",
                                                                                tuple(games_of(GAME)), 3)
    assert store.bots.get_bot(bot_id) == bot
    assert store.bots.update_bot(bot_id) == bot  # nothing to change
    with pytest.raises(NotFound):
        store.bots.update_bot(999, version="3")
    with pytest.raises(ValueError):
        store.bots.update_bot(bot_id, capacity=0)


def test_name_taken(store: Store) -> None:
    store.bots.register_bot("alpha", "h:1", "1", "ann", [GAME])
    with pytest.raises(NameTaken, match="alpha"):
        store.bots.register_bot("alpha", "h:2", "2", "bob", [GAME])
    assert len(store.bots.list_bots()) == 1


@pytest.mark.parametrize(("games", "capacity"), [(["poker"], 1), ([GAME], 0)])
def test_register_rejects_bad_values(store: Store, games: list[str], capacity: int) -> None:
    with pytest.raises(ValueError):
        store.bots.register_bot("x", "h:1", "1", "a", games, capacity=capacity)


# ------------------------------------------------------------- seasons


def test_create_season_writes_all_games(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    tables = [[a, b, c], [b, c, d], [c, d, a], [d, a, b]]
    game, clock = game_without_luck(), {"deadline_ms": 800}
    sid = store.seasons.create_season("s1", game, quick_params(game), clock, 7, {"table_size": 3},
                              [(100 + i, t) for i, t in enumerate(tables)])
    season = store.seasons.get_season(sid)
    assert season is not None and season == store.seasons.get_season_by_name("s1")
    assert (season.game, season.params, season.time_control, season.seed, season.config, season.status) == (
        game, quick_params(game), clock, 7, {"table_size": 3}, SeasonStatus.SCHEDULED)
    assert store.seasons.season_progress(sid) == {"pending": 4, "running": 0, "done": 0, "failed": 0, "not_played": 0, "cancelled": 0,
                                             "total": 4}
    games = store.game_reads.list_games(sid)
    assert [g.number for g in games] == [0, 1, 2, 3]
    assert [g.seed for g in games] == [100, 101, 102, 103]
    assert [[s.bot_id for s in g.seats] for g in games] == tables
    assert games[1].seats[0].bot_name == "b" and games[1].seats[0].place is None
    assert store.seasons.next_pending(sid, limit=3) == [g.id for g in games[:3]]
    assert [s.name for s in store.seasons.list_seasons()] == ["s1"]
    assert [g.number for g in store.game_reads.list_games(sid, bot_id=a)] == [0, 2, 3]
    assert [g.number for g in store.game_reads.list_games(sid, offset=1, limit=2)] == [1, 2]


def test_create_season_refusals(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    make_season([bots[:3]], name="taken")
    with pytest.raises(SeasonExists, match="taken"):
        make_season([bots[:3]], name="taken")
    with pytest.raises(NotFound, match="999"):
        make_season([[bots[0], 999, bots[1]]])
    with pytest.raises(ValueError, match="unknown game"):
        store.seasons.create_season("x", "chess", {}, {}, 1, {}, [(1, bots[:2])])
    with pytest.raises(ValueError):
        store.seasons.create_season("x", game_without_luck(), {}, {}, 1, {}, [])
    with pytest.raises(ValueError):
        store.seasons.create_season("x", game_without_luck(), {}, {}, 1, {}, [(2**63, bots[:2])])
    assert [s.name for s in store.seasons.list_seasons()] == ["taken"]  # nothing half-written
    with pytest.raises(NotFound):
        store.seasons.season_progress(12345)


def test_big_seeds_round_trip(store: Store, bots: list[int]) -> None:
    sid = store.seasons.create_season("big", game_without_luck(), {}, {}, 2**63 - 1, {}, [(2**63 - 2, bots[:3])])
    assert store.seasons.get_season(sid).seed == 2**63 - 1  # type: ignore[union-attr]
    assert store.game_reads.list_games(sid)[0].seed == 2**63 - 2


# ---------------------------------------------------------- game life


def test_claim_holds_everything_to_referee_the_game(store: Store, bots: list[int],
                                                     make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3]], name="one")
    gid = store.seasons.next_pending(sid)[0]
    claim = store.games.claim_game(gid, "host:1", 30, now=T0)
    assert claim is not None
    assert (claim.game_id, claim.season_id, claim.season_name, claim.number, claim.attempt) == (gid, sid, "one", 0, 1)
    game = game_without_luck()
    assert (claim.game, claim.params, claim.time_control, claim.seed) == (game, quick_params(game),
                                                                          {"deadline_ms": 1000}, 1000)
    assert [(s.seat, s.bot_id, s.name, s.endpoint, s.capacity) for s in claim.seats] == [
        (0, bots[0], "a", "127.0.0.1:5000", 2), (1, bots[1], "b", "127.0.0.1:5001", 2),
        (2, bots[2], "c", "127.0.0.1:5002", 2)]
    assert claim.lease_owner == "host:1" and claim.lease_expires_at == T0 + timedelta(seconds=30)
    assert store.games.claim_game(gid, "host:2", 30, now=T0) is None  # second claim: nothing
    game = store.game_reads.get_game(gid)
    assert game is not None
    assert (game.status, game.attempts, game.lease_owner, game.started_at) == (GameStatus.RUNNING, 1, "host:1", T0)
    assert store.seasons.get_season(sid).status == SeasonStatus.RUNNING  # type: ignore[union-attr]
    assert store.seasons.season_progress(sid)["running"] == 1
    assert store.seasons.next_pending(sid) == []
    assert store.game_reads.attempts(gid) == [AttemptInfo(1, "host:1", T0, None, None, None)]
    with pytest.raises(NotFound):
        store.games.claim_game(98765, "w", 30)


def test_finish_stores_results_replay_and_ratings(store: Store, bots: list[int],
                                                  make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3], bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    claim = store.games.claim_game(gid, "w", 60)
    assert claim is not None
    record = make_record(claim, [2, 1, 3], changes=[5, 40, -45], faults=[0, 1, 3])
    assert store.games.finish_game(gid, claim.attempt, record)
    game = store.game_reads.get_game(gid)
    assert game is not None
    assert (game.status, game.reason, game.lease_owner) == (GameStatus.DONE, "completed", None)
    assert [(s.place, s.score, s.change, s.faults, s.retired) for s in game.seats] == [
        (2, 1005, 5, 0, False), (1, 1040, 40, 1, False), (3, 955, -45, 3, True)]
    assert store.replays.get_replay(gid) == record  # compressed, decompressed, equal
    assert store.replays.get_replay(store.seasons.next_pending(sid)[0]) is None
    assert store.game_reads.attempts(gid)[0].outcome == "done"
    # 1500 each, places (2, 1, 3): the winner +16, the middle 0, the last -16 (see test_ratings).
    assert store.season_reads.ratings(sid) == {bots[1]: 1516.0, bots[0]: 1500.0, bots[2]: 1484.0}
    assert store.seasons.get_season(sid).status == SeasonStatus.RUNNING  # type: ignore[union-attr]
    finish(store, store.seasons.next_pending(sid)[0], [1, 2, 3])
    season = store.seasons.get_season(sid)
    assert season is not None and season.status == SeasonStatus.DONE and season.finished_at is not None


def test_replay_is_stored_compressed(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    from sqlalchemy import select

    from store.models import Replay
    sid = make_season([bots[:3]])
    gid = finish(store, store.seasons.next_pending(sid)[0], [1, 2, 3]).game_id
    with store.engine.connect() as conn:
        blob, size = conn.execute(select(Replay.record, Replay.json_size).where(Replay.game_id == gid)).one()
    assert size > 10_000 and len(blob) < size / 5


def test_finishing_twice_counts_once(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    claim = store.games.claim_game(gid, "w", 60)
    assert claim is not None
    record = make_record(claim, [1, 2, 3])
    assert store.games.finish_game(gid, claim.attempt, record) is True
    ratings = store.season_reads.ratings(sid)
    assert store.games.finish_game(gid, claim.attempt, make_record(claim, [3, 2, 1])) is False
    assert store.season_reads.ratings(sid) == ratings
    assert store.replays.get_replay(gid) == record
    assert [r.games for r in standings_of(store, sid)] == [1, 1, 1]


def test_a_stale_attempt_writes_nothing(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    first = store.games.claim_game(gid, "w1", 60)
    assert first is not None
    assert store.games.void_game(gid, first.attempt, "worker lost") == VoidResult.PENDING
    second = store.games.claim_game(gid, "w2", 60)
    assert second is not None and second.attempt == 2
    assert store.games.finish_game(gid, first.attempt, make_record(first, [1, 2, 3])) is False  # stale
    assert store.games.void_game(gid, first.attempt, "late") == VoidResult.STALE
    game = store.game_reads.get_game(gid)
    assert game is not None and game.status == GameStatus.RUNNING and game.attempts == 2
    assert all(s.place is None for s in game.seats)
    assert store.replays.get_replay(gid) is None and store.season_reads.ratings(sid) == {}
    assert store.games.finish_game(gid, second.attempt, make_record(second, [3, 2, 1])) is True
    assert [a.outcome for a in store.game_reads.attempts(gid)] == ["voided", "done"]
    assert [a.worker for a in store.game_reads.attempts(gid)] == ["w1", "w2"]


def test_void_then_reclaim(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    claim = store.games.claim_game(gid, "w", 60)
    assert claim is not None
    assert store.games.void_game(gid, 1, "referee error: boom") == VoidResult.PENDING
    game = store.game_reads.get_game(gid)
    assert game is not None
    assert (game.status, game.attempts, game.reason, game.detail) == (GameStatus.PENDING, 1, "voided",
                                                                       "referee error: boom")
    assert store.seasons.next_pending(sid) == [gid]
    again = store.games.claim_game(gid, "w", 60)
    assert again is not None and again.attempt == 2
    assert store.game_reads.attempts(gid)[0].outcome == "voided"
    assert store.game_reads.attempts(gid)[0].detail == "referee error: boom"


def test_three_voids_fail_the_game_and_it_is_not_rated(store: Store, bots: list[int],
                                                       make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3], bots[1:4]])
    first, second = store.seasons.next_pending(sid)
    results = []
    for _ in range(3):
        claim = store.games.claim_game(first, "w", 60)
        assert claim is not None
        results.append(store.games.void_game(first, claim.attempt, f"store down ({claim.attempt})"))
    assert results == [VoidResult.PENDING, VoidResult.PENDING, VoidResult.FAILED]
    game = store.game_reads.get_game(first)
    assert game is not None
    assert (game.status, game.attempts, game.reason) == (GameStatus.FAILED, 3, EndReason.FAILED.value)
    assert game.detail == "voided 3 times; last: store down (3)"
    assert store.games.claim_game(first, "w", 60) is None
    assert store.season_reads.ratings(sid) == {}
    finish(store, second, [1, 2, 3])
    rows = {r.name: r for r in standings_of(store, sid)}
    assert rows["a"].games == 0 and rows["a"].elo == 1500.0  # the failed game is shown, not rated
    assert rows["b"].games == 1 and rows["b"].elo == 1516.0
    assert store.seasons.season_progress(sid) == {"pending": 0, "running": 0, "done": 1, "failed": 1, "not_played": 0, "cancelled": 0,
                                          "total": 2}
    assert store.seasons.get_season(sid).status == SeasonStatus.DONE  # type: ignore[union-attr]
    assert [g.id for g in store.game_reads.list_games(sid, status="failed")] == [first]


def test_expired_leases_are_released(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3], bots[1:4]])
    g1, g2 = store.seasons.next_pending(sid)
    c1 = store.games.claim_game(g1, "lost", 10, now=T0)
    c2 = store.games.claim_game(g2, "alive", 100, now=T0)
    assert c1 is not None and c2 is not None
    assert store.games.release_expired(now=T0 + timedelta(seconds=5)) == []
    assert store.games.renew_lease(g2, c2.attempt, 100, now=T0 + timedelta(seconds=50))
    assert store.games.release_expired(now=T0 + timedelta(seconds=11)) == [g1]
    assert store.game_reads.get_game(g1).status == GameStatus.PENDING  # type: ignore[union-attr]
    assert store.game_reads.attempts(g1)[0].detail == "lease expired"
    assert store.games.release_expired(now=T0 + timedelta(seconds=120)) == []  # g2's lease was renewed
    assert store.games.finish_game(g1, c1.attempt, make_record(c1, [1, 2, 3])) is False  # the lost worker is stale
    assert not store.games.renew_lease(g1, c1.attempt, 10)


def test_claim_takes_over_an_expired_lease(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    assert store.games.claim_game(gid, "lost", 10, now=T0) is not None
    assert store.games.claim_game(gid, "other", 10, now=T0 + timedelta(seconds=9)) is None  # still live
    claim = store.games.claim_game(gid, "other", 10, now=T0 + timedelta(seconds=11))
    assert claim is not None and claim.attempt == 2 and claim.lease_owner == "other"
    assert [(a.worker, a.outcome) for a in store.game_reads.attempts(gid)] == [("lost", "voided"), ("other", None)]


def test_lease_expiry_counts_towards_failure(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    t = T0
    for _ in range(3):
        assert store.games.claim_game(gid, "w", 10, now=t) is not None
        t += timedelta(seconds=11)
        assert store.games.release_expired(now=t) == [gid]
    game = store.game_reads.get_game(gid)
    assert game is not None and game.status == GameStatus.FAILED
    assert game.detail == "voided 3 times; last: lease expired"


def test_invalid_records_are_refused(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    sid = make_season([bots[:3]])
    gid = store.seasons.next_pending(sid)[0]
    claim = store.games.claim_game(gid, "w", 60)
    assert claim is not None
    wrong_seats = make_record(claim, [1, 2, 3])
    wrong_seats.results.pop()
    with pytest.raises(InvalidRecord, match="seats"):
        store.games.finish_game(gid, claim.attempt, wrong_seats)
    voided = make_record(claim, [1, 2, 3])
    voided.reason = EndReason.VOIDED
    with pytest.raises(InvalidRecord, match="void"):
        store.games.finish_game(gid, claim.attempt, voided)
    wrong_seed = make_record(claim, [1, 2, 3])
    wrong_seed.seed += 1
    with pytest.raises(InvalidRecord, match="seed"):
        store.games.finish_game(gid, claim.attempt, wrong_seed)
    game = store.game_reads.get_game(gid)
    assert game is not None and game.status == GameStatus.RUNNING  # nothing written
    assert store.games.finish_game(gid, claim.attempt, make_record(claim, [1, 2, 3]))
    with pytest.raises(NotFound):
        store.games.finish_game(424242, 1, make_record(claim, [1, 2, 3]))


def test_a_name_in_another_case_is_taken(store: Store) -> None:
    """Names are unique whatever their case: ``ODDS-1`` would pass for ``odds-1`` on every page."""
    store.bots.register_bot("odds-1", "h:1", "1", "ann", [GAME])
    with pytest.raises(NameTaken, match="'odds-1' is already registered: names are unique whatever their case"):
        store.bots.register_bot("ODDS-1", "h:2", "2", "bob", [GAME])
    assert store.bots.name_taken("Odds-1") == "odds-1" and store.bots.name_taken("odds-2") is None
    assert [b.name for b in store.bots.list_bots()] == ["odds-1"]


def test_the_database_refuses_a_name_in_another_case_too(store: Store) -> None:
    """Two registrations at once both pass the store's check; the unique index on lower(name) (migration 0012)
    refuses the second."""
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    store.bots.register_bot("odds-1", "h:1", "1", "ann", [GAME])
    with pytest.raises(IntegrityError), store.engine.begin() as conn:
        conn.execute(text("INSERT INTO bots (name, endpoint, version, author, games, capacity, created_at) "
                          "VALUES ('ODDS-1', 'h:2', '1', 'bob', '[]', 1, CURRENT_TIMESTAMP)"))
    assert [b.name for b in store.bots.list_bots()] == ["odds-1"]
