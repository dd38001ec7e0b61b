"""The luck audit: an anytime-valid test, per bot, that its luck has mean zero (a test martingale).

A game that declares standardised luck terms (``GameSpec.luck_terms``) gives, per seat, a
sequence of numbers ``x_1, x_2, ...`` in ``[-1, 1]``, each with conditional mean zero given
everything the referee knew before the chance card it measures was revealed, whatever the bots
do (each game's module proves it for its terms). A bot that knows cards nobody has seen (from
memory, a leak or a predicted seed) plays by them and gets positive terms. This module tests,
per bot, the null hypothesis "the bot's terms have conditional mean zero" against positive luck,
by betting (Waudby-Smith and Ramdas 2024; Shafer and Vovk's testing by betting):

**Wealth.** For a fixed ``lam`` in ``(0, 1)`` the product ``prod (1 + lam x_k)`` is positive (as
``|x_k| <= 1``) and, under the null, a martingale with mean 1: ``E[1 + lam x_k | before] = 1``.
The bot's *wealth* is the average over the grid :data:`LAMBDAS` of these products: an average of
test martingales is one (a mixture), and it grows fast under any positive mean the grid covers
(from about ``1/128`` of the terms' range up). Ville's inequality bounds it over the whole life
of the process: ``P(sup_t wealth_t >= 1/alpha) <= alpha`` under the null, however often, and at
whatever data-dependent times, anyone looks.

**Units.** Terms are taken unit by unit, in the order the units became final (a look sees a
prefix of that order, so the wealth path shown before is never rewritten). A *unit* is a game,
or, in a season whose games share deals (duplicate), a deal group: its rotations deal the same
cards, so the terms of a later rotation are not unpredictable given an earlier one and the
product across rotations is no martingale. The factor of a unit for a bot is the mean, over the
bot's rotations in it, of the rotation's product ``prod (1 + lam x_k)`` (over all the bot's seats
in that rotation); each rotation's product has mean 1 given the earlier units (an honest bot
does not use what it saw in the group's other rotations), so their mean has too, and the product
of unit factors is a test martingale over units. A bot that remembers a rotation's cards in the
next is caught by exactly that: its later rotation's product grows.

**Assumption** (documented in docs/fair-play.md): the cards of different units are dealt
independently (the referee's per-game streams, ``referee.chance``), and an honest bot's play in
one unit does not carry another unit's revealed cards into it in a way that depends on the
order the units finish. Games that run one after another satisfy it outright; games played at
the same time by one bot satisfy it when its play in one does not depend on the other's cards.

**Level.** A flag is raised once the wealth reaches ``1/alpha``. In a season of ``n`` bots each
bot is tested at ``alpha = family / n`` (Bonferroni), so an honest season is flagged with
probability at most ``family`` (:data:`FAMILY_ALPHA`, 1%) however long it runs. A ladder has
no bound on its entrants over its life: the ``k``-th bot version in entry order (from 1) is tested
at ``alpha_k = family * 6 / (pi^2 k^2)`` (:func:`ladder_alpha`), and ``sum alpha_k = family``,
so the ladder's family-wise rate holds over its whole life.

Pure logic: no store, no game names. Terms are plain floats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: Family-wise false-alarm rate of one season's or one ladder's luck audit (all bots, whole life).
FAMILY_ALPHA = 0.01
#: The betting fractions mixed with equal weight (a geometric grid: 1/2 down to 1/128).
LAMBDAS: tuple[float, ...] = tuple(2.0 ** -k for k in range(1, 8))
#: The per-unit term sequences of one bot: for each of its rotations (games) in the unit, its terms.
Rotations = Sequence[Sequence[float]]


@dataclass(frozen=True)
class Unit:
    """One finished unit (a game, or a deal group of a duplicate season): ``key`` names it in messages
    (its game number, or its deal group), ``games`` how many games it holds, ``terms``
    ``{bot_id: per rotation (game) of the unit the bot played, its standardised luck terms in play
    order}`` (all its seats of that game, in order). Terms must lie in ``[-1, 1]``."""

    key: int
    games: int
    terms: Mapping[int, Rotations]


@dataclass(frozen=True)
class LuckAudit:
    """One bot's luck audit. ``wealth``: its test martingale's value now; ``max_wealth`` its largest
    value so far; ``alpha`` its level (flagged once ``max_wealth >= 1 / alpha``); ``units``/``games``/
    ``terms`` counted so far; ``mean``: mean term (standardised luck per decision; an honest bot's is
    near 0); ``crossed``: ``(units, games)`` counted when the wealth first reached ``1/alpha`` (None:
    never)."""

    bot_id: int
    wealth: float
    max_wealth: float
    alpha: float
    units: int
    games: int
    terms: int
    mean: float
    crossed: tuple[int, int] | None

    @property
    def flagged(self) -> bool:
        """The wealth reached ``1/alpha`` at some point (a flag stays once raised)."""
        return self.crossed is not None

    def message(self) -> str:
        """One line for the standings and ``season verify``, e.g. ``luck: wealth 312 >= 100 after 61
        games (max 312, now 290; mean standardised luck +0.081 over 840 decisions in 96 games; an honest
        bot's has mean 0)``."""
        assert self.crossed is not None
        return (f"luck: wealth {self.max_wealth:.3g} >= {1 / self.alpha:.3g} after {self.crossed[1]} games "
                f"(now {self.wealth:.3g}; mean standardised luck {self.mean:+.3f} over {self.terms} decisions "
                f"in {self.games} games; an honest bot's has mean 0, alpha {self.alpha:.2g})")


class EProcess:
    """One bot's wealth over the grid :data:`LAMBDAS`, updated one unit at a time (:meth:`add`).

    Raises ValueError for a term outside ``[-1, 1]``."""

    def __init__(self, lambdas: Sequence[float] = LAMBDAS) -> None:
        if not lambdas or any(not 0.0 < lam < 1.0 for lam in lambdas):
            raise ValueError(f"betting fractions must be in (0, 1), got {lambdas}")
        self.lambdas = tuple(lambdas)
        self._log = [0.0] * len(self.lambdas)  # log wealth of each fraction
        self.max_wealth = 1.0
        self.units = self.games = self.terms = 0
        self.total = 0.0
        self.crossed_at: tuple[int, int] | None = None

    @property
    def wealth(self) -> float:
        """The mixture's wealth now (1 before any unit)."""
        return math.fsum(math.exp(v) for v in self._log) / len(self._log)

    def add(self, rotations: Rotations, threshold: float = math.inf) -> float:
        """Multiply in one unit (its rotations' term sequences) and return the wealth; note the first
        time it reaches ``threshold``. A unit without rotations is skipped."""
        if not rotations:
            return self.wealth
        for terms in rotations:
            if terms and not -1.0 <= min(terms) <= max(terms) <= 1.0:
                raise ValueError(f"a luck term outside [-1, 1]: {min(terms)}, {max(terms)}")
        log1p = math.log1p
        for i, lam in enumerate(self.lambdas):
            products = [sum([log1p(lam * x) for x in terms]) for terms in rotations]
            if len(products) == 1:
                self._log[i] += products[0]
                continue
            top = max(products)
            self._log[i] += top + math.log(math.fsum(math.exp(p - top) for p in products) / len(products))
        self.units += 1
        self.games += len(rotations)
        self.terms += sum(len(t) for t in rotations)
        self.total += math.fsum(math.fsum(t) for t in rotations)
        w = self.wealth
        self.max_wealth = max(self.max_wealth, w)
        if self.crossed_at is None and w >= threshold:
            self.crossed_at = (self.units, self.games)
        return w


def season_alpha(bots: int, family: float = FAMILY_ALPHA) -> float:
    """Each bot's level in a season of ``bots`` bots: ``family / bots``. Raises ValueError for
    ``family`` outside (0, 1)."""
    if not 0.0 < family < 1.0:
        raise ValueError(f"family alpha must be in (0, 1), got {family}")
    return family / max(bots, 1)


def ladder_alpha(k: int, family: float = FAMILY_ALPHA) -> float:
    """The level of the ``k``-th bot version (from 1, in entry order) of a ladder:
    ``family * 6 / (pi^2 k^2)``; the levels of all versions ever entered sum to ``family``.
    Raises ValueError for ``k < 1`` or ``family`` outside (0, 1)."""
    if k < 1 or not 0.0 < family < 1.0:
        raise ValueError(f"need k >= 1 and family in (0, 1), got k={k}, family={family}")
    return family * 6.0 / (math.pi ** 2 * k * k)


def luck_audit(units: Iterable[Unit], alpha: Mapping[int, float]) -> dict[int, LuckAudit]:
    """``{bot_id: LuckAudit}`` for every bot of ``alpha`` (``{bot_id: its level}``, see :func:`season_alpha`
    and :func:`ladder_alpha`), over ``units`` in the order they became final. A bot of the units missing
    from ``alpha`` is not tested. Raises ValueError for a term outside ``[-1, 1]`` or a level outside (0, 1)."""
    if any(not 0.0 < a < 1.0 for a in alpha.values()):
        raise ValueError("every level must be in (0, 1)")
    procs = {bot: EProcess() for bot in alpha}
    for unit in units:
        for bot, rotations in unit.terms.items():
            if bot in procs:
                procs[bot].add(rotations, 1.0 / alpha[bot])
    return {bot: LuckAudit(bot, p.wealth, p.max_wealth, alpha[bot], p.units, p.games, p.terms,
                           p.total / p.terms if p.terms else 0.0, p.crossed_at)
            for bot, p in procs.items()}


def units_of(games: Iterable[tuple[int, int, float | None, Sequence[int], Sequence[Sequence[float]]]]) -> list[Unit]:
    """The units of a season's done games, in the order they became final.

    ``games``: ``(number, deal group, finished, bot of each seat, terms of each seat)``; ``finished`` is
    when the game became final (seconds; None: unknown, then ordered after the known ones by number).
    Games alone in their deal group are units of their own (ordered by ``finished``); the games of a
    group of several are one unit, final when its last game is (the caller passes only groups none
    of whose games is still to be played). Raises ValueError for a game whose seats and terms differ
    in length."""
    groups: dict[int, list[tuple[int, float | None, Sequence[int], Sequence[Sequence[float]]]]] = {}
    for number, group, finished, bots, terms in games:
        if len(bots) != len(terms):
            raise ValueError(f"game {number}: {len(bots)} seats, {len(terms)} term sequences")
        groups.setdefault(group, []).append((number, finished, bots, terms))
    units: list[tuple[tuple[float, int], Unit]] = []
    for group, members in groups.items():
        per_bot: dict[int, list[list[float]]] = {}
        for _, _, bots, terms in sorted(members, key=lambda m: m[0]):
            mine: dict[int, list[float]] = {}
            for bot, seq in zip(bots, terms):
                mine.setdefault(bot, []).extend(seq)
            for bot, seq in mine.items():
                per_bot.setdefault(bot, []).append(seq)
        times = [m[1] for m in members]
        final = max(t for t in times if t is not None) if all(t is not None for t in times) else math.inf
        key = members[0][0] if len(members) == 1 else group
        units.append(((final, max(m[0] for m in members)),
                      Unit(key, len(members), {b: tuple(tuple(s) for s in r) for b, r in per_bot.items()})))
    units.sort(key=lambda u: u[0])
    return [u for _, u in units]
