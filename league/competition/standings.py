"""A season's standings table, computed from stored per-seat results (a pure function).

The store reads the season's rated seat results, its games' rankings and Elo
ratings (``store.reads.seasons``) and :func:`standings_of` computes the rows
from them; the dashboard and the CLI show the rows, or :func:`standings_json` of them. Beside Elo, each row carries the
season's maximum-likelihood rating with its 95% interval, the probability that
the bot is better than the next row's, and openskill's mu and sigma
(:mod:`league.ratings.ratings_ml`), all computed from the games' rankings, and for
a game with a luck estimator the luck-adjusted score change with its 95% interval
(:mod:`league.ratings.luck`, from the stored replays). In a season whose games share deals (a
duplicate season) each row carries the duplicate audit's flags (:mod:`league.integrity.audit`: does
the bot do better in the rotations of a deal it had already played?), in every season of a game with
standardised luck terms (``GameSpec.luck_terms``) the luck audit's wealth and flag (:mod:`league.integrity.eprocess`:
an anytime-valid test that the bot's luck has mean zero), and in a season of a game with a team-play scorer the
collusion screen's (:mod:`league.integrity.collusion`: do two bots play as a team?). Rows are
ranked by the ML rating where it is fitted, then by Elo (:func:`rank_key`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from league.integrity.audit import AuditGame, audit_season
from league.integrity.collusion import CollusionGame, screen_season
from league.integrity.eprocess import LuckAudit, Unit, luck_audit, season_alpha, units_of
from league.ratings.elo import START
from league.ratings.luck import LuckSummary, luck_adjusted_by_bot
from league.ratings.ratings_ml import p_better_chain, season_ratings
from referee.games import GameSpec, spec
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
    the luck the referee measured; see :mod:`league.ratings.luck`), ``luck_low``/``luck_high`` its 95% interval (``None`` for other games,
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
    audit: tuple[str, ...] = field(default=(), metadata=_doc(
        "the integrity flags, one line each (empty when clean). Duplicate seasons: the duplicate audit's: the bot did "
        "better in the rotations of a deal it had already played than in the first, or had luck where an honest bot "
        "has none (league.integrity.audit; docs/fair-play.md, The duplicate audit). Games with luck terms: the luck "
        "audit's: its test martingale of luck reached 1/alpha (league.integrity.eprocess; docs/fair-play.md, The luck "
        "audit). Games with a team-play scorer: the collusion screen's: 'team play with X' (each one's moves fit the "
        "other's hidden cards; on both bots) or 'against hidden cards of X' (its moves went against X's hidden cards: "
        "a chip dumper, or a colluder playing against X; on the mover alone) (league.integrity.collusion; "
        "docs/fair-play.md, Colluding bots). Each at a 1% family-wise false-alarm rate"))
    luck_wealth: float | None = field(default=None, metadata=_doc(
        "games with luck terms only: the largest value so far of the bot's luck test martingale (1 at the start; "
        "an honest bot's reaches luck_bar with probability at most its alpha over the season's whole life)"))
    luck_bar: float | None = field(default=None, metadata=_doc(
        "games with luck terms only: the wealth at which the luck audit flags the bot (1/alpha, alpha = 1% / bots)"))


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
    changes (:func:`league.ratings.luck.luck_adjusted_by_bot`; without it those fields are ``None``).
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
        {"rank": i, **asdict(r), "elo": round(r.elo, 1), "audit": list(r.audit),
         **{k: _round(getattr(r, k), d) for k, d in _ROUNDING.items()}}
        for i, r in enumerate(rows, start=1)
    ]


_ROUNDING = {"luck_wealth": 3, "luck_bar": 1, "ml_rating": 1, "ml_low": 1, "ml_high": 1, "p_better": 3, "openskill_mu": 2, "openskill_sigma": 2,
             "luck_change": 2, "luck_low": 2, "luck_high": 2}


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


#: The fields of a standings row that :func:`core_standings` gives (summed in SQL by the store); the others
#: (maximum-likelihood ratings, openskill, luck) come from :func:`season_standings`.
CORE_STANDING_FIELDS = frozenset({"bot_id", "name", "games", "avg_place", "avg_change", "faults", "retired", "elo"})


class SeasonResultsReads(Protocol):
    """The store's season read model (``store.season_reads``)."""

    def season_results(self, season_id: int) -> Any:
        """``store.reads.seasons.SeasonResults``: game, names, outcomes, elo, placings, suspended."""
        ...


