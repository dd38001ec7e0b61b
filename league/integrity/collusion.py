"""The collusion screen: do two bots of a season play as a team?

Two bots of one author served from one process can share their hands and play as a team (rules §0.6; prevention:
``--one-per-author`` seats no two bots of one author at a table). The screen reads what the game's team-play scorer
(``GameSpec.team_play``, in the game's folder) finds in each stored record, and tests, per season, every ordered pair
of bots (A, B) that shared tables:

- **team play** (A's moves fit B's hidden cards): for each of A's moves with B still in, the scorer gives a ``move``
  (signed: what a partner of B's does more of, e.g. folding when only the two are left) and a ``fit`` (what B's
  hidden cards say, e.g. 1 when they beat A's), and a ``stratum`` (what A saw that shapes the move: its own hand, a
  raised stake). A's *fit toward B* in a game is the within-stratum covariance of move and fit: the sum, over A's
  moves toward B in the game, of ``(move - mean) * (fit - mean)``, the means those of all A's moves toward B in the
  same stratum within the same block of :data:`BLOCK` games. (Means over the whole season flagged a bot that learns
  over the season, against a maniac, in one of the first 100 honest seasons: its moves and the situations it met
  both drifted, and two drifts correlate.) Covariance within strata is blind to A's style (how often it folds) and to B's (a
  tight B's hand beats A's more often whenever it is still in), which merely shift the means; a bot that does not
  know B's cards moves independently of them given what it saw. Each pair's per-game values are divided by their
  root mean square over the season, so every opponent's games weigh alike.
- **against hidden cards** (A's moves go against B's cards): the lower tail of the same values. A chip dumper
  raises into its partner's better hands when only the two are left, so its tokens go the partner's way; a bot that
  knows a partner's cards raises when another's hand is not the best, so its moves go against that other's cards too.
  Either way A moved by cards it should not have seen. The flag line gives the
  tokens a game A put into banks B won (``TeamPlay.flows``), which are not tested: who wins whose tokens depends on
  how two styles meet (a random bot's tokens go to a maniac), and a test of them flagged honest seasons.

**The test: A toward B against A toward its other opponents.** For one ordered pair, the statistic is the sum over
the games A and B shared of A's standardised value toward B. Its randomisation distribution re-draws, in each game
independently, the opponent the value is read toward, uniformly among A's opponents at that table: an honest A's
value toward B is then one draw among its values toward the bots it met. The p-value is one-sided (large), from
random draws with Besag and Clifford's sequential rule (as the duplicate audit's, :mod:`league.integrity.audit`).
Games are the units: the moves of one deal are correlated, games are not. The test is not exact (the values toward
different opponents are exchangeable only approximately: a pair's values have mean zero under no collusion, but
their spread differs; standardising evens it), so its false-alarm rate is measured, over honest seasons of varied
bots (``bench/bench_collusion.py``; docs/fair-play.md, Colluding bots). A direction counts as significant only when
the sum toward B also stands out from zero by itself (its z-score against the normal distribution, the per-game
values being independent with mean zero for an honest bot): where the strata miss part of what a bot saw, its
values toward one opponent can lean one way, and the re-drawn sums, which mix in that opponent, then lean with
them; in the first 38 honest seasons measured without this second condition, one bot was flagged against an
opponent toward whom its own z was +1.2. Requiring both keeps the level (each condition holds at ``alpha``).

**Flags, and why no bot can get another flagged.** With ``n`` pairs tested for team play and ``m`` ordered pairs
against hidden cards (in a season where every bot meets every other, ``m = 2n``), every test is made at
``alpha = family / (n + m)`` (Bonferroni; ``family`` = :data:`FAMILY_ALPHA`, 1% per season).

- A **team** {A, B} is flagged when *both* A's moves fit B's cards *and* B's fit A's, each at ``alpha`` (an
  intersection-union test: its level is ``alpha`` whichever direction is honest). The flag goes on both. A framer X
  that wants an honest Y flagged controls only its own moves: it can make its own moves look soft toward Y (though,
  not knowing Y's cards, its moves cannot fit them beyond what Y's public moves tell), but the flag also needs
  Y's moves to fit X's hidden cards, which an honest Y cannot do; X playing transparently toward Y (raising only
  with strong hands) is met by the stratum (a raised stake is in what Y saw).
- A bot whose moves go **against hidden cards** of B (a chip dumper, or a colluder raising against B) is flagged
  alone: B cannot stop it, so the flag never goes on B. A team that dumps both ways is flagged on both bots, one
  such flag each.

**Not claimed.** A bot that uses its partner's cards in one direction only (the partner plays honestly) is not
flagged: that is the price of the intersection-union test, and such a pair gains less (``bench/bench_collusion.py``
measures it). A pair that colludes seldom enough gains little and may pass.

A group of three or more that share their hands flags every pair of it, so each member. Flags say what was measured,
the effect (a z-score: the statistic over the root of the number of games), the p-value and its level, the games
counted, and the games where the effect is largest (by schedule number).

Pure logic: no store, no I/O.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from league.integrity.draws import drawn_sum
from referee.games import TeamPlay

#: Family-wise false-alarm rate of a season's collusion screen (all pairs, both tests).
FAMILY_ALPHA = 0.01
#: The randomisation test stops once this many draws were at least the observed statistic.
HITS = 20
#: The most draws of the randomisation test (its smallest p-value is ``1 / (MAX_DRAWS + 1)``).
MAX_DRAWS = 20_000
#: The fewest games two bots must share for a test of the pair.
MIN_GAMES = 10
#: Games per block of the season within which moves are centred (a bot that learns over the season moves differently
#: in its early and late games; so may the situations it meets).
BLOCK = 25
#: The games a flag names where the effect is largest.
WHERE = 3
TEAM = "team play"
AGAINST = "against hidden cards"


@dataclass(frozen=True)
class CollusionGame:
    """One done game: its schedule ``number``, the bot in each seat and the game's :class:`TeamPlay`."""

    number: int
    bots: tuple[int, ...]
    play: TeamPlay


