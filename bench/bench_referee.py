"""The referee through gRPC: decisions per second against the reference bots, beside the raw
RPC it wraps (the same Act requests sent raw) and the raw round trip of an empty Describe.

Usage: python -m bench.bench_referee [--games N] [--rounds N] [--rtt-calls N] [--transports unary,stream]

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
  its wall time less the Act calls' latency as the referee measured them;
- a third pass, ``raw Act + engine``: the same requests sent raw again, each right after the
  engine and codec work the referee cannot avoid for that decision (the view built and encoded,
  the action checked and applied, the chance streams: ``bench.bench_referee_own``'s engine
  pass), so its time per decision is what a referee with no cost of its own would take here,
  and its ratio to the raw Act the floor under the referee's; and the referee's time over it;
- where each pass's time goes, per decision: this process's CPU, the bot servers' CPU and the
  whole machine's busy CPU (Linux ``/proc``), so that a referee pass's extra over the raw pass
  shows as the referee's own CPU, as the bots', or as time nobody ran (wake-ups);
- the transports: the referee pass above calls the bots with one ``Act`` per decision (``unary``);
  with ``stream`` in ``--transports`` (the default) each round also plays its games with the
  bots called on their ``ActStream`` (one stream per bot, the platform's default), right after the
  unary pass, and reports that pass's time and CPU per decision beside the unary one's, and the
  ratios stream / unary of the round: the platform's CPU per decision (this process: the referee
  and its client), the bots' CPU per decision, and the time per decision.
"""

from __future__ import annotations

import argparse
import binascii
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from cardarena.v1 import bot_pb2
from bench.cputime import cpu_seconds, machine_cpu_seconds
from referee.botprocess import start_bot_process
from referee.chance import PER_DEAL, Chance
from referee.clients import TRANSPORTS, BotClient, GrpcBotClient, channel_for
from referee.driver import Driver
from referee.games import GameSpec, make_params, spec
from referee.record import GameRecord
from referee.referee import MAX_STEPS, play

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


def _actions(gs: GameSpec, record: GameRecord) -> list[Any]:
    """The engine actions a game's record says were applied, in decision order."""
    message = type(getattr(bot_pb2.ActResponse(), gs.proto_field))
    return [gs.decode_action(message.FromString(binascii.a2b_base64(d.action))) for d in record.decisions]


def raw_acts_with_engine(gs: GameSpec, params: Any, endpoints: Sequence[str], sent: Sequence[tuple[int, bytes, float]],
                         games: Sequence[tuple[int, list[Any]]]) -> float:
    """Replay ``games`` (seed, actions) with the engine and codec alone, each decision's kept request
    sent raw (as :func:`raw_acts`) after its view is built and encoded; return the wall seconds."""
    calls = [channel_for(e).unary_unary(_ACT_METHOD, request_serializer=None, response_deserializer=None)
             for e in endpoints]
    requests = iter(sent)
    t0 = time.perf_counter()
    for seed, actions in games:
        rules = gs.make_rules(params, len(endpoints))
        view, encode, check = rules.view, gs.view_codec.encoder().encode, rules.check
        taken = iter(actions)

        def decide(state: Any, seats: tuple[int, ...]) -> dict[int, Any]:
            out = {}
            for seat in seats:
                encode(view(state, seat))
                index, request, timeout = next(requests)
                calls[index](request, timeout=timeout)
                action = next(taken)
                check(state, seat, action)
                out[seat] = action
            return out

        if not Driver(rules, Chance(seed, PER_DEAL).answer, decide).run(rules.new_state(), MAX_STEPS):
            raise RuntimeError(f"game {seed} did not end")
    return time.perf_counter() - t0


@dataclass(frozen=True)
class Cpu:
    """CPU seconds used over one pass: by this process, by the bot servers, by the whole machine."""

    own_s: float
    bots_s: float
    machine_s: float


