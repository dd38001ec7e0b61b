"""The evidence that one bot of a season is better than another: generalised log likelihood ratios.

For bots ``a`` and ``b`` and a difference ``c`` (Elo points), the season's
Bradley-Terry likelihood (:mod:`league.ratings.ratings_ml`: the pairwise results of
every game, the same weak prior) is maximised over every rating under the
constraint ``theta_a - theta_b = c``: the *profile* log-likelihood ``l(c)``.
Log likelihood ratios between differences are differences of ``l``: the
ratio of ``d = +delta`` against ``d = -delta`` (:func:`pair_llr`, the
generalised SPRT of fishtest, with the other bots' ratings profiled out), and
the three-hypothesis test of :func:`pair_verdict`. Unlike the normal
approximation ``2 delta D / s^2`` on the fitted difference they stay right
when a bot won every result (the fit then runs to the prior and its standard
error with it, and the approximation sees no evidence at all).

A game's pairwise results share its deal and are not independent, so the
pairwise ("composite") likelihood overstates the evidence when they move
together: every ratio is multiplied by the variance of the difference from the
inverse information over the sandwich variance (``MLRatings``, capped at 1),
the usual adjustment of a composite likelihood ratio; for independent results
the factor is about 1.

**Three hypotheses** (:func:`pair_verdict`; Sobel and Wald's pair of
sequential ratio tests against ``d = 0``): ``H+: d = +delta``, ``H0: d = 0``,
``H-: d = -delta``. With ``A = log(1 / alpha)``, ``alpha = 1 - confidence``,
``up = l(+delta) - l(0)`` and ``down = l(-delta) - l(0)``:

- ``higher`` when ``up >= A`` (``a`` better: the test of ``H+`` against ``H0``
  accepts ``H+``; ``l`` is concave, so then ``l(0) - l(-delta) >= up`` and the
  test of ``H-`` against ``H0`` has rejected ``H-`` too);
- ``lower`` when ``down >= A`` (the mirror image);
- ``within_zone`` when ``-up >= A`` and ``-down >= A`` (both tests accept
  ``H0``: the bots are closer than ``delta``);
- ``open`` otherwise: more games are needed.

The verdicts exclude each other. *Error rates under any number of looks*:
under ``d = 0`` the likelihood ratio ``exp(up)`` is a non-negative
martingale of mean 1 (exactly for two bots that only meet each other, and
approximately with other bots profiled out, as in fishtest), so by Ville's
inequality ``higher`` is ever claimed with probability at most ``alpha``
(less for ``d < 0``), and likewise ``lower``; under ``d >= +delta``
(``d <= -delta``) ``exp(-up)`` (``exp(-down)``) is one, so two bots at
least ``delta`` apart are called ``within_zone`` with probability at most
``alpha``, and called the wrong way round with at most about ``alpha^2``.
Two copies of one bot therefore end ``within_zone`` (wrongly ``higher`` or
``lower`` in at most ``2 alpha`` of cases), instead of spending the whole
budget or settling a coin toss as the two-hypothesis test did.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from league.ratings.linalg import cholesky, cholesky_solve
from league.ratings.ratings_ml import ANCHOR, PRIOR_SD_ELO, SCALE, Game, MLRatings, log_sigmoid, pairwise_results, sigmoid

#: The verdicts of :func:`pair_verdict`.
VERDICTS = ("higher", "lower", "within_zone", "open")


@dataclass(frozen=True)
class PairVerdict:
    """The three-hypothesis test of bots ``a`` (upper) and ``b`` at one look (see the module docstring).

    ``verdict`` is one of :data:`VERDICTS`; ``llr_higher`` the adjusted ``l(+delta) - l(0)``,
    ``llr_lower`` the adjusted ``l(-delta) - l(0)`` (natural logs); ``threshold`` ``log(1 / alpha)``.
    """

    a: int
    b: int
    verdict: str
    llr_higher: float
    llr_lower: float
    threshold: float

    @property
    def llr_zone(self) -> float:
        """The evidence for "within the zone": the smaller of ``-llr_higher`` and ``-llr_lower``."""
        return min(-self.llr_higher, -self.llr_lower)

    @property
    def strength(self) -> float:
        """The largest of the three verdicts' evidence; the pair is settled when it reaches ``threshold``."""
        return max(self.llr_higher, self.llr_lower, self.llr_zone)

    @property
    def llr_two_sided(self) -> float:
        """The two-hypothesis ratio of ``+delta`` against ``-delta`` (:func:`pair_llr`)."""
        return self.llr_higher - self.llr_lower

    @property
    def settled(self) -> bool:
        """Whether the verdict is one of higher, lower or within_zone."""
        return self.verdict != "open"

    def as_json(self) -> dict[str, object]:
        """``{"upper", "lower", "verdict", "llr_higher", "llr_lower", "llr_zone"}`` (ratios capped at +-1e9)."""
        cap = lambda x: max(-1e9, min(1e9, x))  # noqa: E731
        return {"upper": self.a, "lower": self.b, "verdict": self.verdict, "llr_higher": cap(self.llr_higher),
                "llr_lower": cap(self.llr_lower), "llr_zone": cap(self.llr_zone)}


