"""Read models of a ladder for its page, its JSON API and the Arena (rules §5): the entrants' stored
rating snapshots (``league.competition.ladder_board`` makes the standings of them), the rating history sampled
for a chart, recent games, epochs.

Fast by construction at a million games: nothing here fits a rating. The standings read each
entrant's latest rating snapshot (``store.models.LadderRating``, written by the ladder's runner,
``league.competition.ladder.LadderRunner.fit``), one index lookup per entrant on ``(entrant_id, games)``; the
games of an entrant still placing are counted live from its bot's newest seats (a bounded index
scan); recent games are read newest first by id, keyset-paged (``before``), never counted. Games
come out as ``store.reads.games.GameRow`` (the one place a sealed game's results and a game's seed
are withheld, ``store.sealing``); an epoch's key only through ``store.seasons.revealed_key`` (once the
epoch is closed and all its games are final, rules §5.1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, text

from store.db import NotFound
from store.ladders import EPOCH_KEY, EntrantInfo, LadderInfo, Ladders
from store.models import Game, GameSeat, GameStatus, LadderEntrant, LadderRating, Season
from store.reads import doc
from store.reads.games import GameRow, _game_rows
from store.sealing import sealed
from store.session import Database

#: z of a two-sided 95% interval.
Z95 = 1.959963984540054
#: Seats of a bot read back (newest first) to count a placing entrant's games live.
PLACING_SCAN = 200


@dataclass(frozen=True)
class EpochRow:
    """An epoch of a ladder (a season with its own key, rules §5.1)."""

    epoch: int
    season_id: int
    name: str
    status: str = field(metadata=doc("scheduled, running or done (every game final)"))
    closed: bool = field(metadata=doc("no more games are added; its key is published once its games are all final"))
    opened_at: datetime
    commitment: str | None = field(metadata=doc("SHA-256 of the epoch key and its chance scheme, published when it opens"))
    chance_scheme: str | None
    key: str | None = field(metadata=doc("the epoch key (64 hex digits) once the epoch is closed and its games are "
                                         "final; null until then"))
    chain_head: str | None
    chain_length: int


@dataclass(frozen=True)
class HistoryPoint:
    """An entrant's stored rating after ``games`` rated games of the ladder."""

    games: int
    played: int
    rating: float
    low: float
    high: float


@dataclass(frozen=True)
class EntrantHistory:
    """An entrant's rating history, sampled to at most the points asked for (the latest always included)."""

    entrant_id: int
    name: str
    version: str
    points: list[HistoryPoint]


@dataclass(frozen=True)
class LadderSummary:
    """A ladder for the lists: its game, entrants, open epoch and rated games."""

    id: int
    name: str
    game: str
    status: str
    created_at: datetime
    entrants: int = field(metadata=doc("active entrants (scheduled bot versions)"))
    epoch: int | None = field(metadata=doc("the open epoch's number"))
    rated_games: int = field(metadata=doc("rated games at the latest rating snapshot (0: none yet)"))


#: The latest snapshot of each (entrant, bound) pair in one PostgreSQL statement: a lateral backward scan of
#: the index on ``(entrant_id, games)`` per pair, stopped at its first row.
_PG_SNAPSHOTS = text(
    "SELECT r.entrant_id, r.games, r.played, r.rating, r.sd FROM unnest(CAST(:ids AS integer[]), "
    "CAST(:bounds AS integer[])) AS w(e, bound) CROSS JOIN LATERAL (SELECT entrant_id, games, played, rating, sd "
    "FROM ladder_ratings WHERE entrant_id = w.e AND games <= w.bound ORDER BY games DESC LIMIT 1) AS r")
_SNAPSHOT = (select(LadderRating.entrant_id, LadderRating.games, LadderRating.played, LadderRating.rating,
                    LadderRating.sd)
             .where(LadderRating.entrant_id == bindparam("e"), LadderRating.games <= bindparam("bound"))
             .order_by(LadderRating.games.desc()).limit(1))
_NO_BOUND = 2**31 - 1


def _snapshots_at(conn: Connection, wanted: list[tuple[int, int | None]]) -> list[Any]:
    """For each ``(entrant id, games or None)`` the entrant's latest snapshot at or before ``games`` (None: its
    latest) as ``(entrant_id, games, played, rating, sd)`` rows, if any: each one index lookup on
    ``(entrant_id, games)``; on PostgreSQL all in one statement, elsewhere (SQLite, in-process) one each."""
    if not wanted:
        return []
    bounds = [_NO_BOUND if g is None else g for _, g in wanted]
    if conn.dialect.name == "postgresql":
        return list(conn.execute(_PG_SNAPSHOTS, {"ids": [e for e, _ in wanted], "bounds": bounds}).all())
    out = []
    for (e, _), bound in zip(wanted, bounds, strict=True):
        out.extend(conn.execute(_SNAPSHOT, {"e": e, "bound": bound}).all())
    return out


