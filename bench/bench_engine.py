"""Engine alone: games per second of in-process random play, per game, no referee, no RPC.

Each view is encoded to wire bytes as the referee sends it (referee.wire) and
parsed back for the random policy, as a bot would.

Decisions per second are given by the wall clock and by the process's CPU time (the figure to
compare on a shared machine: another process's load slows the wall clock, less the CPU time).

Usage: python -m bench.bench_engine [--games N] [--seats N]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from referee.engine import DrawLot, Shuffle
from referee.playout import Playout
from referee.games import games, make_params, spec


class QuickChance:
    """The harness's chance: a shuffle is the cards sorted by one ``rng.random()`` key each (a
    uniform permutation, a fraction of ``rng.sample``'s cost); a lot is ``rng.choice``.

    Not the referee's per-deal streams (``referee.chance``, a SHA-256 seed per deal): the
    benchmark measures the engine and the codec, not the harness drawing cards."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._random = rng.random

    def answer(self, step: Shuffle | DrawLot) -> Any:
        """A permutation of ``step.cards`` (a list) for a Shuffle, one of ``step.seats`` for a DrawLot."""
        if isinstance(step, Shuffle):
            key = self._random
            return sorted(step.cards, key=lambda _card: key())
        return self.rng.choice(step.seats)


def random_game(game: str, seats: int, seed: int) -> int:
    """Play one game with uniformly random legal protocol answers; return the number of decisions.

    Every view goes through the wire bytes (``ViewEncoder``) and is parsed back; every answer is
    decoded and checked by the rules (an illegal one replaced by the default action)."""
    gs = spec(game)
    policy = gs.random_action
    rules = gs.make_rules(make_params(game), seats)
    rng = random.Random(seed)
    chance = QuickChance(rng)
    state = rules.new_state()
    views = gs.view_codec.encoder()  # one per game
    return Playout(rules, gs, rng, policy, chance=chance, views=views).play(state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    for game in games():
        n = args.games if game != "rummy" else max(10, args.games // 10)
        random_game(game, args.seats, -1)  # imports and caches warm, off the clock
        t0, c0 = time.perf_counter(), time.process_time()
        decisions = sum(random_game(game, args.seats, seed) for seed in range(n))
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{game:13s} {n / dt:9.1f} games/s  {decisions / dt:10.0f} decisions/s  "
              f"{decisions / cpu:10.0f} per CPU second  ({n} games, {decisions} decisions, {args.seats} seats, "
              "random play with codec)")


if __name__ == "__main__":
    main()