@dataclass(frozen=True)
class PairTest:
    """One test of one ordered pair: ``name`` (:data:`TEAM` or :data:`AGAINST`), ``bot`` toward ``other``; ``z``: the
    statistic (a sum of standardised per-game values) over the root of ``games``, the games the two shared;
    ``p_value`` one-sided; ``where``: the schedule numbers of the games with the largest values; ``tokens``: for
    :data:`AGAINST`, the tokens a game ``bot`` put into banks ``other`` won."""

    name: str
    bot: int
    other: int
    z: float
    p_value: float
    games: int
    where: tuple[int, ...]
    tokens: float = 0.0

    @property
    def p_alone(self) -> float:
        """The one-sided p-value of ``z`` by itself (the pair's values have mean zero for an honest bot; their
        standardised sum over the root of the games is about standard normal): ``1 - Phi(z)``."""
        return 0.5 * math.erfc(self.z / math.sqrt(2.0))

    def significant(self, alpha: float) -> bool:
        """Both p-values below ``alpha``: the values toward ``other`` stand out from those toward ``bot``'s other
        opponents (``p_value``) and from zero (``p_alone``)."""
        return max(self.p_value, self.p_alone) < alpha


@dataclass(frozen=True)
class CollusionFlag:
    """A flag: ``bots`` flagged (both of a team, the mover alone), ``tests`` the tests behind it (one per direction
    of a team, one against hidden cards), ``alpha`` the level each test was made at."""

    name: str
    bots: tuple[int, ...]
    tests: tuple[PairTest, ...]
    alpha: float

    def message(self, bot: int, names: Mapping[int, str] | None = None) -> str:
        """One line for ``bot``'s ``audit`` list (standings, ``season verify``), e.g. ``team play with b: each one's
        moves fit the other's hidden cards (z = +8.4 and +5.8, p = 5e-05 and 5e-05 < 0.00033, 150 games; largest in
        games 12, 40, 77)``."""
        names = names or {}

        def name(b: int) -> str:
            return names.get(b, f"bot {b}")

        if self.name == TEAM:
            partner = next(b for b in self.bots if b != bot)
            zs = " and ".join(f"{t.z:+.1f}" for t in self.tests)
            ps = " and ".join(f"{t.p_value:.2g}" for t in self.tests)
            where = sorted({n for t in self.tests for n in t.where})
            return (f"{TEAM} with {name(partner)}: each one's moves fit the other's hidden cards, beyond its moves "
                    f"toward its other opponents (z = {zs}, p = {ps} < {self.alpha:.2g}, {self.tests[0].games} games; "
                    f"largest in games {', '.join(map(str, where))})")
        t = self.tests[0]
        return (f"{AGAINST} of {name(t.other)}: its moves went against {name(t.other)}'s hidden cards, beyond its "
                f"moves toward its other opponents: raising into a better hand of {name(t.other)}'s with only the two "
                f"left, or when {name(t.other)}'s hand was not the best (it put {t.tokens:.0f} tokens a game into banks "
                f"{name(t.other)} won; z = {t.z:+.1f}, p = {t.p_value:.2g} < {self.alpha:.2g}, {t.games} games; largest in games "
                f"{', '.join(map(str, t.where))})")


