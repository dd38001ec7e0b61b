"""Read queries for the dashboard: summaries, standings, crosstables, per-bot statistics, game lists.

Functions take a :class:`store.repo.Store` and run in one read transaction each;
they return plain frozen dataclasses or JSON-ready dicts. They are written to
stay fast with a large store (100,000 games and more): aggregates are computed
in SQL over the indexes of the ``games`` and ``game_seats`` tables, never by
loading every row into Python; statistics that need replays (latencies, the
fault log) read only a bounded number of recent games.
"""

from __future__ import annotations

import json
import statistics
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, and_, case, exists, func, select
from sqlalchemy.orm import Session, aliased

from league import elo as elo_rating
from league.standings import StandingRow, standings_json
from store.db import NotFound, transaction
from store.models import Bot, Game, GameSeat, GameStatus, Rating, Replay, Season, SeasonStatus
from store.repo import Store
from store.sealing import published, sealed

#: The fields of a standings row that :func:`standings_core` computes in SQL; the others
#: (maximum-likelihood ratings, openskill) come from ``store.standings``.
CORE_STANDING_FIELDS = frozenset({"bot_id", "name", "games", "avg_place", "avg_change", "faults", "retired", "elo"})
#: Finished statuses: a game in one of these never changes again.
FINAL = (GameStatus.DONE, GameStatus.FAILED)


@dataclass(frozen=True)
class SeasonSummary:
    """A season and its games per status (``pending``, ``running``, ``done``, ``failed``, ``total``),
    whether its deals are reproducible and its key's commitment (``league.fairness``)."""

    id: int
    name: str
    game: str
    status: str
    created_at: Any
    finished_at: Any
    progress: dict[str, int]
    reproducible: bool = False
    commitment: str | None = None


@dataclass(frozen=True)
class CrossCell:
    """Head-to-head record of ``bot_id`` against ``opponent_id`` over games where both sat:
    ``games`` shared, ``wins`` (placed ahead), ``draws`` (same place), ``losses``."""

    bot_id: int
    opponent_id: int
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class SeatStats:
    """A bot's done games of one game from one seat position: count, mean place, mean change
    (in the game's unit: tokens or points), wins (place 1)."""

    seat: int
    games: int
    avg_place: float
    avg_change: float
    wins: int
    faults: int
    game: str = ""


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
class RatingPoint:
    """A bot's Elo right after one of its done games (``number`` in the season's schedule)."""

    game_id: int
    number: int
    elo: float


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


@dataclass(frozen=True)
class GameRow:
    """A game for lists: its season, state and seats (bot, place, change, faults).

    ``sealed``: another game of its deal group is still to be played (``store.sealing``);
    then the seats' results and the end reason are None. ``seed``: the deal seed, only of
    a done game that is not sealed (it is in the stored replay then), else None."""

    id: int
    season_id: int
    season_name: str
    game: str
    number: int
    status: str
    reason: str | None
    started_at: Any
    finished_at: Any
    seats: tuple[dict[str, Any], ...]
    sealed: bool = False
    seed: int | None = None


@dataclass(frozen=True)
class GameFilter:
    """Filters of :func:`list_games`; ``None`` means any. ``fault``: only games with (True) or
    without (False) a fault; ``result``: ``"win"`` (the bot placed first) or ``"loss"``, needs ``bot_id``."""

    season_id: int | None = None
    bot_id: int | None = None
    status: GameStatus | None = None
    fault: bool | None = None
    result: str | None = None


def _read(store: Store) -> Any:
    return transaction(store.engine, write=False)


def _require_season(s: Session, season_id: int) -> Season:
    season = s.get(Season, season_id)
    if season is None:
        raise NotFound(f"no season with id {season_id}")
    return season


def _require_bot(s: Session, bot_id: int) -> Bot:
    bot = s.get(Bot, bot_id)
    if bot is None:
        raise NotFound(f"no bot with id {bot_id}")
    return bot


# ------------------------------------------------------------------ seasons


def season_summaries(store: Store, season_id: int | None = None) -> list[SeasonSummary]:
    """Every season (or just ``season_id``) with its games per status, by id. One grouped query."""
    with _read(store) as s:
        q = select(Season).order_by(Season.id)
        cq = select(Game.season_id, Game.status, func.count()).group_by(Game.season_id, Game.status)
        if season_id is not None:
            q = q.where(Season.id == season_id)
            cq = cq.where(Game.season_id == season_id)
        seasons = list(s.scalars(q))
        counts: dict[int, dict[str, int]] = {x.id: {st.value: 0 for st in GameStatus} for x in seasons}
        for sid, status, n in s.execute(cq):
            if sid in counts:
                counts[sid][GameStatus(status).value] = n
        for c in counts.values():
            c["total"] = sum(c.values())
        return [SeasonSummary(x.id, x.name, x.game, SeasonStatus(x.status).value,
                              x.created_at, x.finished_at, counts[x.id], bool(x.reproducible), x.commitment)
                for x in seasons]


