"""Per-bot totals of finished seasons (``store.reads.totals``, migration 0015), on SQLite and PostgreSQL: a bot's
reads (by seat, by version, its seasons, its opponents) are the same whether they are summed from the folded totals
or read from every game, a season is folded once it is finished and only then, and two processes folding at once
count it once."""

from __future__ import annotations

import random
import threading
from typing import Any

from sqlalchemy import delete, func, select

from league.policy import POLICY
from store import Store, open_store
from store.models import BotOpponentTotal, BotSeasonTotal, BotTotal, FoldedSeason
from store.reads.bots import BotReads
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
        for model in (BotOpponentTotal, BotSeasonTotal, BotTotal, FoldedSeason):
            s.execute(delete(model))
    return _reads(BotReads(store.db, _NeverFinished()), bots)  # type: ignore[arg-type]


def _folded(store: Store) -> set[int]:
    with store.db.read() as s:
        return set(s.scalars(select(FoldedSeason.season_id)))


def _play(store: Store, season: int, rng: random.Random, games: int | None = None) -> None:
    pending = store.seasons.next_pending(season, 100)
    for game_id in pending[:games]:
        places = list(range(1, 5))
        rng.shuffle(places)
        if rng.random() < 0.2:
            places[rng.randrange(4)] = places[rng.randrange(4)]  # a tie now and then
        finish(store, game_id, places, faults=[rng.choice((0, 0, 1)) for _ in range(4)])


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