@dataclass(frozen=True)
class CollusionScreen:
    """A season's screen: every test made, the level each was made at, and the flags."""

    tests: tuple[PairTest, ...]
    alpha: float
    flags: tuple[CollusionFlag, ...]

    def flags_of(self, bot: int) -> tuple[CollusionFlag, ...]:
        """The flags that name ``bot``."""
        return tuple(f for f in self.flags if bot in f.bots)

    def messages(self, names: Mapping[int, str] | None = None) -> dict[int, list[str]]:
        """``{bot: [flag line, ...]}`` of the flagged bots (:meth:`CollusionFlag.message`)."""
        out: dict[int, list[str]] = {}
        for f in self.flags:
            for b in f.bots:
                out.setdefault(b, []).append(f.message(b, names))
        return out


def team_values(games: Sequence[CollusionGame]) -> dict[tuple[int, int], dict[int, float]]:
    """``{(A, B): {game index: A's fit toward B}}``: per ordered pair of bots and game (index in ``games``), the sum
    over A's moves toward B of ``(move - mean) * (fit - mean)``, the means over A's moves toward B in the same stratum
    in the same block of :data:`BLOCK` games (by index); every game the two shared is listed (0 without moves). A bot seated twice at a table is not
    read toward itself."""
    by_stratum: dict[tuple[int, int, str], list[tuple[int, float, float]]] = {}
    values: dict[tuple[int, int], dict[int, float]] = {}
    for i, g in enumerate(games):
        for a in set(g.bots):
            for b in set(g.bots):
                if a != b:
                    values.setdefault((a, b), {})[i] = 0.0
        for m in g.play.moves:
            a, b = g.bots[m.seat], g.bots[m.other]
            if a != b:
                by_stratum.setdefault((a, b, f"{i // BLOCK}/{m.stratum}"), []).append((i, m.move, m.fit))
    for (a, b, _), rows in by_stratum.items():
        if len(rows) < 2:
            continue
        move_mean = math.fsum(r[1] for r in rows) / len(rows)
        fit_mean = math.fsum(r[2] for r in rows) / len(rows)
        pair = values[(a, b)]
        for i, move, fit in rows:
            pair[i] += (move - move_mean) * (fit - fit_mean)
    return values


def chip_flows(games: Sequence[CollusionGame]) -> dict[tuple[int, int], dict[int, float]]:
    """``{(A, B): {game index: tokens}}``: per ordered pair and game, the tokens A put into banks B won
    (``TeamPlay.flows``); every game the two shared is listed."""
    values: dict[tuple[int, int], dict[int, float]] = {}
    for i, g in enumerate(games):
        for a, row in enumerate(g.play.flows):
            for b, tokens in enumerate(row):
                if g.bots[a] != g.bots[b]:
                    pair = values.setdefault((g.bots[a], g.bots[b]), {})
                    pair[i] = pair.get(i, 0.0) + tokens
    return values


