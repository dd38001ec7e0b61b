"""Per-bot totals of finished seasons (``store.reads.totals``, migrations 0015 and 0016), on SQLite and PostgreSQL: a
bot's reads (by seat, by version, its seasons, its opponents), the season list's counts and a bot's game-list counts
are the same whether they are summed from the folded totals or read from every game, a season is folded once it is
finished and only then, and two processes folding at once count it once."""

from __future__ import annotations

import random
import threading
from typing import Any

from sqlalchemy import delete, func, select

from league.policy import POLICY
from store import Store, open_store
from store.models import (BotOpponentTotal, BotSeasonTotal, BotTotal, FoldedSeason, Game, GameStatus,
                          SeasonGameTotal)
from store.reads.bots import BotReads
from store.reads.games import GameFilter, GameReads, _filtered
from store.reads.seasons import SeasonReads
from tests.store.conftest import finish


class _NeverFinished:
    """A policy under which no season is ever finished: nothing is folded, every read comes from the games."""

    def key_is_public(self, config: Any) -> bool:
        return False


def _reads(reads: BotReads, bots: list[int]) -> dict[int, tuple[Any, ...]]:
    return {b: (reads.results_by_seat(b), reads.results_by_version(b), reads.bot_seasons(b), reads.opponents(b))
            for b in bots}


def _from_the_games(store: Store, bots: list[int]) -> dict[int, tuple[Any, ...]]:
    """The same reads with no totals: every one read from the games (the folded rows cleared, nothing folded)."""
    with store.db.write() as s:
        for model in (BotOpponentTotal, BotSeasonTotal, BotTotal, SeasonGameTotal, FoldedSeason):
            s.execute(delete(model))
    return _reads(BotReads(store.db, _NeverFinished()), bots)  # type: ignore[arg-type]


#: The game-list filters of one bot that its count may read from the totals, and two it may not.
_FILTERS = [dict(), dict(status=GameStatus.DONE), dict(result="win"), dict(result="loss"),
            dict(status=GameStatus.DONE, result="win"), dict(status=GameStatus.PENDING), dict(fault=True)]


#: Filters of every game that may be counted from the totals, and one that may not.
_ALL = [dict(), dict(status=GameStatus.DONE), dict(status=GameStatus.PENDING), dict(fault=False)]


def _lists(seasons: SeasonReads, games: GameReads, bots: list[int]) -> tuple[Any, ...]:
    """The season list's progress, then every bot's game-list counts under :data:`_FILTERS`, then the counts of
    every game under :data:`_ALL`."""
    return ([(x.id, x.progress) for x in seasons.season_summaries()],
            [games.game_rows(GameFilter(bot_id=b, **f), limit=1)[0] for b in bots for f in _FILTERS],
            [games.game_rows(GameFilter(**f), limit=1)[0] for f in _ALL])


def _counted(store: Store) -> dict[int, int]:
    with store.db.read() as s:
        return dict(s.execute(select(SeasonGameTotal.season_id, func.sum(SeasonGameTotal.games))
                              .group_by(SeasonGameTotal.season_id)).all())


def _folded(store: Store) -> set[int]:
    with store.db.read() as s:
        return set(s.scalars(select(FoldedSeason.season_id)))


def _play(store: Store, season: int, rng: random.Random, games: int | None = None, seats: int = 4) -> None:
    pending = store.seasons.next_pending(season, 100)
    for game_id in pending[:games]:
        places = list(range(1, seats + 1))
        rng.shuffle(places)
        if rng.random() < 0.2:
            places[rng.randrange(seats)] = places[rng.randrange(seats)]  # a tie now and then
        finish(store, game_id, places, faults=[rng.choice((0, 0, 1)) for _ in range(seats)])