class SeasonRecords(Protocol):
    """The store's replays (``store.replays``)."""

    def season_records(self, season_id: int) -> list[tuple[int, list[int], GameRecord]]:
        """``(game number, bot of each seat, record)`` of the season's done games, in schedule order."""
        ...


class SeasonDeals(Protocol):
    """The store's seasons (``store.seasons``)."""

    def season_deals(self, season_id: int) -> list[tuple[int, int, int, int, Any]]:
        """``(game id, number, deal group, seed, status)`` of every game of the season."""
        ...

    def played_at(self, season_id: int) -> dict[int, float]:
        """``{number: start of its stored attempt}`` (seconds) of the season's done games."""
        ...

    def finished_at(self, season_id: int) -> dict[int, float]:
        """``{number: when it became final}`` (seconds) of the season's done games."""
        ...


class ResultsSource(Protocol):
    """Where a season's results are read from (``store.Store``), by the store's areas."""

    @property
    def season_reads(self) -> SeasonResultsReads: ...
    @property
    def replays(self) -> SeasonRecords: ...
    @property
    def seasons(self) -> SeasonDeals: ...


#: ``(bot id, name, games, sum of places, sum of changes, faults, retired seats, Elo or None)`` of one bot.
SeatTotals = tuple[int, str, int, int, int, int, int, float | None]


def core_standings(totals: Iterable[SeatTotals]) -> list[dict[str, Any]]:
    """JSON-ready standings rows (:func:`standings_json`, only :data:`CORE_STANDING_FIELDS` and ``rank``)
    from each bot's summed seats (``store.reads.seasons.SeatTotals``), best Elo first (a bot without a
    rated game at :data:`league.ratings.elo.START`)."""
    rows = [StandingRow(bot_id=bot, name=name, games=g, avg_place=(places / g) if g else None,
                        avg_change=(change / g) if g else None, faults=faults,
                        elo=START if elo is None else elo, retired=retired)
            for bot, name, g, places, change, faults, retired, elo in totals]
    rows.sort(key=lambda r: (-r.elo, -r.games, r.name))
    return [{k: v for k, v in row.items() if k in CORE_STANDING_FIELDS or k == "rank"} for row in standings_json(rows)]


def season_standings(game: GameSpec, names: Mapping[int, str], outcomes: Iterable[tuple[int, int, int, int, bool]],
                     elo: Mapping[int, float], placings: Iterable[tuple[int, int, int]], suspended: frozenset[int],
                     records: Iterable[tuple[int, Sequence[int], GameRecord]] | None = None,
                     audit: Mapping[int, Sequence[str]] | None = None,
                     luck_audits: Mapping[int, LuckAudit] | None = None) -> list[StandingRow]:
    """The standings of a season of ``game`` (:func:`compute_standings`), suspended bots marked: ``outcomes`` are
    ``(bot, place, change, faults, retired)`` of the published seats, ``placings`` ``(game number,
    bot, place)`` by game then seat; with ``records`` (the done games of a season of a game with a luck estimator,
    ``(game number, bot of each seat, record)``), the luck-adjusted changes too (:mod:`league.ratings.luck`); ``audit``: each
    bot's duplicate audit flags (:func:`duplicate_audit`); ``luck_audits``: each bot's luck audit
    (:func:`luck_audits_of_games`), whose wealth the rows carry and whose flag joins ``audit``."""
    luck = (luck_adjusted_by_bot(game, [(bots, record) for _, bots, record in records])
            if records is not None and game.luck is not None else None)
    rows = compute_standings([SeatOutcome(*o) for o in outcomes], names, elo, group_games(placings), luck)
    audit = audit or {}
    luck_audits = luck_audits or {}
    out = []
    for r in rows:
        lines = tuple(audit.get(r.bot_id, ()))
        la = luck_audits.get(r.bot_id)
        if la is not None:
            lines += (la.message(),) if la.flagged else ()
            r = replace(r, luck_wealth=la.max_wealth, luck_bar=1.0 / la.alpha)
        out.append(replace(r, suspended=r.bot_id in suspended or r.suspended, audit=lines))
    return out


