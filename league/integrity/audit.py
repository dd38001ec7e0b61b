"""The duplicate audit: does a bot do better in the rotations of a deal it had already played?

In a duplicate season every rotation of a table deals the same cards (``league.competition.schedule``),
and the same bots play every rotation. A bot is a remote service that may remember what it
was shown: the public cards of one rotation (turned stack cards, discards, hands shown) tell
it cards still to come, or other seats' hands, in the rotations it plays later with the same
deal. Nothing can make it forget, so each duplicate season is audited for what such a bot
gains. Per bot, over the deal groups (``games.deal_group``) in which it played at least two
done rotations, and only the groups none of whose games is still to be played:

- **later rotations** (every game): the bot's *duplicate score* in a rotation is its score
  change (higher is better; negated for a game where lower is better) less the mean change
  of the seats that held the same seat position, so the same cards, in the group's other
  rotations. Its effect and test statistic are, averaged over groups, the mean duplicate score
  in the rotations it played after it had already played the deal, less the one it played first,
  in the real order of play (the games' start times: the store starts one rotation of a deal at
  a time, rules §0.6, so that order is the order in which the bot could learn). A bot whose
  play does not depend on the earlier rotations has the same chance of every rotation being its
  first, because the schedule draws the order of each table's rotations at random
  (``league.competition.schedule``) and a rotation's start does not depend on the others' cards;
  the p-value is that of a randomisation test, each group's first rotation drawn again
  uniformly, estimated from random draws (Besag and Clifford's sequential rule: stop at
  :data:`HITS` draws at least as large, at most :data:`MAX_DRAWS` draws). It is exact whatever
  the game's seat advantages, the bots' strengths and the score distribution. (A trend over the
  order of play was tested before: a bot that used its memory only in its middle rotations had a
  trend of zero and was never flagged.)
- **luck in later rotations** (a game with a luck estimator, ``GameSpec.luck``): the bot's luck
  terms (:mod:`league.ratings.luck`) have mean zero in every game whatever an honest bot does; a bot that knows a card before it is turned bets on it, and its luck is
  positive. As a duplicate score (the luck less that of the seats with the same cards in the
  other rotations), tested later against first like the later-rotations test.
  (A one-sided t-test of the mean luck over deal groups was tried first: it rests on a normal
  approximation of skewed luck over 24 groups, and raised 3 false alarms in 200 honest
  seasons with the other test; the randomisation test is exact.)
- **informed play in later rotations** (a game with an informed-play scorer, ``GameSpec.informed``,
  declared in the game's folder): per rotation, how well the bot's moves fit the cards it could not
  see (the other seats' hands, the stock's next cards: what the game's scorer counts), as a duplicate
  score and tested later against first like the later-rotations test (exact too). A bot that knows
  the hidden cards from earlier rotations plays by them.
- **fit to hands it held before** (a game with a held-hand scorer, ``GameSpec.held_fit``, declared in the game's
  folder): the one channel through which a bot surely knows hidden cards in a later rotation is the hand it held
  itself, at another seat, in an earlier one. For each order the group's rotations could have been played in,
  the score sums the fit of the bot's moves in each rotation to the hands of the seats it held in the rotations
  before it in that order (the game's scorer, e.g. in a betting game the folds of a hand one of them beats, each
  counted by the tokens at stake, so that small moves against the memory cannot cancel the large ones it wins).
  The scorer reads the bot's observations averaged over all its games of the season (the centre, e.g. in a betting
  game its mean move in each context of its own view, and how often a hand still in beat its own in each spot), so
  that what its own view explains does not drown the part its memory could inform; that centre is the same in every
  order. The effect is the real order's score less the mean over every order, per game. A bot whose play does
  not depend on the earlier rotations has the same chance of every order, so the p-value is that of the randomisation over orders
  (each group's order drawn again uniformly; every order when a group has at most 6 rotations, else
  :data:`SAMPLED_ORDERS` orders drawn at random). It holds its power whichever later rotations a bot uses its
  memory in, and reads only the moves the memory could inform.

**False alarms.** Each test of each bot is run at ``alpha = family / (bots x tests)`` with
``family`` = :data:`FAMILY_ALPHA` (1%), so that a season of honest bots raises any flag with
probability at most 1% (Bonferroni). Every test is a randomisation test, so this holds
exactly, up to the Monte Carlo estimate of the p-value (Besag and Clifford's, which keeps
the level); ``bench/bench_audit.py`` measures it on many simulated seasons.

**Assumption.** An honest bot's play in a game does not depend on the games it played before
with the same deal. A bot that learns over the season (not from the deal) also improves from
its first rotation of a table to its later ones: a table's rotations stand within one block of
the schedule (``league.competition.schedule.INTERLEAVE`` tables), a few dozen games. The
later-rotations and informed-play tests take that drift out (:func:`detrend`: each rotation's
score less the bot's mean score in other deals' rotations played about then, or near the season's
start and end the line fitted to them), so they are exact
only for a bot that does not drift, and hold approximately for one that does; the luck and
held-hands tests need no such step (an honest bot's luck has mean zero however well it plays,
and the held-hands score compares orders of the same moves).

Pure logic: no store, no I/O. Amounts in the game's score unit (tokens or points) per game.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import TYPE_CHECKING

from league.integrity.draws import drawn_sum

if TYPE_CHECKING:
    from referee.games import HeldFit

#: Family-wise false-alarm rate of a season's audit (all bots, all tests).
FAMILY_ALPHA = 0.01
#: The randomisation test stops once this many draws were at least the observed statistic.
HITS = 20
#: The most draws of the randomisation test (its smallest p-value is ``1 / (MAX_DRAWS + 1)``).
MAX_DRAWS = 20_000
#: The rotations on either side of a rotation, in the bot's order of play, whose other deal groups' mean score
#: (near the season's ends: fitted line) is taken off it before the later-rotations and informed-play tests
#: (:func:`detrend`).
DRIFT_WINDOW = 16
#: The fewest groups for a test (below it no test is made).
MIN_GROUPS = 3
#: A group of more rotations than this is tested on :data:`SAMPLED_ORDERS` orders drawn at random, not every order.
ALL_ORDERS_UP_TO = 6
#: Orders drawn for a group of more than :data:`ALL_ORDERS_UP_TO` rotations (the held-hands test).
SAMPLED_ORDERS = 720
LATER = "later rotations"
LUCK = "luck in later rotations"
INFORMED_PLAY = "informed play in later rotations"
HELD_HANDS = "fit to hands it held before"

@dataclass(frozen=True)
class AuditGame:
    """One done game of a season: its ``number`` (schedule order), its ``deal_group`` (the games
    sharing its deal), the bot in each seat, each seat's score ``change`` (as stored: tokens or
    points), for a game with a luck estimator each seat's luck (:func:`league.ratings.luck.seat_luck`), for a
    game with an informed-play scorer (``GameSpec.informed``) each seat's score, and ``played``: when its stored attempt
    started (seconds, the store's clock; None: not known, the schedule number orders it), and for a game
    with a held-hand scorer (``GameSpec.held_fit``) its fit (:class:`referee.games.HeldFit`). A group's games are
    read in the order they were played, which is the order in which a bot could learn from them (rules §0.6: one
    rotation of a deal at a time)."""

    number: int
    deal_group: int
    bots: tuple[int, ...]
    changes: tuple[float, ...]
    luck: tuple[float, ...] | None = None
    informed: tuple[float, ...] | None = None
    played: float | None = None
    held: HeldFit | None = None


@dataclass(frozen=True)
class AuditTest:
    """One test of one bot: ``name`` (:data:`LATER`, :data:`LUCK`, :data:`INFORMED_PLAY` or :data:`HELD_HANDS`),
    ``effect`` (score units per game: later less first, or mean luck in later rotations; no unit for the last two),
    ``p_value`` (one-sided), ``alpha`` (the level it is flagged at), ``groups`` (deal groups counted), ``reading``
    (the held-hands test of a fit with several readings: what the reading that carried it reads the moves against;
    else empty)."""

    name: str
    effect: float
    p_value: float
    alpha: float
    groups: int
    reading: str = ""

    @property
    def flagged(self) -> bool:
        """The effect is significant at ``alpha``."""
        return self.p_value < self.alpha

    def message(self, unit: str = "") -> str:
        """One line for the standings and ``season verify``, e.g. ``later rotations: +52.1 tokens a game
        above its first rotation of the same deal (p = 0.0001 < 0.00125, 24 deal groups)``."""
        what = {LATER: "above its first rotation of the same deal",
                LUCK: "more luck than in its first rotation of the same deal (an honest bot's has mean 0)",
                INFORMED_PLAY: "more moves that fit the other seats' hidden cards than in its first rotation",
                HELD_HANDS: "more moves that fit the hands it had held in earlier rotations of the deal than in "
                            "other orders of its rotations"}[self.name]
        unit = "" if self.name in (INFORMED_PLAY, HELD_HANDS) or not unit else f" {unit}"
        digits = 2 if self.name == HELD_HANDS else 1
        read = f" (read against {self.reading})" if self.reading else ""
        return (f"{self.name}{read}: {self.effect:+.{digits}f}{unit} a game {what} "
                f"(p = {self.p_value:.2g} < {self.alpha:.2g}, {self.groups} deal groups)")


@dataclass(frozen=True)
class BotAudit:
    """The audit of one bot: its tests (none when it played no deal twice)."""

    bot_id: int
    tests: tuple[AuditTest, ...]

    @property
    def flags(self) -> tuple[AuditTest, ...]:
        """The tests that flag the bot."""
        return tuple(t for t in self.tests if t.flagged)


def audit_season(games: Iterable[AuditGame], higher_is_better: bool = True,
                 family_alpha: float = FAMILY_ALPHA, seed: int = 0) -> dict[int, BotAudit]:
    """``{bot_id: BotAudit}`` for every bot of ``games`` (a season's done games whose deal groups
    have no game left to play; groups of one game are ignored). ``higher_is_better``: the game's
    score direction (``GameSpec.higher_score_is_better``). ``seed`` seeds the randomisation
    draws (the same audit every time). Raises ValueError for a game whose seats, changes and luck
    differ in length, or for ``family_alpha`` outside (0, 1)."""
    if not 0.0 < family_alpha < 1.0:
        raise ValueError(f"family_alpha must be in (0, 1), got {family_alpha}")
    groups: dict[int, list[AuditGame]] = {}
    for g in games:
        if len(g.changes) != len(g.bots) or (g.luck is not None and len(g.luck) != len(g.bots)):
            raise ValueError(f"game {g.number}: {len(g.bots)} seats, {len(g.changes)} changes")
        groups.setdefault(g.deal_group, []).append(g)
    sign = 1.0 if higher_is_better else -1.0
    # bot -> per group, its duplicate scores in play order and when each rotation was played
    later: dict[int, list[tuple[list[float], list[tuple[float, int]]]]] = {}
    informed: dict[int, list[tuple[list[float], list[tuple[float, int]]]]] = {}  # likewise, its informed-play scores
    luck: dict[int, list[list[float]]] = {}  # bot -> per group, its duplicate luck in play order
    held: dict[int, list[tuple[tuple[int, ...], tuple[HeldFit, ...]]]] = {}  # bot -> per group, (seats, fits)
    bots: set[int] = set()
    for group in groups.values():
        group.sort(key=lambda g: (g.played if g.played is not None else math.inf, g.number))
        for g in group:
            bots.update(g.bots)
        if len(group) < 2:
            continue
        when = [(g.played if g.played is not None else math.inf, g.number) for g in group]
        for bot, scores in _duplicate_scores(group, [g.changes for g in group], sign).items():
            if len(scores) >= 2:
                later.setdefault(bot, []).append((scores, [t for t, g in zip(when, group) if bot in g.bots]))
        if all(g.informed is not None for g in group):
            for bot, scores in _duplicate_scores(group, [g.informed for g in group], 1.0).items():  # type: ignore[misc]
                if len(scores) >= 2:
                    informed.setdefault(bot, []).append((scores, [t for t, g in zip(when, group) if bot in g.bots]))
        if all(g.luck is not None for g in group):
            for bot, scores in _duplicate_scores(group, [g.luck for g in group], 1.0).items():  # type: ignore[misc]
                if len(scores) >= 2:
                    luck.setdefault(bot, []).append(scores)
        if all(g.held is not None for g in group):
            for bot in {b for g in group for b in g.bots}:
                mine = [(g.bots.index(bot), g.held) for g in group if bot in g.bots]
                if len(mine) >= 2:
                    held.setdefault(bot, []).append((tuple(s for s, _ in mine), tuple(f for _, f in mine)))  # type: ignore[misc]
    tests_per_bot = 1 + bool(luck) + bool(informed) + bool(held)
    alpha = family_alpha / (max(len(bots), 1) * tests_per_bot)
    out: dict[int, BotAudit] = {}
    for bot in sorted(bots):
        tests = []
        if len(later.get(bot, ())) >= MIN_GROUPS:
            effect, p = later_test(detrend(later[bot]), random.Random(f"{seed}/{bot}"))
            tests.append(AuditTest(LATER, effect, p, alpha, len(later[bot])))
        if len(informed.get(bot, ())) >= MIN_GROUPS:
            effect, p = later_test(detrend(informed[bot]), random.Random(f"{seed}/informed/{bot}"))
            tests.append(AuditTest(INFORMED_PLAY, effect, p, alpha, len(informed[bot])))
        if len(luck.get(bot, ())) >= MIN_GROUPS:
            effect, p = later_test(luck[bot], random.Random(f"{seed}/luck/{bot}"))
            tests.append(AuditTest(LUCK, effect, p, alpha, len(luck[bot])))
        if len(held.get(bot, ())) >= MIN_GROUPS:
            effect, p, reading = held_test(held[bot], random.Random(f"{seed}/held/{bot}"), held_centre(held[bot]))
            tests.append(AuditTest(HELD_HANDS, effect, p, alpha, len(held[bot]), reading))
        out[bot] = BotAudit(bot, tuple(tests))
    return out


def detrend(groups: Sequence[tuple[Sequence[float], Sequence[tuple[float, int]]]],
            window: int = DRIFT_WINDOW) -> list[list[float]]:
    """One bot's duplicate scores per group, each less its level then: the mean of its scores in the rotations of
    other groups within ``window`` rotations of it in the bot's order of play. ``groups``: per group, ``(scores,
    times)``, its score in each of its rotations in play order and when each was played (any sortable key, the same
    for every group).

    A bot that gets better over the season (an honest one that learns from its results) scores more in its later
    rotations of a deal than in its first by that alone, and the later-less-first tests would read it as memory:
    with a bot whose share of random moves fell from 0.5 to about 0.1 over the season, 4 of 200 honest seasons of
    each of two games were flagged (``bench.bench_audit --honest-only --learner``). Its drift is
    the same in the rotations of other deals played about then, so it is taken out; a gain from having played the
    deal before stays, for the rotations around a first one are mostly other deals' later ones. The test is then
    no longer exact (the drift is estimated), and what a bot gains in later rotations is read against its scores
    around them.

    Within ``window`` of the season's first or last rotation the window keeps its width (``2 * window + 1``
    rotations), slid inside the season, and the level is the line fitted to its scores (least squares over their
    places in the order of play) at the rotation's place: a mean of a window not centred on the rotation would leave
    in the drift between the two, most at the season's start, where a learner improves fastest, and the same way at
    both ends (its first rotations read low, its last high). A drift that is linear over the window is taken out
    exactly everywhere. A season of fewer rotations than the window takes its line over all of them."""
    flat = sorted((t, gi, ri) for gi, (_, times) in enumerate(groups) for ri, t in enumerate(times))
    out = [list(scores) for scores, _ in groups]
    for k, (_, gi, ri) in enumerate(flat):
        centred = window <= k < len(flat) - window
        lo = k - window if centred else max(0, min(k - window, len(flat) - 1 - 2 * window))
        near = [(j - k, groups[g][0][r]) for j, (_, g, r) in enumerate(flat[lo:lo + 2 * window + 1], lo) if g != gi]
        if near:
            out[gi][ri] = groups[gi][0][ri] - (statistics.fmean(y for _, y in near) if centred else _line_at_zero(near))
    return out


def _line_at_zero(points: Sequence[tuple[float, float]]) -> float:
    """The least-squares line through ``points`` (``(x, y)`` pairs) at ``x = 0``; their mean ``y`` when fewer than 3
    points or a single ``x``."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    if len(points) < 3 or len(set(xs)) == 1:
        return statistics.fmean(ys)
    return statistics.linear_regression(xs, ys).intercept


