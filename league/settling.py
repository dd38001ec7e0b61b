"""When a sequential season may stop: a sequential probability ratio test per adjacent pair of its top rows.

A sequential season is played in batches of rotation groups; after each batch
(a *look*) the standings are refitted (:mod:`league.ratings_ml`) and this rule
decides whether to stop. Checking "stop when P(better) > 95%" after every batch
would be wrong far more often than 5%: each look is another chance for noise to
cross the line. The rule is a **sequential probability ratio test with an
indifference zone** (Wald's SPRT in the generalised form fishtest runs on chess
engines):

- for an adjacent pair of the top ``K`` rows, upper row ``a`` and the next row
  ``b``, ``d`` is the true rating difference ``theta_a - theta_b`` (Elo points);
- the two hypotheses are ``H1: d = +delta`` (``a`` is better by the
  indifference zone ``delta``) and ``H0: d = -delta`` (``b`` is better by it);
  their log likelihood ratio ``LLR`` is the season's Bradley-Terry likelihood
  maximised under each (the other ratings profiled out,
  :func:`league.pair_test.pair_llr`); when the fitted difference ``D`` is
  about normal with standard error ``s`` it is ``2 delta D / s^2``
  (:meth:`SettlingRule.normal_llr`), and after a clean sweep it is the number
  of results times ``log(p1 / p0)``, as in Wald's test on win rates;
- the pair is *settled* when ``LLR >= log(1 / alpha)``, ``alpha = 1 - confidence``
  (the rows are ranked by the fitted rating, so ``D >= 0`` and a pair settles
  in the order shown); the season stops ("settled") at the first look at which
  every adjacent pair of the top ``K`` rows is settled, and otherwise at
  ``max_games`` ("budget").

*Why the error is controlled under repeated looks*: if ``b`` is really better
by at least ``delta`` (``d <= -delta``) the likelihood ratio ``exp(LLR)`` is a
non-negative supermartingale of mean at most 1: exactly for two bots that meet
only each other (Wald's test on the win rate), and approximately, as in
fishtest's generalised test, with other bots profiled out and a game's pairs
correlated (in the normal approximation ``D / s^2`` is a Brownian motion in
information time ``1 / s^2`` with drift ``d``, for which it is exact). By Ville's
inequality it ever reaches ``1 / alpha`` with probability at most ``alpha``,
whenever and however often the season looks (batch sizes may even depend on
the results). So a pair whose bots are at least ``delta`` apart is settled in
the wrong order with probability at most ``alpha``; a pair ``g < delta`` apart
with probability at most ``alpha ** (g / delta)`` (in the normal approximation, drift
``g``); a pair inside the zone settles in whichever order it happens to show,
which is what the organiser accepts by choosing ``delta``. The guarantee is per
pair (the results of one game are not independent; ``league.pair_test``
corrects the ratio for that with the fit's sandwich variance); ``bench.bench_settling`` measures the
wrong-order rate and the games used on simulated seasons, and
``tests/test_settling.py`` the error at the boundary ``d = -delta``.

*Why it saves games*: unlike a fixed-length season, which must be long enough
for the closest pair it might meet, the test stops as soon as the evidence is
in: a pair ``g`` apart needs about ``log(1 / alpha) / (2 delta g)`` of
information, so pairs far apart settle in a few batches.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from league.pair_test import pair_llr
from league.ratings_ml import Game, MLRatings

#: The entry of a season's scheduler config that holds its sequential rule and state.
SEQUENTIAL_KEY = "until_settled"
#: The indifference zone unless the season says otherwise, Elo points (a 57% chance of finishing ahead).
INDIFFERENCE = 50.0


class StopReason(enum.StrEnum):
    """Why a sequential season stopped."""

    SETTLED = "settled"  # every adjacent pair of the top K rows settled by its SPRT
    BUDGET = "budget"    # max_games played without that


@dataclass(frozen=True)
class SettlingRule:
    """The stopping rule of a sequential season.

    ``top``: how many leading rows must be in a settled order (K >= 2);
    ``confidence``: 1 - alpha, alpha the chance of settling a pair at least the zone apart
    in the wrong order (0.5 < confidence < 1);
    ``max_games``: the most games the season plays (N >= 1);
    ``indifference``: the zone ``delta``, Elo points (0 < delta <= 1000): bots closer than that
    may settle in either order.
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
        """The log likelihood ratio at which a pair is settled: ``log(1 / alpha)``."""
        return math.log(1.0 / (1.0 - self.confidence))

    def normal_llr(self, diff: float, sd: float) -> float:
        """The log likelihood ratio of "upper better by the zone" against "lower better by it" for an
        estimated difference ``diff`` normal with standard error ``sd`` (Elo points): ``2 delta diff / sd^2``
        (infinite for ``sd`` 0). Seasons use the profile likelihood instead (:func:`evidence`)."""
        if sd == 0.0:
            return math.inf if diff > 0 else (-math.inf if diff < 0 else 0.0)
        return 2.0 * self.indifference * diff / sd ** 2


@dataclass(frozen=True)
class Look:
    """The outcome of one look: ``stop`` is None to go on, else why it stopped; ``threshold`` the
    log likelihood ratio each pair needed; ``weakest`` the smallest among the top pairs (None if
    a pair is unrated)."""

    stop: StopReason | None
    games: int
    threshold: float
    weakest: float | None


def look(rule: SettlingRule, evidence: Sequence[float | None], games: int) -> Look:
    """Decide after a batch, ``games`` games in: ``evidence`` per standings row in order (the log
    likelihood ratio of row i better than row i+1, :func:`evidence`; ``None`` for the last row or an
    unrated row, which never settles)."""
    pairs = list(evidence[:max(0, min(rule.top, len(evidence)) - 1)])
    known = [e for e in pairs if e is not None]
    weakest = min(known) if known and len(known) == len(pairs) else None
    if pairs and weakest is not None and weakest >= rule.bound:
        return Look(StopReason.SETTLED, games, rule.bound, _finite(weakest))
    if games >= rule.max_games:
        return Look(StopReason.BUDGET, games, rule.bound, _finite(weakest))
    return Look(None, games, rule.bound, _finite(weakest))


def evidence(rule: SettlingRule, games: Sequence[Game], fit: MLRatings, order: Sequence[int]) -> list[float | None]:
    """Per row of ``order`` (bot ids, best first) among the top ``rule.top``, the log likelihood ratio
    that it is better than the next row's bot by the zone rather than worse by it
    (:func:`league.pair_test.pair_llr`); None below the top pairs, on the last row or for an unrated bot."""
    top = min(rule.top, len(order)) - 1
    return [pair_llr(games, fit, order[i], order[i + 1], rule.indifference) if i < top else None
            for i in range(len(order))]


def _finite(x: float | None) -> float | None:
    """A value for a JSON config: infinities capped at +-1e9."""
    return None if x is None else max(-1e9, min(1e9, x))