class LadderReads:
    """A ladder's read models over one :class:`~store.session.Database` and its :class:`~store.ladders.Ladders`."""

    def __init__(self, db: Database, ladders: Ladders) -> None:
        self._db = db
        self._ladders = ladders

    def ladder(self, name: str) -> LadderInfo:
        """The ladder named ``name``. Raises NotFound."""
        ladder = self._ladders.get_ladder_by_name(name)
        if ladder is None:
            raise NotFound(f"no ladder named {name!r}")
        return ladder

    def paused_bots(self, ladder_id: int) -> dict[int, str]:
        """``{bot id: why}`` of the bots the ladder's open epoch marks as not answering: paused in the ladder
        until they answer (rules §5.3); empty before the first epoch."""
        epoch = self._ladders.current_epoch(ladder_id)
        return self._ladders.marked_bots(epoch.id) if epoch is not None else {}

    def summaries(self) -> list[LadderSummary]:
        """Every ladder, by id."""
        out = []
        for ladder in self._ladders.list_ladders():
            entrants = self._ladders.entrants(ladder.id)
            epoch = self._ladders.current_epoch(ladder.id)
            latest = self.latest_ratings(ladder.id, [e.id for e in entrants])
            out.append(LadderSummary(ladder.id, ladder.name, ladder.game, ladder.status, ladder.created_at,
                                     sum(e.active for e in entrants), epoch.epoch if epoch else None,
                                     max((p[0] for p in latest.values()), default=0)))
        return out

    def ladders_of_bot(self, bot_id: int) -> list[LadderInfo]:
        """The ladders the bot has an entrant in (any version), by id."""
        with self._db.read_rows() as conn:
            ids = conn.scalars(select(LadderEntrant.ladder_id).where(LadderEntrant.bot_id == bot_id).distinct()
                               .order_by(LadderEntrant.ladder_id)).all()
        return [x for x in (self._ladders.get_ladder(i) for i in ids) if x is not None]

    # ------------------------------------------------------------ standings

    def latest_ratings(self, ladder_id: int, entrant_ids: list[int]) -> dict[int, tuple[int, int, float, float]]:
        """``{entrant id: (ladder games, its played, rating, sd)}`` of each entrant's latest snapshot:
        one index lookup per entrant on ``(entrant_id, games)``."""
        with self._db.read_rows() as conn:
            return {e: (g, p, rating, sd) for e, g, p, rating, sd in _snapshots_at(conn, [(e, None) for e in entrant_ids])}

    def placing_count(self, ladder_id: int, bot_id: int, version: str) -> int:
        """Done ladder games of ``bot@version`` among the bot's newest :data:`PLACING_SCAN` ladder seats
        (a new version's games are its bot's newest: enough to tell its placement's progress)."""
        epochs = select(Season.id).where(Season.ladder_id == ladder_id).scalar_subquery()
        newest = (select(GameSeat.version, Game.status).join(Game, Game.id == GameSeat.game_id)
                  .where(GameSeat.bot_id == bot_id, Game.season_id.in_(epochs))
                  .order_by(GameSeat.game_id.desc()).limit(PLACING_SCAN).subquery())
        q = select(func.count()).select_from(newest).where(newest.c.version == version,
                                                           newest.c.status == GameStatus.DONE)
        with self._db.read_rows() as conn:
            return int(conn.scalar(q) or 0)

    # ------------------------------------------------------------- history

    def entrants(self, ladder_id: int) -> list[EntrantInfo]:
        """Every entrant of the ladder, by id (``store.ladders.Ladders.entrants``)."""
        return self._ladders.entrants(ladder_id)

    def history(self, ladder_id: int, entrants: Sequence[Any], points: int = 60) -> list[EntrantHistory]:
        """The rating history of ``entrants`` (``league.competition.ladder_board.LadderStanding`` rows: their
        ``entrant_id``, ``name``, ``version`` and ``rated_games``), each sampled at up to ``points``
        evenly spaced ladder game counts (the latest snapshot at or before each; one index lookup per
        point), so a chart stays small whatever the ladder's length."""
        rated = [e for e in entrants if e.rated_games is not None]
        if not rated or points < 1:
            return [EntrantHistory(e.entrant_id, e.name, e.version, []) for e in entrants]
        top = max(e.rated_games or 0 for e in rated)
        targets = sorted({math.ceil(top * (i + 1) / points) for i in range(points)})
        rows: dict[int, dict[int, HistoryPoint]] = {}
        with self._db.read_rows() as conn:
            for e_id, g, played, rating, sd in _snapshots_at(conn, [(e.entrant_id, t) for e in rated for t in targets]):
                rows.setdefault(e_id, {})[g] = HistoryPoint(g, played, round(rating, 1), round(rating - Z95 * sd, 1),
                                                            round(rating + Z95 * sd, 1))
        return [EntrantHistory(e.entrant_id, e.name, e.version, sorted(rows.get(e.entrant_id, {}).values(),
                                                                       key=lambda p: p.games))
                for e in entrants]

    # --------------------------------------------------------------- games

    def games(self, ladder_id: int, *, limit: int = 20, before: int | None = None,
              bot_id: int | None = None) -> list[GameRow]:
        """The ladder's games newest first (all epochs), ids below ``before`` if given, only those with
        ``bot_id`` at the table if given (not its pending ones: a ladder's table is not shown before it starts, rules
        §5.3); a pending or sealed game shows no seed and no result, and a pending one no seats."""
        q = select(Game, Season.name, Season.game, sealed()).join(Season, Season.id == Game.season_id) \
            .where(Season.ladder_id == ladder_id)
        if before is not None:
            q = q.where(Game.id < before)
        if bot_id is not None:  # the bot's seats newest first (index on (bot_id, game_id))
            q = q.join(GameSeat, GameSeat.game_id == Game.id).where(GameSeat.bot_id == bot_id,
                                                                    Game.status != GameStatus.PENDING)  # rules §5.3
        with self._db.read() as s:
            page = s.execute(q.order_by(Game.id.desc()).limit(limit)).all()
            return _game_rows(s, page)

    def progress(self, ladder_id: int) -> dict[str, int]:
        """Games per status over all the epochs, with ``total`` (``store.ladders.Ladders.ladder_progress``)."""
        return self._ladders.ladder_progress(ladder_id)

    def epoch_finality(self, ladder_id: int) -> list[tuple[int, bool]]:
        """``(season id, final)`` of every epoch, first to last; final: closed and every game final (its
        counts per status never change again)."""
        with self._db.read_rows() as conn:
            rows = conn.execute(select(Season.id, Season.status, Season.config).where(Season.ladder_id == ladder_id)
                                .order_by(Season.epoch)).all()
        return [(r.id, bool((r.config or {}).get(EPOCH_KEY, {}).get("closed"))
                 and str(getattr(r.status, "value", r.status)) == "done") for r in rows]

    def counts(self, season_ids: list[int]) -> dict[str, int]:
        """Games per status (every status, 0 where none) over these epochs: the index on ``(season_id, status)``."""
        out = {st.value: 0 for st in GameStatus}
        if season_ids:
            with self._db.read_rows() as conn:
                for status, n in conn.execute(select(Game.status, func.count()).where(Game.season_id.in_(season_ids))
                                              .group_by(Game.status)):
                    out[GameStatus(status).value] += n
        return out

    # -------------------------------------------------------------- epochs

    def epochs(self, ladder_id: int, revealed_key: Any, limit: int = 10) -> tuple[int, list[EpochRow]]:
        """``(epochs in all, the newest ``limit`` newest first)``; ``revealed_key(season id)`` is
        ``store.seasons.revealed_key`` (the one rule for publishing a key)."""
        with self._db.read_rows() as conn:
            count = conn.scalar(select(func.count()).select_from(Season).where(Season.ladder_id == ladder_id)) or 0
            rows = conn.execute(select(Season.id, Season.epoch, Season.name, Season.status, Season.config,
                                       Season.created_at, Season.commitment, Season.chance_scheme, Season.chain_head,
                                       Season.chain_length)
                                .where(Season.ladder_id == ladder_id).order_by(Season.epoch.desc())
                                .limit(limit)).all()
        out = []
        for r in rows:
            mark = (r.config or {}).get(EPOCH_KEY, {})
            # the store's rule decides (revealed_key); an open or unfinished epoch is not even asked
            key = revealed_key(r.id) if mark.get("closed") and str(getattr(r.status, "value", r.status)) == "done" \
                else None
            out.append(EpochRow(r.epoch, r.id, r.name, str(getattr(r.status, "value", r.status)),
                                bool(mark.get("closed")), r.created_at, r.commitment, r.chance_scheme,
                                key.hex() if key is not None else None, r.chain_head, r.chain_length))
        return int(count), out

