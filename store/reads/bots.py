"""Read models of a bot: its seasons, results by seat, opponents, faults and decision latencies.

Aggregates are computed in SQL over the published seats (``store.sealing``);
the statistics that need replays (latencies, the fault log) read only a
bounded number of the bot's recent games.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session, aliased

from referee.games import spec
from store.db import NotFound
from store.models import (Bot, BotOpponentTotal, BotSeasonTotal, BotTotal, Game, GameSeat, GameStatus,
                          Ladder, Rating, Replay, Season, SeasonBotStatus, SeasonStatus)
from store.policy import LeaguePolicy
from store.reads import totals
from store.replays import decode_json
from store.sealing import published
from store.reads import doc
from store.session import Database


@dataclass(frozen=True)
class BotSeason:
    """A season a bot sits in: its done games there and its Elo (None: no rated game). A ladder's epoch is
    a season too (rules §5.1): then ``ladder`` and ``epoch`` name it, and ``elo`` is the epoch's own Elo over
    its games alone, not the ladder's rating."""

    id: int
    name: str
    game: str
    status: str
    games: int
    elo: float | None
    ladder: str | None = None
    epoch: int | None = None


@dataclass(frozen=True)
class SeatStats:
    """A bot's done games of one game from one seat position (rows by game, then seat): count, mean
    place, mean change (in the game's unit), wins (place 1), faults; the game's unit and sense from
    ``referee.games`` (points, higher better, for a game this version does not know)."""

    seat: int
    games: int
    avg_place: float
    avg_change: float = field(metadata=doc("mean score change per game, in ``score_unit`` of ``game``"))
    wins: int
    faults: int
    game: str = field(default="", metadata=doc(
        "the game these games were of (a mean change is never taken across games)"))
    score_unit: str = field(default="points", metadata=doc("what avg_change counts: tokens or points"))
    higher_score_is_better: bool = field(default=True, metadata=doc("False when fewer points are better"))


@dataclass(frozen=True)
class VersionStats:
    """A bot's done games of one game played as one version (the version recorded on each seat when
    the game was claimed; ``bot update --version`` changes no past game): count, mean place, mean
    change, wins, faults."""

    version: str = field(metadata=doc('the version the bot played these games as; "unknown" for games '
                                      "claimed before versions were recorded per game"))
    game: str
    games: int
    avg_place: float
    avg_change: float = field(metadata=doc("mean score change per game, in ``score_unit`` of ``game``"))
    wins: int
    faults: int
    score_unit: str = field(default="points", metadata=doc("what avg_change counts: tokens or points"))
    higher_score_is_better: bool = field(default=True, metadata=doc("False when fewer points are better"))


@dataclass(frozen=True)
class BotProblem:
    """An outage of the bot in a season (rules §4.9): why (e.g. ``endpoint serves another bot: X``), since
    when, and whether it was suspended. ``open`` while the season can still put games off (it is not done,
    cancelled seasons included: its games with the bot are put off now, or not played once it is suspended); a closed
    one is history: ``until`` is when it ended for the season (its suspension, else the season's end) and
    ``duration_s`` the seconds from ``since`` to ``until``."""

    season_id: int
    season: str
    reason: str | None
    since: datetime | None
    suspended_at: datetime | None
    open: bool = True
    until: datetime | None = None
    duration_s: float | None = None


#: How a seat stored before versions were recorded per game shows its version.
UNKNOWN_VERSION = totals.UNKNOWN_VERSION


@dataclass(frozen=True)
class OpponentStats:
    """A bot's record against one opponent (see :class:`CrossCell`), with the opponent's name."""

    opponent_id: int
    name: str
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class FaultEntry:
    """One fault of a bot: the game, its seat, the decision, the kind, why, and the answer it sent."""

    game_id: int
    season_id: int
    seat: int
    decision: int
    kind: str
    detail: str
    answer: dict[str, Any] | None


@dataclass(frozen=True)
class LatencyStats:
    """Decision latencies (ms) over a bot's recent games: ``count``, median, p99, max and a histogram
    (``bins[i]`` decisions in ``[edges[i], edges[i + 1])``; the last bin is closed)."""

    games: int
    count: int
    median_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    edges: tuple[float, ...]
    bins: tuple[int, ...]


def _score_kind(game: str) -> tuple[str, bool]:
    """``(score unit, higher is better)`` of a game; points, higher better, for a game this version does not know."""
    try:
        gs = spec(game)
    except ValueError:
        return "points", True
    return gs.score_unit, gs.higher_score_is_better


