"""Season ratings with honest uncertainty: maximum-likelihood Bradley-Terry and openskill.

Beside the online Elo of :mod:`league.ratings.elo` (which depends on the order of the
games), a season is rated as a whole:

**Bradley-Terry by maximum likelihood** (:func:`fit_bradley_terry`). Every
game's ranking is read as its pairwise results, as Elo reads it: each pair of
seats held by two different bots is one result, ``1`` to the seat placed
ahead, ``0.5`` each for equal places. With ratings ``theta`` in logits::

    P(a ahead of b) = 1 / (1 + exp(theta_b - theta_a))

and the fit maximises the sum of ``s log P + (1 - s) log(1 - P)`` over all
results. (This pairwise "composite" likelihood is exact for the pairwise
margins of a Plackett-Luce ranking model, the usual model of a multiplayer
ranking: there ``P(a ahead of b) = w_a / (w_a + w_b)`` whatever the table.)
The result depends only on the season's results, never on their order:
the fit uses the sums of the results, which are exact in floating point
(halves and whole numbers), and the per-game terms of the covariance are
added in a canonical order.

*Scale and anchor*: Elo points per logit are ``400 / ln 10`` (about 173.7),
so 200 Elo points of difference mean a 76% chance of finishing ahead, as in
Elo; ratings are shifted so that the mean of the season's rated bots is 1500.

*Prior*: each rating has a Gaussian prior with mean 1500 and standard
deviation :data:`PRIOR_SD_ELO` (1000 Elo points), i.e. a penalty
``theta^2 / (2 * 5.76^2)`` per bot. It is weak (worth less than a tenth of one
result between equals) and only keeps the fit finite when a bot won (or lost)
every result, or when bots never met: such ratings come out far from the
others (the prior stops them where the likelihood has nearly flattened) with
wide intervals.

*Intervals* (95%, ``estimate +- 1.96 sd``): the pairs of one game share the
game's deal and are not independent results, so the covariance is a
*sandwich* ``A^-1 (B + L) A^-1`` rather than the inverse observed information
``A^-1`` alone: ``A`` is the observed information (the Hessian of the
penalised negative log-likelihood, prior included), ``B`` the sum over games
of the outer product of each game's score vector (the game is the
independent unit), times ``G / (G - 1)`` for ``G`` games, and ``L`` the
prior's information. When a season's pairs are independent (two-seat games)
``B`` is about the Hessian and this is about ``A^-1``; when a game's pairs
move together, ``B`` is larger and so are the intervals. Everything acts on
the sum-to-zero subspace (the likelihood does not change when every rating
moves together, so only differences are estimated; the mean is fixed at 1500).

A sandwich estimates ``B`` from the games themselves, and from a handful of
games (or for a bot that won every result, whose scores are all near zero) it
is far too small. So every reported uncertainty, a bot's sd or the sd of a
difference of two ratings, is the larger of the sandwich's and ``A^-1``'s.
Measured on simulated Plackett-Luce seasons of 3-6 seats (300 seasons per
size, ``python -m bench.bench_rating_coverage``): coverage of the 95% intervals 0.991 at 4
games (the sandwich alone: 0.770, and 17% of its "P(better) > 95%" claims
were wrong, against 7% with the larger one), 0.959 at 8 games, 0.950 at 30,
0.952 at 100 and 0.947 at 400 games, where the sandwich is the larger
nearly always; ``A^-1`` alone holds the true ratings only about 84-85% of
the time in seasons of 30 games or more.

*Which bot is better*: for two bots, ``P(theta_a > theta_b)`` is
``Phi((theta_a - theta_b) / sd(theta_a - theta_b))`` with the variance of
the difference ``C_aa + C_bb - 2 C_ab`` (normal approximation).

**openskill** (:func:`openskill_ratings`): the Plackett-Luce model of the
``openskill`` library updated game by game over whole rankings (not pairs),
giving a mean ``mu`` (start 25) and an uncertainty ``sigma`` (start 25/3).
It is an online method: callers feed games in schedule order so that the
result does not depend on which worker finished first.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from league.ratings.linalg import inverse, matmul, project, solve

#: Elo points per logit.
SCALE: float = 400.0 / math.log(10.0)
#: The mean rating of a season's rated bots.
ANCHOR: float = 1500.0
#: Standard deviation of the Gaussian prior on each rating, Elo points.
PRIOR_SD_ELO: float = 1000.0
#: Two-sided 95% normal quantile.
Z95: float = 1.959963984540054

Game = tuple[Sequence[int], Sequence[int]]  # (bot of each seat, place of each seat)


@dataclass(frozen=True)
class MLRatings:
    """A season's Bradley-Terry fit: ratings and their covariance, Elo scale.

    ``bots`` are the rated bot ids in increasing order; ``rating[b]`` the
    estimate (mean 1500); ``cov[b][c]`` the sandwich covariance of the
    estimates of ``b`` and ``c`` and ``cov_model[b][c]`` the inverse observed
    information (both Elo points squared); ``results`` the number of pairwise
    results and ``games`` the games used. Every reported uncertainty (``sd``,
    ``interval``, ``p_better``) takes the wider of the two estimates for that
    quantity: see "Intervals" in the module docstring.
    """

    bots: tuple[int, ...]
    rating: dict[int, float]
    cov: dict[int, dict[int, float]]
    results: int
    games: int
    cov_model: dict[int, dict[int, float]] = field(default_factory=dict)

    def _var(self, a: int, b: int | None = None) -> float:
        """Variance of ``rating[a]`` (or of ``rating[a] - rating[b]``): the larger of the two estimates."""
        out = 0.0
        for c in (self.cov, self.cov_model):
            if not c:
                continue
            v = c[a][a] if b is None else c[a][a] + c[b][b] - 2.0 * c[a][b]
            out = max(out, v)
        return out

    def sd(self, bot: int) -> float:
        """Standard error of the bot's rating, Elo points."""
        return math.sqrt(self._var(bot))

    def sd_diff(self, a: int, b: int) -> float:
        """Standard error of ``rating[a] - rating[b]``, Elo points (the wider of the two estimates)."""
        return math.sqrt(max(0.0, self._var(a, b)))

    def interval(self, bot: int, z: float = Z95) -> tuple[float, float]:
        """``(low, high)``: the 95% interval of the bot's rating (or ``z`` standard errors)."""
        r, half = self.rating[bot], z * self.sd(bot)
        return r - half, r + half

    def p_better(self, a: int, b: int) -> float:
        """Probability (normal approximation) that ``a``'s true rating is above ``b``'s."""
        diff = self.rating[a] - self.rating[b]
        var = self._var(a, b)
        if var <= 1e-12:
            return 0.5 if diff == 0 else (1.0 if diff > 0 else 0.0)
        return 0.5 * (1.0 + math.erf(diff / math.sqrt(2.0 * var)))


