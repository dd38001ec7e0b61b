"""Dense linear algebra on small symmetric matrices (rows as lists), for the Bradley-Terry fits.

The ladder's and the seasons' maximum-likelihood ratings (``league.ratings.ratings_ml``, ``league.ratings.bt_incremental``,
``league.ratings.pair_test``) solve Newton steps and invert an information matrix of one row per rated bot (up to a
few hundred): plain Python, sums in a fixed order, so a fit is the same on every machine.
"""

from __future__ import annotations

import math
from operator import mul


def cholesky(a: list[list[float]]) -> list[list[float]]:
    """The lower Cholesky factor of a symmetric positive definite matrix (rows as lists)."""
    n = len(a)
    low: list[list[float]] = [[] for _ in range(n)]
    for i in range(n):
        li = low[i]
        for j in range(i + 1):
            s = a[i][j] - sum(map(mul, li[:j], low[j][:j]))
            li.append(math.sqrt(max(s, 1e-300)) if i == j else s / low[j][j])
    return low


def cholesky_solve(low: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``L L' x = b`` for the factor ``low`` of :func:`cholesky`."""
    n = len(b)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(map(mul, low[i][:i], y[:i]))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def inverse(a: list[list[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive definite matrix: ``L^-T L^-1`` from one Cholesky factor."""
    low = cholesky(a)
    n = len(a)
    linv = [[0.0] * n for _ in range(n)]  # lower triangular
    for c in range(n):
        linv[c][c] = 1.0 / low[c][c]
        for i in range(c + 1, n):
            li = low[i]
            linv[i][c] = -sum(li[k] * linv[k][c] for k in range(c, i)) / li[i]
    cols = [list(col) for col in zip(*linv, strict=True)]  # cols[k][i] = linv[i][k]
    out = [[0.0] * n for _ in range(n)]
    for i in range(n):
        ci = cols[i]
        for j in range(i, n):
            v = sum(map(mul, ci[j:], cols[j][j:]))
            out[i][j] = out[j][i] = v
    return out


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    """The product of two square matrices (rows as lists)."""
    bt = [list(col) for col in zip(*b, strict=True)]
    return [[sum(map(mul, row, col)) for col in bt] for row in a]


def project(c: list[list[float]]) -> list[list[float]]:
    """``P c P`` with ``P = I - 11'/n``: the covariance of ratings constrained to sum to zero."""
    n = len(c)
    row = [sum(r) / n for r in c]
    col = [sum(c[i][j] for i in range(n)) / n for j in range(n)]
    tot = sum(row) / n
    return [[c[i][j] - row[i] - col[j] + tot for j in range(n)] for i in range(n)]



def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` for a symmetric positive definite ``a`` (Cholesky)."""
    return cholesky_solve(cholesky(a), b)