def _require_bot(s: Session, bot_id: int) -> Bot:
    bot = s.get(Bot, bot_id)
    if bot is None:
        raise NotFound(f"no bot with id {bot_id}")
    return bot


def recent_replays(s: Session, bot_id: int, limit: int, faulted_only: bool,
                    season_id: int | None = None) -> list[tuple[int, int, list[int], dict[str, Any]]]:
    """``(game_id, season_id, the bot's seats, record JSON)`` of the bot's most recent done games
    (of ``season_id`` only, if given)."""
    q = (select(Game.id, Game.season_id).join(GameSeat, GameSeat.game_id == Game.id)
         .where(GameSeat.bot_id == bot_id, published()))
    if faulted_only:
        q = q.where(GameSeat.faults > 0)
    if season_id is not None:
        q = q.where(Game.season_id == season_id)
    games = s.execute(q.distinct().order_by(Game.id.desc()).limit(limit)).all()
    if not games:
        return []
    ids = [g for g, _ in games]
    seats: dict[int, list[int]] = {}
    for game_id, seat in s.execute(select(GameSeat.game_id, GameSeat.seat)
                                   .where(GameSeat.game_id.in_(ids), GameSeat.bot_id == bot_id)):
        seats.setdefault(game_id, []).append(seat)
    blobs = dict(s.execute(select(Replay.game_id, Replay.record).where(Replay.game_id.in_(ids))).all())
    return [(g, season, sorted(seats.get(g, [])), decode_json(blobs[g]))
            for g, season in games if g in blobs]


