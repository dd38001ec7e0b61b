"""A ladder's standings refit at scale: the incremental Bradley-Terry fit of a million games.

Usage: python -m bench.ladder_scale [--entrants 100] [--games 1000000] [--new 1000] [--seed S] [--check N]

Simulated entrants of known strength (Elo spread evenly over 1100-1900) play
tables of 4 drawn at random; each game's places are a Plackett-Luce race
(``bench.bench_settling.race``). The games are generated in memory and fed to
``league.ratings.bt_incremental.BTAccumulator``, which is fitted once (every game's
share of the sandwich folded in) and written as its JSON checkpoint, as a
ladder stores it. Then the timed step, a standings refit: read the checkpoint,
add ``--new`` new games, fit (warm start from the stored ratings). Printed:
the time of each step, the checkpoint's size, the refit's Newton start, and
how far the refit's ratings and standard errors are from the full
``league.ratings.ratings_ml.fit_bradley_terry`` of the first ``--check`` games fed the
same way (the full fit of a million games takes minutes in pure Python).
Target (issue 26): 100 entrants, 1,000,000 games, a refit in at most 2 s.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence

from league.ratings.bt_incremental import BTAccumulator
from league.ratings.ratings_ml import ANCHOR, SCALE, fit_bradley_terry

Game = tuple[list[int], list[int]]


def make_games(rng: random.Random, elo: Sequence[float], games: int, seats: int = 4) -> list[Game]:
    """``games`` tables of ``seats`` entrants drawn at random, places from a Plackett-Luce race."""
    strength = [math.exp((e - ANCHOR) / SCALE) for e in elo]
    ids = range(len(elo))
    out: list[Game] = []
    for _ in range(games):
        table = rng.sample(ids, seats)
        times = [rng.expovariate(strength[b]) for b in table]
        order = sorted(range(seats), key=times.__getitem__)
        places = [0] * seats
        for place, i in enumerate(order, start=1):
            places[i] = place
        out.append((table, places))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.ladder_scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=100)
    parser.add_argument("--games", type=int, default=1_000_000, help="games in the checkpoint")
    parser.add_argument("--new", type=int, default=1000, help="new games added before the timed refit")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--check", type=int, default=5000,
                        help="games on which the incremental fit is compared with the full fit (0: none)")
    args = parser.parse_args(argv)
    if args.entrants < 4 or args.games < 1 or args.new < 0:
        parser.error("--entrants must be at least 4, --games at least 1 and --new at least 0")
    rng = random.Random(args.seed)
    elo = [1100.0 + 800.0 * k / (args.entrants - 1) for k in range(args.entrants)]
    print(f"{args.entrants} entrants (true Elo 1100-1900), tables of 4, {args.games:,} games in the checkpoint, "
          f"{args.new:,} new games")
    t0 = time.perf_counter()
    games = make_games(rng, elo, args.games)
    new = make_games(rng, elo, args.new)
    t1 = time.perf_counter()
    acc = BTAccumulator()
    acc.add_many(games)
    t2 = time.perf_counter()
    acc.fit()
    t3 = time.perf_counter()
    checkpoint = acc.to_json()
    t4 = time.perf_counter()
    print(f"generate {t1 - t0:.1f} s; add {args.games:,} games {t2 - t1:.1f} s "
          f"({1e6 * (t2 - t1) / args.games:.1f} us a game); first fit (folds every game) {t3 - t2:.1f} s; "
          f"checkpoint {len(checkpoint) / 1e3:.0f} kB written in {t4 - t3:.2f} s")
    times = []
    for _ in range(3):
        start = time.perf_counter()
        again = BTAccumulator.from_json(checkpoint)
        loaded = time.perf_counter()
        again.add_many(new)
        added = time.perf_counter()
        fit = again.fit()
        done = time.perf_counter()
        times.append((done - start, loaded - start, added - loaded, done - added))
    best = min(times)
    print(f"standings refit (read checkpoint + add {args.new:,} games + fit), best of 3: {best[0]:.2f} s "
          f"(read {best[1]:.2f} s, add {best[2]:.3f} s, fit {best[3]:.2f} s); target 2 s: "
          f"{'met' if best[0] <= 2.0 else 'NOT met'}")
    truth = {b: e - sum(elo) / len(elo) + ANCHOR for b, e in enumerate(elo)}
    worst = max(abs(fit.rating[b] - truth[b]) / fit.sd(b) for b in fit.bots)
    print(f"{fit.games:,} games rated; sd of a rating {min(fit.sd(b) for b in fit.bots):.1f}-"
          f"{max(fit.sd(b) for b in fit.bots):.1f} Elo; largest |estimate - truth| / sd {worst:.2f}")
    if args.check:
        sample = make_games(random.Random(args.seed + 1), elo, args.check)
        full = fit_bradley_terry(sample)
        inc = BTAccumulator()
        for k in range(0, len(sample), 100):
            inc.add_many(sample[k:k + 100])
            inc.fit()
        part = inc.fit()
        dr = max(abs(full.rating[b] - part.rating[b]) for b in full.bots)
        ds = max(abs(part.sd(b) / full.sd(b) - 1) for b in full.bots)
        print(f"against the full fit of {args.check:,} games fed 100 at a time: ratings within {dr:.1e} Elo, "
              f"standard errors within {100 * ds:.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
