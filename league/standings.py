"""A season's standings table, computed from stored per-seat results (a pure function).

The store reads the season's rated seat results, its games' rankings and Elo
ratings (``store.reads.seasons``) and :func:`standings_of` computes the rows
from them; the dashboard and the CLI show the rows, or :func:`standings_json` of them. Beside Elo, each row carries the
season's maximum-likelihood rating with its 95% interval, the probability that
the bot is better than the next row's, and openskill's mu and sigma
(:mod:`league.ratings_ml`), all computed from the games' rankings, and for
a game with a luck estimator the luck-adjusted score change with its 95% interval
(:mod:`league.luck`, from the stored replays). Rows are
ranked by the ML rating where it is fitted, then by Elo (:func:`rank_key`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from league.elo import START
from league.luck import LuckSummary, luck_adjusted_by_bot
from league.ratings_ml import p_better_chain, season_ratings
from referee.games import spec
from referee.record import GameRecord


def _doc(text: str) -> dict[str, str]:
    """A field's ``metadata`` describing it (the API schema's description of a standings field)."""
    return {"description": text}


@dataclass(frozen=True)
class SeatOutcome:
    """One rated seat result: the bot in the seat and what it got (see ``SeatResult``)."""

    bot_id: int
    place: int
    change: int
    faults: int
    retired: bool = False


@dataclass(frozen=True)
class StandingRow:
    """One bot's line in a season's standings.

    ``games`` counts the bot's rated seats (a bot seated twice in one game counts
    twice); ``avg_place`` is the mean place (1 = best; ``None`` before any game);
    ``avg_change`` the mean score change per game (tokens or points, as the game
    counts them); ``faults`` the total over its games; ``retired`` the games in
    which its seat was retired for faults (rules §4.2); ``elo`` its rating.

    From the whole season (``None`` for a bot without a rated result, or when
    the caller gave no games): ``ml_rating`` the maximum-likelihood
    Bradley-Terry rating (Elo scale, season mean 1500) and ``ml_low``/``ml_high``
    its 95% interval; ``p_better`` the probability that this bot is really
    better (higher true ML rating) than the bot on the next row (``None`` on the
    last row); ``openskill_mu``/``openskill_sigma`` openskill's Plackett-Luce
    rating (start 25 and 25/3). ``luck_change``: for a game with a luck estimator
    (``GameSpec.luck``), the mean luck-adjusted score change per game (the actual change less
    the luck the referee measured; see :mod:`league.luck`), ``luck_low``/``luck_high`` its 95% interval (``None`` for other games,
    below 2 games, or when the caller gave no luck summaries). ``suspended``: the bot was suspended from the season for
    not answering at game start (rules §4.9; its remaining games were not played).
    """

    bot_id: int
    name: str
    games: int = field(metadata=_doc("rated seats (done games)"))
    avg_place: float | None
    avg_change: float | None = field(metadata=_doc("mean tokens or points change per game"))
    faults: int
    elo: float
    retired: int = field(default=0, metadata=_doc(
        "done games in which the bot's seat was retired for faults (rules §4.2)"))
    ml_rating: float | None = None
    ml_low: float | None = field(default=None, metadata=_doc("lower end of the 95% interval of ml_rating"))
    ml_high: float | None = field(default=None, metadata=_doc("upper end of the 95% interval of ml_rating"))
    p_better: float | None = field(default=None, metadata=_doc(
        "probability that this bot is better than the next one"))
    openskill_mu: float | None = field(default=None, metadata=_doc("openskill Plackett-Luce mu (start 25)"))
    openskill_sigma: float | None = field(default=None, metadata=_doc("openskill Plackett-Luce sigma (start 25/3)"))
    suspended: bool = field(default=False, metadata=_doc(
        "suspended from the season for not answering at game start (rules §4.9): its remaining games were not played"))
    luck_change: float | None = field(default=None, metadata=_doc(
        "games with a luck estimator only: mean luck-adjusted change per game, in the game's score unit (the "
        "change less the luck terms the game's estimator finds; docs/rules: the game's chapter)"))
    luck_low: float | None = field(default=None, metadata=_doc("lower end of the 95% interval of luck_change"))
    luck_high: float | None = field(default=None, metadata=_doc("upper end of the 95% interval of luck_change"))


def group_games(rows: Iterable[tuple[int, int, int]]) -> list[tuple[list[int], list[int]]]:
    """``(game number, bot id, place)`` rows ordered by game then seat -> ``(seats_bots, places)`` per game."""
    games: list[tuple[int, list[int], list[int]]] = []
    for number, bot, place in rows:
        if not games or games[-1][0] != number:
            games.append((number, [], []))
        games[-1][1].append(bot)
        games[-1][2].append(place)
    return [(bots, places) for _, bots, places in games]


def rank_key(row: Any) -> tuple[bool, float, float, int, str]:
    """The standings order of a row (a StandingRow or anything with its fields): the season's
    maximum-likelihood rating, best first, where it is fitted; then Elo, games played, name.

    The ML rating ranks because it is the season's best estimate of strength, the same
    whatever order the games finished in and with no weight on recent games, so ``p_better``
    (this row really better than the next) is at least 0.5 down the table. Rows without an ML
    rating (no rated game yet, or not fitted yet) follow, by Elo.
    """
    ml = row.ml_rating
    return (ml is None, -(ml or 0.0), -row.elo, -row.games, row.name)


def compute_standings(
    outcomes: Iterable[SeatOutcome],
    names: Mapping[int, str],
    elo: Mapping[int, float],
    games: Sequence[tuple[Sequence[int], Sequence[int]]] | None = None,
    luck: Mapping[int, LuckSummary] | None = None,
) -> list[StandingRow]:
    """Standings rows for every bot in ``names``, in :func:`rank_key` order (by Elo when
    ``games`` is not given).

    ``outcomes`` are the season's rated seat results; ``names`` maps every bot of
    the season (including bots with no finished game yet) to its name; ``elo`` the
    season's ratings (a missing bot shows the starting rating); ``games`` the rated
    games' rankings ``(seats_bots, places)`` in schedule order, for the season
    ratings (without them those fields are ``None``); ``luck`` the bots' luck-adjusted
    changes (:func:`league.luck.luck_adjusted_by_bot`; without it those fields are ``None``).
    Raises KeyError if an outcome's bot is missing from ``names``.
    """
    acc: dict[int, list[int]] = {bot: [0, 0, 0, 0, 0] for bot in names}  # games, places, change, faults, retired
    for o in outcomes:
        a = acc[o.bot_id] if o.bot_id in names else _missing(o.bot_id)
        a[0] += 1
        a[1] += o.place
        a[2] += o.change
        a[3] += o.faults
        a[4] += int(o.retired)
    rows = [
        StandingRow(
            bot_id=bot,
            name=names[bot],
            games=g,
            avg_place=places / g if g else None,
            avg_change=change / g if g else None,
            faults=faults,
            elo=elo.get(bot, START),
            retired=retired,
        )
        for bot, (g, places, change, faults, retired) in acc.items()
    ]
    if luck:
        rows = [replace(r, luck_change=luck[r.bot_id].mean, luck_low=luck[r.bot_id].low, luck_high=luck[r.bot_id].high)
                if r.bot_id in luck else r for r in rows]
    if not games:
        return sorted(rows, key=rank_key)
    fit, skill = season_ratings(games)
    rated = []
    for r in rows:
        low, high = fit.interval(r.bot_id) if r.bot_id in fit.rating else (None, None)
        mu, sigma = skill.get(r.bot_id, (None, None))
        rated.append(replace(r, ml_rating=fit.rating.get(r.bot_id), ml_low=low, ml_high=high,
                             openskill_mu=mu, openskill_sigma=sigma))
    rated.sort(key=rank_key)
    better = p_better_chain([r.bot_id for r in rated], fit)
    return [replace(r, p_better=better.get(r.bot_id)) for r in rated]


def _missing(bot_id: int) -> list[int]:
    raise KeyError(f"bot {bot_id} has results but no name")


def standings_json(rows: Iterable[StandingRow]) -> list[dict[str, Any]]:
    """The rows as JSON-ready dicts, with ``rank`` (1-based) added; Elo and the ML ratings
    rounded to 0.1, ``p_better`` to 0.001, openskill and the luck-adjusted change to 0.01 (``None`` stays ``None``)."""
    return [
        {"rank": i, **asdict(r), "elo": round(r.elo, 1),
         **{k: _round(getattr(r, k), d) for k, d in _ROUNDING.items()}}
        for i, r in enumerate(rows, start=1)
    ]


_ROUNDING = {"ml_rating": 1, "ml_low": 1, "ml_high": 1, "p_better": 3, "openskill_mu": 2, "openskill_sigma": 2,
             "luck_change": 2, "luck_low": 2, "luck_high": 2}


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


#: The fields of a standings row that :func:`core_standings` gives (summed in SQL by the store); the others
#: (maximum-likelihood ratings, openskill, luck) come from :func:`season_standings`.
CORE_STANDING_FIELDS = frozenset({"bot_id", "name", "games", "avg_place", "avg_change", "faults", "retired", "elo"})


class ResultsSource(Protocol):
    """Where a season's results are read from (``store.Store``)."""

    def season_results(self, season_id: int) -> Any:
        """``store.reads.seasons.SeasonResults``: game, names, outcomes, elo, placings, suspended."""
        ...

    def season_records(self, season_id: int) -> list[tuple[list[int], GameRecord]]: ...