class BotReads:
    """Bots as read models, over one :class:`~store.session.Database`."""

    def __init__(self, db: Database, policy: LeaguePolicy) -> None:
        self._db = db
        self._policy = policy

    def games_played(self) -> dict[int, int]:
        """``{bot id: games}``: every bot's seats in games stored as done, all seasons (sealed ones
        included: a count, not a result). Bots without one are absent. One grouped query."""
        with self._db.read() as s:
            rows = s.execute(select(GameSeat.bot_id, func.count()).join(Game, Game.id == GameSeat.game_id)
                             .where(Game.status == GameStatus.DONE).group_by(GameSeat.bot_id)).all()
        return {bot_id: int(n) for bot_id, n in rows}

    def bot_seasons(self, bot_id: int) -> list[BotSeason]:
        """The seasons a bot sits in, newest first: id, name, game, status, its done games and Elo. Finished
        seasons come from their folded totals (``store.reads.totals``), the others from their games. Raises
        NotFound."""
        self.fold()
        with self._db.read() as s:
            _require_bot(s, bot_id)
            open_ids = totals.unfolded_ids(s)
            counts: dict[int, int] = dict(s.execute(select(BotSeasonTotal.season_id, BotSeasonTotal.games)
                                                    .where(BotSeasonTotal.bot_id == bot_id)).all())
            if open_ids:
                counts.update(s.execute(
                    select(Game.season_id, func.count(case((published(), 1))))
                    .join(GameSeat, GameSeat.game_id == Game.id)
                    .where(GameSeat.bot_id == bot_id, Game.season_id.in_(open_ids))
                    .group_by(Game.season_id)).all())
            ids = sorted(counts, reverse=True)
            # its seasons by a subquery, not a list of ids: a bot of a ladder sits in some 1,000 epochs
            sat = Season.id.in_(select(BotSeasonTotal.season_id).where(BotSeasonTotal.bot_id == bot_id))
            seasons = {sid: (name, game, status, ladder, epoch) for sid, name, game, status, ladder, epoch in s.execute(
                select(Season.id, Season.name, Season.game, Season.status, Ladder.name, Season.epoch)
                .outerjoin(Ladder, Ladder.id == Season.ladder_id)
                .where(or_(sat, Season.id.in_(open_ids)) if open_ids else sat))} if ids else {}
            elo = dict(s.execute(select(Rating.season_id, Rating.elo).where(Rating.bot_id == bot_id)).all())
        return [BotSeason(sid, seasons[sid][0], seasons[sid][1], SeasonStatus(seasons[sid][2]).value, int(counts[sid]),
                          round(elo[sid], 1) if sid in elo else None,
                          *((seasons[sid][3], seasons[sid][4]) if seasons[sid][3] is not None else (None, None)))
                for sid in ids if sid in seasons]

    def results_by_seat(self, bot_id: int, season_id: int | None = None) -> list[SeatStats]:
        """A bot's done games grouped by game and seat position (seat numbers as the referee numbers
        them; who deals first is drawn by lot), by game then seat: a mean change is only taken over
        one game's unit (tokens or points). Raises NotFound for an unknown bot."""
        rows = self._results(bot_id, season_id, by_seat=True)
        return [SeatStats(int(seat), n, p / n, c / n, w, f, game, *_score_kind(game))
                for (game, seat), (n, p, c, w, f, _) in sorted(rows.items())]

    def results_by_version(self, bot_id: int, season_id: int | None = None) -> list[VersionStats]:
        """A bot's done games grouped by game and the version each was played as (recorded per seat
        at the claim), by game then version in order of first play; seats stored before versions
        were recorded show as :data:`UNKNOWN_VERSION`. Raises NotFound for an unknown bot."""
        rows = self._results(bot_id, season_id, by_seat=False)
        ordered = sorted(rows.items(), key=lambda item: (item[0][0], item[1][5]))
        return [VersionStats(str(v), game, n, p / n, c / n, w, f, *_score_kind(game))
                for (game, v), (n, p, c, w, f, _) in ordered]

    def _results(self, bot_id: int, season_id: int | None, by_seat: bool) -> dict[tuple[str, Any], list[Any]]:
        """``{(game, seat or version): [games, place sum, change sum, wins, faults, first game id]}`` of a bot's
        published seats: of ``season_id`` only when given (read from its games), else the folded totals of the
        finished seasons plus the games of the others. Raises NotFound for an unknown bot."""
        if season_id is None:
            self.fold()
        version = func.coalesce(GameSeat.version, UNKNOWN_VERSION)
        key = GameSeat.seat if by_seat else version
        out: dict[tuple[str, Any], list[Any]] = {}
        with self._db.read() as s:
            _require_bot(s, bot_id)
            if season_id is None:
                total_key = BotTotal.seat if by_seat else BotTotal.version
                for game, k, n, p, c, w, f, first in s.execute(
                        select(BotTotal.game, total_key, func.sum(BotTotal.games), func.sum(BotTotal.place_sum),
                               func.sum(BotTotal.change_sum), func.sum(BotTotal.wins), func.sum(BotTotal.faults),
                               func.min(BotTotal.first_game))
                        .where(BotTotal.bot_id == bot_id).group_by(BotTotal.game, total_key)):
                    out[(game, k)] = [int(n), int(p), int(c), int(w), int(f), int(first)]
                seasons = totals.unfolded_ids(s)
            else:
                seasons = [season_id]
            if not seasons:
                return out
            q = (select(Season.game, key, func.count(), func.coalesce(func.sum(GameSeat.place), 0),
                        func.coalesce(func.sum(GameSeat.change), 0),
                        func.sum(case((GameSeat.place == 1, 1), else_=0)),
                        func.coalesce(func.sum(GameSeat.faults), 0), func.min(Game.id))
                 .join(Game, Game.id == GameSeat.game_id)
                 .join(Season, Season.id == Game.season_id)
                 .where(GameSeat.bot_id == bot_id, published(), Game.season_id.in_(seasons))
                 .group_by(Season.game, key))
            for game, k, n, p, c, w, f, first in s.execute(q):
                row = out.setdefault((game, k), [0, 0, 0, 0, 0, int(first)])
                for i, v in enumerate((n, p, c, w, f)):
                    row[i] += int(v)
                row[5] = min(row[5], int(first))
        return out

    def fold(self) -> int:
        """Fold the seasons finished since the last fold into the per-bot totals (``store.reads.totals``); returns
        how many."""
        return totals.fold_finished(self._db, self._policy)

    def problems(self, bot_id: int) -> list[BotProblem]:
        """The bot's outages recorded per season (rules §4.9), newest season first: those still open (the
        season is not over: its games with the bot are put off now, or not played after a suspension), then
        those closed with the season, with how long each lasted. Raises NotFound for an unknown bot."""
        with self._db.read() as s:
            _require_bot(s, bot_id)
            rows = s.execute(
                select(SeasonBotStatus, Season.name, Season.status, Season.finished_at)
                .join(Season, Season.id == SeasonBotStatus.season_id)
                .where(SeasonBotStatus.bot_id == bot_id, (SeasonBotStatus.unavailable_since.is_not(None))
                       | SeasonBotStatus.suspended_at.is_not(None))
                .order_by(Season.id.desc())).all()
        out = []
        for r, name, status, finished_at in rows:
            if SeasonStatus(status) != SeasonStatus.DONE:  # a cancelled season is done too
                out.append(BotProblem(r.season_id, name, r.reason, r.unavailable_since, r.suspended_at))
                continue
            until = r.suspended_at or finished_at
            since = r.unavailable_since or until
            duration = (until - since).total_seconds() if until is not None and since is not None else None
            out.append(BotProblem(r.season_id, name, r.reason, since, r.suspended_at, False, until, duration))
        return sorted(out, key=lambda p: not p.open)  # stable: newest season first within each

    def opponents(self, bot_id: int, season_id: int | None = None) -> list[OpponentStats]:
        """A bot's head-to-head record against every bot it met in done games, most games first: of ``season_id``
        only when given, else the folded totals of the finished seasons plus the games of the others. Raises
        NotFound for an unknown bot."""
        if season_id is None:
            self.fold()
        a, b = aliased(GameSeat), aliased(GameSeat)
        met: dict[int, list[int]] = {}
        with self._db.read() as s:
            _require_bot(s, bot_id)
            if season_id is None:
                for o, n, w, d in s.execute(select(BotOpponentTotal.opponent_id, BotOpponentTotal.games,
                                                   BotOpponentTotal.wins, BotOpponentTotal.draws)
                                            .where(BotOpponentTotal.bot_id == bot_id)):
                    met[o] = [int(n), int(w), int(d)]
                seasons = totals.unfolded_ids(s)
            else:
                seasons = [season_id]
            if seasons:
                q = (select(b.bot_id, func.count(),
                            func.sum(case((a.place < b.place, 1), else_=0)),
                            func.sum(case((a.place == b.place, 1), else_=0)))
                     .select_from(a)
                     .join(Game, Game.id == a.game_id)
                     .join(b, and_(b.game_id == a.game_id, b.bot_id != a.bot_id))
                     .where(a.bot_id == bot_id, published(), Game.season_id.in_(seasons))
                     .group_by(b.bot_id))
                for o, n, w, d in s.execute(q):
                    row = met.setdefault(o, [0, 0, 0])
                    for i, v in enumerate((n, w, d)):
                        row[i] += int(v)
            names = {i: n for i, n in s.execute(select(Bot.id, Bot.name).where(Bot.id.in_(list(met))))} if met else {}
        rows = [OpponentStats(o, names[o], n, w, d, n - w - d) for o, (n, w, d) in met.items() if o in names]
        return sorted(rows, key=lambda r: (-r.games, r.name))

    def fault_log(self, bot_id: int, limit_games: int = 50, season_id: int | None = None) -> list[FaultEntry]:
        """The bot's faults in its most recent ``limit_games`` done games with a fault (of
        ``season_id`` only, if given), newest first, each with the answer that caused it
        (``None``: no answer). Raises NotFound."""
        with self._db.read() as s:
            _require_bot(s, bot_id)
            replays = recent_replays(s, bot_id, limit_games, faulted_only=True, season_id=season_id)
        out = []
        for game_id, season_id, seats, record in replays:
            for f in record.get("faults", []):
                if f["seat"] in seats:
                    out.append(FaultEntry(game_id, season_id, f["seat"], f["decision"], str(f["kind"]),
                                          f.get("detail", ""), f.get("answer")))
        return out

    def latency_stats(self, bot_id: int, limit_games: int = 200, bins: int = 20,
                      season_id: int | None = None) -> LatencyStats:
        """Latencies of the bot's answered decisions over its most recent ``limit_games`` done games
        (of ``season_id`` only, if given). Raises NotFound."""
        with self._db.read() as s:
            _require_bot(s, bot_id)
            replays = recent_replays(s, bot_id, limit_games, faulted_only=False, season_id=season_id)
        values = sorted(float(d["latency_ms"]) for _, _, seats, record in replays
                        for d in record.get("decisions", []) if d["seat"] in seats and d.get("called", True))
        if not values:
            return LatencyStats(len(replays), 0, None, None, None, (), ())
        p99 = values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]
        top = max(p99 * 1.25, values[0] + 1e-3)  # the histogram shows the body; the tail goes in the last bin
        width = (top - 0.0) / bins
        edges = tuple(round(i * width, 3) for i in range(bins + 1))
        counts = [0] * bins
        for v in values:
            counts[min(bins - 1, int(v / width))] += 1
        return LatencyStats(len(replays), len(values), round(statistics.median(values), 3), round(p99, 3),
                            round(values[-1], 3), edges, tuple(counts))