def test_totals_of_finished_seasons_read_as_the_games_do(store: Store, bots: list[int], make_season) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(3)
    tables = [[bots[(i + k) % 4] for k in range(4)] for i in range(4)] * 3
    first = make_season(tables)
    _play(store, first, rng)  # every game: the season is finished
    store.bots.update_bot(bots[0], version="2.0")  # a second version, in the seasons after
    second = make_season(tables)
    _play(store, second, rng)
    open_season = make_season(tables)
    _play(store, open_season, rng, games=5)  # not finished: read from its games
    expected = _reads(BotReads(store.db, _NeverFinished()), bots)  # type: ignore[arg-type]
    assert _folded(store) == set()
    got = _reads(store.bot_reads, bots)
    assert _folded(store) == {first, second}
    assert got == expected
    assert store.bot_reads.fold() == 0  # folded once
    assert _reads(store.bot_reads, bots) == expected
    _play(store, open_season, rng)  # now finished too
    expected = _from_the_games(store, bots)
    assert _reads(store.bot_reads, bots) == expected
    assert _folded(store) == {first, second, open_season}
    a = bots[0]
    assert [v.version for v in expected[a][1]] == ["1.0", "2.0"]  # in order of first play
    assert sum(r.games for r in expected[a][0]) == 36 and len(expected[a][2]) == 3
    assert _counted(store) == {first: 12, second: 12, open_season: 12}  # each season's games, counted once
    # a season's own page reads its games, folded or not
    assert store.bot_reads.results_by_seat(a, first) == BotReads(store.db, _NeverFinished()).results_by_seat(a, first)  # type: ignore[arg-type]


def test_two_processes_folding_at_once_count_a_season_once(db_url: str, store: Store, bots: list[int],
                                                            make_season) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(5)
    season = make_season([[bots[(i + k) % 4] for k in range(4)] for i in range(4)] * 2)
    _play(store, season, rng)
    expected = _reads(BotReads(store.db, _NeverFinished()), bots)  # type: ignore[arg-type]
    stores = [open_store(db_url, policy=POLICY) for _ in range(4)]
    try:
        folded: list[int] = []
        barrier = threading.Barrier(len(stores))

        def fold(st: Store) -> None:
            barrier.wait()
            folded.append(st.bot_reads.fold())

        threads = [threading.Thread(target=fold, args=(st,)) for st in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(folded) == [0, 0, 0, 1]
    finally:
        for st in stores:
            st.close()
    assert _reads(store.bot_reads, bots) == expected
    with store.db.read() as s:
        assert s.scalar(select(func.sum(BotTotal.games))) == 32  # 8 games of 4 seats, once


def test_the_season_list_and_a_bots_game_counts_read_as_the_games_do(store: Store, bots: list[int],
                                                                    make_season) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(4)
    tables = [[bots[(i + k) % 4] for k in range(4)] for i in range(4)] * 3
    finished = [make_season(tables) for _ in range(2)]
    for season in finished:
        _play(store, season, rng)
    open_season = make_season(tables)
    _play(store, open_season, rng, games=5)  # 7 pending: not folded, counted from its games
    got = _lists(store.season_reads, store.game_reads, bots)  # the season list folds the finished seasons first
    assert _folded(store) == set(finished)
    _from_the_games(store, bots)  # the totals cleared: every count below reads the games
    expected = _lists(SeasonReads(store.db, _NeverFinished()), store.game_reads, bots)  # type: ignore[arg-type]
    assert _folded(store) == set()
    assert got == expected
    progress = dict(expected[0])
    assert progress[open_season].pending == 7 and progress[finished[0]].done == 12
    a = expected[1][:len(_FILTERS)]  # the first bot's counts, filter by filter
    assert a[0] == 36 and a[1] == 29 and a[2] + a[3] == 29 and a[5] == 7
    assert expected[2][:3] == [36, 29, 7]


def test_a_bots_pages_are_chosen_from_its_seats_as_from_the_games(store: Store, bots: list[int],
                                                                 make_season) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(6)
    tables = [[bots[(i + k) % 4] for k in range(3)] for i in range(4)] * 4  # tables of 3: each bot sits out some
    season = make_season(tables)
    _play(store, season, rng, games=11, seats=3)
    for b in bots:
        for f in _FILTERS:
            flt = GameFilter(bot_id=b, **f)
            with store.db.read() as s:
                every = list(s.scalars(_filtered(select(Game.id), flt).order_by(Game.id.desc())))
            for offset in (0, 2, 5):
                page = [g.id for g in store.game_reads.game_rows(flt, limit=3, offset=offset)[1]]
                assert page == every[offset:offset + 3], (b, f, offset)
