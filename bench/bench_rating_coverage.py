"""How honest the season ratings' uncertainty is (league.ratings.ratings_ml); a measurement, not a test.

Usage: python -m bench.bench_rating_coverage [--seasons N] [--seed S]

Simulates seasons of known strengths (Plackett-Luce rankings, as
tests/test_ratings_ml.py does) for several season lengths and prints, for the
sandwich covariance, the inverse observed information, and the larger of the two
(what ``MLRatings`` reports): how often the 95% intervals hold the true ratings,
and how many "P(better) > 95%" claims between two bots were wrong.
"""

from __future__ import annotations

import argparse
import math
import random

from league.ratings.ratings_ml import Z95, fit_bradley_terry
from tests.test_ratings_ml import TRUE_ELO, simulate

#: (games per season, table sizes, true ratings of the bots)
CASES = [(4, (3,), TRUE_ELO[:4]), (8, (3, 4), TRUE_ELO[:4]), (15, (3, 4), TRUE_ELO[:4]),
         (30, (3, 4, 5, 6), TRUE_ELO), (100, (3, 4, 5, 6), TRUE_ELO), (400, (3, 4, 5, 6), TRUE_ELO)]


def _var(cov: dict[int, dict[int, float]], a: int, b: int | None = None) -> float:
    return cov[a][a] if b is None else cov[a][a] + cov[b][b] - 2.0 * cov[a][b]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=300, help="simulated seasons per case")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"{'games':>5}  coverage: sandwich  inverse info  larger (reported)  |  wrong confident claims: sandwich  larger")
    for games, sizes, elo in CASES:
        rng = random.Random(args.seed)
        hits = {"sandwich": 0, "model": 0, "larger": 0}
        claims = {"sandwich": [0, 0], "larger": [0, 0]}
        total = 0
        for _ in range(args.seasons):
            fit = fit_bradley_terry(simulate(rng, elo, games, sizes))
            shift = 1500 - sum(elo[b] for b in fit.bots) / len(fit.bots)
            for bot in fit.bots:
                err = abs(fit.rating[bot] - (elo[bot] + shift))
                s, m = math.sqrt(max(_var(fit.cov, bot), 0)), math.sqrt(max(_var(fit.cov_model, bot), 0))
                hits["sandwich"] += err <= Z95 * s
                hits["model"] += err <= Z95 * m
                hits["larger"] += err <= Z95 * max(s, m)
                total += 1
            for a in fit.bots:
                for b in fit.bots:
                    if a >= b:
                        continue
                    diff = fit.rating[a] - fit.rating[b]
                    vs, vm = _var(fit.cov, a, b), _var(fit.cov_model, a, b)
                    for name, v in (("sandwich", vs), ("larger", max(vs, vm))):
                        p = 0.5 * (1 + math.erf(diff / math.sqrt(2 * max(v, 1e-12))))
                        if p > 0.95 or p < 0.05:
                            claims[name][0] += 1
                            claims[name][1] += (p > 0.5) != (elo[a] > elo[b])
        cov = {k: v / total for k, v in hits.items()}
        wrong = {k: f"{w}/{c} ({100 * w / c:.1f}%)" if c else "0/0" for k, (c, w) in claims.items()}
        print(f"{games:>5}  {cov['sandwich']:18.3f}  {cov['model']:12.3f}  {cov['larger']:17.3f}  |  "
              f"{wrong['sandwich']:>32}  {wrong['larger']}")


if __name__ == "__main__":
    main()