#: ``(bot id, name, games, sum of places, sum of changes, faults, retired seats, Elo or None)`` of one bot.
SeatTotals = tuple[int, str, int, int, int, int, int, float | None]


def core_standings(totals: Iterable[SeatTotals]) -> list[dict[str, Any]]:
    """JSON-ready standings rows (:func:`standings_json`, only :data:`CORE_STANDING_FIELDS` and ``rank``)
    from each bot's summed seats (``store.reads.seasons.SeatTotals``), best Elo first (a bot without a
    rated game at :data:`league.elo.START`)."""
    rows = [StandingRow(bot_id=bot, name=name, games=g, avg_place=(places / g) if g else None,
                        avg_change=(change / g) if g else None, faults=faults,
                        elo=START if elo is None else elo, retired=retired)
            for bot, name, g, places, change, faults, retired, elo in totals]
    rows.sort(key=lambda r: (-r.elo, -r.games, r.name))
    return [{k: v for k, v in row.items() if k in CORE_STANDING_FIELDS or k == "rank"} for row in standings_json(rows)]


def season_standings(names: Mapping[int, str], outcomes: Iterable[tuple[int, int, int, int, bool]],
                     elo: Mapping[int, float], placings: Iterable[tuple[int, int, int]], suspended: frozenset[int],
                     records: Iterable[tuple[Sequence[int], GameRecord]] | None = None) -> list[StandingRow]:
    """The season's standings (:func:`compute_standings`), suspended bots marked: ``outcomes`` are
    ``(bot, place, change, faults, retired)`` of the published seats, ``placings`` ``(game number,
    bot, place)`` by game then seat; with ``records`` (the done games of a season of a game with a luck estimator,
    ``(bot of each seat, record)``), the luck-adjusted changes too (:mod:`league.luck`)."""
    luck = luck_adjusted_by_bot(records) if records is not None else None
    rows = compute_standings([SeatOutcome(*o) for o in outcomes], names, elo, group_games(placings), luck)
    return [replace(r, suspended=True) if r.bot_id in suspended else r for r in rows]


def standings_of(source: ResultsSource, season_id: int, with_luck: bool = True) -> list[StandingRow]:
    """The season's standings from the store, in :func:`rank_key` order (best ML rating first, then
    Elo), one row per bot seated in the season, with the season ratings and their intervals fitted over
    the published games (:mod:`league.ratings_ml`) and, for a game with a luck estimator, the luck-adjusted changes from
    the done games' replays (``with_luck=False`` skips reading them). Raises ``store.NotFound``."""
    r = source.season_results(season_id)
    lucky = spec(r.game).luck is not None  # a game with a luck estimator (league.luck)
    records = source.season_records(season_id) if with_luck and lucky else None
    return season_standings(r.names, r.outcomes, r.elo, r.placings, r.suspended, records)
