"""When a sequential season may stop: a three-hypothesis sequential test per adjacent pair of its top rows.

A sequential season is played in batches of rotation groups; after each batch
(a *look*) the standings are refitted (:mod:`league.ratings.ratings_ml`) and this rule
decides whether to stop. Checking "stop when P(better) > 95%" after every batch
would be wrong far more often than 5%: each look is another chance for noise to
cross the line. The rule is a **sequential test with an indifference zone**
(generalised sequential probability ratio tests, as fishtest runs on chess
engines), with three hypotheses so that two equal bots settle too:

- for an adjacent pair of the top ``K`` rows, upper row ``a`` and the next row
  ``b``, ``d`` is the true rating difference ``theta_a - theta_b`` (Elo points);
- the hypotheses are ``d = +delta`` (``a`` is better by the indifference zone
  ``delta``), ``d = 0`` (they are equal) and ``d = -delta``; the log likelihood
  ratios of ``+delta`` and of ``-delta`` against ``0`` are the season's
  Bradley-Terry likelihood maximised under each (the other ratings profiled
  out, :func:`league.ratings.pair_test.pair_verdict`);
- the pair is *settled* with a verdict: ``higher`` (the ratio of ``+delta``
  against ``0`` reaches ``log(1 / alpha)``, ``alpha = 1 - confidence``),
  ``lower`` (the same for ``-delta``; the rows are ranked by the fitted rating,
  so it is rare), or ``within_zone`` (both ratios at or below ``-log(1 / alpha)``:
  the bots are closer than ``delta``); otherwise it is ``open``. The season stops
  ("settled") at the first look at which every adjacent pair of the top ``K`` rows
  is settled, and otherwise at ``max_games`` ("budget").

*Why the error is controlled under repeated looks*: under ``d = 0`` the
likelihood ratio of ``+delta`` against ``0`` is a non-negative martingale of
mean 1 (exactly for two bots that meet only each other, Wald's test on the win
rate; approximately, as in fishtest's generalised test, with other bots
profiled out and a game's pairs correlated), and under ``d <= 0`` a
supermartingale. By Ville's inequality it ever reaches ``1 / alpha`` with
probability at most ``alpha``, whenever and however often the season looks
(batch sizes may even depend on the results). So two equal bots are called
``higher`` or ``lower`` with probability at most ``2 alpha``; a pair at least
``delta`` apart is called ``within_zone`` with probability at most ``alpha``
(the ratio of ``0`` against the true side is the martingale then) and the
wrong way round with at most about ``alpha^2``; a pair inside the zone may end
``within_zone`` or in the order it shows, which is what the organiser accepts
by choosing ``delta``. The guarantee is per pair (the results of one game are
not independent; ``league.ratings.pair_test`` corrects the ratios for that with the
fit's sandwich variance); ``bench.bench_settling`` measures the wrong-order
rate and the games used on simulated seasons and on seasons of real games with
two copies of one bot, and ``tests/test_settling.py`` and
``tests/test_pair_verdict.py`` the error rates.

*Why it saves games*: unlike a fixed-length season, which must be long enough
for the closest pair it might meet, the test stops as soon as the evidence is
in: a pair ``g`` apart needs about ``log(1 / alpha) / (delta g - delta^2 / 2)``
of information, so pairs far apart settle in a few batches, and a tied pair
about ``2 log(1 / alpha) / delta^2`` instead of the whole budget.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from league.ratings.pair_test import PairVerdict, pair_verdict
from league.ratings.ratings_ml import Game, MLRatings

#: The entry of a season's scheduler config that holds its sequential rule and state.
SEQUENTIAL_KEY = "until_settled"
#: The indifference zone unless the season says otherwise, Elo points (a 57% chance of finishing ahead).
INDIFFERENCE = 50.0


class StopReason(enum.StrEnum):
    """Why a sequential season stopped."""

    SETTLED = "settled"  # every adjacent pair of the top K rows settled: higher, lower or within the zone
    BUDGET = "budget"    # max_games played without that


@dataclass(frozen=True)
class SettlingRule:
    """The stopping rule of a sequential season.

    ``top``: how many leading rows must be in a settled order (K >= 2);
    ``confidence``: 1 - alpha, alpha the chance of calling a pair at least the zone apart
    "within the zone", or two equal bots one above the other, per side (0.5 < confidence < 1);
    ``max_games``: the most games the season plays (N >= 1);
    ``indifference``: the zone ``delta``, Elo points (0 < delta <= 1000): bots closer than that
    may settle within the zone or in either order.
    Raises ValueError for values out of range.
    """

    top: int = 3
    confidence: float = 0.95
    max_games: int = 1000
    indifference: float = INDIFFERENCE

    def __post_init__(self) -> None:
        if type(self.top) is not int or self.top < 2:
            raise ValueError(f"--top must be a whole number of at least 2 rows, got {self.top!r}")
        if not 0.5 < self.confidence < 1:
            raise ValueError(f"--confidence must be above 0.5 and below 1, got {self.confidence!r}")
        if type(self.max_games) is not int or self.max_games < 1:
            raise ValueError(f"--max-games must be a whole number of at least 1, got {self.max_games!r}")
        if not isinstance(self.indifference, (int, float)) or not 0 < self.indifference <= 1000:
            raise ValueError(f"--indifference must be above 0 and at most 1000 Elo points, got {self.indifference!r}")

    @property
    def bound(self) -> float:
        """The log likelihood ratio at which a pair's verdict is reached: ``log(1 / alpha)``."""
        return math.log(1.0 / (1.0 - self.confidence))

    def normal_llr(self, diff: float, sd: float) -> float:
        """The log likelihood ratio of "upper better by the zone" against "lower better by it" for an
        estimated difference ``diff`` normal with standard error ``sd`` (Elo points): ``2 delta diff / sd^2``
        (infinite for ``sd`` 0). Seasons use the profile likelihood instead (:func:`verdicts`)."""
        if sd == 0.0:
            return math.inf if diff > 0 else (-math.inf if diff < 0 else 0.0)
        return 2.0 * self.indifference * diff / sd ** 2


