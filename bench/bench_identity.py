"""The identity check's cost per game start: Describe of every seat, against the health check.

Usage: python -m bench.bench_identity [--seats N] [--rounds N]

Starts ``--seats`` reference bots (``odds``) in their own processes on 127.0.0.1 and times, per
game start, what a worker adds before a claim (``workers.identity.IdentityCheck.describe``): the
table's Describe read now (one seat; the seats at once; the seats in turn), and the kept answers
of a worker between reconnects (what nearly every game start costs); next to one health check
per seat asked now (``GrpcBotClient.health``, uncached). Figures are microseconds per game start
(median and mean over ``--rounds``; a tenth more run first as warm-up).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from referee.botprocess import start_bot_process
from referee.clients import GrpcBotClient
from workers.identity import IdentityCheck


def timed(step: Callable[[], object], rounds: int) -> tuple[float, float]:
    """``(median, mean)`` microseconds of ``step`` over ``rounds`` runs after a tenth of warm-up."""
    for _ in range(rounds // 10):
        step()
    xs = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        step()
        xs.append(time.perf_counter() - t0)
    return statistics.median(xs) * 1e6, statistics.mean(xs) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    bots = [start_bot_process("odds", seed) for seed in range(args.seats)]
    try:
        endpoints = [b.endpoint for b in bots]
        check = IdentityCheck(GrpcBotClient, ttl_s=0.0)  # reads Describe every time
        kept = IdentityCheck(GrpcBotClient)
        clients = [GrpcBotClient(e) for e in endpoints]
        one = timed(lambda: check.describe(endpoints[:1]), args.rounds)
        table = timed(lambda: check.describe(endpoints), args.rounds)
        in_turn = timed(lambda: [check.describe([e]) for e in endpoints], args.rounds)
        cached = timed(lambda: kept.describe(endpoints), args.rounds)
        health = timed(lambda: [c.health(2.0) for c in clients], args.rounds)
        print(f"Describe, 1 seat:                 median {one[0]:.0f} us, mean {one[1]:.0f} us per game start")
        print(f"Describe, {args.seats} seats at once:       median {table[0]:.0f} us, mean {table[1]:.0f} us per game start")
        print(f"Describe, {args.seats} seats in turn:       median {in_turn[0]:.0f} us, mean {in_turn[1]:.0f} us per game start")
        print(f"Describe kept, {args.seats} seats:          median {cached[0]:.0f} us, mean {cached[1]:.0f} us per game start")
        print(f"health check, {args.seats} seats in turn:   median {health[0]:.0f} us, mean {health[1]:.0f} us (uncached)")
    finally:
        for b in bots:
            b.stop()


if __name__ == "__main__":
    main()