def done_count(store: Store, season_id: int) -> tuple[int, int]:
    """``(done, failed)`` games of the season: a cache key for anything computed from final games."""
    with _read(store) as s:
        rows = {GameStatus(st): int(n) for st, n in s.execute(select(Game.status, func.count()).where(
            Game.season_id == season_id, Game.status.in_(FINAL)).group_by(Game.status))}
    return rows.get(GameStatus.DONE, 0), rows.get(GameStatus.FAILED, 0)


def standings_core(store: Store, season_id: int) -> list[dict[str, Any]]:
    """The season's standings as JSON-ready rows (``league.standings.standings_json`` of them):
    rank, bot_id, name, games, avg_place, avg_change, faults, retired and Elo, best Elo first, for
    every bot seated in the season (``dashboard.services.standings`` re-ranks them by the
    season ratings). Raises NotFound.

    These columns are aggregated in SQL in one pass over the season's seats, so they
    cost ~0.1 s at 100,000 games; ``store.standings`` loads every game into Python and
    also fits the season's maximum-likelihood ratings (seconds at that size), so the
    dashboard takes those fields from it in the background (``dashboard.deps.Refresher``).
    """
    done = published(season_id=season_id)
    with _read(store) as s:
        _require_season(s, season_id)
        rows = s.execute(
            select(GameSeat.bot_id, Bot.name,
                   func.count(case((done, 1))),
                   func.sum(case((done, GameSeat.place))),
                   func.sum(case((done, GameSeat.change))),
                   func.sum(case((done, GameSeat.faults))),
                   func.count(case((done & GameSeat.retired.is_(True), 1))))
            .join(Game, Game.id == GameSeat.game_id)
            .join(Bot, Bot.id == GameSeat.bot_id)
            .where(Game.season_id == season_id)
            .group_by(GameSeat.bot_id, Bot.name)
        ).all()
        elo = dict(s.execute(select(Rating.bot_id, Rating.elo).where(Rating.season_id == season_id)).all())
    out = [
        StandingRow(bot_id=bot, name=name, games=int(g), avg_place=(places / g) if g else None,
                    avg_change=(change / g) if g else None, faults=int(faults or 0),
                    elo=elo.get(bot, elo_rating.START), retired=int(retired))
        for bot, name, g, places, change, faults, retired in rows
    ]
    out.sort(key=lambda r: (-r.elo, -r.games, r.name))
    return [{k: v for k, v in row.items() if k in CORE_STANDING_FIELDS or k == "rank"} for row in standings_json(out)]


def crosstable(store: Store, season_id: int) -> list[CrossCell]:
    """Head-to-head results of every ordered pair of bots over the season's done games. Raises NotFound."""
    a, b = aliased(GameSeat), aliased(GameSeat)
    with _read(store) as s:
        _require_season(s, season_id)
        rows = s.execute(
            select(a.bot_id, b.bot_id, func.count(),
                   func.sum(case((a.place < b.place, 1), else_=0)),
                   func.sum(case((a.place == b.place, 1), else_=0)))
            .select_from(Game)
            .join(a, a.game_id == Game.id)
            .join(b, and_(b.game_id == Game.id, b.bot_id != a.bot_id))
            .where(Game.season_id == season_id, published(season_id=season_id))
            .group_by(a.bot_id, b.bot_id)
        ).all()
    return [CrossCell(x, y, int(n), int(w), int(d), int(n - w - d)) for x, y, n, w, d in rows]


def rating_histories(store: Store, season_id: int) -> dict[int, list[RatingPoint]]:
    """Every bot's Elo after each of its done games of the season, replaying ``league.elo``
    over the done games in schedule order (as the store rates them). Raises NotFound."""
    with _read(store) as s:
        _require_season(s, season_id)
        rows = s.execute(
            select(Game.id, Game.number, GameSeat.bot_id, GameSeat.place)
            .join(GameSeat, GameSeat.game_id == Game.id)
            .where(Game.season_id == season_id, published(season_id=season_id))
            .order_by(Game.number, GameSeat.seat)
        ).all()
    history: dict[int, list[RatingPoint]] = {}
    ratings: dict[int, float] = {}
    for game_id, number, bots, places in _group_games(rows):
        ratings = elo_rating.update(ratings, bots, places)
        for bot in dict.fromkeys(bots):
            history.setdefault(bot, []).append(RatingPoint(game_id, number, round(ratings[bot], 1)))
    return history


