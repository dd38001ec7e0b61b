"""Read models of games: a game with its seats and attempts, and the dashboard's filtered game lists.

:class:`GameInfo` is the whole state of a game (lease and attempts included:
for workers and the CLI); :class:`GameRow` is what the public API shows of one
(``dashboard.schemas.GameOut`` is built on it), with a sealed game's results
withheld (``store.sealing``). Seats are :class:`SeatInfo` in both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, exists, func, select
from sqlalchemy.orm import Session, aliased

from store.db import NotFound
from store.models import (AttemptOutcome, Bot, BotSeasonTotal, BotTotal, Game, GameAttempt, GameSeat,
                          GameStatus, Ladder, Season, SeasonGameTotal)
from store.sealing import SEALED_MESSAGE, sealed
from store.reads import doc, totals
from store.session import Database



@dataclass(frozen=True)
class SeatInfo:
    """A seat of a game and its result (``None`` until done, and while the game is sealed)."""

    seat: int
    bot_id: int
    bot_name: str
    place: int | None
    score: int | None
    change: int | None
    faults: int | None
    retired: bool | None
    version: str | None = None  # the bot's version when the game was claimed (None: before versions per game)


@dataclass(frozen=True)
class AttemptInfo:
    """One attempt at a game (a claim by a worker): ``outcome`` is None while it runs; ``detail`` why it was voided."""

    attempt: int
    worker: str
    started_at: datetime
    ended_at: datetime | None
    outcome: AttemptOutcome | None
    detail: str | None


@dataclass(frozen=True)
class GameInfo:
    """A game of a season, its state and its seats (see ``store.models.Game``)."""

    id: int
    season_id: int
    number: int
    seed: int
    status: GameStatus
    attempts: int
    reason: str | None
    detail: str | None
    lease_owner: str | None
    lease_expires_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    seats: tuple[SeatInfo, ...]


@dataclass(frozen=True)
class GameRow:
    """A game: season, number in the schedule, status, how it ended, seats."""

    id: int
    season_id: int
    season_name: str
    game: str
    number: int
    status: str = field(metadata=doc("pending, running, done, failed or not_played"))
    reason: str | None
    started_at: datetime | None
    finished_at: datetime | None
    seats: tuple[SeatInfo, ...] = field(metadata=doc(
        "the seats in order; empty for a ladder's game that has not started (its table is shown once it starts)"))
    sealed: bool = field(default=False, metadata=doc(
        "another game with the same deal (its duplicate group) is still to be played: results, reason, seed, "
        "replay and live events are withheld until then"))
    seed: int | None = field(default=None, metadata=doc(
        "the deal seed: shown with the stored replay of a done game that is not sealed, else null"))
    sealed_message: str | None = field(default=None, metadata=doc("says so when sealed"))
    ladder: str | None = field(default=None, metadata=doc(
        "the ladder's name for a game of a ladder (its season is one of the ladder's epochs), else null"))
    epoch: int | None = field(default=None, metadata=doc("the ladder epoch of a ladder's game, else null"))


@dataclass(frozen=True)
class GameFilter:
    """Filters of :meth:`GameReads.game_rows`; ``None`` means any. ``fault``: only games with (True) or
    without (False) a fault; ``result``: ``"win"`` (the bot placed first) or ``"loss"``, needs ``bot_id``."""

    season_id: int | None = None
    bot_id: int | None = None
    status: GameStatus | None = None
    fault: bool | None = None
    result: str | None = None


def _seat_info(seat: GameSeat, bot_name: str) -> SeatInfo:
    return SeatInfo(seat.seat, seat.bot_id, bot_name, seat.place, seat.score, seat.change, seat.faults, seat.retired,
                    seat.version)


class GameReads:
    """Games as read models, over one :class:`~store.session.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get_game(self, game_id: int) -> GameInfo | None:
        """The game with its seats and results, or None."""
        with self._db.read() as s:
            game = s.get(Game, game_id)
            return self._game_infos(s, [game])[0] if game else None

    def list_games(
        self,
        season_id: int,
        *,
        status: GameStatus | str | None = None,
        bot_id: int | None = None,
        offset: int = 0,
        limit: int = 100,
    ) -> list[GameInfo]:
        """A page of the season's games in schedule order, optionally only those with
        ``status`` and/or with ``bot_id`` at the table."""
        with self._db.read() as s:
            q = select(Game).where(Game.season_id == season_id)
            if status is not None:
                q = q.where(Game.status == GameStatus(status))
            if bot_id is not None:
                q = q.where(exists().where(GameSeat.game_id == Game.id, GameSeat.bot_id == bot_id))
            games = list(s.scalars(q.order_by(Game.number).offset(offset).limit(limit)))
            return self._game_infos(s, games)

    def attempts(self, game_id: int) -> list[AttemptInfo]:
        """Every attempt at the game, in order (empty for an unknown id)."""
        with self._db.read() as s:
            rows = s.scalars(select(GameAttempt).where(GameAttempt.game_id == game_id)
                             .order_by(GameAttempt.attempt))
            return [AttemptInfo(a.attempt, a.worker, a.started_at, a.ended_at,
                                AttemptOutcome(a.outcome) if a.outcome else None, a.detail) for a in rows]

    @staticmethod
    def _game_infos(s: Session, games: list[Game]) -> list[GameInfo]:
        """The GameInfo of loaded rows, with their seats (one query)."""
        if not games:
            return []
        seats: dict[int, list[SeatInfo]] = {g.id: [] for g in games}
        rows = s.execute(
            select(GameSeat, Bot.name).join(Bot, Bot.id == GameSeat.bot_id)
            .where(GameSeat.game_id.in_(list(seats))).order_by(GameSeat.game_id, GameSeat.seat)
        ).all()
        for seat, bot_name in rows:
            seats[seat.game_id].append(_seat_info(seat, bot_name))
        return [GameInfo(g.id, g.season_id, g.number, g.seed, GameStatus(g.status), g.attempts, g.reason,
                         g.detail, g.lease_owner, g.lease_expires_at, g.started_at, g.finished_at,
                         tuple(seats[g.id])) for g in games]

    def game_rows(self, f: GameFilter, *, limit: int = 50, offset: int = 0) -> tuple[int, list[GameRow]]:
        """``(total matching, one page)`` of games, newest first, with their seats. ``result`` needs
        ``bot_id`` (ValueError otherwise)."""
        if f.result is not None and f.bot_id is None:
            raise ValueError("filtering by result needs a bot")
        with self._db.read() as s:
            return _count(s, f), _game_rows(s, _page(s, f, limit, offset))


    def final_game_by_token(self, token: str) -> int | None:
        """The id here of the game whose bots were sent ``token`` (``Game.token``, the ``game_id`` of their
        requests), once the game is final (done, failed or not played) and not sealed; None before, and for
        no such game: the two answer alike, so the id of a game still to be played, or of a rotation whose
        deal is still being played, finds nothing."""
        with self._db.read() as s:
            return s.scalar(select(Game.id).where(Game.token == token, Game.status.in_(
                [GameStatus.DONE, GameStatus.FAILED, GameStatus.NOT_PLAYED]), ~sealed()))

    def game_row(self, game_id: int) -> GameRow:
        """One game as a :class:`GameRow`. Raises NotFound."""
        with self._db.read() as s:
            row = s.execute(select(Game, Season.name, Season.game, sealed()).join(Season, Season.id == Game.season_id)
                            .where(Game.id == game_id)).all()
            if not row:
                raise NotFound(f"no game with id {game_id}")
            return _game_rows(s, row)[0]


def unstarted_ladder_table(game: Any = Game) -> ColumnElement[bool]:
    """SQL: a pending game of a ladder's epoch, whose seats are not shown (rules §5.3): a bot that saw its
    next table could go down to skip it (its tables wait for it, holding up no one)."""
    epoch = aliased(Season)  # its own name: the page's query joins Season too
    return (game.status == GameStatus.PENDING) & exists().where(epoch.id == game.season_id,
                                                                 epoch.ladder_id.is_not(None))


def _seat_condition(f: GameFilter) -> ColumnElement[bool]:
    """SQL on a ``GameSeat`` row: the seat of ``f.bot_id``, placed as ``f.result`` asks."""
    seat = GameSeat.bot_id == f.bot_id
    if f.result == "win":
        return seat & (GameSeat.place == 1)
    if f.result == "loss":
        return seat & (GameSeat.place > 1)
    return seat


def _game_filtered(q: Select[Any], f: GameFilter) -> Select[Any]:
    """``q`` (over ``Game``) with every condition of ``f`` but the bot's seat."""
    if f.season_id is not None:
        q = q.where(Game.season_id == f.season_id)
    if f.status is not None:
        q = q.where(Game.status == f.status)
    if f.bot_id is not None:
        q = q.where(~unstarted_ladder_table())  # who sits at a ladder's table is not shown before it starts
    if f.fault is not None:
        other = aliased(GameSeat)  # any seat of the game (the bot's page selects from its own seats)
        faulted = exists().where(other.game_id == Game.id, other.faults > 0)
        q = q.where(faulted if f.fault else ~faulted)
    if f.result is not None or f.fault is not None:  # filters on results: a sealed game's are not shown
        q = q.where(~sealed())
    return q


def _filtered(q: Select[Any], f: GameFilter) -> Select[Any]:
    """``q`` (over ``Game``) with every condition of ``f``."""
    if f.bot_id is not None:
        q = q.where(exists().where(GameSeat.game_id == Game.id, _seat_condition(f)))
    return _game_filtered(q, f)


def _page(s: Session, f: GameFilter, limit: int, offset: int) -> list[Any]:
    """One page of ``(Game, season name, game name, sealed)`` rows matching ``f``, newest first. A bot's page is
    chosen from its seats (the index on ``game_seats (bot_id, game_id, place, ...)``, newest first), so a deep page
    of its wins reads its seats and those games, not every game stored after them."""
    rows = select(Game, Season.name, Season.game, sealed()).join(Season, Season.id == Game.season_id)
    if f.bot_id is None:
        return list(s.execute(_filtered(rows, f).order_by(Game.id.desc()).limit(limit).offset(offset)).all())
    ids = _game_filtered(select(GameSeat.game_id).join(Game, Game.id == GameSeat.game_id).where(_seat_condition(f)),
                         f).distinct().order_by(GameSeat.game_id.desc()).limit(limit).offset(offset)
    chosen = list(s.scalars(ids))  # DISTINCT: a game where the bot holds two seats is listed once
    return list(s.execute(rows.where(Game.id.in_(chosen)).order_by(Game.id.desc())).all()) if chosen else []


def _count(s: Session, f: GameFilter) -> int:
    """How many games match ``f``. Over every season (no season filter, no fault filter), the folded seasons'
    games are counted from their totals (``store.reads.totals``: every game of one is final and none is sealed), and
    only the other seasons' games are counted one by one: all games or those of one status from
    ``season_game_totals``; a bot's (any status or done, any result) from ``bot_season_totals`` and ``bot_totals``.
    At a million games that is a few rows instead of counting the bot's ~40,000 seats or every game."""
    everything = _filtered(select(func.count()).select_from(Game), f)
    if f.season_id is not None or f.fault is not None:
        return int(s.scalar(everything) or 0)
    if f.bot_id is None:
        kept = select(func.sum(SeasonGameTotal.games))
        if f.status is not None:
            kept = kept.where(SeasonGameTotal.status == f.status)
    elif f.status not in (None, GameStatus.DONE):
        return int(s.scalar(everything) or 0)
    elif f.result is None and f.status is None:
        kept = select(func.sum(BotSeasonTotal.seated)).where(BotSeasonTotal.bot_id == f.bot_id)
    elif f.result is None:
        kept = select(func.sum(BotSeasonTotal.games)).where(BotSeasonTotal.bot_id == f.bot_id)
    else:  # a place is stored only with a done game's results, and is 1 or more (store.lifecycle)
        won = f.result == "win"
        kept = select(func.sum(BotTotal.wins if won else BotTotal.games - BotTotal.wins)).where(
            BotTotal.bot_id == f.bot_id)
    live = totals.unfolded_ids(s)
    counted = int(s.scalar(everything.where(Game.season_id.in_(live))) or 0) if live else 0
    return int(s.scalar(kept) or 0) + counted


def _game_rows(s: Session, page: Sequence[Any]) -> list[GameRow]:
    """``page``: ``(Game, season name, game name, sealed)`` rows. A sealed game's results, end reason
    and seed are withheld here, the one place game rows are made (``store.sealing``)."""
    ladders: dict[int, tuple[str, int | None]] = {}  # season id -> (ladder name, epoch) of a ladder's epochs
    season_ids = {g.season_id for g, _, _, _ in page}
    if season_ids:
        ladders = {sid: (name, epoch) for sid, name, epoch in s.execute(
            select(Season.id, Ladder.name, Season.epoch).join(Ladder, Ladder.id == Season.ladder_id)
            .where(Season.id.in_(season_ids)))}
    # a ladder's table is not shown before it starts (rules §5.3): a bot that saw it could go down to skip it
    unseated = {g.id for g, _, _, _ in page if g.season_id in ladders and GameStatus(g.status) == GameStatus.PENDING}
    ids = [g.id for g, _, _, _ in page if g.id not in unseated]
    hidden = {g.id for g, _, _, is_sealed in page if is_sealed}
    seats: dict[int, list[SeatInfo]] = {g.id: [] for g, _, _, _ in page}
    if ids:
        for seat, name in s.execute(select(GameSeat, Bot.name).join(Bot, Bot.id == GameSeat.bot_id)
                                    .where(GameSeat.game_id.in_(ids)).order_by(GameSeat.game_id, GameSeat.seat)):
            if seat.game_id in hidden:
                seats[seat.game_id].append(SeatInfo(seat.seat, seat.bot_id, name, None, None, None, None, None,
                                                             seat.version))
            else:
                seats[seat.game_id].append(_seat_info(seat, name))
    return [GameRow(g.id, g.season_id, season_name, game, g.number, GameStatus(g.status).value,
                    None if is_sealed else g.reason, g.started_at, g.finished_at, tuple(seats[g.id]),
                    bool(is_sealed), g.seed if GameStatus(g.status) == GameStatus.DONE and not is_sealed else None,
                    SEALED_MESSAGE if is_sealed else None, *ladders.get(g.season_id, (None, None)))
            for g, season_name, game, is_sealed in page]
