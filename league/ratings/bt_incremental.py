"""The maximum-likelihood Bradley-Terry rating kept up to date game by game: an accumulator of sufficient statistics.

:func:`league.ratings.ratings_ml.fit_bradley_terry` refits a season from its games;
a ladder of a million games cannot re-read them at every look. A
:class:`BTAccumulator` keeps what the fit needs instead, whatever the number
of games:

- per pair of bots ``a < b``: the summed score of ``a`` against ``b`` (``1``
  a win, ``0.5`` equal places) and the number of results between them; the
  ratings (the penalised maximum of the pairwise likelihood, same prior,
  scale and anchor as ``ratings_ml``) depend on the games only through these
  sums, which are exact in floating point (halves and whole numbers): the
  ratings are the full fit's whatever the order the games came in;
- the *meat* of the sandwich covariance, ``B = sum over games of u_g u_g'``
  with ``u_g`` the game's score vector (``ratings_ml``, "Intervals"); and the
  number of games ``G`` with at least one result (the ``G / (G - 1)`` factor).

*The one approximation*: ``u_g`` depends on the ratings, and keeping ``B``
exactly as the ratings move would need statistics per set of four bots that
shared a table (millions at a ladder's size). So each game's ``u_g`` is
evaluated once, at the ratings of the first fit that includes the game (games
added since the last fit wait, kept as they are, in ``pending``), and added
to ``B``. Writing ``theta_g`` for those ratings and ``theta`` for the current
fit, ``u_g(theta_g) = u_g(theta) + J_g (theta - theta_g)``: the cross term
sums residuals of mean zero and grows like ``sqrt(G)``, the square term is
of order ``|theta - theta_g|^2`` per game, against ``B``'s ``G`` times a
residual variance of about 0.2-1 per game. A rating's error after ``n`` of
its games shrinks like ``1 / n``, so the stored ``B`` differs from the full
fit's by a share of order ``log(n) / n`` of it for a bot of ``n`` games.
Measured (``tests/test_bt_incremental.py``): a season fed in batches of 50
games gives standard errors within 2% of the full fit's, and two orders of
the same games within 2% of each other; the ratings themselves agree to
1e-6 Elo points. :meth:`BTAccumulator.rebuild` starts a fresh accumulator
from every game (for an organiser who wants the exact sandwich).

The checkpoint (:meth:`BTAccumulator.to_json`, :meth:`BTAccumulator.from_json`)
holds the sums, ``B``, the last ratings (the next fit starts from them: one or
two Newton steps) and the pending games: a few hundred kilobytes for 100 bots.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from league.ratings.linalg import inverse, matmul, project
from league.ratings.ratings_ml import (ANCHOR, PRIOR_SD_ELO, SCALE, Game, MLRatings, information, log_sigmoid, newton,
                               pairwise_results, sigmoid)

#: The version of the checkpoint's JSON layout.
FORMAT = 1


@dataclass
class BTAccumulator:
    """Sufficient statistics of the Bradley-Terry fit of a growing record (see the module docstring).

    ``pairs[(a, b)]`` (``a < b``) is ``[score of a against b, results]``; ``meat[(a, b)]`` (``a <= b``)
    an entry of ``B``; ``games`` the games with at least one pairwise result (``pending`` included);
    ``results`` the pairwise results; ``theta`` the last fit's ratings (logits, mean 0);
    ``pending`` the games added since the last fit, ``(bot of each seat, place of each seat)``.
    """

    prior_sd_elo: float = PRIOR_SD_ELO
    pairs: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    meat: dict[tuple[int, int], float] = field(default_factory=dict)
    games: int = 0
    results: int = 0
    theta: dict[int, float] = field(default_factory=dict)
    pending: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.prior_sd_elo > 0:
            raise ValueError("prior_sd_elo must be > 0")

    def add(self, seats: Sequence[int], places: Sequence[int]) -> None:
        """Add one game: the bot of each seat and its place (1 = first; equal places share).
        Raises ValueError as :func:`league.ratings.ratings_ml.pairwise_results` does (nothing added)."""
        results = pairwise_results(seats, places)
        if not results:
            return
        for a, b, s in results:
            cell = self.pairs.get((a, b))
            if cell is None:
                self.pairs[(a, b)] = [s, 1.0]
            else:
                cell[0] += s
                cell[1] += 1.0
        self.games += 1
        self.results += len(results)
        self.pending.append((tuple(seats), tuple(places)))

    def add_many(self, games: Iterable[Game]) -> None:
        """Add every game of ``games`` (``(seats, places)`` each), as :meth:`add`."""
        for seats, places in games:
            self.add(seats, places)

    @property
    def bots(self) -> tuple[int, ...]:
        """The rated bots (those in at least one pairwise result), increasing."""
        return tuple(sorted({x for pair in self.pairs for x in pair}))

    def scores(self) -> dict[tuple[int, int], float]:
        """``{(x, y): score of x against y}`` for every pair that met, both orders (``league.ratings.pair_test``'s input)."""
        out: dict[tuple[int, int], float] = {}
        for (a, b), (w, n) in self.pairs.items():
            out[(a, b)] = w
            out[(b, a)] = n - w
        return out

    def fit(self, tol: float = 1e-10, max_iter: int = 100) -> MLRatings:
        """The ratings and their covariance, as :func:`league.ratings.ratings_ml.fit_bradley_terry` gives for the same
        games (the sandwich's meat as the module docstring says). Starts Newton's method from the last fit's
        ratings (a new bot at the mean); folds the pending games into the meat at the new ratings."""
        bots = self.bots
        n = len(bots)
        if n == 0:
            self.pending.clear()
            return MLRatings((), {}, {}, 0, 0)
        index = {bot: k for k, bot in enumerate(bots)}
        wins = [[0.0] * n for _ in range(n)]
        count = [[0.0] * n for _ in range(n)]
        for (a, b), (w, c) in self.pairs.items():
            i, j = index[a], index[b]
            wins[i][j], wins[j][i] = w, c - w
            count[i][j] = count[j][i] = c
        lam = (SCALE / self.prior_sd_elo) ** 2
        theta = newton(wins, count, lam, [self.theta.get(bot, 0.0) for bot in bots], tol, max_iter)
        self.theta = {bot: theta[index[bot]] for bot in bots}
        self._fold(theta, index)
        info = information(theta, count, lam)
        inv = inverse(info)
        meat = [[0.0] * n for _ in range(n)]
        for (a, b), v in self.meat.items():
            i, j = index[a], index[b]
            meat[i][j] = meat[j][i] = v
        g = self.games
        factor = g / (g - 1) if g > 1 else 1.0
        for x in range(n):
            row = meat[x]
            for y in range(n):
                row[y] *= factor
            row[x] += lam
        cov = project(matmul(matmul(inv, meat), inv))
        model = project(inv)
        s2 = SCALE * SCALE
        rating = {bot: ANCHOR + SCALE * theta[index[bot]] for bot in bots}
        covariance = {bot: {o: s2 * cov[index[bot]][index[o]] for o in bots} for bot in bots}
        covariance_model = {bot: {o: s2 * model[index[bot]][index[o]] for o in bots} for bot in bots}
        return MLRatings(bots, rating, covariance, self.results, g, covariance_model)

    def _fold(self, theta: list[float], index: dict[int, int]) -> None:
        """Add the pending games' ``u_g u_g'`` to the meat at ``theta`` (logits, by ``index``)."""
        meat = self.meat
        for seats, places in self.pending:
            u: dict[int, float] = {}
            for a, b, s in pairwise_results(seats, places):
                r = s - sigmoid(theta[index[a]] - theta[index[b]])
                u[a] = u.get(a, 0.0) + r
                u[b] = u.get(b, 0.0) - r
            keys = sorted(u)
            for k, x in enumerate(keys):
                ux = u[x]
                for y in keys[k:]:
                    meat[(x, y)] = meat.get((x, y), 0.0) + ux * u[y]
        self.pending.clear()

    def to_json(self) -> str:
        """The checkpoint as a JSON text (floats written exactly); :meth:`from_json` reads it back."""
        return json.dumps({
            "format": FORMAT, "prior_sd_elo": self.prior_sd_elo, "games": self.games, "results": self.results,
            "pairs": [[a, b, w, n] for (a, b), (w, n) in sorted(self.pairs.items())],
            "meat": [[a, b, v] for (a, b), v in sorted(self.meat.items())],
            "theta": [[bot, t] for bot, t in sorted(self.theta.items())],
            "pending": [[list(s), list(p)] for s, p in self.pending]}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> BTAccumulator:
        """The accumulator of a :meth:`to_json` checkpoint. Raises ValueError for a text that is not one."""
        try:
            data: dict[str, Any] = json.loads(text)
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError("no checkpoint of format 1")
            return cls(prior_sd_elo=float(data["prior_sd_elo"]),
                       pairs={(int(a), int(b)): [float(w), float(n)] for a, b, w, n in data["pairs"]},
                       meat={(int(a), int(b)): float(v) for a, b, v in data["meat"]},
                       games=int(data["games"]), results=int(data["results"]),
                       theta={int(bot): float(t) for bot, t in data["theta"]},
                       pending=[(tuple(int(x) for x in s), tuple(int(x) for x in p)) for s, p in data["pending"]])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a Bradley-Terry checkpoint: {exc}") from None

    @classmethod
    def rebuild(cls, games: Iterable[Game], prior_sd_elo: float = PRIOR_SD_ELO) -> BTAccumulator:
        """A fresh accumulator of every game in ``games``, fitted once: its meat is the full fit's exactly."""
        acc = cls(prior_sd_elo=prior_sd_elo)
        acc.add_many(games)
        acc.fit()
        return acc


