"""The referee through gRPC: decisions per second against the reference bots, beside the raw
RPC it wraps (the same Act requests sent raw) and the raw round trip of an empty Describe.

Usage: python -m bench.bench_referee [--games N] [--rtt-calls N]

Bots run as real gRPC servers in their own processes on 127.0.0.1. The
referee plays ``--games`` Slippery Sam games of 4 seats; every Act request it
sends (the exact bytes, and the seat) is kept as it goes (a list append per
call). Then those requests are sent again, in the same order, to the same bots
over the same channels with no referee around them: a bare ``Act`` call of
bytes in and bytes out (``raw Act``). Reported, per decision (milliseconds):

- the referee's time per decision (wall time of the games / decisions);
- ``raw Act``: the mean time of the bare calls (the same bots answering the same views);
- the ratio referee / raw Act (the referee's target, ≤ 1.2), and referee / raw Describe
  round trip (median of ``--rtt-calls`` empty Describe calls: the network floor, without a
  bot's work or a view to parse, with the CPU the calling process spends per call);
- the referee's own cost: its time per decision less the raw Act's, and (the older measure)
  its wall time less the Act calls' latency as the referee measured them.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from cardarena.v1 import bot_pb2
from referee.botprocess import start_bot_process
from referee.clients import BotClient, GrpcBotClient, channel_for
from referee.games import make_params, spec
from referee.referee import play

_ACT_METHOD = "/cardarena.v1.Bot/Act"


@dataclass
class Recording:
    """A bot client that keeps every Act request's bytes in ``sent`` (shared by the seats: the
    order of the game) as ``(index of this client, request, timeout in seconds)`` before sending it on."""

    client: BotClient
    index: int
    sent: list[tuple[int, bytes, float]]

    def describe(self) -> bot_pb2.DescribeResponse:
        return self.client.describe()  # type: ignore[attr-defined, no-any-return]

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        """The wrapped client's blocking Act, unread (what the referee calls), the request kept first."""
        self.sent.append((self.index, _bytes(request), timeout_s))
        return self.client.call_bytes(request, timeout_s)

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """The wrapped client's blocking Act, the request kept first."""
        self.sent.append((self.index, _bytes(request), timeout_s))
        return self.client.call(request, timeout_s)

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """The wrapped client's concurrent Act, the request kept first."""
        self.sent.append((self.index, _bytes(request), timeout_s))
        return self.client.act(request, timeout_s)


def _bytes(request: bot_pb2.ActRequest | bytes) -> bytes:
    return request if isinstance(request, bytes) else request.SerializeToString()


def raw_acts(endpoints: Sequence[str], sent: Sequence[tuple[int, bytes, float]]) -> list[float]:
    """Send the kept requests again in their order, each to the bot it went to (``endpoints[index]``),
    as bare bytes-in, bytes-out Act calls on that bot's channel; return each call's time in seconds."""
    calls = [channel_for(e).unary_unary(_ACT_METHOD, request_serializer=None, response_deserializer=None)
             for e in endpoints]
    times: list[float] = []
    for index, request, timeout in sent:
        t0 = time.perf_counter()
        calls[index](request, timeout=timeout)
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rtt-calls", type=int, default=2000)
    args = parser.parse_args()
    lineup = [("odds", 0), ("random", 1), ("odds", 1), ("random", 2)]
    processes = [start_bot_process(name, seed) for name, seed in lineup]
    try:
        sent: list[tuple[int, bytes, float]] = []
        clients = [Recording(GrpcBotClient(p.endpoint), i, sent) for i, p in enumerate(processes)]
        for c in clients:
            c.describe()  # warm the channels
        rtts = []
        cpu0 = time.process_time()
        for i in range(args.rtt_calls):
            t0 = time.perf_counter()
            clients[i % len(clients)].describe()
            rtts.append(time.perf_counter() - t0)
        rtt_cpu_ms = (time.process_time() - cpu0) / args.rtt_calls * 1000
        gs = spec("slippery-sam")
        params = make_params("slippery-sam")
        play(gs, params, len(clients), -1, clients)  # imports and caches warm, off the clock
        sent.clear()
        decisions, latencies = 0, []
        t0 = time.perf_counter()
        for seed in range(args.games):
            record = play(gs, params, len(clients), seed, clients)
            decisions += len(record.decisions)
            latencies += [d.latency_ms for d in record.decisions]
        dt = time.perf_counter() - t0
        raw = raw_acts([p.endpoint for p in processes], sent)
    finally:
        for p in processes:
            p.stop()
    rtt_ms = statistics.median(rtts) * 1000
    per_decision_ms = dt / decisions * 1000
    raw_ms = statistics.fmean(raw) * 1000
    print(f"raw Describe round trip: median {rtt_ms:.3f} ms ({args.rtt_calls} calls), "
          f"{rtt_cpu_ms:.3f} ms of this process's CPU per call (gRPC's client side)")
    print(f"raw Act (the referee's {len(raw)} requests sent again, bare bytes): mean {raw_ms:.3f} ms, "
          f"median {statistics.median(raw) * 1000:.3f} ms")
    print(f"referee, Slippery Sam, 4 seats: {decisions / dt:.0f} decisions/s, {per_decision_ms:.3f} ms per decision "
          f"(Act latency as measured by the referee: mean {statistics.fmean(latencies):.3f} ms, "
          f"median {statistics.median(latencies):.3f} ms) over {args.games} games")
    own_ms = (dt * 1000 - sum(latencies)) / decisions
    print(f"ratio per decision / raw Act: {per_decision_ms / raw_ms:.2f}; "
          f"per decision / raw Describe round trip: {per_decision_ms / rtt_ms:.2f}")
    print(f"referee's own cost per decision: {per_decision_ms - raw_ms:.3f} ms over the raw Act; "
          f"{own_ms:.3f} ms over its Act calls' measured latency")


if __name__ == "__main__":
    main()
