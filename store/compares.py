"""Version A/B tests on ladders: their rows, their games and their state (rules §5.5).

A compare (``store.models.LadderCompare``) tests a ladder's entrant *candidate* (a
bot version) against its entrant *base*; ``league.competition.compare`` schedules its tables
through the ladder's runner and feeds its games to the sequential test
(``league.ratings.abtest``). This module only stores: a compare's row
(:meth:`Compares.create_compare`), the ladder games that seat both its bots
(:meth:`Compares.compare_games`), each look's state written compare-and-set
(:meth:`Compares.save_look`, so several runners of one ladder are safe), and the
reads the CLI and the dashboard use (:meth:`Compares.list_compares`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, func, select, update
from sqlalchemy.orm import aliased

from store.db import NotFound
from store.models import Bot, Game, GameSeat, GameStatus, Ladder, LadderCompare, LadderEntrant, Season, utcnow
from store.session import Database

#: A compare's statuses: still testing, its three answers, stopped at its budget, replaced by the compare of
#: its candidate's next version (``--auto``), stopped otherwise.
STATUSES = ("running", "better", "worse", "within_zone", "budget", "replaced", "stopped")
#: How each status reads in a sentence.
VERDICT_TEXT = {"running": "running", "better": "better", "worse": "worse", "within_zone": "within the zone",
                "budget": "undecided at its budget", "replaced": "replaced by the next version's compare",
                "stopped": "stopped"}


@dataclass(frozen=True)
class CompareInfo:
    """One A/B test of a ladder (``store.models.LadderCompare``) with its entrants' labels (``name@version``)
    and bots. ``difference`` (candidate's rating less base's, Elo points) with its 95% interval ``low``/``high``
    is None until both have a result; ``games`` the games the test used; ``state`` the test's JSON state."""

    id: int
    ladder_id: int
    base_entrant_id: int
    candidate_entrant_id: int
    base: str
    candidate: str
    base_bot_id: int
    candidate_bot_id: int
    delta: float
    confidence: float
    max_games: int
    status: str
    games: int
    difference: float | None
    low: float | None
    high: float | None
    follow: bool
    after_game: int
    started_at: datetime
    finished_at: datetime | None
    state: dict[str, Any]

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def against_record(self) -> bool:
        """Whether the base is a version no longer played, compared through the ladder's ratings (rules §5.5)
        rather than at tables seating both."""
        return self.state.get("against") == "record"

    @property
    def verdict(self) -> str:
        """The status as words: ``better``, ``worse``, ``within the zone``, ``running``, ..."""
        return VERDICT_TEXT.get(self.status, self.status)

    def as_json(self) -> dict[str, Any]:
        """The compare as JSON: estimates to 0.1 Elo points, times in ISO 8601, without the test's internals
        (``why`` says why a compare was stopped or replaced, else None; ``against`` ``record`` for a compare
        against a record, else ``live``; ``p_better`` the probability the candidate is the better, against a
        record only)."""
        r = lambda x: None if x is None else round(x, 1)  # noqa: E731
        return {"id": self.id, "base": self.base, "candidate": self.candidate, "base_entrant_id": self.base_entrant_id,
                "candidate_entrant_id": self.candidate_entrant_id, "delta": self.delta, "confidence": self.confidence,
                "max_games": self.max_games, "status": self.status, "verdict": self.verdict, "games": self.games,
                "difference": r(self.difference), "low": r(self.low), "high": r(self.high), "follow": self.follow,
                "started_at": self.started_at.isoformat(),
                "finished_at": self.finished_at.isoformat() if self.finished_at else None,
                "why": self.state.get("why"), "against": "record" if self.against_record else "live",
                "p_better": self.state.get("p_better")}


@dataclass(frozen=True)
class CompareGame:
    """A ladder game seating both bots of a compare: its id, epoch (season), deal group (a duplicate table's
    rotations share one), status and per seat ``(bot id, version played or None before a claim, place)``."""

    id: int
    season_id: int
    deal_group: int
    status: GameStatus
    seats: tuple[tuple[int, str | None, int | None], ...]


_BASE, _CAND = aliased(LadderEntrant), aliased(LadderEntrant)
_BASE_BOT, _CAND_BOT = aliased(Bot), aliased(Bot)


def _query():
    return (select(LadderCompare, _BASE.bot_id, _BASE_BOT.name, _BASE.version, _CAND.bot_id, _CAND_BOT.name,
                   _CAND.version)
            .join(_BASE, _BASE.id == LadderCompare.base_entrant_id).join(_BASE_BOT, _BASE_BOT.id == _BASE.bot_id)
            .join(_CAND, _CAND.id == LadderCompare.candidate_entrant_id)
            .join(_CAND_BOT, _CAND_BOT.id == _CAND.bot_id))


def _info(row) -> CompareInfo:
    c, base_bot, base_name, base_version, cand_bot, cand_name, cand_version = row
    return CompareInfo(c.id, c.ladder_id, c.base_entrant_id, c.candidate_entrant_id, f"{base_name}@{base_version}",
                       f"{cand_name}@{cand_version}", base_bot, cand_bot, c.delta, c.confidence, c.max_games, c.status,
                       c.games, c.difference, c.low, c.high, c.follow, c.after_game, c.started_at, c.finished_at,
                       dict(c.state or {}))