def deal_groups(deals: Iterable[tuple[int, int, int, int, Any]]) -> tuple[dict[int, int], dict[int, int], set[int]]:
    """``(deal group of each game number, games in each group, the groups with a game still to be played)`` of a
    season's ``deals`` (``(game id, number, deal group, seed, status)`` of every game; status ``pending`` or
    ``running`` for a game still to be played)."""
    group_of: dict[int, int] = {}
    size: dict[int, int] = {}
    open_groups: set[int] = set()
    for _, number, group, _, status in deals:
        group_of[number] = group
        size[group] = size.get(group, 0) + 1
        if str(getattr(status, "value", status)) in ("pending", "running"):
            open_groups.add(group)
    return group_of, size, open_groups


def audit_games(game: GameSpec, deals: Iterable[tuple[int, int, int, int, Any]],
                records: Iterable[tuple[int, Sequence[int], GameRecord]],
                played: Mapping[int, float] | None = None) -> list[AuditGame]:
    """The games of ``game`` the duplicate audit reads (:class:`league.integrity.audit.AuditGame`): the done games (``records``,
    ``(game number, bot of each seat, record)``, the number the store's row's) of deal groups that hold more than one game and none still to be
    played (``deals``: ``(game id, number, deal group, seed, status)`` of every game, status
    ``pending``/``running`` for a game still to be played), with each seat's luck for a game with a luck
    estimator (``GameSpec.luck``), its informed-play score for a game with a scorer (``GameSpec.informed``) and its
    held-hand fit for a game with one (``GameSpec.held_fit``).
    A game stored from a rerun attempt (``record.attempt > 1``) dealt other cards than its group
    (rules §4.3) and is left out; the group's other rotations are still compared. ``played``:
    ``{number: when its stored attempt started}`` (seconds), the order the audit reads a group in (rules
    §0.6); a game missing from it is ordered by its number."""
    group_of, size, open_groups = deal_groups(deals)
    out = []
    for number, bots, record in records:
        group = group_of.get(number)
        if group is None or size[group] < 2 or group in open_groups:
            continue
        if record.attempt > 1:  # a rerun dealt other cards (rules §4.3): no rotation of its group's deal
            continue
        by_seat = {r.seat: float(r.change) for r in record.results}
        if set(by_seat) != set(range(record.num_seats)) or len(bots) != record.num_seats:
            continue  # not a whole game's result: nothing to compare
        estimator, informed, held = game.luck, game.informed, game.held_fit
        out.append(AuditGame(number, group, tuple(bots), tuple(by_seat[s] for s in range(record.num_seats)),
                             _or_none(lambda: estimator(record.events, record.num_seats)) if estimator else None,
                             _or_none(lambda: informed(record.events, record.num_seats, record.params))
                             if informed else None, (played or {}).get(number),
                             _or_none(lambda: held(record.events, record.num_seats, record.params), _as_is)
                             if held else None))
    return out


def _as_is(value: Any) -> Any:
    return value


def _or_none(compute: Any, convert: Any = tuple) -> Any:
    """``convert(compute())`` (a tuple of the scores, by default), or None when the record's events do not fit
    together (ValueError, KeyError, TypeError): that game's luck, informed-play score or held-hand fit is left out,
    and with it its group's test of that kind."""
    try:
        return convert(compute())
    except (ValueError, KeyError, TypeError):
        return None