def _duplicate_scores(group: Sequence[AuditGame], values: Sequence[Sequence[float]],
                      sign: float) -> dict[int, list[float]]:
    """Per bot, in play order, its value (``values[i][seat]`` for game ``group[i]``) in each rotation of
    ``group`` less the mean value of the seat it held (the same cards) in the group's other rotations
    (times ``sign``)."""
    by_seat: dict[int, list[float]] = {}
    for row in values:
        for seat, value in enumerate(row):
            by_seat.setdefault(seat, []).append(value)
    out: dict[int, list[float]] = {}
    for g, row in zip(group, values):
        for seat, bot in enumerate(g.bots):
            same = by_seat[seat]
            others = (math.fsum(same) - row[seat]) / (len(same) - 1)
            out.setdefault(bot, []).append(sign * (row[seat] - others))
    return out


def first_versus_later(scores: Sequence[float], first: int) -> float:
    """The mean of ``scores`` other than ``scores[first]``, less ``scores[first]``."""
    return (math.fsum(scores) - scores[first]) / (len(scores) - 1) - scores[first]


def later_test(groups: Sequence[Sequence[float]], rng: random.Random) -> tuple[float, float]:
    """The later-rotations test of one bot over ``groups`` (its duplicate scores in each group, in the order
    it played them). Returns ``(effect, p)``: ``effect`` the mean over groups of :func:`first_versus_later`
    with the first score first (score units per game: what a bot gains in the rotations it could have
    learned from, against the one it could not), ``p`` the one-sided randomisation p-value of that mean,
    each group's first rotation drawn again uniformly from ``rng`` (for a bot that does not remember, every
    rotation of a group is equally likely to be the one it played first). The statistic is the one
    printed, so a bot cannot balance it: memory used in any later rotation raises it, where a trend over the
    rotations' order is zero for a bot that gains only in the middle ones. Draws stop early at :data:`HITS`
    draws at least as large (p = hits / draws), else at :data:`MAX_DRAWS` (p = (hits + 1) / (draws + 1))."""
    effect = math.fsum(first_versus_later(s, 0) for s in groups) / len(groups)
    tables = [[first_versus_later(s, i) for i in range(len(s))] for s in groups]
    return effect, randomisation_p(effect * len(groups), tables, rng)


