"""The referee's own work per decision, without RPC: its loop beside the engine and codec it drives.

Usage: python -m bench.bench_referee_own [--games N] [--rounds N] [--mode both|referee|engine|none]
       python -m bench.bench_referee_own --callgrind [--games N]

Slippery Sam games of 4 seats (the lineup of ``bench_referee``: odds, random, odds, random) are
first played once with the reference bots in this process, keeping every answer's wire bytes in
the order the bots were called. Then the same games are played again two ways, both answering
from those bytes (the games are a pure function of seed and answers, so they are the same games):

- ``referee``: :func:`referee.referee.play` with clients that hand back the kept bytes (no bot
  runs, no RPC): everything the referee does per decision, engine and codec included;
- ``engine``: the same games through the same :class:`~referee.driver.Driver` and chance streams
  with only the engine and codec work the referee cannot avoid: each asked seat's view built
  (``Rules.view``) and encoded to wire bytes (the game's ``ViewEncoder``), the answer's action
  checked (``Rules.check``) and applied; the actions are decoded before, off the clock.

- ``enveloped``: the ``referee`` pass with each request and answer also going through the stream's
  envelopes as on ``ActStream`` (``referee.stream.request_envelope``, the reply written as the SDK
  writes it, ``referee.stream.read_reply``): what the stream transport adds to the referee's own
  work in this process, besides gRPC (``bench.bench_referee`` measures the transports whole).

The referee's own cost per decision is the difference: time keeping, the record, request building,
reading the answer, the live view (a :class:`~referee.live.LiveView` is attached, as workers do),
the cancellation hook (a constant one) and the per-game setup and record. What the referee keeps
across the games of a process (the answers' readings, the actions' record bytes) is warm from the
first play, as in a worker that has played a few games.

By default both passes run ``--rounds`` times alternately (referee, engine, referee, ...) and the
process CPU time per decision (``time.process_time``) of each is reported as the median of the
rounds with min-max, and the median of the per-round differences. ``--mode`` runs one pass once
(``none``: the set-up only), for an instruction counter. ``--callgrind`` runs ``none``, ``engine``
and ``referee`` each in a process of its own under ``valgrind --tool=callgrind`` (hash seed fixed)
and reports instructions per decision: (pass - set-up) / decisions, deterministic to a fraction of
a percent, so a change of a few hundred instructions per decision shows.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from cardarena.v1 import bot_pb2
from referee.bots import load_bot
from referee.chance import PER_DEAL, Chance
from referee.clients import InProcessBotClient, parse_answer
from referee.driver import Driver
from referee.games import GameSpec, make_params, spec
from referee.live import LiveView
from referee.referee import play
from referee.stream import read_reply, request_envelope
from referee.wire import frame, varint

GAME = "slippery-sam"
LINEUP = (("odds", 0), ("random", 1), ("odds", 1), ("random", 2))


@dataclass
class Answers:
    """The wire bytes of one game's answers in the order the seats were called (shared by the seats)."""

    data: list[bytes] = field(default_factory=list)
    next: int = 0


class _FromBytes:
    """``call`` and ``act`` of a client over its ``call_bytes`` (the referee's blocking path)."""

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        raise NotImplementedError

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        return parse_answer(self.call_bytes(request, timeout_s))

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        out: Future[bot_pb2.ActResponse] = Future()
        out.set_result(self.call(request, timeout_s))
        return out


@dataclass
class Keeping(_FromBytes):
    """A bot client answering as ``client`` does, each answer's bytes kept in ``answers``."""

    client: InProcessBotClient
    answers: Answers

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        data = self.client.call_bytes(request, timeout_s)
        self.answers.data.append(data)
        return data



@dataclass
class Replaying(_FromBytes):
    """A bot client handing back kept answer bytes in order, whatever it is asked (no bot runs)."""

    answers: Answers

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        answers = self.answers
        data = answers.data[answers.next]
        answers.next += 1
        return data



@dataclass
class Enveloped(_FromBytes):
    """:class:`Replaying`, each request wrapped in an ActStreamRequest and each answer in an ActStreamResponse
    and read back (the stream's codec on both ends, no gRPC)."""

    answers: Answers
    next_id: int = 0

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        self.next_id += 1
        sent = request_envelope(self.next_id, request if isinstance(request, bytes) else request.SerializeToString())
        answers = self.answers
        data = answers.data[answers.next]
        answers.next += 1
        got_id, answer, _ = read_reply(stream_reply(self.next_id, data))
        assert got_id == self.next_id and sent
        return answer


def stream_reply(request_id: int, answer: bytes) -> bytes:
    """An ActStreamResponse's wire bytes as the SDK writes them (``botsdk.stream.reply``), from the answer's bytes."""
    return b"\x08" + varint(request_id) + frame(2, answer)


@dataclass
class Game:
    """One kept game: its seed, its answers' bytes and the engine actions they decode to, in call order."""

    seed: int
    answers: Answers
    actions: list[Any]
    decisions: int


def keep_games(gs: GameSpec, params: Any, games: int) -> list[Game]:
    """Play ``games`` games (seeds 0..games-1) with the reference bots in-process, answers kept."""
    field_name = gs.proto_field
    out = []
    for seed in range(games):
        answers = Answers()
        clients = [Keeping(InProcessBotClient(load_bot(name, s).act), answers) for name, s in LINEUP]
        record = play(gs, params, len(clients), seed, clients)
        if record.faults or len(answers.data) != len(record.decisions):
            raise RuntimeError(f"game {seed}: the reference bots faulted; the benchmark needs clean games")
        actions = [gs.decode_action(getattr(parse_answer(d), field_name)) for d in answers.data]
        out.append(Game(seed, answers, actions, len(record.decisions)))
    return out


