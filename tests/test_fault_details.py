"""Fault details say whose the fault is and why: an illegal answer always cites its rule, a bot's own
error status reads as the bot's (docs/protocol.md, *Faults*; rules §4.7)."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from google.protobuf.message import Message

from botsdk.bot import Context
from cardarena.v1 import bot_pb2
from referee.bots import load_bot
from referee.clients import GrpcBotClient, InProcessBotClient
from referee.engine import IllegalAction
from referee.games import MalformedAction, games, make_params, spec
from referee.games.conformance import conformance
from referee.record import FaultKind
from referee.referee import play
from referee.replay import rerun
from tests.a_game import GAME, SPEC, GameBot, view_class


def _views(game: str, seeds: range, check: Callable[[Any, Any, int, Message], None]) -> None:
    """``check(rules, state, seat, view message)`` at every decision of real games of ``random`` bots, one
    per seed of ``seeds`` (the demo's first table size, default parameters)."""
    gs = spec(game)
    seats = gs.demo.tables[0]
    for seed in seeds:
        bots = [load_bot("random", seed * 10 + s) for s in range(seats)]
        record = play(gs, make_params(game), seats, seed, [InProcessBotClient(b.act) for b in bots])

        def at(rules: Any, state: Any, logged: Any) -> None:
            check(rules, state, logged.seat, view_class(game).FromString(base64.b64decode(logged.view)))

        for _ in rerun(record, at):
            pass


@pytest.mark.parametrize("game", games())
def test_every_illegal_answer_cites_its_rule(game: str) -> None:
    """Random well-formed answers at every decision of real games (the game's Conformance.refusal_probe):
    each one the rules refuse says why with a rules § reference (the detail an illegal fault records)."""
    gs, probe, rng = spec(game), conformance(game).refusal_probe, random.Random(27)
    assert probe is not None, f"{game} declares no refusal_probe"
    refused: dict[str, str] = {}

    def try_answers(rules: Any, state: Any, seat: int, view: Message) -> None:
        for message in probe.answers(view, rng):
            try:
                rules.check(state, seat, gs.decode_action(message))
            except MalformedAction:
                continue
            except IllegalAction as exc:
                refused.setdefault(str(exc).split(":")[0][:40], str(exc))

    _views(game, range(probe.games), try_answers)
    assert len(refused) >= probe.kinds, refused
    if probe.kinds == 0:  # a game that declares every well-formed answer legal: the probe confirms it
        assert refused == {}, refused
    uncited = sorted(m for m in refused.values() if "rules §" not in m)
    assert uncited == [], uncited


@pytest.mark.parametrize("game", games())
def test_the_declared_illegal_answer_is_well_formed_and_refused_with_its_rule(game: str) -> None:
    """Conformance.illegal_answer, which fixture bots play to fault on purpose: at every decision of real
    games it decodes (well-formed) and the rules refuse it citing a rules §, or it is None; it is not None
    at some decisions. A game whose every well-formed answer is legal declares none (and a probe expecting
    no refusal)."""
    gs, declared = spec(game), conformance(game).illegal_answer
    if declared is None:  # none exists: the game's refusal probe must expect none (and finds none, test above)
        probe = conformance(game).refusal_probe
        assert probe is not None and probe.kinds == 0, f"{game} declares no illegal_answer but expects refusals"
        return
    refusals: list[str] = []

    def check(rules: Any, state: Any, seat: int, view: Message) -> None:
        answer = declared(view)
        if answer is None:
            return
        with pytest.raises(IllegalAction) as refused:
            rules.check(state, seat, gs.decode_action(answer))
        refusals.append(str(refused.value))

    _views(game, range(2), check)
    assert refusals and all("rules §" in r for r in refusals), refusals[:3]


class _Raises(GameBot):
    name = "raises"

    def answer(self, view: Message, ctx: Context) -> Message:
        raise ValueError("my own bug")


def test_a_bots_own_error_status_reads_as_the_bots(bot_server: Any, transport: str) -> None:
    """The same detail on each transport: an Act call's error status, or the error the bot's stream sent for
    the one request."""
    endpoint = bot_server(_Raises())
    clients = [GrpcBotClient(endpoint, transport)] + [InProcessBotClient(load_bot("random", s).act) for s in range(2)]
    record = play(SPEC, make_params(GAME), 3, 1, clients)
    assert clients[0].used == transport
    errors = [f for f in record.faults if f.kind == FaultKind.ERROR]
    assert errors, record.faults
    assert errors[0].detail == "the bot returned an error of its own, status INVALID_ARGUMENT: my own bug", errors[0].detail
    assert grpc.StatusCode.INVALID_ARGUMENT.name in errors[0].detail
    assert bot_pb2 is not None