class CpuMeter:
    """Reads the CPU seconds of this process, of the bot processes ``bot_pids`` and of the machine."""

    def __init__(self, bot_pids: Sequence[int]) -> None:
        self.bot_pids = list(bot_pids)

    def read(self) -> Cpu:
        return Cpu(time.process_time(), sum(cpu_seconds(p) for p in self.bot_pids), machine_cpu_seconds())

    @staticmethod
    def used(before: Cpu, after: Cpu) -> Cpu:
        return Cpu(after.own_s - before.own_s, after.bots_s - before.bots_s, after.machine_s - before.machine_s)


@dataclass(frozen=True)
class Pass:
    """One referee pass: its decisions, wall seconds and CPU."""

    decisions: int
    seconds: float
    cpu: Cpu

    def per_decision_ms(self, pick: str) -> float:
        """Milliseconds per decision of the pass's wall time (``pick`` "wall") or of a CPU field of :class:`Cpu`."""
        value = self.seconds if pick == "wall" else getattr(self.cpu, pick)
        return value / self.decisions * 1000


@dataclass
class Round:
    """One round's figures: decisions, the referee's wall time (seconds), the Act latencies it
    measured (ms), the raw Act calls' times (seconds), the CPU each pass used, and the referee pass
    of the same games on each other transport (``passes``, by transport)."""

    decisions: int
    referee_s: float
    latencies_ms: list[float]
    raw_s: list[float]
    referee_cpu: Cpu
    raw_cpu: Cpu
    engine_raw_s: float
    passes: dict[str, Pass]

    @property
    def per_decision_ms(self) -> float:
        return self.referee_s / self.decisions * 1000

    @property
    def raw_ms(self) -> float:
        return statistics.fmean(self.raw_s) * 1000

    @property
    def engine_raw_ms(self) -> float:
        """Per decision: raw Act calls, each after the engine's work for its decision."""
        return self.engine_raw_s / self.decisions * 1000

    @property
    def own_ms(self) -> float:
        """Wall time less the Act calls' measured latency, per decision."""
        return (self.referee_s * 1000 - sum(self.latencies_ms)) / self.decisions


def referee_pass(clients: Sequence[BotClient], games: int, meter: CpuMeter) -> tuple[Pass, list[GameRecord]]:
    """``games`` Slippery Sam games through the referee (seeds 0..games-1) with ``clients``: the pass and the records."""
    gs, params = spec("slippery-sam"), make_params("slippery-sam")
    played = []
    c0 = meter.read()
    t0 = time.perf_counter()
    for seed in range(games):
        played.append(play(gs, params, len(clients), seed, clients))
    dt = time.perf_counter() - t0
    return Pass(sum(len(r.decisions) for r in played), dt, meter.used(c0, meter.read())), played


def play_round(clients: Sequence[Recording], sent: list[tuple[int, bytes, float]], endpoints: Sequence[str],
               games: int, meter: CpuMeter, others: dict[str, Sequence[BotClient]] | None = None) -> Round:
    """``games`` games through the referee (seeds 0..games-1), then their requests sent raw, then the same
    games with each of ``others`` (clients by transport)."""
    gs, params = spec("slippery-sam"), make_params("slippery-sam")
    sent.clear()
    unary, played = referee_pass(clients, games, meter)
    latencies = [d.latency_ms for r in played for d in r.decisions]
    c1 = meter.read()
    raw = raw_acts(endpoints, sent)
    c2 = meter.read()
    engine_raw = raw_acts_with_engine(gs, params, endpoints, sent, [(r.seed, _actions(gs, r)) for r in played])
    passes = {transport: referee_pass(pass_clients, games, meter)[0] for transport, pass_clients in (others or {}).items()}
    return Round(unary.decisions, unary.seconds, latencies, raw, unary.cpu, meter.used(c1, c2), engine_raw, passes)