def decide(up: float, down: float, confidence: float) -> str:
    """The verdict for the adjusted ratios ``up = l(+delta) - l(0)`` and ``down = l(-delta) - l(0)`` at
    ``confidence`` = 1 - alpha (module docstring). Raises ValueError unless 0.5 < confidence < 1."""
    if not 0.5 < confidence < 1:
        raise ValueError(f"confidence must be above 0.5 and below 1, got {confidence!r}")
    bound = math.log(1.0 / (1.0 - confidence))
    if up >= bound:
        return "higher"
    if down >= bound:
        return "lower"
    if -up >= bound and -down >= bound:
        return "within_zone"
    return "open"


def pair_verdict(games: Iterable[Game], fit: MLRatings, a: int, b: int, delta: float,
                 confidence: float) -> PairVerdict | None:
    """The three-hypothesis sequential test of "``a`` better than ``b`` by ``delta`` Elo points", "worse by
    ``delta``" and "equal" over the season's ``games`` (module docstring). ``fit`` is
    :func:`league.ratings.ratings_ml.fit_bradley_terry` of the same games. None when either bot is unrated or
    ``a == b``. Raises ValueError for ``delta <= 0`` or a confidence outside (0.5, 1)."""
    return verdict_from_scores(_pair_scores(games), fit, a, b, delta, confidence)


def verdict_from_scores(wins: Mapping[tuple[int, int], float], fit: MLRatings, a: int, b: int, delta: float,
                        confidence: float, prior_sd_elo: float = PRIOR_SD_ELO) -> PairVerdict | None:
    """:func:`pair_verdict` from the summed pairwise scores ``{(x, y): score of x against y}``, both orders
    (``league.ratings.bt_incremental.BTAccumulator.scores``) instead of the games."""
    if not delta > 0:
        raise ValueError(f"the indifference zone must be above 0 Elo points, got {delta!r}")
    if a not in fit.rating or b not in fit.rating or a == b:
        return None
    start = {bot: (r - ANCHOR) / SCALE for bot, r in fit.rating.items()}  # the fit: a warm start
    zero = _profile(wins, a, b, 0.0, prior_sd_elo=prior_sd_elo, start=start)
    factor = _factor(fit, a, b)
    up = factor * (_profile(wins, a, b, delta / SCALE, prior_sd_elo=prior_sd_elo, start=start) - zero)
    down = factor * (_profile(wins, a, b, -delta / SCALE, prior_sd_elo=prior_sd_elo, start=start) - zero)
    return PairVerdict(a, b, decide(up, down, confidence), up, down, math.log(1.0 / (1.0 - confidence)))


def _factor(fit: MLRatings, a: int, b: int) -> float:
    """The composite likelihood's adjustment: the model's variance of the difference over the sandwich's, at most 1."""
    model = _diff_var(fit.cov_model, a, b)
    sandwich = _diff_var(fit.cov, a, b)
    return min(1.0, model / sandwich) if sandwich > 0 and model > 0 else 1.0


