"""Version A/B: does a bot's new version beat its old one? A sequential test with an indifference zone.

As fishtest tests a new engine version against its base, a ladder can seat two
versions of one bot at the same tables (3-8 seats, the other seats filled by
other entrants; duplicate deals where the game has them) and stop as soon as
the evidence answers. :class:`ABTest` is the statistics only (another module
schedules the tables): feed it the finished games, in any order and batches,
with :meth:`ABTest.update`; it keeps the Bradley-Terry sufficient statistics
of every game fed (:class:`league.ratings.bt_incremental.BTAccumulator`: the other
entrants are rated too, so a table's third and fourth seats inform the
comparison) and answers with the three-hypothesis test of
:func:`league.ratings.pair_test.pair_verdict` on ``d = theta_new - theta_old``:

- ``better``: ``d = +delta`` against ``d = 0`` reaches ``log(1 / alpha)``;
- ``worse``: ``d = -delta`` against ``d = 0`` does;
- ``within_zone``: ``d = 0`` beats both ``+delta`` and ``-delta`` by as much;
- ``open``: not yet; at ``max_games`` the test stops ``open`` ("budget").

``alpha = 1 - confidence``. Error rates, whenever and however often it looks
(Ville's inequality, ``league.ratings.pair_test``): two equal versions are called
better (or worse) with probability at most ``alpha`` each; versions at least
``delta`` apart are called within the zone with probability at most
``alpha``, and the wrong way round with about ``alpha^2``. Measured on
simulated trials (``python -m bench.ladder_ab``): see ``docs/measurements.md``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from league.ratings.bt_incremental import BTAccumulator
from league.ratings.pair_test import decide, verdict_from_scores
from league.ratings.ratings_ml import Z95, Game, MLRatings

#: The default confidence. At 0.95 equal versions end "within the zone" in only about 90% of trials (each
#: wrong side takes about 1 / (1 + 20) of them, Wald's approximation), and versions exactly the zone apart
#: are called right in about 95%; at 0.975 about 95% and 97.5%, for about a quarter more games.
CONFIDENCE = 0.975
#: The answers of an A/B test.
ANSWERS = ("better", "worse", "within_zone", "open")
_NAMES = {"higher": "better", "lower": "worse", "within_zone": "within_zone", "open": "open"}


@dataclass(frozen=True)
class ABResult:
    """Where an A/B test stands: ``verdict`` one of :data:`ANSWERS` (of the new version against the old);
    ``stop`` "decided", "budget" or None while it goes on; ``games`` the games fed; ``difference`` the
    fitted ``rating[new] - rating[old]`` (Elo points) with its 95% ``interval`` (None before both versions
    have a result); ``llr_better`` / ``llr_worse`` the log likelihood ratios of ``+delta`` / ``-delta``
    against ``0``; ``threshold`` ``log(1 / alpha)``."""

    verdict: str
    stop: str | None
    games: int
    difference: float | None
    interval: tuple[float, float] | None
    llr_better: float | None
    llr_worse: float | None
    threshold: float


@dataclass
class ABTest:
    """A sequential A/B test of bot ids ``new`` against ``old`` (module docstring).

    ``delta``: the indifference zone, Elo points (0 < delta <= 1000); ``confidence``: 1 - alpha
    (0.5 < confidence < 1); ``max_games``: the most games it uses (>= 1). Raises ValueError for values
    out of range or ``new == old``.
    """

    old: int
    new: int
    delta: float = 50.0
    confidence: float = CONFIDENCE
    max_games: int = 20_000
    stats: BTAccumulator = field(default_factory=BTAccumulator)
    result: ABResult | None = None

    def __post_init__(self) -> None:
        if self.old == self.new:
            raise ValueError("an A/B test needs two different entrants")
        if not isinstance(self.delta, (int, float)) or not 0 < self.delta <= 1000:
            raise ValueError(f"the indifference zone must be above 0 and at most 1000 Elo points, got {self.delta!r}")
        if not 0.5 < self.confidence < 1:
            raise ValueError(f"confidence must be above 0.5 and below 1, got {self.confidence!r}")
        if type(self.max_games) is not int or self.max_games < 1:
            raise ValueError(f"max_games must be a whole number of at least 1, got {self.max_games!r}")

    @property
    def threshold(self) -> float:
        """``log(1 / alpha)``: the log likelihood ratio each answer needs."""
        return math.log(1.0 / (1.0 - self.confidence))

    def update(self, games: Iterable[Game]) -> ABResult:
        """Feed finished games (``(bot of each seat, place of each seat)``) and look: the result so far.
        Once decided (or at the budget) further games are not used and the same result is returned.
        Raises ValueError for a malformed game (``league.ratings.ratings_ml.pairwise_results``; earlier games of
        the batch are kept)."""
        if self.result is not None and self.result.stop is not None:
            return self.result
        for seats, places in games:
            self.stats.add(seats, places)
        fit = self.stats.fit()
        used = self.stats.games
        v = verdict_from_scores(self.stats.scores(), fit, self.new, self.old, self.delta, self.confidence)
        if v is None:
            verdict, diff, interval, better, worse = "open", None, None, None, None
        else:
            verdict, better, worse = _NAMES[v.verdict], v.llr_higher, v.llr_lower
            diff = fit.rating[self.new] - fit.rating[self.old]
            half = Z95 * fit.sd_diff(self.new, self.old)
            interval = (diff - half, diff + half)
        stop = "decided" if verdict != "open" else ("budget" if used >= self.max_games else None)
        self.result = ABResult(verdict, stop, used, diff, interval, better, worse, self.threshold)
        return self.result


def record_result(fit: MLRatings, old: int, new: int, delta: float, confidence: float, games: int,
                  max_games: int) -> ABResult:
    """The A/B answer of entrant ``new`` against entrant ``old``'s *record* from a ladder's fit (rules §5.5):
    the same three hypotheses, zone ``delta`` (Elo points) and ``confidence`` as :class:`ABTest`, on the fit's
    difference ``D = rating[new] - rating[old]`` and its standard error ``s`` (``MLRatings.sd_diff``) instead
    of head-to-head games. With ``D`` normal about the true difference ``d`` (variance ``s^2``), the log
    likelihood ratios against ``d = 0`` are ``up = (delta D - delta^2 / 2) / s^2`` for ``+delta`` and
    ``down = (-delta D - delta^2 / 2) / s^2`` for ``-delta``, decided as ``league.ratings.pair_test.decide``.
    Under the normal approximation the ratio is a likelihood ratio of the whole record (the old entrant's
    rating a nuisance integrated out), so the error rates hold whenever it looks, as the live test's do;
    but only if the field the two records were made against is the same: the old entrant played earlier,
    against opponents that may since have changed, and that bias is not in ``s``. The old record's own
    error never shrinks, so "within the zone" needs a precise record (``s`` below ``delta / sqrt(2 log(1 /
    alpha))``). ``games``: the new entrant's rated games so far; at ``max_games`` undecided it stops
    ``budget``. ``open`` while either entrant is unrated."""
    threshold = math.log(1.0 / (1.0 - confidence))
    if old not in fit.rating or new not in fit.rating or old == new:
        return ABResult("open", "budget" if games >= max_games else None, games, None, None, None, None, threshold)
    diff = fit.rating[new] - fit.rating[old]
    sd = fit.sd_diff(new, old)
    var = max(sd * sd, 1e-12)
    up = (delta * diff - delta * delta / 2.0) / var
    down = (-delta * diff - delta * delta / 2.0) / var
    verdict = _NAMES[decide(up, down, confidence)]
    stop = "decided" if verdict != "open" else ("budget" if games >= max_games else None)
    return ABResult(verdict, stop, games, diff, (diff - Z95 * sd, diff + Z95 * sd), up, down, threshold)