def duplicate_audit(game: GameSpec, games: Sequence[AuditGame]) -> dict[int, list[str]]:
    """``{bot_id: [flag line, ...]}`` of the duplicate audit (:func:`league.integrity.audit.audit_season`) over
    ``games`` (:func:`audit_games`) of ``game``; only bots with a flag are listed."""
    audited = audit_season(games, game.higher_score_is_better)
    return {bot: [t.message(game.score_unit) for t in a.flags] for bot, a in audited.items() if a.flags}


def audit_of(source: ResultsSource, season_id: int, game: GameSpec,
             records: Sequence[tuple[int, Sequence[int], GameRecord]] | None = None) -> dict[int, list[str]]:
    """The duplicate audit's flags of a season from the store (:func:`duplicate_audit`); ``{}`` for a
    season whose games all have deals of their own (nothing read but the schedule). ``records``: the
    season's done records if the caller has read them already."""
    deals = source.seasons.season_deals(season_id)
    if len({d[2] for d in deals}) == len(deals):
        return {}
    records = records if records is not None else source.replays.season_records(season_id)
    return duplicate_audit(game, audit_games(game, deals, records, source.seasons.played_at(season_id)))


def luck_units(game: GameSpec, deals: Iterable[tuple[int, int, int, int, Any]],
               records: Iterable[tuple[int, Sequence[int], GameRecord]],
               finished: Mapping[int, float] | None = None) -> list[Unit]:
    """The units the luck audit reads (:func:`league.integrity.eprocess.units_of`), in the order they became final,
    from a season's done games of ``game`` (a game with ``GameSpec.luck_terms``): ``deals`` ``(game id, number,
    deal group, seed, status)`` of every game, ``records`` ``(game number, bot of each seat, record)`` of the done ones,
    ``finished`` ``{number: when it became final}`` (seconds). A game alone in its deal group is a unit as soon as
    it is done; a deal group of several games is one unit once none of its games is still to be played. A game
    stored from a rerun attempt (``record.attempt > 1``) dealt other cards than its group (rules §4.3): it is a unit
    of its own. A record whose events do not fit together (ValueError) is left out. Raises ValueError for a game
    without luck terms."""
    terms_of = game.luck_terms
    if terms_of is None:
        raise ValueError(f"{game.name} has no luck terms")
    group_of, size, open_groups = deal_groups(deals)
    rows = []
    for number, bots, record in records:
        if number not in group_of:
            continue
        group = group_of[number]
        if size[group] > 1 and group in open_groups:
            continue
        if record.attempt > 1 and size[group] > 1:
            group = -1 - number  # its own deal: a unit of its own
        try:
            terms = terms_of(record.events, record.num_seats, record.params)
        except (ValueError, KeyError, TypeError):
            continue
        rows.append((number, group, (finished or {}).get(number), tuple(bots), terms))
    return units_of(rows)


def luck_audits_of_games(game: GameSpec, bots: Iterable[int], units: Iterable[Unit]) -> dict[int, LuckAudit]:
    """``{bot_id: LuckAudit}`` of a season's ``bots`` (every bot seated in it) over its ``units``
    (:func:`luck_units`), each bot at ``alpha = 1% / bots`` (:func:`league.integrity.eprocess.season_alpha`)."""
    bots = list(bots)
    alpha = season_alpha(len(bots))
    return luck_audit(units, {b: alpha for b in bots})


def luck_audits_of(source: ResultsSource, season_id: int, game: GameSpec, bots: Iterable[int],
                   records: Sequence[tuple[int, Sequence[int], GameRecord]] | None = None) -> dict[int, LuckAudit]:
    """The luck audit of a season from the store (:func:`luck_audits_of_games`); ``{}`` for a game without luck
    terms. ``records``: the season's done records if the caller has read them already."""
    if game.luck_terms is None:
        return {}
    deals = source.seasons.season_deals(season_id)
    records = records if records is not None else source.replays.season_records(season_id)
    finished = getattr(source.seasons, "finished_at", None)
    return luck_audits_of_games(game, bots, luck_units(game, deals, records, finished(season_id) if finished else None))


