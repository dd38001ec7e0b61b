"""The reference bots' cost per decision: their own work in-process, and their server process's CPU per Act.

Usage: python -m bench.bench_bots [--games N] [--calls N] [--rounds N] [--pin] [--transports unary,stream]

For each game, ``--games`` games are played in-process with the season
benchmark's lineup (``bench.lineups.LINEUPS``, tables of 3 to 6) and
every Act request each bot gets is kept as wire bytes. Then, per reference
bot (the first seed of each name):

- ``in-process``: microseconds per request of what the bot server does with a
  request besides serving gRPC: parse the request, ``Bot.act`` (the SDK's
  dispatch and the bot's own decision), serialise the answer; the best of
  ``--rounds`` passes over the bot's requests, CPU time of this process;
- ``server CPU``: the bot as a real gRPC server in its own process
  (:func:`referee.botprocess.start_bot_process`), sent ``--calls`` of its kept
  requests one after the other as bare bytes-in, bytes-out Act calls; the CPU
  seconds that process used (``/proc``, :func:`bench.cputime.cpu_seconds`)
  per call, the lowest of ``--rounds`` passes; and the mean wall time per call;
- ``serving``: the server CPU less the in-process work, i.e. gRPC's own cost per call;
- with ``--pin``, the same for a second server of the bot running on one CPU
  (``start_bot_process(cpu=)``), beside the first and taking its passes in
  turn with it, and the ratios pinned / unpinned;
- with ``stream`` in ``--transports`` (the default), the same requests sent to the same server on
  its ``ActStream`` too, one after the other, each waited for (the referee's stream,
  :mod:`referee.stream`), the Act pass and the stream pass alternated in each round: the server's
  CPU per request on the stream, and the ratio stream / Act (of the lowest passes).

CPU time is counted in clock ticks (10 ms), so a pass should take a few
seconds of CPU; other processes on the same cores make the figures noisy,
hence the lowest of several passes.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.cputime import cpu_seconds
from bench.lineups import LINEUPS, TABLE_SIZES
from cardarena.v1 import bot_pb2
from referee.botprocess import start_bot_process
from referee.bots import load_bot
from referee.clients import InProcessBotClient, channel_for
from referee.stream import stream_for
from referee.games import make_params, spec
from referee.referee import play

_ACT_METHOD = "/cardarena.v1.Bot/Act"


def record_requests(game: str, games: int) -> dict[tuple[str, int], list[bytes]]:
    """Play ``games`` games of ``game`` in-process with its season lineup; every Act request's bytes by (bot name, seed)."""
    gs, params = spec(game), make_params(game)
    lineup = LINEUPS[game]
    bots = [load_bot(name, seed) for name, seed in lineup]
    kept: dict[tuple[str, int], list[bytes]] = {key: [] for key in lineup}
    draw = random.Random(game)
    for number in range(games):
        seats = draw.sample(range(len(lineup)), draw.choice(TABLE_SIZES))

        def client(i: int) -> InProcessBotClient:
            sent, bot = kept[lineup[i]], bots[i]

            def handler(request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
                sent.append(request.SerializeToString())
                return bot.act(request)
            return InProcessBotClient(handler)

        play(gs, params, len(seats), number, [client(i) for i in seats], game_id=f"bench-{number}")
    return kept


def in_process_us(name: str, seed: int, requests: Sequence[bytes], rounds: int) -> float:
    """CPU microseconds per request to parse it, answer it with ``Bot.act`` and serialise the answer (best pass)."""
    bot = load_bot(name, seed)
    parse = bot_pb2.ActRequest.FromString
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for raw in requests:
            bot.act(parse(raw)).SerializeToString()
        best = min(best, time.process_time() - t0)
    return 1e6 * best / len(requests)


def own_compute_us(game: str, games: int = 20, rounds: int = 3) -> float:
    """The season lineup's own work per decision of ``game``, CPU microseconds: :func:`in_process_us` of
    each bot over its requests in ``games`` recorded games, weighted by how many requests it got."""
    kept = record_requests(game, games)
    total = sum(len(requests) for requests in kept.values())
    return sum(in_process_us(name, seed, requests, rounds) * len(requests)
               for (name, seed), requests in kept.items() if requests) / max(1, total)


def _senders(endpoint: str, transports: Sequence[str]) -> list[Callable[[bytes], object]]:
    """For each transport, a function sending one request's bytes to ``endpoint`` and waiting for the answer:
    a bare Act call (``unary``), or a request on the referee's ActStream (``stream``)."""
    senders: list[Callable[[bytes], object]] = []
    for transport in transports:
        if transport == "unary":
            act = channel_for(endpoint).unary_unary(_ACT_METHOD, request_serializer=None, response_deserializer=None)
            senders.append(lambda raw, act=act: act(raw, timeout=5.0))
        else:
            stream = stream_for(channel_for(endpoint))
            if stream is None:
                raise RuntimeError(f"{endpoint} does not serve ActStream")
            senders.append(lambda raw, stream=stream: stream.call(raw, 5.0))
    return senders


def server_us(name: str, seed: int, requests: Sequence[bytes], rounds: int,
              cpus: Sequence[int | None] = (None,), transports: Sequence[str] = ("unary",)) -> list[list[tuple[float, float]]]:
    """Per server placement in ``cpus`` (a CPU for :func:`start_bot_process`, None: any), per transport of
    ``transports``: (server process CPU microseconds per request, lowest pass; wall microseconds per
    request, mean) over ``requests`` sent in turn. The servers run side by side and take their passes in
    turn, each server's transports alternated, so they share the machine's load."""
    processes = [start_bot_process(name, seed, cpu=cpu) for cpu in cpus]
    try:
        sends = []
        for process in processes:
            senders = _senders(process.endpoint, transports)
            for send in senders:
                for raw in requests[:200]:
                    send(raw)  # connection, stream and caches warm, off the clock
            sends.append(senders)
        cpu = [[[] for _ in transports] for _ in processes]  # type: list[list[list[float]]]
        wall = [[[] for _ in transports] for _ in processes]  # type: list[list[list[float]]]
        for _ in range(rounds):
            for i, (process, senders) in enumerate(zip(processes, sends, strict=True)):
                assert process.process.pid is not None
                for k, send in enumerate(senders):
                    c0, t0 = cpu_seconds(process.process.pid), time.perf_counter()
                    for raw in requests:
                        send(raw)
                    wall[i][k].append(time.perf_counter() - t0)
                    cpu[i][k].append(cpu_seconds(process.process.pid) - c0)
    finally:
        for process in processes:
            process.stop()
    return [[(1e6 * min(c) / len(requests), 1e6 * sum(w) / rounds / len(requests)) for c, w in zip(cs, ws, strict=True)]
            for cs, ws in zip(cpu, wall, strict=True)]


@dataclass
class BotFigures:
    """One reference bot's figures, microseconds per decision."""

    game: str
    name: str
    requests: int
    in_process_us: float
    server_cpu_us: float
    wall_us: float
    pinned: tuple[float, float] | None = None  # (server CPU, wall) of the server on one CPU
    stream: tuple[float, float] | None = None  # (server CPU, wall) per request on the bot's ActStream

    def line(self) -> str:
        serving = self.server_cpu_us - self.in_process_us
        out = (f"{self.game:13s} {self.name:8s} {self.requests:6d} requests  in-process {self.in_process_us:6.1f} us  "
               f"server CPU {self.server_cpu_us:6.1f} us  serving {serving:6.1f} us  wall {self.wall_us:6.1f} us per call")
        if self.stream is not None:
            cpu, wall = self.stream
            out += (f"\n{'':13s} {'':8s} on ActStream: server CPU {cpu:6.1f} us ({cpu / self.server_cpu_us:.2f}x Act), "
                    f"serving {cpu - self.in_process_us:6.1f} us, wall {wall:6.1f} us ({wall / self.wall_us:.2f}x) per request")
        if self.pinned is not None:
            cpu, wall = self.pinned
            out += (f"\n{'':13s} {'':8s} on one CPU: server CPU {cpu:6.1f} us ({cpu / self.server_cpu_us:.2f}x), "
                    f"wall {wall:6.1f} us ({wall / self.wall_us:.2f}x) per call")
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games recorded per game (rummy: a tenth)")
    parser.add_argument("--calls", type=int, default=5000, help="Act calls per server pass")
    parser.add_argument("--rounds", type=int, default=3, help="passes; the lowest CPU counts")
    parser.add_argument("--pin", action="store_true",
                        help="also serve each bot on one CPU (start_bot_process(cpu=)), side by side with the unpinned one")
    parser.add_argument("--transports", default="unary,stream",
                        help="unary (the Act calls, always) and stream (the same requests on ActStream), comma-separated")
    args = parser.parse_args()
    transports = ["unary"] + [t for t in args.transports.split(",") if t and t != "unary"]
    if set(transports) - {"unary", "stream"}:
        parser.error("--transports takes unary and stream")
    cpus: tuple[int | None, ...] = (None, max(os.sched_getaffinity(0))) if args.pin else (None,)
    for game in LINEUPS:
        kept = record_requests(game, max(1, args.games // 10) if game == "rummy" else args.games)
        for name in dict.fromkeys(name for name, _ in LINEUPS[game]):
            key = next(k for k in kept if k[0] == name)
            requests = kept[key]
            calls = (requests * (args.calls // max(1, len(requests)) + 1))[: args.calls]
            figures = server_us(name, key[1], calls, args.rounds, cpus, transports)
            (cpu, wall), pinned = figures[0][0], (figures[1][0] if args.pin else None)
            stream = figures[0][1] if len(transports) > 1 else None
            print(BotFigures(game, name, len(requests), in_process_us(name, key[1], requests, args.rounds), cpu, wall,
                             pinned, stream).line(), flush=True)


if __name__ == "__main__":
    main()
