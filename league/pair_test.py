"""The evidence that one bot of a season is better than another: a generalised log likelihood ratio.

For bots ``a`` and ``b`` and a difference ``c`` (Elo points), the season's
Bradley-Terry likelihood (:mod:`league.ratings_ml`: the pairwise results of
every game, the same weak prior) is maximised over every rating under the
constraint ``theta_a - theta_b = c``. The log likelihood ratio of
``d = +delta`` against ``d = -delta`` is the difference of the two maxima
(the generalised SPRT of fishtest, with the other bots' ratings profiled out).
Unlike the normal approximation ``2 delta D / s^2`` on the fitted difference it
stays right when a bot won every result (the fit then runs to the prior and its
standard error with it, and the approximation sees no evidence at all).

A game's pairwise results share its deal and are not independent, so the
pairwise ("composite") likelihood overstates the evidence when they move
together: the ratio is multiplied by the variance of the difference from the
inverse information over the sandwich variance (``MLRatings``, capped at 1),
the usual adjustment of a composite likelihood ratio; for independent results
the factor is about 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from league.ratings_ml import (PRIOR_SD_ELO, SCALE, Game, MLRatings, log_sigmoid, sigmoid, solve,
                               pairwise_results)


def pair_llr(games: Iterable[Game], fit: MLRatings, a: int, b: int, delta: float) -> float | None:
    """The adjusted log likelihood ratio of "``a`` better than ``b`` by ``delta`` Elo points"
    against "``b`` better by ``delta``"; positive favours ``a``. None when either bot is unrated.
    ``fit`` is the season's :func:`league.ratings_ml.fit_bradley_terry` of the same ``games``."""
    if a not in fit.rating or b not in fit.rating or a == b:
        return None
    wins = _pair_scores(games)
    ratio = _profile(wins, a, b, delta / SCALE) - _profile(wins, a, b, -delta / SCALE)
    model = _diff_var(fit.cov_model, a, b)
    sandwich = _diff_var(fit.cov, a, b)
    factor = min(1.0, model / sandwich) if sandwich > 0 and model > 0 else 1.0
    return ratio * factor


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


def _profile(wins: dict[tuple[int, int], float], a: int, b: int, c: float,
             tol: float = 1e-10, max_iter: int = 100) -> float:
    """The largest penalised log-likelihood with ``theta_a - theta_b = c`` (logits): Newton's
    method over the ratings of every bot but ``b`` (``theta_b = theta_a - c``), with step halving."""
    bots = sorted({x for pair in wins for x in pair} | {a, b})
    free = [x for x in bots if x != b]
    var = {x: k for k, x in enumerate(free)}
    var[b] = var[a]
    offset = {x: 0.0 for x in bots}
    offset[b] = -c
    lam = (SCALE / PRIOR_SD_ELO) ** 2
    pairs = [(x, y, wins[(x, y)], wins[(x, y)] + wins[(y, x)]) for (x, y) in wins if x < y]
    theta = [0.0] * len(free)

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
        step = solve(info, grad)
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

