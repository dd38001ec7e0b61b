"""A ladder's page and API data (rules §5), from ``store.reads.ladders``: shared by the JSON router
(``dashboard.routers.ladders``) and the pages. Nothing here fits ratings: the standings and history
are the ladder runner's stored snapshots, so a page costs a few index lookups at any size.

Every function raises ``store.NotFound`` for an unknown ladder (the app answers 404).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from dashboard.schemas import LadderDetailOut, LadderGamesOut, LadderHistoryOut, LadderOut
from league.competition.ladder_board import LadderStanding, board, placement_games
from store import Store
from store.reads.ladders import LadderReads

#: Entrants drawn in the ladder page's rating chart (the main table's best).
CHART_ENTRANTS = 8


def reads(store: Store) -> LadderReads:
    """The ladder read models over the store."""
    return LadderReads(store.db, store.ladders)


@dataclass
class FinalCounts:
    """Games per status of ladder epochs that are final (closed, every game final: their counts never change),
    summed per ladder and kept for the app's life, so a ladder's progress counts only its open epochs' games
    on a request (the first request of a ladder counts its finished epochs once)."""

    _lock: threading.Lock = field(default_factory=threading.Lock)
    _done: dict[tuple[str, int], tuple[set[int], dict[str, int]]] = field(default_factory=dict)

    def progress(self, store: Store, ladder_id: int) -> dict[str, int]:
        """The ladder's games per status over all epochs, with ``total``."""
        r = reads(store)
        epochs = r.epoch_finality(ladder_id)
        key = (store.engine.url.render_as_string(hide_password=True), ladder_id)
        with self._lock:
            seen, sums = self._done.get(key, (set(), {}))
            seen, sums = set(seen), dict(sums)
        new = [sid for sid, final in epochs if final and sid not in seen]
        if new:
            for status, n in r.counts(new).items():
                sums[status] = sums.get(status, 0) + n
            seen.update(new)
            with self._lock:
                self._done[key] = (seen, sums)
        live = r.counts([sid for sid, final in epochs if not final])
        out = {status: live[status] + sums.get(status, 0) for status in live}
        out["total"] = sum(out.values())
        return out


def ladders(store: Store) -> list[LadderOut]:
    """Every ladder, by id."""
    return [LadderOut(**vars(s)) for s in reads(store).summaries()]


def ladder_detail(store: Store, name: str, epochs: int = 10, counts: FinalCounts | None = None) -> LadderDetailOut:
    """A ladder's standings (from the stored snapshot), progress (``counts`` keeps the finished epochs'
    counts) and newest ``epochs`` epochs."""
    r = reads(store)
    ladder = r.ladder(name)
    rows = board(r, ladder)
    total, epoch_rows = r.epochs(ladder.id, store.seasons.revealed_key, epochs)
    rated = max((row.rated_games or 0 for row in rows), default=0)
    return LadderDetailOut(
        id=ladder.id, name=ladder.name, game=ladder.game, status=ladder.status, created_at=ladder.created_at,
        entrants=sum(row.best for row in rows), epoch=epoch_rows[0].epoch if epoch_rows else None,
        rated_games=rated, params=ladder.params, time_control=ladder.time_control, config=ladder.config,
        placement_games=placement_games(ladder),
        progress=(counts or FinalCounts()).progress(store, ladder.id), standings=rows,
        epochs_total=total, epochs=epoch_rows, compares=compares(store, ladder.id))


def compares(store: Store, ladder_id: int) -> list[dict[str, Any]]:
    """Version A/B results of the ladder (``cardarena ladder compare``, rules §5.5), newest first, as
    ``store.compares.CompareInfo.as_json`` gives them: ``base``/``candidate`` (``name@version``), ``status``
    (``running``, ``better``, ``worse``, ``within_zone``, ``budget`` or ``stopped``), ``verdict``, ``games``
    used and ``difference`` with its 95% interval ``low``/``high`` (Elo points, None until both have a result)."""
    return [c.as_json() for c in store.compares.list_compares(ladder_id)]


def history(store: Store, name: str, bot: str | None = None, points: int = 60,
            entrants: int = CHART_ENTRANTS) -> LadderHistoryOut:
    """Sampled rating histories: every version of ``bot`` if named (NotFound if it has no entrant),
    else the main table's best ``entrants``."""
    from store import NotFound

    r = reads(store)
    ladder = r.ladder(name)
    rows = board(r, ladder)
    if bot is not None:
        chosen = [row for row in rows if row.name == bot]
        if not chosen:
            raise NotFound(f"bot {bot!r} has no entrant in ladder {name!r}")
    else:
        chosen = chart_rows(rows, entrants)
    return LadderHistoryOut(ladder=ladder.name, rated_games=max((x.rated_games or 0 for x in rows), default=0),
                            entrants=r.history(ladder.id, chosen, points))


def chart_rows(rows: list[LadderStanding], entrants: int = CHART_ENTRANTS) -> list[LadderStanding]:
    """The ranking's best rated ``entrants`` rows (each bot's best version)."""
    return [row for row in rows if row.best and row.rating is not None][:entrants]


def games(store: Store, name: str, limit: int, before: int | None = None, bot: str | None = None) -> LadderGamesOut:
    """A page of the ladder's games newest first, only ``bot``'s if named (NotFound for an unknown bot)."""
    from store import NotFound

    r = reads(store)
    ladder = r.ladder(name)
    bot_id = None
    if bot is not None:
        info = store.bots.get_bot_by_name(bot)
        if info is None:
            raise NotFound(f"no bot named {bot!r}")
        bot_id = info.id
    items = r.games(ladder.id, limit=limit + 1, before=before, bot_id=bot_id)
    more = len(items) > limit
    items = items[:limit]
    return LadderGamesOut(ladder=ladder.name, items=items, next_before=items[-1].id if more and items else None)


def bot_entrants(store: Store, bot_id: int) -> list[tuple[LadderOut, list[LadderStanding], int]]:
    """``(ladder, the bot's entrants there newest version first, bots ranked)`` of every ladder the bot
    has an entrant in."""
    r = reads(store)
    out = []
    for ladder in r.ladders_of_bot(bot_id):
        rows = board(r, ladder)
        mine = sorted((row for row in rows if row.bot_id == bot_id), key=lambda row: -row.entrant_id)
        summary = LadderOut(id=ladder.id, name=ladder.name, game=ladder.game, status=ladder.status,
                            created_at=ladder.created_at, entrants=sum(row.best for row in rows),
                            epoch=None, rated_games=max((x.rated_games or 0 for x in rows), default=0))
        out.append((summary, mine, sum(row.best for row in rows)))
    return out


@dataclass(frozen=True)
class RatingMove:
    """How an entrant's ladder rating moved between two stored snapshots: after ``games`` rated games of the
    ladder it stood ``change`` Elo points from the snapshot before, over ``own`` games of its own. A move with
    no game of its own comes from the games of the entrants it is compared with (the scale itself is anchored,
    rules §5.4: no arrival or departure moves it)."""

    games: int
    change: float
    own: int


def rating_moves(points: list[Any], last: int = 5) -> list[RatingMove]:
    """The ``last`` moves between consecutive ``points`` (``store.reads.ladders.HistoryPoint``: ``games``,
    ``played``, ``rating``, by ``games``), newest first."""
    moves = [RatingMove(b.games, round(b.rating - a.rating, 1), b.played - a.played) for a, b in zip(points, points[1:])]
    return moves[::-1][:last]