def pairwise_results(seats_bots: Sequence[int], places: Sequence[int]) -> list[tuple[int, int, float]]:
    """A game's pairwise results ``(a, b, score of a)`` with ``a < b``, one per pair of seats
    held by two different bots. Raises ValueError for mismatched lengths or a place < 1."""
    if len(seats_bots) != len(places):
        raise ValueError(f"{len(seats_bots)} seats but {len(places)} places")
    if any(p < 1 for p in places):
        raise ValueError(f"places must be >= 1, got {list(places)}")
    out = []
    n = len(seats_bots)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = seats_bots[i], seats_bots[j]
            if a == b:
                continue  # a bot against itself tells nothing
            s = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
            out.append((a, b, s) if a < b else (b, a, 1.0 - s))
    return out


def fit_bradley_terry(games: Iterable[Game], prior_sd_elo: float = PRIOR_SD_ELO) -> MLRatings:
    """Fit the season's Bradley-Terry ratings (see the module docstring).

    ``games`` are ``(seats_bots, places)`` of the season's rated games, in any
    order. Bots that appear in no pairwise result are not rated. Raises
    ValueError as :func:`pairwise_results` does, or for ``prior_sd_elo <= 0``.
    """
    if prior_sd_elo <= 0:
        raise ValueError("prior_sd_elo must be > 0")
    per_game = sorted(r for r in (tuple(pairwise_results(b, p)) for b, p in games) if r)
    bots = tuple(sorted({x for results in per_game for a, b, _ in results for x in (a, b)}))
    n = len(bots)
    if n == 0:
        return MLRatings((), {}, {}, 0, 0)
    index = {bot: k for k, bot in enumerate(bots)}
    wins = [[0.0] * n for _ in range(n)]   # wins[i][j]: score of i against j, summed
    count = [[0.0] * n for _ in range(n)]  # results between i and j
    for results in per_game:
        for a, b, s in results:
            i, j = index[a], index[b]
            wins[i][j] += s
            wins[j][i] += 1.0 - s
            count[i][j] += 1.0
            count[j][i] += 1.0
    lam = (SCALE / prior_sd_elo) ** 2  # prior precision, per logit^2
    theta = newton(wins, count, lam)
    info = information(theta, count, lam)
    inv = inverse(info)
    meat = [[0.0] * n for _ in range(n)]
    for results in per_game:  # canonical order: the covariance does not depend on game order
        u = [0.0] * n
        for a, b, s in results:
            i, j = index[a], index[b]
            r = s - sigmoid(theta[i] - theta[j])
            u[i] += r
            u[j] -= r
        nz = [k for k in range(n) if u[k] != 0.0]
        for x in nz:
            for y in nz:
                meat[x][y] += u[x] * u[y]
    g = len(per_game)
    factor = g / (g - 1) if g > 1 else 1.0
    for x in range(n):
        for y in range(n):
            meat[x][y] *= factor
        meat[x][x] += lam  # the prior's information: see "Intervals" in the module docstring
    cov = project(matmul(matmul(inv, meat), inv))
    model = project(inv)
    rating = {bot: ANCHOR + SCALE * theta[index[bot]] for bot in bots}
    covariance = {bot: {other: SCALE * SCALE * cov[index[bot]][index[other]] for other in bots} for bot in bots}
    covariance_model = {bot: {other: SCALE * SCALE * model[index[bot]][index[other]] for other in bots} for bot in bots}
    return MLRatings(bots, rating, covariance, sum(len(r) for r in per_game), g, covariance_model)


