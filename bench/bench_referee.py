"""The referee through gRPC: decisions per second against the reference bots, beside the raw
round trip of an empty Describe call measured in the same run.

Usage: python -m bench.bench_referee [--games N]

Bots run as real gRPC servers in their own processes on 127.0.0.1. Reports the
ratio of the referee's time per decision to the raw round trip, and the
referee's own cost: the wall time less the time its Act calls took, per decision.
"""

from __future__ import annotations

import argparse
import statistics
import time

from referee.botprocess import start_bot_process
from referee.clients import GrpcBotClient
from referee.games import make_params, spec
from referee.referee import play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rtt-calls", type=int, default=2000)
    args = parser.parse_args()
    lineup = [("odds", 0), ("random", 1), ("odds", 1), ("random", 2)]
    processes = [start_bot_process(name, seed) for name, seed in lineup]
    try:
        clients = [GrpcBotClient(p.endpoint) for p in processes]
        for c in clients:
            c.describe()  # warm the channels
        rtts = []
        for i in range(args.rtt_calls):
            t0 = time.perf_counter()
            clients[i % len(clients)].describe()
            rtts.append(time.perf_counter() - t0)
        gs = spec("slippery-sam")
        params = make_params("slippery-sam")
        decisions, latencies = 0, []
        t0 = time.perf_counter()
        for seed in range(args.games):
            record = play(gs, params, len(clients), seed, clients)
            decisions += len(record.decisions)
            latencies += [d.latency_ms for d in record.decisions]
        dt = time.perf_counter() - t0
    finally:
        for p in processes:
            p.stop()
    rtt_ms = statistics.median(rtts) * 1000
    per_decision_ms = dt / decisions * 1000
    print(f"raw Describe round trip: median {rtt_ms:.3f} ms ({args.rtt_calls} calls)")
    print(f"referee, Slippery Sam, 4 seats: {decisions / dt:.0f} decisions/s, {per_decision_ms:.3f} ms per decision "
          f"(Act latency median {statistics.median(latencies):.3f} ms) over {args.games} games")
    own_ms = (dt * 1000 - sum(latencies)) / decisions
    print(f"ratio per-decision / raw round trip: {per_decision_ms / rtt_ms:.2f}; "
          f"referee's own cost {own_ms:.3f} ms per decision (wall time less the Act calls' measured time, "
          f"mean Act latency {statistics.fmean(latencies):.3f} ms)")


if __name__ == "__main__":
    main()