class Compares:
    """The ladders' A/B tests over one :class:`~store.session.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create_compare(self, ladder_id: int, base_entrant_id: int, candidate_entrant_id: int, *, delta: float,
                       confidence: float, max_games: int, follow: bool = False, state: dict[str, Any] | None = None,
                       replaces: int | None = None) -> int | None:
        """Store a running compare of two entrants of the ladder; its games are the ladder's games added from
        now on (``after_game``: the ladder's last game id). ``replaces``: the id of a compare that followed the
        candidate's bot (``follow``), which stops following in the same transaction and, if still running, ends
        ``replaced`` (``why`` names the new compare); None is returned (nothing written) if it no longer
        follows (another runner replaced it first). Returns the new id.
        Raises NotFound for an unknown ladder or an entrant not of it."""
        with self._db.write() as s:
            if s.get(Ladder, ladder_id) is None:
                raise NotFound(f"no ladder with id {ladder_id}")
            for e in (base_entrant_id, candidate_entrant_id):
                row = s.get(LadderEntrant, e)
                if row is None or row.ladder_id != ladder_id:
                    raise NotFound(f"no entrant with id {e} in ladder {ladder_id}")
            if replaces is not None:
                done = s.execute(update(LadderCompare).where(LadderCompare.id == replaces, LadderCompare.follow.is_(True))
                                 .values(follow=False)).rowcount
                if done != 1:
                    return None
            last = s.scalar(select(func.max(Game.id)).join(Season, Season.id == Game.season_id)
                            .where(Season.ladder_id == ladder_id)) or 0
            row = LadderCompare(ladder_id=ladder_id, base_entrant_id=base_entrant_id,
                                candidate_entrant_id=candidate_entrant_id, delta=float(delta),
                                confidence=float(confidence), max_games=int(max_games), status="running", games=0,
                                follow=follow, after_game=last, started_at=utcnow(), state=state or {})
            s.add(row)
            s.flush()
            old = s.get(LadderCompare, replaces) if replaces is not None else None
            if old is not None and old.status == "running":
                cand = s.get(LadderEntrant, candidate_entrant_id)
                name = s.get(Bot, cand.bot_id).name
                old.status, old.finished_at = "replaced", utcnow()
                old.state = {**(old.state or {}), "why": f"replaced by compare #{row.id} of {name}@{cand.version}"}
            return row.id

    def get_compare(self, compare_id: int) -> CompareInfo | None:
        with self._db.read() as s:
            row = s.execute(_query().where(LadderCompare.id == compare_id)).one_or_none()
            return _info(row) if row else None

    def list_compares(self, ladder_id: int, *, active: bool = False) -> list[CompareInfo]:
        """The ladder's compares, newest first (the dashboard's A/B section); ``active``: only those running or
        following their candidate's next versions (the runner's look)."""
        q = _query().where(LadderCompare.ladder_id == ladder_id)
        if active:
            q = q.where((LadderCompare.status == "running") | LadderCompare.follow.is_(True))
        with self._db.read() as s:
            return [_info(row) for row in s.execute(q.order_by(LadderCompare.id.desc())).all()]

    def save_look(self, compare_id: int, expected_games: int, *, status: str, games: int, difference: float | None,
                  low: float | None, high: float | None, state: dict[str, Any], follow: bool | None = None) -> bool:
        """Store one look at a running compare if it is still running with ``expected_games`` games (the look
        started from that state); else nothing is written (another runner looked first): False.
        A status other than ``running`` finishes it now. Raises ValueError for an unknown status."""
        if status not in STATUSES:
            raise ValueError(f"unknown compare status {status!r}; expected one of {STATUSES}")
        values: dict[str, Any] = {"status": status, "games": games, "difference": difference, "low": low,
                                  "high": high, "state": state}
        if status != "running":
            values["finished_at"] = utcnow()
        if follow is not None:
            values["follow"] = follow
        with self._db.write_rows() as conn:
            return conn.execute(update(LadderCompare).where(and_(
                LadderCompare.id == compare_id, LadderCompare.status == "running",
                LadderCompare.games == expected_games)).values(**values)).rowcount == 1

    def stop_compare(self, compare_id: int, why: str) -> bool:
        """Stop a compare: a running one ends ``stopped`` with ``why`` in its state, and it no longer follows
        its candidate's versions. False if it was neither running nor following. Raises NotFound if unknown."""
        with self._db.write() as s:
            row = s.get(LadderCompare, compare_id)
            if row is None:
                raise NotFound(f"no compare with id {compare_id}")
            if row.status != "running" and not row.follow:
                return False
            row.follow = False
            if row.status == "running":
                row.status, row.finished_at = "stopped", utcnow()
                row.state = {**(row.state or {}), "why": why}
            return True

    def compare_games(self, ladder_id: int, bots: Sequence[int], after_id: int) -> list[CompareGame]:
        """The ladder's games with an id above ``after_id`` that seat every bot of ``bots`` (by id), with their
        deal groups and seats, by id."""
        ids = select(Season.id).where(Season.ladder_id == ladder_id).scalar_subquery()
        q = select(Game.id, Game.season_id, Game.deal_group, Game.status).where(Game.season_id.in_(ids),
                                                                                Game.id > after_id)
        for bot in bots:
            q = q.where(exists().where(GameSeat.game_id == Game.id, GameSeat.bot_id == bot))
        with self._db.read_rows() as conn:
            games = conn.execute(q.order_by(Game.id)).all()
            if not games:
                return []
            seats: dict[int, list[tuple[int, str | None, int | None]]] = {}
            gids = [g.id for g in games]
            for start in range(0, len(gids), 500):
                chunk = gids[start:start + 500]
                for gid, bot, version, place in conn.execute(
                        select(GameSeat.game_id, GameSeat.bot_id, GameSeat.version, GameSeat.place)
                        .where(GameSeat.game_id.in_(chunk)).order_by(GameSeat.game_id, GameSeat.seat)):
                    seats.setdefault(gid, []).append((bot, version, place))
        return [CompareGame(g.id, g.season_id, g.deal_group if g.deal_group is not None else -g.id,
                            GameStatus(g.status), tuple(seats.get(g.id, ()))) for g in games]