@dataclass(frozen=True)
class Look:
    """The outcome of one look: ``stop`` is None to go on, else why it stopped; ``threshold`` the
    log likelihood ratio each verdict needs; ``weakest`` the smallest strength among the top pairs
    (:attr:`league.ratings.pair_test.PairVerdict.strength`; None if a pair is unrated); ``pairs`` the top
    pairs' verdicts in row order (None for a pair with an unrated bot)."""

    stop: StopReason | None
    games: int
    threshold: float
    weakest: float | None
    pairs: tuple[PairVerdict | None, ...] = ()

    def as_json(self) -> dict:
        """``{"games", "threshold", "weakest", "pairs"}`` as a season's config keeps a look (each pair
        :meth:`league.ratings.pair_test.PairVerdict.as_json`, or ``{"verdict": "open"}`` for an unrated bot)."""
        return {"games": self.games, "threshold": self.threshold, "weakest": self.weakest,
                "pairs": [p.as_json() if p is not None else {"verdict": "open"} for p in self.pairs]}


def look(rule: SettlingRule, pairs: Sequence[PairVerdict | None], games: int) -> Look:
    """Decide after a batch, ``games`` games in: ``pairs`` the verdicts of the top pairs in row order
    (:func:`verdicts`; None for a pair with an unrated bot, which never settles). The season stops
    settled when every pair is settled (higher, lower or within_zone), else at ``rule.max_games``."""
    top = list(pairs[:max(0, rule.top - 1)])
    known = [p.strength for p in top if p is not None]
    weakest = min(known) if known and len(known) == len(top) else None
    if top and all(p is not None and p.settled for p in top):
        return Look(StopReason.SETTLED, games, rule.bound, _finite(weakest), tuple(top))
    if games >= rule.max_games:
        return Look(StopReason.BUDGET, games, rule.bound, _finite(weakest), tuple(top))
    return Look(None, games, rule.bound, _finite(weakest), tuple(top))


def verdicts(rule: SettlingRule, games: Sequence[Game], fit: MLRatings, order: Sequence[int]) -> list[PairVerdict | None]:
    """The verdicts of the adjacent pairs of the top ``rule.top`` rows of ``order`` (bot ids, best first),
    upper row first (:func:`league.ratings.pair_test.pair_verdict` at the rule's zone and confidence); None for a
    pair with an unrated bot. ``fit`` is :func:`league.ratings.ratings_ml.fit_bradley_terry` of ``games``."""
    top = min(rule.top, len(order)) - 1
    return [pair_verdict(games, fit, order[i], order[i + 1], rule.indifference, rule.confidence)
            for i in range(max(0, top))]


def _finite(x: float | None) -> float | None:
    """A value for a JSON config: infinities capped at +-1e9."""
    return None if x is None else max(-1e9, min(1e9, x))