def openskill_ratings(games: Iterable[Game]) -> dict[int, tuple[float, float]]:
    """``{bot: (mu, sigma)}`` from openskill's Plackett-Luce model over the games in the order given.

    Every seat is one team of one player; ``places`` are the ranks (ties
    allowed). A bot holding several seats of one game plays each with its
    rating before the game; it then gets the sum of its seats' changes of
    ``mu`` and the smallest of their ``sigma``. Raises ValueError for
    mismatched lengths or a place < 1.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    state: dict[int, tuple[float, float]] = {}
    for seats_bots, places in games:
        if len(seats_bots) != len(places):
            raise ValueError(f"{len(seats_bots)} seats but {len(places)} places")
        if any(p < 1 for p in places):
            raise ValueError(f"places must be >= 1, got {list(places)}")
        if len(seats_bots) < 2:
            continue
        before = {bot: state.get(bot, (model.mu, model.sigma)) for bot in seats_bots}
        teams = [[model.create_rating([*before[bot]])] for bot in seats_bots]
        rated = model.rate(teams, ranks=[float(p) for p in places])
        moved: dict[int, tuple[float, float]] = {}
        for bot, team in zip(seats_bots, rated, strict=True):
            mu0 = before[bot][0]
            mu, sigma = moved.get(bot, (mu0, math.inf))
            moved[bot] = (mu + team[0].mu - mu0, min(sigma, team[0].sigma))
        state.update(moved)
    return state


def sigmoid(x: float) -> float:
    """The logistic function 1 / (1 + e^-x), without overflow for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def log_sigmoid(x: float) -> float:
    """log(sigmoid(x)), without overflow or loss for large |x|."""
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _objective(theta: list[float], wins: list[list[float]], lam: float) -> float:
    """The penalised log-likelihood (to maximise)."""
    n = len(theta)
    total = -0.5 * lam * sum(t * t for t in theta)
    for i in range(n):
        ti, row = theta[i], wins[i]
        for j in range(n):
            if row[j]:
                total += row[j] * log_sigmoid(ti - theta[j])
    return total


