"""Versions per game (migration 0008): each seat keeps the version its bot had at the claim, on
SQLite and PostgreSQL; seats stored before the migration read as unknown."""

from __future__ import annotations

from alembic import command

from league.policy import POLICY
from store import Claim, Store, db, open_store
from store.reads.bots import UNKNOWN_VERSION
from tests.store.conftest import make_record


def play(store: Store, game_id: int) -> None:
    claim = store.games.claim_within_capacity(game_id, "w", 30)
    assert isinstance(claim, Claim)
    assert store.games.finish_game(game_id, claim.attempt, make_record(claim, [1, 2]))


def versions(store: Store, season_id: int, bot_id: int) -> list[str | None]:
    return [s.version for g in store.game_reads.list_games(season_id, limit=100) for s in g.seats if s.bot_id == bot_id]


def test_a_seat_keeps_the_version_of_its_claim(store: Store, bots: list[int], make_season) -> None:  # type: ignore[no-untyped-def]
    a, b = bots[:2]
    season = make_season([[a, b]] * 3)
    first, second, third = store.seasons.next_pending(season, 10)
    play(store, first)
    store.bots.update_bot(a, version="2.0")  # `bot update --version`
    assert versions(store, season, a) == ["1.0", None, None]  # the past game keeps its version
    claim = store.games.claim_within_capacity(second, "w", 30)
    assert isinstance(claim, Claim)
    store.bots.update_bot(a, version="3.0")  # while it runs: the game keeps the version it was claimed with
    assert store.games.finish_game(second, claim.attempt, make_record(claim, [2, 1]))
    play(store, third)
    assert versions(store, season, a) == ["1.0", "2.0", "3.0"]
    rows = store.bot_reads.results_by_version(a)
    assert [(r.version, r.games, r.wins) for r in rows] == [("1.0", 1, 1), ("2.0", 1, 0), ("3.0", 1, 1)]
    assert [r.version for r in store.bot_reads.results_by_version(b)] == ["1.0"]


def test_seats_stored_before_the_migration_read_as_unknown(db_url: str, bots: list[int], store: Store,
                                                            make_season) -> None:  # type: ignore[no-untyped-def]
    a, b = bots[:2]
    season = make_season([[a, b]])
    play(store, store.seasons.next_pending(season, 1)[0])
    store.close()
    engine = db.create_store_engine(db_url)
    try:
        command.downgrade(db.alembic_config(engine), "0007")  # as stored before versions per game
        db.migrate(engine)
    finally:
        engine.dispose()
    again = open_store(db_url, policy=POLICY)
    try:
        assert versions(again, season, a) == [None]
        [row] = again.bot_reads.results_by_version(a)
        assert (row.version, row.games) == (UNKNOWN_VERSION, 1)
        bot = again.bots.get_bot(a)
        assert bot is not None and bot.version == "1.0" and bot.described_name is None  # taken at its first check
    finally:
        again.close()