def collusion_games(game: GameSpec, records: Iterable[tuple[int, Sequence[int], GameRecord]]) -> list[CollusionGame]:
    """The games the collusion screen reads (:class:`league.integrity.collusion.CollusionGame`): the done games
    (``records``, ``(game number, bot of each seat, record)``) of ``game``, each with its ``GameSpec.team_play`` of
    the record's events; ``[]`` for a game without a team-play scorer. A record whose events do not fit together is
    left out."""
    scorer = game.team_play
    if scorer is None:
        return []
    out = []
    for number, bots, record in records:
        if len(bots) != record.num_seats:
            continue
        try:
            play = scorer(record.events, record.num_seats, record.params)
        except (ValueError, KeyError, TypeError):
            continue
        out.append(CollusionGame(number, tuple(bots), play))
    return out


def collusion_audit(games: Sequence[CollusionGame], names: Mapping[int, str] | None = None) -> dict[int, list[str]]:
    """``{bot_id: [flag line, ...]}`` of the collusion screen (:func:`league.integrity.collusion.screen_season`) over
    ``games`` (:func:`collusion_games`), partners named by ``names``; only flagged bots are listed."""
    return screen_season(games).messages(names) if games else {}


def integrity_flags(source: ResultsSource, season_id: int, game: GameSpec,
                    records: Sequence[tuple[int, Sequence[int], GameRecord]] | None = None,
                    names: Mapping[int, str] | None = None) -> dict[int, list[str]]:
    """Every integrity flag of a season from the store, per bot: the duplicate audit's (:func:`audit_of`), then the
    collusion screen's (:func:`collusion_audit`, for a game with a team-play scorer, over the done games but those of
    a duplicate deal group with a game still to play: sealed, store.sealing). ``records``: the season's done
    records if the caller has read them already; ``names``: bot names for the partners a flag names. The luck
    audit's flags join the rows in :func:`season_standings` (:func:`luck_audits_of`)."""
    flags = {bot: list(lines) for bot, lines in audit_of(source, season_id, game, records).items()}
    if game.team_play is not None:
        records = records if records is not None else source.replays.season_records(season_id)
        deals = source.seasons.season_deals(season_id)
        group_of, _, open_groups = deal_groups(deals)
        sealed = {number for number, group in group_of.items() if group in open_groups}  # a game of a deal still being played is not shown
        shown = [(number, bots, record) for number, bots, record in records if number not in sealed]
        for bot, lines in collusion_audit(collusion_games(game, shown), names).items():
            flags.setdefault(bot, []).extend(lines)
    return flags


def standings_of(source: ResultsSource, season_id: int, with_luck: bool = True) -> list[StandingRow]:
    """The season's standings from the store, in :func:`rank_key` order (best ML rating first, then
    Elo), one row per bot seated in the season, with the season ratings and their intervals fitted over
    the published games (:mod:`league.ratings.ratings_ml`) and, for a game with a luck estimator, the luck-adjusted changes from
    the done games' replays, and the integrity flags (:func:`integrity_flags`: the duplicate audit's in a duplicate season,
the collusion screen's for a game with a team-play scorer; ``with_luck=False`` skips reading the replays for all). The season's stored game id is resolved here, once (it arrives from
the store). Raises ``store.NotFound``."""
    r = source.season_reads.season_results(season_id)
    game = spec(r.game)
    lucky = game.luck is not None or game.luck_terms is not None or game.team_play is not None  # replays read
    records = source.replays.season_records(season_id) if with_luck and lucky else None
    audit = integrity_flags(source, season_id, game, records, r.names) if with_luck else None
    audits = luck_audits_of(source, season_id, game, r.names, records) if with_luck else None
    return season_standings(game, r.names, r.outcomes, r.elo, r.placings, r.suspended, records, audit, audits)