def held_centre(groups: Sequence[tuple[Sequence[int], Sequence[HeldFit]]]) -> dict[Hashable, float]:
    """One bot's mean value per key of its observations (:class:`referee.games.HeldFit` ``responses``) over
    ``groups`` (its seat in each rotation and each rotation's fit), whatever the order of play."""
    sums: dict[Hashable, list[float]] = {}
    for seats, fits in groups:
        for seat, fit in zip(seats, fits, strict=True):
            for context, response in fit.responses(seat):
                total = sums.setdefault(context, [0.0, 0.0])
                total[0] += response
                total[1] += 1.0
    return {context: total / count for context, (total, count) in sums.items()}


def held_test(groups: Sequence[tuple[Sequence[int], Sequence[HeldFit]]], rng: random.Random,
              centre: Mapping[Hashable, float] | None = None) -> tuple[float, float, str]:
    """The held-hands test of one bot over ``groups``: per group, the bot's seat in each rotation and each rotation's
    fit (:class:`referee.games.HeldFit`), in the order it played them; ``centre`` the bot's mean observations
    (:func:`held_centre`; None: the game's defaults). Returns ``(effect, p, reading)``: ``effect`` the real order's score
    (:func:`held_score`) less its mean over the group's orders, summed over groups and divided by their rotations
    (per game); ``p`` the one-sided randomisation p-value, each group's order drawn again uniformly (over every
    order up to :data:`ALL_ORDERS_UP_TO` rotations, else over :data:`SAMPLED_ORDERS` orders drawn from ``rng``).

    A fit with several readings (ways of reading the same moves, e.g. against the best held hand and against each
    held hand apart) is tested on the largest of its readings' scores, each divided by its spread over the orders
    (:func:`max_randomisation_p`: the same order drawn for every reading, so the p-value is exact for the maximum
    and no reading adds a test); ``effect`` is then that reading's, and ``reading`` its name (the fits'
    ``readings``; empty for a fit of one reading)."""
    centre = centre or {}
    tables: list[list[tuple[float, ...]]] = []
    observed: list[float] = []
    rotations = 0
    for seats, fits in groups:
        memo: dict[tuple[int, frozenset[int]], tuple[float, ...]] = {}
        n = len(seats)
        if n <= ALL_ORDERS_UP_TO:
            orders: Iterable[tuple[int, ...]] = permutations(range(n))
        else:
            orders = [tuple(rng.sample(range(n), n)) for _ in range(SAMPLED_ORDERS)]
        table = [held_score(seats, fits, order, memo, centre) for order in orders]
        means = [math.fsum(column) / len(table) for column in zip(*table)]
        real = held_score(seats, fits, tuple(range(n)), memo, centre)
        observed = [o + r - m for o, r, m in zip(observed or [0.0] * len(means), real, means)]
        tables.append([tuple(t - m for t, m in zip(row, means)) for row in table])
        rotations += n
    if len(observed) == 1:
        return observed[0] / rotations, randomisation_p(observed[0], [[row[0] for row in t] for t in tables], rng), ""
    spreads = [math.sqrt(math.fsum(math.fsum(row[k] ** 2 for row in t) / len(t) for t in tables)) or 1.0
               for k in range(len(observed))]
    best = max(range(len(observed)), key=lambda k: observed[k] / spreads[k])
    names = groups[0][1][0].readings
    reading = names[best] if len(names) == len(observed) else ""
    return observed[best] / rotations, max_randomisation_p(observed, spreads, tables, rng), reading