def screen_season(games: Iterable[CollusionGame], family_alpha: float = FAMILY_ALPHA,
                  seed: int = 0) -> CollusionScreen:
    """The collusion screen of a season's done ``games`` (:class:`CollusionGame`; games of a game without a
    team-play scorer are not given). Pairs that shared fewer than :data:`MIN_GAMES` games are not tested. ``seed``
    seeds the randomisation draws (the same screen every time). Raises ValueError for ``family_alpha`` outside (0, 1)
    or a game whose flows do not match its seats."""
    if not 0.0 < family_alpha < 1.0:
        raise ValueError(f"family_alpha must be in (0, 1), got {family_alpha}")
    games = list(games)
    for g in games:
        if len(g.play.flows) != len(g.bots) or any(len(row) != len(g.bots) for row in g.play.flows):
            raise ValueError(f"game {g.number}: {len(g.bots)} seats, flows of {len(g.play.flows)}")
    team, chips = team_values(games), chip_flows(games)
    ordered = sorted(p for p, v in team.items() if len(v) >= MIN_GAMES)
    pairs = sorted({(min(p), max(p)) for p in ordered if (p[1], p[0]) in ordered})
    alpha = family_alpha / max(len(pairs) + len(ordered), 1)
    numbers = [g.number for g in games]
    tests: list[PairTest] = []
    flags: list[CollusionFlag] = []
    team_tests: dict[tuple[int, int], PairTest] = {}
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            t = relabel_test(TEAM, team, x, y, numbers, random.Random(f"{seed}/team/{x}/{y}"))
            if t is not None:
                team_tests[(x, y)] = t
                tests.append(t)
        both = (team_tests.get((a, b)), team_tests.get((b, a)))
        if both[0] is not None and both[1] is not None and both[0].significant(alpha) and both[1].significant(alpha):
            flags.append(CollusionFlag(TEAM, (a, b), (both[0], both[1]), alpha))
    for x, y in ordered:
        t = relabel_test(AGAINST, team, x, y, numbers, random.Random(f"{seed}/against/{x}/{y}"), lower=True)
        if t is not None:
            tokens = math.fsum(chips.get((x, y), {}).values()) / max(len(chips.get((x, y), {})), 1)
            t = replace(t, tokens=tokens)
            tests.append(t)
            if t.significant(alpha):
                flags.append(CollusionFlag(AGAINST, (x,), (t,), alpha))
    return CollusionScreen(tuple(tests), alpha, tuple(flags))


def _standardised(values: Mapping[int, float]) -> dict[int, float]:
    """``values`` over their root mean square (all 0 when they are all 0)."""
    rms = math.sqrt(math.fsum(v * v for v in values.values()) / len(values)) if values else 0.0
    return {i: (v / rms if rms > 0 else 0.0) for i, v in values.items()}


def relabel_test(name: str, values: Mapping[tuple[int, int], Mapping[int, float]], bot: int, other: int,
                 numbers: Sequence[int], rng: random.Random, lower: bool = False) -> PairTest | None:
    """The test of ``bot`` toward ``other`` over ``values`` (:func:`team_values` or :func:`chip_values`): the sum of
    ``bot``'s standardised values toward ``other`` in the games they shared, against the same sum with the opponent
    re-drawn in each game uniformly among ``bot``'s opponents at that table (each toward its own standardised
    values; ``lower``: the values negated, a test of the lower tail). ``numbers``: the games' schedule numbers by
    index. None when the pair shared no game or its values are
    all 0. Draws stop early at :data:`HITS` draws at least as large (p = hits / draws), else at :data:`MAX_DRAWS`
    (p = (hits + 1) / (draws + 1))."""
    mine = values.get((bot, other), {})
    if not mine or all(v == 0.0 for v in mine.values()):
        return None
    sign = -1.0 if lower else 1.0
    scaled = {o: {i: sign * x for i, x in _standardised(v).items()} for (b, o), v in values.items() if b == bot}
    observed = math.fsum(scaled[other].values())
    tables = [[scaled[o][i] for o in scaled if i in scaled[o]] for i in mine]
    bar = observed - 1e-9 * (1.0 + len(tables))
    hits = draws = 0
    draw = drawn_sum(tables, rng)
    p = None
    while draws < MAX_DRAWS:
        draws += 1
        if draw() >= bar:
            hits += 1
            if hits >= HITS:
                p = hits / draws
                break
    if p is None:
        p = (hits + 1) / (draws + 1)
    top = sorted(mine, key=lambda i: -scaled[other][i])[:WHERE]
    return PairTest(name, bot, other, observed / math.sqrt(len(mine)), p, len(mine), tuple(numbers[i] for i in top))
