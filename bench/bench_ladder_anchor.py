"""How far a weak newcomer moves a ladder's established entrants: the fit's own scale against the anchored one.

Rules §5.4, ``league.ratings.anchor``. Each trial: six entrants of strengths drawn within +-100 Elo play
``--games`` games at tables of 4 (places drawn by the Plackett-Luce model of their strengths), so the
ladder's founders are fixed (its first 100 games); then one of them leaves (it plays no game more, its
record stays) and a newcomer 400 points weaker than the mean joins, and ``--after`` more games are played
without the one that left. The entrant that left has no game of its own after the newcomer arrived, so
every point its rating moves is the scale's doing. Printed: that move, median and largest over the trials,
on the fit's own scale (mean 1500 over every rated entrant, as before anchoring) and anchored.

    python -m bench.bench_ladder_anchor --trials 50
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from league.ratings.anchor import anchored
from league.ratings.ratings_ml import ANCHOR, fit_bradley_terry

FOUNDER_GAMES = 100  # league.competition.ladder.FOUNDER_GAMES
SEATS = 4
ELO = 400 / math.log(10)


def _game(bots: list[int], strength: dict[int, float], rng: random.Random) -> tuple[list[int], list[int]]:
    """A table of SEATS bots drawn from ``bots`` and their places (Plackett-Luce by strength)."""
    table = rng.sample(bots, SEATS)
    left, order = list(table), []
    while left:
        weights = [math.exp(strength[b] / ELO) for b in left]
        pick = rng.choices(left, weights)[0]
        order.append(pick)
        left.remove(pick)
    return table, [order.index(b) + 1 for b in table]


def trial(seed: int, games: int, after: int) -> tuple[float, float]:
    """``(move on the fit's own scale, move anchored)`` of the entrant that left, Elo points."""
    rng = random.Random(seed)
    strength = {b: rng.uniform(-100, 100) for b in range(6)}
    played = [_game(list(range(6)), strength, rng) for _ in range(games)]
    founders = dict.fromkeys(sorted({b for t, _ in played[:FOUNDER_GAMES] for b in t}), ANCHOR)
    before_own = fit_bradley_terry(played)
    before = anchored(before_own, founders)
    strength[6] = statistics.fmean(strength.values()) - 400
    played += [_game([1, 2, 3, 4, 5, 6], strength, rng) for _ in range(after)]
    after_own = fit_bradley_terry(played)
    return after_own.rating[0] - before_own.rating[0], anchored(after_own, founders).rating[0] - before.rating[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--games", type=int, default=300, help="games of the six before the newcomer")
    parser.add_argument("--after", type=int, default=200, help="games after the newcomer joined")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    moves = [trial(args.seed * 1_000_003 + i, args.games, args.after) for i in range(args.trials)]
    print(f"{args.trials} trials: 6 entrants, {args.games} games, then a newcomer 400 points weaker and {args.after} "
          f"games without one entrant ({time.perf_counter() - started:.0f} s)")
    for name, k in (("fit's own scale (mean 1500 over all)", 0), ("anchored (founders' mean 1500)", 1)):
        m = sorted(abs(x[k]) for x in moves)
        print(f"  {name}: the idle entrant moved median {statistics.median(m):.1f}, largest {m[-1]:.1f} Elo points; "
              f"over 10 points in {sum(v > 10 for v in m)}/{len(m)}")


if __name__ == "__main__":
    main()
