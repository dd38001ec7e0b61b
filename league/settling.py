"""When a sequential season may stop: every adjacent pair of its top rows separated, under repeated looks.

A sequential season is played in batches of rotation groups; after each batch
(a *look*) the standings are refitted (:mod:`league.ratings_ml`) and this rule
decides whether to stop. Checking "stop when P(better) > 95%" after every batch
would be wrong far more often than 5%: each look is another chance for noise to
cross the line. The rule is a **Bonferroni alpha-spending bound** (a
Lan-DeMets spending function with linear spending, checked with the union
bound rather than the joint distribution of the looks):

- the error budget is ``alpha = 1 - confidence`` for the whole season;
- a look after ``n`` of at most ``N`` (``max_games``) games, the previous look
  having been after ``m`` games, spends ``alpha * (n - m) / N`` (so the whole
  budget is spent at ``N`` games whatever the batches);
- that look's share is split evenly over the ``K - 1`` adjacent pairs of the top
  ``K`` rows, and the season stops ("settled") when every such pair has
  ``P(upper row better) >= 1 - alpha * (n - m) / (N * (K - 1))``; otherwise it
  goes on, and stops at ``N`` games ("budget").

*Why the error is controlled*: a wrong stop needs at least one pair, at one
look, whose probability crossed its threshold while the order is really the
other way round. With calibrated probabilities (the season ratings'
intervals are measured to be, ``bench.bench_rating_coverage``) that
has probability at most the threshold's complement at that look, and the sum
over all looks and pairs is at most ``alpha``. The bound ignores that looks
are correlated, so the true error is below ``alpha`` (conservative); it holds
for any batch sizes chosen in advance, and ``bench.bench_settling`` measures
the wrong-order rate and the games used on simulated seasons.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

#: The entry of a season's scheduler config that holds its sequential rule and state.
SEQUENTIAL_KEY = "until_settled"


class StopReason(enum.StrEnum):
    """Why a sequential season stopped."""

    SETTLED = "settled"  # every adjacent pair of the top K rows separated at the confidence
    BUDGET = "budget"    # max_games played without that


@dataclass(frozen=True)
class SettlingRule:
    """The stopping rule of a sequential season.

    ``top``: how many leading rows must be in a settled order (K >= 2);
    ``confidence``: 1 - the season's error budget (0.5 < confidence < 1);
    ``max_games``: the most games the season plays (N >= 1).
    Raises ValueError for values out of range.
    """

    top: int = 3
    confidence: float = 0.95
    max_games: int = 1000

    def __post_init__(self) -> None:
        if type(self.top) is not int or self.top < 2:
            raise ValueError(f"--top must be a whole number of at least 2 rows, got {self.top!r}")
        if not 0.5 < self.confidence < 1:
            raise ValueError(f"--confidence must be above 0.5 and below 1, got {self.confidence!r}")
        if type(self.max_games) is not int or self.max_games < 1:
            raise ValueError(f"--max-games must be a whole number of at least 1, got {self.max_games!r}")

    def threshold(self, games_before: int, games_now: int, rows: int) -> float:
        """The P(better) every adjacent pair of the top rows needs at a look after ``games_now`` games
        (the previous look after ``games_before``), with ``rows`` rows in the standings.

        Raises ValueError unless ``0 <= games_before < games_now``."""
        if not 0 <= games_before < games_now:
            raise ValueError(f"a look needs more games than the last one ({games_before} -> {games_now})")
        pairs = max(1, min(self.top, rows) - 1)
        spent = self.spent(games_now) - self.spent(games_before)
        return 1.0 - spent / pairs

    def spent(self, games: int) -> float:
        """The error budget spent by the looks up to ``games`` games: linear spending,
        ``alpha * t`` of the share ``t = games / max_games`` (capped at 1)."""
        return (1.0 - self.confidence) * min(games, self.max_games) / self.max_games


@dataclass(frozen=True)
class Look:
    """The outcome of one look: ``stop`` is None to go on, else why it stopped;
    ``threshold`` the P(better) each pair needed; ``weakest`` the smallest P(better) among the pairs."""

    stop: StopReason | None
    games: int
    threshold: float
    weakest: float | None


def look(rule: SettlingRule, p_better: Sequence[float | None], games_before: int, games_now: int) -> Look:
    """Decide after a batch: ``p_better`` per standings row in order (row i better than row i+1;
    ``None`` for the last row, or an unrated row, which never settles).

    Raises ValueError as :meth:`SettlingRule.threshold` does."""
    threshold = rule.threshold(games_before, games_now, len(p_better))
    pairs = list(p_better[:max(0, min(rule.top, len(p_better)) - 1)])
    known = [p for p in pairs if p is not None]
    weakest = min(known) if known else None
    if pairs and len(known) == len(pairs) and weakest is not None and weakest >= threshold:
        return Look(StopReason.SETTLED, games_now, threshold, weakest)
    if games_now >= rule.max_games:
        return Look(StopReason.BUDGET, games_now, threshold, weakest)
    return Look(None, games_now, threshold, weakest)