def referee_pass(gs: GameSpec, params: Any, games: Sequence[Game], enveloped: bool = False) -> int:
    """Play the kept games through the referee, answered from their bytes (through the stream's envelopes with
    ``enveloped``); return the decisions."""
    decisions = 0
    for g in games:
        g.answers.next = 0
        clients = [Enveloped(g.answers) if enveloped else Replaying(g.answers) for _ in LINEUP]
        record = play(gs, params, len(clients), g.seed, clients, game_id=f"g{g.seed}", live=LiveView(),
                      cancelled=lambda: False)
        decisions += len(record.decisions)
    return decisions


def engine_pass(gs: GameSpec, params: Any, games: Sequence[Game]) -> int:
    """Play the kept games with the engine and codec alone (views built and encoded, actions
    checked and applied, the referee's chance streams); return the decisions."""
    decisions = 0
    for g in games:
        rules = gs.make_rules(params, len(LINEUP))
        views = gs.view_codec.encoder()
        actions = iter(g.actions)
        view, encode, check = rules.view, views.encode, rules.check

        def decide(state: Any, seats: tuple[int, ...]) -> dict[int, Any]:
            out = {}
            for seat in seats:
                encode(view(state, seat))
                action = next(actions)
                check(state, seat, action)
                out[seat] = action
            return out

        state = rules.new_state()
        if not Driver(rules, Chance(g.seed, PER_DEAL).answer, decide).run(state, 5_000_000):
            raise RuntimeError(f"game {g.seed} did not end")
        decisions += g.decisions
    return decisions


def _cpu_per_decision_us(run: Any, *args: Any) -> float:
    c0 = time.process_time()
    decisions = run(*args)
    return (time.process_time() - c0) / decisions * 1e6


def _median_range(values: Sequence[float]) -> str:
    return f"median {statistics.median(values):.1f} µs (min {min(values):.1f}, max {max(values):.1f})"


def alternate(gs: GameSpec, params: Any, games: Sequence[Game], rounds: int) -> None:
    """Both passes ``rounds`` times alternately; CPU µs per decision, medians with min-max."""
    referee_pass(gs, params, games[:2])  # warm, off the clock
    engine_pass(gs, params, games[:2])
    ref, eng, env = [], [], []
    for _ in range(rounds):
        ref.append(_cpu_per_decision_us(referee_pass, gs, params, games))
        eng.append(_cpu_per_decision_us(engine_pass, gs, params, games))
        env.append(_cpu_per_decision_us(referee_pass, gs, params, games, True))
    own = [r - e for r, e in zip(ref, eng)]
    decisions = sum(g.decisions for g in games)
    print(f"{len(games)} Slippery Sam games, 4 seats, {decisions} decisions; {rounds} rounds, CPU time per decision")
    print(f"referee (answers from kept bytes, no RPC): {_median_range(ref)}")
    print(f"engine and codec alone:                    {_median_range(eng)}")
    print(f"referee's own cost per decision:           {_median_range(own)}")
    print(f"referee, with the stream's envelopes:      {_median_range(env)}; the envelopes add "
          f"{_median_range([e - r for e, r in zip(env, ref)])}")


def _callgrind_ir(games: int, modes: Sequence[str]) -> dict[str, int]:
    """Instructions of ``--mode m`` for each ``m`` of ``modes``, each in a process of its own under
    callgrind (the processes run together)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory() as tmp:
        runs = {m: subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/{m}.out",
                                     sys.executable, "-m", "bench.bench_referee_own", "--games", str(games),
                                     "--mode", m], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True) for m in modes}
        errors = {m: run.communicate()[1] for m, run in runs.items()}
    out = {}
    for m, stderr in errors.items():
        found = re.search(r"Collected\s*:\s*(\d+)", stderr)
        if runs[m].returncode != 0 or found is None:
            raise RuntimeError(f"--mode {m} under callgrind: {stderr[-500:]}")
        out[m] = int(found.group(1))
    return out


def callgrind(games: int) -> None:
    """Instructions per decision of each pass: (pass - set-up only) / decisions."""
    gs, params = spec(GAME), make_params(GAME)
    decisions = sum(g.decisions for g in keep_games(gs, params, games))
    counts = _callgrind_ir(games, ("none", "engine", "referee"))
    ir = {mode: (counts[mode] - counts["none"]) / decisions for mode in ("engine", "referee")}
    print(f"{games} Slippery Sam games, 4 seats, {decisions} decisions; instructions per decision")
    print(f"referee (answers from kept bytes, no RPC): {ir['referee']:.0f}")
    print(f"engine and codec alone:                    {ir['engine']:.0f}")
    print(f"referee's own work per decision:           {ir['referee'] - ir['engine']:.0f} "
          f"({(ir['referee'] - ir['engine']) / ir['referee']:.0%} of the referee's)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mode", choices=("both", "referee", "engine", "none"), default="both")
    parser.add_argument("--callgrind", action="store_true", help="instructions per decision under callgrind")
    args = parser.parse_args()
    if args.callgrind:
        callgrind(args.games)
        return
    gs, params = spec(GAME), make_params(GAME)
    games = keep_games(gs, params, args.games)
    if args.mode == "both":
        alternate(gs, params, games, args.rounds)
    elif args.mode == "referee":
        print(referee_pass(gs, params, games), "decisions")
    elif args.mode == "engine":
        print(engine_pass(gs, params, games), "decisions")


if __name__ == "__main__":
    main()