def print_transports(rounds: Sequence[Round]) -> None:
    """Each other transport's pass beside the unary referee pass, per decision, and their ratios per round."""
    for transport in rounds[0].passes:
        unary = [Pass(r.decisions, r.referee_s, r.referee_cpu) for r in rounds]
        other = [r.passes[transport] for r in rounds]
        print(f"transport {transport} against unary, the same games in each round, right after it; per decision:")
        for label, pick in (("time", "wall"), ("this process's CPU (the referee and its client)", "own_s"),
                            ("bot servers' CPU", "bots_s"), ("whole machine's CPU", "machine_s")):
            a = [p.per_decision_ms(pick) for p in unary]
            b = [p.per_decision_ms(pick) for p in other]
            print(f"  {label}: unary {_spread(a)} ms, {transport} {_spread(b)} ms, "
                  f"ratio {transport} / unary {_spread([y / x for x, y in zip(a, b)], 2)}")


def _spread(values: Sequence[float], digits: int = 3) -> str:
    """``median M (min-max)`` of ``values``."""
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per round")
    parser.add_argument("--rounds", type=int, default=5, help="referee and raw passes, alternated")
    parser.add_argument("--rtt-calls", type=int, default=2000)
    parser.add_argument("--transports", default="unary,stream",
                        help="the referee's transports, comma-separated: unary (always, the baseline) and stream")
    args = parser.parse_args()
    others = [t for t in args.transports.split(",") if t and t != "unary"]
    unknown = set(others) - set(TRANSPORTS)
    if unknown:
        parser.error(f"unknown transport(s) {', '.join(sorted(unknown))}: use {', '.join(TRANSPORTS)}")
    lineup = [("odds", 0), ("random", 1), ("odds", 1), ("random", 2)]
    processes = [start_bot_process(name, seed) for name, seed in lineup]
    try:
        sent: list[tuple[int, bytes, float]] = []
        clients = [Recording(GrpcBotClient(p.endpoint, "unary"), i, sent) for i, p in enumerate(processes)]
        other_clients = {t: [GrpcBotClient(p.endpoint, t) for p in processes] for t in others}
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
        meter = CpuMeter([p.process.pid for p in processes if p.process.pid is not None])
        play_round(clients, sent, endpoints, 1, meter, other_clients)  # imports, caches, streams warm, off the clock
        rounds = [play_round(clients, sent, endpoints, args.games, meter, other_clients) for _ in range(args.rounds)]
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
    print(f"raw Act + engine (each call after its decision's engine and codec work): "
          f"{_spread([r.engine_raw_ms for r in rounds])} ms per decision, "
          f"{_spread([r.engine_raw_ms / r.raw_ms for r in rounds], 2)} x the raw Act (the floor of the ratio below)")
    print(f"ratio per decision / raw Act + engine: {_spread([r.per_decision_ms / r.engine_raw_ms for r in rounds], 2)}")
    print(f"ratio per decision / raw Act: {_spread([r.per_decision_ms / r.raw_ms for r in rounds], 2)}; "
          f"per decision / raw Describe round trip: {_spread([x / rtt_ms for x in per_decision], 2)}")
    print(f"referee's own cost per decision: {_spread([r.per_decision_ms - r.raw_ms for r in rounds])} ms "
          f"over the raw Act; {_spread([r.own_ms for r in rounds])} ms over its Act calls' measured latency")
    for label, pick in (("this process", lambda c: c.own_s), ("bot servers", lambda c: c.bots_s),
                        ("whole machine", lambda c: c.machine_s)):
        ref = [pick(r.referee_cpu) / r.decisions * 1000 for r in rounds]
        raw = [pick(r.raw_cpu) / r.decisions * 1000 for r in rounds]
        print(f"CPU per decision, {label:13s}: referee pass {_spread(ref)} ms, raw pass {_spread(raw)} ms, "
              f"difference {_spread([a - b for a, b in zip(ref, raw)])} ms")
    if others:
        print_transports(rounds)


if __name__ == "__main__":
    main()