def _group_games(rows: Iterable[Any]) -> Iterable[tuple[int, int, list[int], list[int]]]:
    current: tuple[int, int, list[int], list[int]] | None = None
    for game_id, number, bot, place in rows:
        if current is None or current[0] != game_id:
            if current is not None:
                yield current
            current = (game_id, number, [], [])
        current[2].append(bot)
        current[3].append(place)
    if current is not None:
        yield current


# --------------------------------------------------------------------- bots


def bot_seasons(store: Store, bot_id: int) -> list[dict[str, Any]]:
    """The seasons a bot sits in, newest first: id, name, game, status, its done games and Elo. Raises NotFound."""
    with _read(store) as s:
        _require_bot(s, bot_id)
        rows = s.execute(
            select(Season.id, Season.name, Season.game, Season.status,
                   func.count(case((published(), 1))))
            .join(Game, Game.season_id == Season.id)
            .join(GameSeat, GameSeat.game_id == Game.id)
            .where(GameSeat.bot_id == bot_id)
            .group_by(Season.id, Season.name, Season.game, Season.status)
            .order_by(Season.id.desc())
        ).all()
        elo = dict(s.execute(select(Rating.season_id, Rating.elo).where(Rating.bot_id == bot_id)).all())
    return [{"id": sid, "name": name, "game": game, "status": SeasonStatus(status).value,
             "games": int(n), "elo": round(elo[sid], 1) if sid in elo else None}
            for sid, name, game, status, n in rows]


def results_by_seat(store: Store, bot_id: int, season_id: int | None = None) -> list[SeatStats]:
    """A bot's done games grouped by game and seat position (seat numbers as the referee numbers
    them; who deals first is drawn by lot), by game then seat: a mean change is only taken over
    one game's unit (tokens or points). Raises NotFound for an unknown bot."""
    with _read(store) as s:
        _require_bot(s, bot_id)
        q = (select(Season.game, GameSeat.seat, func.count(), func.avg(GameSeat.place), func.avg(GameSeat.change),
                    func.sum(case((GameSeat.place == 1, 1), else_=0)), func.sum(GameSeat.faults))
             .join(Game, Game.id == GameSeat.game_id)
             .join(Season, Season.id == Game.season_id)
             .where(GameSeat.bot_id == bot_id, published())
             .group_by(Season.game, GameSeat.seat).order_by(Season.game, GameSeat.seat))
        if season_id is not None:
            q = q.where(Game.season_id == season_id)
        return [SeatStats(seat, int(n), float(p), float(c), int(w), int(f or 0), game)
                for game, seat, n, p, c, w, f in s.execute(q)]


def opponents(store: Store, bot_id: int, season_id: int | None = None) -> list[OpponentStats]:
    """A bot's head-to-head record against every bot it met in done games, most games first.
    Raises NotFound for an unknown bot."""
    a, b = aliased(GameSeat), aliased(GameSeat)
    with _read(store) as s:
        _require_bot(s, bot_id)
        q = (select(b.bot_id, Bot.name, func.count(),
                    func.sum(case((a.place < b.place, 1), else_=0)),
                    func.sum(case((a.place == b.place, 1), else_=0)))
             .select_from(a)
             .join(Game, Game.id == a.game_id)
             .join(b, and_(b.game_id == a.game_id, b.bot_id != a.bot_id))
             .join(Bot, Bot.id == b.bot_id)
             .where(a.bot_id == bot_id, published())
             .group_by(b.bot_id, Bot.name)
             .order_by(func.count().desc(), Bot.name))
        if season_id is not None:
            q = q.where(Game.season_id == season_id)
        return [OpponentStats(o, name, int(n), int(w), int(d), int(n - w - d)) for o, name, n, w, d in s.execute(q)]