def held_score(seats: Sequence[int], fits: Sequence[HeldFit], order: Sequence[int],
               memo: dict[tuple[int, frozenset[int]], tuple[float, ...]],
               centre: Mapping[Hashable, float] | None = None) -> tuple[float, ...]:
    """The bot's held-hands score of one group had its rotations been played in ``order`` (indexes into ``seats``
    and ``fits``), one value per reading of the fit: the sum over rotations of ``fits[i](seats[i], seats held in the
    rotations before it, centre)``. ``memo`` keeps each ``(rotation, held seats)`` value across orders."""
    held: frozenset[int] = frozenset()
    total: list[float] | None = None
    for i in order:
        if held:
            value = memo.get((i, held))
            if value is None:
                value = memo[(i, held)] = tuple(fits[i](seats[i], held, centre))
            total = list(value) if total is None else [a + b for a, b in zip(total, value)]
        held = held | {seats[i]}
    return tuple(total) if total is not None else (0.0,)  # a group has two rotations or more: never None


def max_randomisation_p(observed: Sequence[float], spreads: Sequence[float],
                        tables: Sequence[Sequence[Sequence[float]]], rng: random.Random) -> float:
    """The one-sided randomisation p-value of the largest of ``observed[k] / spreads[k]`` (sums of one value of each
    group per reading ``k``), against the same largest drawn with one row drawn uniformly from each group's
    ``tables`` entry (one order for every reading). Draws stop as :func:`randomisation_p`'s do."""
    def largest(sums: Sequence[float]) -> float:
        return max(x / s for x, s in zip(sums, spreads))

    # a float sum drawn in another order may differ in its last bits: count near ties as hits
    bar = largest(observed) - 1e-9 * (1.0 + sum(len(t) * max(abs(x) / s for row in t for x, s in zip(row, spreads))
                                                for t in tables if t))
    hits = draws = 0
    choice = rng.choice
    width = range(len(observed))
    while draws < MAX_DRAWS:
        draws += 1
        rows = [choice(table) for table in tables]
        if largest([math.fsum(row[k] for row in rows) for k in width]) >= bar:
            hits += 1
            if hits >= HITS:
                return hits / draws
    return (hits + 1) / (draws + 1)


def randomisation_p(observed: float, tables: Sequence[Sequence[float]], rng: random.Random) -> float:
    """The one-sided randomisation p-value of ``observed``, a sum of one value of each group, against sums of one
    value drawn uniformly from each group's ``tables`` entry (what the sum would be in another order of play).
    Draws stop early at :data:`HITS` draws at least as large (p = hits / draws), else at :data:`MAX_DRAWS`
    (p = (hits + 1) / (draws + 1))."""
    # a float sum drawn in another order may differ in its last bits: count near ties as hits
    bar = observed - 1e-9 * (1.0 + sum(len(t) * max(abs(x) for x in t) for t in tables if t))
    hits = draws = 0
    draw = drawn_sum(tables, rng)
    while draws < MAX_DRAWS:
        draws += 1
        if draw() >= bar:
            hits += 1
            if hits >= HITS:
                return hits / draws
    return (hits + 1) / (draws + 1)
