"""The referee through gRPC: decisions per second against the reference bots, beside the raw
RPC it wraps (the same Act requests sent raw) and the raw round trip of an empty Describe.

Usage: python -m bench.bench_referee [--games N] [--rounds N] [--rtt-calls N]

Bots run as real gRPC servers in their own processes on 127.0.0.1. Each round, the
referee plays ``--games`` Slippery Sam games of 4 seats; every Act request it
sends (the exact bytes, and the seat) is kept as it goes (a list append per
call). Then that round's requests are sent again, in the same order, to the same bots
over the same channels with no referee around them: a bare ``Act`` call of
bytes in and bytes out (``raw Act``).

The rounds alternate (referee pass, raw pass, referee pass, ...: ``--rounds`` of each), and
each ratio is taken within its round, so a drift of the shared machine's speed (other
processes' load comes and goes over seconds) moves both passes of a round alike instead of
landing on one pass only; the figures are the median of the rounds, with their min-max.
Shorter rounds follow faster drift (``--games 4 --rounds 50``: the same 200 games).
Reported, per decision (milliseconds):

- the referee's time per decision (wall time of a round's games / its decisions);
- ``raw Act``: the mean time of a round's bare calls (the same bots answering the same views);
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


@dataclass
class Round:
    """One round's figures: decisions, the referee's wall time (seconds), the Act latencies it
    measured (ms) and the raw Act calls' times (seconds)."""

    decisions: int
    referee_s: float
    latencies_ms: list[float]
    raw_s: list[float]

    @property
    def per_decision_ms(self) -> float:
        return self.referee_s / self.decisions * 1000

    @property
    def raw_ms(self) -> float:
        return statistics.fmean(self.raw_s) * 1000

    @property
    def own_ms(self) -> float:
        """Wall time less the Act calls' measured latency, per decision."""
        return (self.referee_s * 1000 - sum(self.latencies_ms)) / self.decisions


def play_round(clients: Sequence[Recording], sent: list[tuple[int, bytes, float]], endpoints: Sequence[str],
               games: int) -> Round:
    """``games`` games through the referee (seeds 0..games-1), then their requests sent raw."""
    gs, params = spec("slippery-sam"), make_params("slippery-sam")
    sent.clear()
    decisions, latencies = 0, []
    t0 = time.perf_counter()
    for seed in range(games):
        record = play(gs, params, len(clients), seed, clients)
        decisions += len(record.decisions)
        latencies += [d.latency_ms for d in record.decisions]
    dt = time.perf_counter() - t0
    return Round(decisions, dt, latencies, raw_acts(endpoints, sent))


def _spread(values: Sequence[float], digits: int = 3) -> str:
    """``median M (min-max)`` of ``values``."""
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per round")
    parser.add_argument("--rounds", type=int, default=5, help="referee and raw passes, alternated")
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
        endpoints = [p.endpoint for p in processes]
        play_round(clients, sent, endpoints, 1)  # imports and caches warm, off the clock
        rounds = [play_round(clients, sent, endpoints, args.games) for _ in range(args.rounds)]
    finally:
        for p in processes:
            p.stop()
    rtt_ms = statistics.median(rtts) * 1000
    per_decision = [r.per_decision_ms for r in rounds]
    raw_calls = sum(len(r.raw_s) for r in rounds)
    latencies = [x for r in rounds for x in r.latencies_ms]
    all_raw = [x for r in rounds for x in r.raw_s]
    print(f"raw Describe round trip: median {rtt_ms:.3f} ms ({args.rtt_calls} calls), "
          f"{rtt_cpu_ms:.3f} ms of this process's CPU per call (gRPC's client side)")
    print(f"{args.rounds} rounds of {args.games} games, referee and raw passes alternated; "
          "median of the rounds (min-max)")
    print(f"raw Act (the referee's {raw_calls} requests sent again, bare bytes): "
          f"mean {_spread([r.raw_ms for r in rounds])} ms, median of all {statistics.median(all_raw) * 1000:.3f} ms")
    print(f"referee, Slippery Sam, 4 seats: {statistics.median([1000 / x for x in per_decision]):.0f} decisions/s, "
          f"{_spread(per_decision)} ms per decision "
          f"(Act latency as measured by the referee: mean {statistics.fmean(latencies):.3f} ms, "
          f"median {statistics.median(latencies):.3f} ms)")
    print(f"ratio per decision / raw Act: {_spread([r.per_decision_ms / r.raw_ms for r in rounds], 2)}; "
          f"per decision / raw Describe round trip: {_spread([x / rtt_ms for x in per_decision], 2)}")
    print(f"referee's own cost per decision: {_spread([r.per_decision_ms - r.raw_ms for r in rounds])} ms "
          f"over the raw Act; {_spread([r.own_ms for r in rounds])} ms over its Act calls' measured latency")


if __name__ == "__main__":
    main()