def _recent_replays(s: Session, bot_id: int, limit: int, faulted_only: bool,
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
    return [(g, season, sorted(seats.get(g, [])), json.loads(zlib.decompress(blobs[g])))
            for g, season in games if g in blobs]


def fault_log(store: Store, bot_id: int, limit_games: int = 50, season_id: int | None = None) -> list[FaultEntry]:
    """The bot's faults in its most recent ``limit_games`` done games with a fault (of
    ``season_id`` only, if given), newest first, each with the answer that caused it
    (``None``: no answer). Raises NotFound."""
    with _read(store) as s:
        _require_bot(s, bot_id)
        replays = _recent_replays(s, bot_id, limit_games, faulted_only=True, season_id=season_id)
    out = []
    for game_id, season_id, seats, record in replays:
        for f in record.get("faults", []):
            if f["seat"] in seats:
                out.append(FaultEntry(game_id, season_id, f["seat"], f["decision"], str(f["kind"]),
                                      f.get("detail", ""), f.get("answer")))
    return out


def latency_stats(store: Store, bot_id: int, limit_games: int = 200, bins: int = 20,
                  season_id: int | None = None) -> LatencyStats:
    """Latencies of the bot's answered decisions over its most recent ``limit_games`` done games
    (of ``season_id`` only, if given). Raises NotFound."""
    with _read(store) as s:
        _require_bot(s, bot_id)
        replays = _recent_replays(s, bot_id, limit_games, faulted_only=False, season_id=season_id)
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


# -------------------------------------------------------------------- games


def _filtered(q: Select[Any], f: GameFilter) -> Select[Any]:
    if f.season_id is not None:
        q = q.where(Game.season_id == f.season_id)
    if f.status is not None:
        q = q.where(Game.status == f.status)
    if f.bot_id is not None:
        seat = exists().where(GameSeat.game_id == Game.id, GameSeat.bot_id == f.bot_id)
        if f.result == "win":
            seat = seat.where(GameSeat.place == 1)
        elif f.result == "loss":
            seat = seat.where(GameSeat.place > 1)
        q = q.where(seat)
    if f.fault is not None:
        faulted = exists().where(GameSeat.game_id == Game.id, GameSeat.faults > 0)
        q = q.where(faulted if f.fault else ~faulted)
    if f.result is not None or f.fault is not None:  # filters on results: a sealed game's are not shown
        q = q.where(~sealed())
    return q


def list_games(store: Store, f: GameFilter, *, limit: int = 50, offset: int = 0) -> tuple[int, list[GameRow]]:
    """``(total matching, one page)`` of games, newest first, with their seats. ``result`` needs
    ``bot_id`` (ValueError otherwise)."""
    if f.result is not None and f.bot_id is None:
        raise ValueError("filtering by result needs a bot")
    with _read(store) as s:
        total = int(s.scalar(_filtered(select(func.count()).select_from(Game), f)) or 0)
        q = _filtered(select(Game, Season.name, Season.game, sealed()).join(Season, Season.id == Game.season_id), f)
        page = s.execute(q.order_by(Game.id.desc()).limit(limit).offset(offset)).all()
        return total, _game_rows(s, page)


def get_game_row(store: Store, game_id: int) -> GameRow:
    """One game as a :class:`GameRow`. Raises NotFound."""
    with _read(store) as s:
        row = s.execute(select(Game, Season.name, Season.game, sealed()).join(Season, Season.id == Game.season_id)
                        .where(Game.id == game_id)).all()
        if not row:
            raise NotFound(f"no game with id {game_id}")
        return _game_rows(s, row)[0]


def _game_rows(s: Session, page: Sequence[Any]) -> list[GameRow]:
    """``page``: ``(Game, season name, game name, sealed)`` rows. A sealed game's results, end reason
    and seed are withheld here, the one place game rows are made (``store.sealing``)."""
    ids = [g.id for g, _, _, _ in page]
    hidden = {g.id for g, _, _, is_sealed in page if is_sealed}
    seats: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
    if ids:
        for seat, name in s.execute(select(GameSeat, Bot.name).join(Bot, Bot.id == GameSeat.bot_id)
                                    .where(GameSeat.game_id.in_(ids)).order_by(GameSeat.game_id, GameSeat.seat)):
            result = (None,) * 5 if seat.game_id in hidden else (seat.place, seat.score, seat.change, seat.faults,
                                                                   seat.retired)
            seats[seat.game_id].append({"seat": seat.seat, "bot_id": seat.bot_id, "bot_name": name,
                                        **dict(zip(("place", "score", "change", "faults", "retired"), result,
                                                   strict=True))})
    return [GameRow(g.id, g.season_id, season_name, game, g.number, GameStatus(g.status).value,
                    None if is_sealed else g.reason, g.started_at, g.finished_at, tuple(seats[g.id]),
                    bool(is_sealed), g.seed if GameStatus(g.status) == GameStatus.DONE and not is_sealed else None)
            for g, season_name, game, is_sealed in page]