def pair_llr(games: Iterable[Game], fit: MLRatings, a: int, b: int, delta: float) -> float | None:
    """The adjusted log likelihood ratio of "``a`` better than ``b`` by ``delta`` Elo points"
    against "``b`` better by ``delta``"; positive favours ``a``. None when either bot is unrated.
    ``fit`` is the season's :func:`league.ratings.ratings_ml.fit_bradley_terry` of the same ``games``."""
    if a not in fit.rating or b not in fit.rating or a == b:
        return None
    wins = _pair_scores(games)
    ratio = _profile(wins, a, b, delta / SCALE) - _profile(wins, a, b, -delta / SCALE)
    return ratio * _factor(fit, a, b)


def _diff_var(cov: dict[int, dict[int, float]], a: int, b: int) -> float:
    return cov[a][a] + cov[b][b] - 2.0 * cov[a][b] if cov else 0.0


def _pair_scores(games: Iterable[Game]) -> dict[tuple[int, int], float]:
    """``{(x, y): score of x against y}`` summed over the games' pairwise results, both orders."""
    wins: dict[tuple[int, int], float] = {}
    for seats, places in games:
        for x, y, s in pairwise_results(seats, places):
            wins[(x, y)] = wins.get((x, y), 0.0) + s
            wins[(y, x)] = wins.get((y, x), 0.0) + 1.0 - s
    return wins


def _profile(wins: Mapping[tuple[int, int], float], a: int, b: int, c: float,
             tol: float = 1e-10, max_iter: int = 100, prior_sd_elo: float = PRIOR_SD_ELO,
             start: Mapping[int, float] | None = None) -> float:
    """The largest penalised log-likelihood with ``theta_a - theta_b = c`` (logits): Newton's
    method over the ratings of every bot but ``b`` (``theta_b = theta_a - c``), with step halving."""
    bots = sorted({x for pair in wins for x in pair} | {a, b})
    free = [x for x in bots if x != b]
    var = {x: k for k, x in enumerate(free)}
    var[b] = var[a]
    offset = {x: 0.0 for x in bots}
    offset[b] = -c
    lam = (SCALE / prior_sd_elo) ** 2
    pairs = [(x, y, wins[(x, y)], wins[(x, y)] + wins[(y, x)]) for (x, y) in wins if x < y]
    theta = [start.get(x, 0.0) if start else 0.0 for x in free]  # logits; the same maximum from any start

    def value(t: Sequence[float]) -> float:
        total = -0.5 * lam * sum(_rating(t, var, offset, x) ** 2 for x in bots)
        for x, y, w, n in pairs:
            z = _rating(t, var, offset, x) - _rating(t, var, offset, y)
            total += w * log_sigmoid(z) + (n - w) * log_sigmoid(-z)
        return total

    current = value(theta)
    for _ in range(max_iter):
        m = len(free)
        grad = [0.0] * m
        info = [[0.0] * m for _ in range(m)]
        for x in bots:
            k = var[x]
            grad[k] -= lam * _rating(theta, var, offset, x)
            info[k][k] += lam
        for x, y, w, n in pairs:
            i, j = var[x], var[y]
            if i == j:
                continue  # a against b: fixed by the constraint
            p = sigmoid(_rating(theta, var, offset, x) - _rating(theta, var, offset, y))
            g, h = w - n * p, n * p * (1.0 - p)
            grad[i] += g
            grad[j] -= g
            info[i][i] += h
            info[j][j] += h
            info[i][j] -= h
            info[j][i] -= h
        step = cholesky_solve(cholesky(info), grad)
        t = 1.0
        while True:
            candidate = [theta[k] + t * step[k] for k in range(m)]
            new = value(candidate)
            if new >= current - 1e-12 or t < 1e-6:
                break
            t /= 2
        theta, current = candidate, new
        if max((abs(t * s) for s in step), default=0.0) < tol:
            break
    return current


def _rating(theta: Sequence[float], var: dict[int, int], offset: dict[int, float], bot: int) -> float:
    return theta[var[bot]] + offset[bot]