def information(theta: list[float], count: list[list[float]], lam: float) -> list[list[float]]:
    """The observed information (negative Hessian) of the penalised log-likelihood."""
    n = len(theta)
    h = [[0.0] * n for _ in range(n)]
    for i in range(n):
        ti, row, hi = theta[i], count[i], h[i]
        diag = lam
        for j in range(n):
            if row[j]:
                p = sigmoid(ti - theta[j])
                w = row[j] * p * (1.0 - p)
                hi[j] = -w
                diag += w
        hi[i] = diag
    return h


def newton(wins: list[list[float]], count: list[list[float]], lam: float, start: list[float] | None = None,
           tol: float = 1e-10, max_iter: int = 200) -> list[float]:
    """The penalised maximum by Newton's method with step halving from ``start`` (None: all 0), shifted to mean 0.
    ``wins[i][j]``/``count[i][j]``: ``i``'s summed score against ``j`` and their results (diagonal 0);
    ``lam``: the prior's precision (per logit squared)."""
    n = len(wins)
    theta = list(start) if start is not None else [0.0] * n
    value = _objective(theta, wins, lam)
    for _ in range(max_iter):
        grad = [-lam * t for t in theta]
        for i in range(n):
            ti, w, c = theta[i], wins[i], count[i]
            for j in range(n):
                if c[j]:
                    grad[i] += w[j] - c[j] * sigmoid(ti - theta[j])
        step = solve(information(theta, count, lam), grad)
        t = 1.0
        while True:
            candidate = [theta[i] + t * step[i] for i in range(n)]
            new_value = _objective(candidate, wins, lam)
            if new_value >= value - 1e-12 or t < 1e-6:
                break
            t /= 2
        theta, value = candidate, new_value
        if max(abs(t * s) for s in step) < tol:
            break
    mean = sum(theta) / n
    return [x - mean for x in theta]


#: Seasons whose ratings :func:`season_ratings` keeps (a standings page is read far more often than a game ends).
CACHE_SIZE = 16
_cache: OrderedDict[bytes, tuple[MLRatings, dict[int, tuple[float, float]]]] = OrderedDict()
_cache_lock = threading.Lock()


def season_ratings(games: Sequence[Game]) -> tuple[MLRatings, dict[int, tuple[float, float]]]:
    """Both season ratings from the season's rated games in schedule order: ``(fit, openskill)``.

    Results are remembered for the last :data:`CACHE_SIZE` distinct lists of games
    (keyed by a digest of the games, so a new result is never served stale): the
    fit costs about 30 us and openskill about 100 us per game. Treat the returned
    objects as read-only. Raises ValueError as :func:`fit_bradley_terry` does.
    """
    key = hashlib.blake2b(repr([(tuple(b), tuple(p)) for b, p in games]).encode(), digest_size=32).digest()
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    value = (fit_bradley_terry(games), openskill_ratings(games))
    with _cache_lock:
        _cache[key] = value
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return value


def p_better_chain(order: Sequence[int], fit: MLRatings) -> dict[int, float | None]:
    """For each bot of ``order`` (a table's rows), the probability it is better than the next
    row's bot; None on the last row or when either bot has no rating."""
    out: dict[int, float | None] = {}
    for k, bot in enumerate(order):
        nxt = order[k + 1] if k + 1 < len(order) else None
        out[bot] = fit.p_better(bot, nxt) if nxt is not None and bot in fit.rating and nxt in fit.rating else None
    return out

