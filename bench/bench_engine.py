"""Engine alone: games per second of in-process random play, per game, no referee, no RPC.

Each view is encoded to wire bytes as the referee sends it (referee.wire) and
parsed back for the random policy, as a bot would.

Usage: python -m bench.bench_engine [--games N] [--seats N]
"""

from __future__ import annotations

import argparse
import random
import time

from referee import playout
from referee.games import games, make_params, spec


def random_game(game: str, seats: int, seed: int) -> int:
    """Play one game with uniformly random legal protocol answers; return the number of decisions."""
    gs = spec(game)
    policy = gs.random_action
    rules = gs.make_rules(make_params(game), seats)
    rng = random.Random(seed)
    state = rules.new_state()
    views = gs.view_codec.encoder()
    decisions = 0
    while (made := playout.step(rules, gs, state, rng, policy, views=views)) is not None:
        decisions += made
    return decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    for game in games():
        n = args.games if game != "rummy" else max(10, args.games // 10)
        t0 = time.perf_counter()
        decisions = sum(random_game(game, args.seats, seed) for seed in range(n))
        dt = time.perf_counter() - t0
        print(f"{game:13s} {n / dt:9.1f} games/s  {decisions / dt:10.0f} decisions/s  ({n} games, {args.seats} seats, random play with codec)")


if __name__ == "__main__":
    main()
