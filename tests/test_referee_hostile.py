"""Hostile answers on the wire: what the referee records and charges (rules §4.1-4.2), on each transport.

These bots speak raw gRPC so they can send what no SDK would: bytes that are
not an answer, answers padded with unknown fields, oversized answers, and
error statuses of their own choosing (``tests/raw_bots.py``), as Act answers and
on their ActStream alike: every test runs on both transports and finds the same.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterator

import grpc
import pytest

import random

from google.protobuf.descriptor import FieldDescriptor

from referee.bots import load_bot
from cardarena.v1 import bot_pb2
from referee.clients import MAX_KEPT_ANSWER_BYTES, GrpcBotClient
from referee.games import games, make_params, spec
from referee.record import FaultKind
from referee.referee import play
from referee.replay import verify
from referee.timecontrol import TimeControl
from tests.a_game import GAME, SHORT, SPEC, STRONG, action_class
from tests.raw_bots import Answer, RawBot, serve_raw


def legal(request: bot_pb2.ActRequest) -> bytes:
    """A legal answer of GAME to ``request``, drawn at random from a generator seeded by its decision."""
    view = getattr(request, SPEC.proto_field)
    action = SPEC.random_action(view, random.Random(request.decision))
    return bot_pb2.ActResponse(**{SPEC.proto_field: action}).SerializeToString()


def padded_string_answer(size: int) -> bytes:
    """An ActResponse whose one string field (of the first game's action with a string field at its top level)
    holds ``size`` bytes: a known field, padded; fails the test when no game's action has a string field."""
    for game in games():
        for field in action_class(game).DESCRIPTOR.fields:
            if field.type == FieldDescriptor.TYPE_STRING and not field.is_repeated:
                action = action_class(game)(**{field.name: "x" * size})
                return bot_pb2.ActResponse(**{spec(game).proto_field: action}).SerializeToString()
    raise AssertionError("no game's action has a string field to pad")


def unknown_field(size: int) -> bytes:
    """Field number 99, length-delimited, of ``size`` bytes: unknown to every ActResponse reader."""
    length, varint = size, b""
    while True:
        byte = length & 0x7F
        length >>= 7
        varint += bytes([byte | (0x80 if length else 0)])
        if not length:
            break
    return b"\x9a\x06" + varint + b"x" * size


@pytest.fixture
def raw_bot(transport: str) -> Iterator[Callable[[Answer], tuple[RawBot, str]]]:
    """Start a raw bot serving Act and ActStream: ``(bot, transport)``, the transport the test runs on."""
    bots: list[RawBot] = []

    def start(answer: Answer) -> tuple[RawBot, str]:
        bots.append(serve_raw(answer, threads=4))
        return bots[-1], transport

    yield start
    for bot in bots:
        bot.server.stop(0)


def game(raw: tuple[RawBot, str], bot_server, tc: TimeControl = TimeControl()):
    """A short game of the raw bot (seat 0, on the test's transport) against two reference bots; verified.
    On the stream every request goes to the bot's ActStream (the ones whose stream broke go to Act too)."""
    bot, transport = raw
    others = [bot_server(load_bot("random", 1)), bot_server(load_bot(STRONG))]
    clients = [GrpcBotClient(bot.endpoint, transport)] + [GrpcBotClient(e, transport) for e in others]
    record = play(SPEC, make_params(GAME, SHORT), 3, 4, clients, tc)
    verify(record)
    called = sum(1 for d in record.decisions if d.seat == 0 and d.called)
    if transport == "stream":
        assert bot.stream_requests == called > 0  # every decision asked on the stream
    else:
        assert (bot.stream_requests, bot.act_calls) == (0, called)
    return record


def test_bytes_that_are_not_an_answer_are_malformed_and_kept(raw_bot, bot_server) -> None:
    record = game(raw_bot(lambda request, context: b"\xff\xff\xff\xff"), bot_server)
    faults = [f for f in record.faults if f.seat == 0]
    assert [f.kind for f in faults] == [FaultKind.MALFORMED] * 3
    assert faults[0].answer == {"raw_base64": base64.b64encode(b"\xff\xff\xff\xff").decode(), "bytes": 4}


def test_unknown_fields_are_dropped_before_the_answer_is_stored(raw_bot, bot_server) -> None:
    record = game(raw_bot(lambda request, context: legal(request) + unknown_field(60_000)), bot_server)
    assert record.faults == []
    stored = [base64.b64decode(d.answer) for d in record.decisions if d.seat == 0 and d.answer]
    assert stored and all(len(a) < 32 for a in stored)


def test_an_answer_over_the_wire_limit_is_malformed(raw_bot, bot_server) -> None:
    raw = raw_bot(lambda request, context: legal(request) + unknown_field(100_000))
    record = game(raw, bot_server)
    faults = [f for f in record.faults if f.seat == 0]
    assert [f.kind for f in faults] == [FaultKind.MALFORMED] * 3 and "larger than" in faults[0].detail
    assert raw[0].act_calls == 3  # on the stream too: the stream broke at each, and the request went to Act


def test_a_known_field_padded_past_the_kept_limit_is_malformed(raw_bot, bot_server) -> None:
    padded = lambda request, context: padded_string_answer(MAX_KEPT_ANSWER_BYTES + 10)
    record = game(raw_bot(padded), bot_server)
    faults = [f for f in record.faults if f.seat == 0]
    assert [f.kind for f in faults] == [FaultKind.MALFORMED] * 3 and "at most" in faults[0].detail
    assert len(base64.b64decode(faults[0].answer["raw_base64"])) == MAX_KEPT_ANSWER_BYTES


def test_a_bot_answering_deadline_exceeded_at_once_is_an_error_not_a_timeout(raw_bot, bot_server) -> None:
    def abort(request, context):
        context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "I give up")

    record = game(raw_bot(abort), bot_server)
    faults = [f for f in record.faults if f.seat == 0]
    assert [f.kind for f in faults] == [FaultKind.ERROR] * 3 and "I give up" in faults[0].detail
    assert all(d.time_bank_ms > 9_900 for d in record.decisions if d.seat == 0)  # nothing taken from the bank


def test_the_budget_running_out_mid_call_is_a_budget_fault_and_keeps_the_bank(raw_bot, bot_server) -> None:
    calls = []

    def hangs_on_the_third_call(request, context):
        # two instant answers, then one that the budget (0.5 s) cuts long before the deadline (5 s):
        # no answer ever runs past the deadline, so the bank stays whole whatever the machine's load
        calls.append(request.decision)
        if len(calls) == 3:
            time.sleep(2.0)
        return legal(request)

    record = game(raw_bot(hangs_on_the_third_call), bot_server,
                  TimeControl(deadline_s=5.0, time_bank_s=1.0, budget_s=0.5, max_faults=3))
    seat0 = [d for d in record.decisions if d.seat == 0]
    kinds = [d.fault for d in seat0]
    assert kinds[:2] == [None, None] and kinds[2] is FaultKind.BUDGET
    assert seat0[2].time_bank_ms == pytest.approx(1000, abs=5)  # the bank was never the limit
    assert all(f.kind is FaultKind.BUDGET for f in record.faults if f.seat == 0)
