"""The referee against real gRPC bots, good and bad (rules §4), on each transport (the bots' ActStream, and Act)."""

from __future__ import annotations

import time

import pytest

from typing import Any

from google.protobuf.message import Message

from botsdk.bot import Context
from cardarena.v1 import bot_pb2
from referee.bots import load_bot
from referee.clients import GrpcBotClient
from referee.games import make_params, spec
from referee.record import FaultKind
from referee.referee import play
from referee.replay import expand, verify
from referee.timecontrol import TimeControl
from tests.a_game import GAME, SHORT, SPEC, STRONG, GameBot, IllegalBot, other_game, wrong_game_answer

#: For the tests that are not about timing: roomy enough that a loaded machine never makes a fault.
ROOMY = TimeControl(deadline_s=2.0, time_bank_s=5.0, budget_s=60, max_faults=3)


class SleepyBot(GameBot):
    """Answers legally, but only after ``delay`` seconds."""

    name = "sleepy"

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def answer(self, view: Message, ctx: Context) -> Message:
        time.sleep(self.delay)
        return super().answer(view, ctx)


class RaisingBot(GameBot):
    name = "raising"

    def answer(self, view: Message, ctx: Context) -> Message:
        raise RuntimeError("boom")


class WrongGameBot(GameBot):
    """Answers with another game's action: a malformed answer."""

    name = "wronggame"

    def __init__(self) -> None:
        super().__init__()
        self.wrong = wrong_game_answer()  # skips the test when the registry holds one game only

    def act(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        return self.wrong


def play_against(endpoints: list[str], transport: str, seed: int = 3, tc: TimeControl = ROOMY, params: Any = SHORT):
    """A game of GAME (its very short parameters unless ``params``) between ``endpoints`` on ``transport``,
    verified; every seat but an unreachable one was called on that transport."""
    clients = [GrpcBotClient(e, transport) for e in endpoints]
    record = play(SPEC, make_params(GAME, params), len(endpoints), seed, clients, tc, game_id="test")
    verify(record)  # every finished game re-runs exactly from its record
    reached = [c.used for c, r in zip(clients, record.results, strict=True)
               if not any(f.seat == r.seat and f.kind is FaultKind.UNREACHABLE for f in record.faults)]
    assert reached and set(reached) == {transport}, reached
    return record


def faults_of(record, seat: int) -> list[FaultKind]:
    return [f.kind for f in record.faults if f.seat == seat]


def test_good_bots_play_without_faults(bot_server, transport: str) -> None:
    endpoints = [bot_server(load_bot("random", 1)), bot_server(load_bot(STRONG)), bot_server(load_bot("random", 2))]
    record = play_against(endpoints, transport)
    assert record.faults == []
    assert sorted(r.place for r in record.results)[0] == 1
    assert all(d.called and d.latency_ms > 0 for d in record.decisions)


def test_a_bot_that_sleeps_past_its_deadline_spends_its_bank_then_times_out(bot_server, transport: str) -> None:
    good = [bot_server(load_bot(STRONG)) for _ in (1, 2)]
    # 0.75 s of slack on the first call (channel set-up, a loaded machine) before it could time out
    tc = TimeControl(deadline_s=0.5, time_bank_s=1.25, budget_s=60, max_faults=3)
    # the game's default parameters: a full game, in which the seat is asked many times
    record = play_against([bot_server(SleepyBot(1.0))] + good, transport, tc=tc, params={})
    seat0 = [d for d in record.decisions if d.seat == 0]
    # ~0.5 s over the deadline per answer: the first answers are paid from the 1.25 s bank ...
    assert seat0[0].fault is None and seat0[0].time_bank_ms < 875
    first_timeout = next(i for i, d in enumerate(seat0) if d.fault is FaultKind.TIMEOUT)
    assert first_timeout >= 1 and all(d.fault is None for d in seat0[:first_timeout])
    # ... and the decision times out only once the bank cannot pay (rules §4.1), which empties it
    assert seat0[first_timeout - 1].time_bank_ms < 625 and seat0[first_timeout].time_bank_ms == 0
    assert faults_of(record, 0) == [FaultKind.TIMEOUT] * 3
    assert record.results[0].retired and record.results[0].faults == 3
    assert not seat0[-1].called  # retired: plays on by default actions, not called


def test_a_raising_bot_gets_error_faults(bot_server, transport: str) -> None:
    record = play_against([bot_server(RaisingBot()), bot_server(load_bot("random", 1)), bot_server(load_bot(STRONG))], transport)
    assert faults_of(record, 0) == [FaultKind.ERROR] * 3
    fault = record.faults[0]
    assert "boom" in fault.detail and fault.answer is None
    assert record.results[0].retired
    assert record.results[0].place == 3  # retired seats rank below the others


def test_an_illegal_answer_is_a_fault_with_the_answer_recorded(bot_server, transport: str) -> None:
    """The game's declared illegal answer (Conformance.illegal_answer); the game's own wording of the refusal
    is checked in its folder (referee/games/<game>/tests/)."""
    record = play_against([bot_server(IllegalBot()), bot_server(load_bot("random", 1)), bot_server(load_bot(STRONG))], transport)
    assert faults_of(record, 0) == [FaultKind.ILLEGAL] * 3
    first = record.faults[0]
    assert "rules §" in first.detail and list(first.answer) == [SPEC.proto_field]
    decision = next(d for d in expand(record)["decisions"] if d["seat"] == 0 and d["fault"])
    assert decision["fault"] == "illegal" and decision["answer"] is not None


def test_a_malformed_answer_is_a_fault(bot_server, transport: str) -> None:
    record = play_against([bot_server(WrongGameBot()), bot_server(load_bot("random", 1)), bot_server(load_bot(STRONG))], transport)
    assert faults_of(record, 0) == [FaultKind.MALFORMED] * 3
    other = spec(other_game()).proto_field
    assert f"expected a {SPEC.proto_field} action, got {other}" in record.faults[0].detail


def test_a_bot_that_is_not_running_is_retired_at_once(bot_server, dead_endpoint, transport: str) -> None:
    record = play_against([dead_endpoint, bot_server(load_bot("random", 1)), bot_server(load_bot(STRONG))], transport)
    assert faults_of(record, 0) == [FaultKind.UNREACHABLE]
    assert record.results[0].retired
    assert sum(1 for d in record.decisions if d.seat == 0 and d.called) == 1


def test_budget_spent_faults_at_once(bot_server, transport: str) -> None:
    tc = TimeControl(deadline_s=1.0, time_bank_s=0.0, budget_s=0.25, max_faults=2)
    record = play_against([bot_server(SleepyBot(0.1)), bot_server(load_bot("random", 1)), bot_server(load_bot(STRONG))], transport, tc=tc)
    kinds = faults_of(record, 0)
    assert kinds == [FaultKind.BUDGET, FaultKind.BUDGET]  # spent mid-call, then not called at all
    assert record.results[0].retired


@pytest.mark.parametrize("seed", [5, 17])
def test_same_seed_and_deterministic_bots_give_an_identical_replay(bot_server, seed: int, transport: str) -> None:
    endpoints = [bot_server(load_bot("random", 1)), bot_server(load_bot(STRONG)), bot_server(load_bot("random", 2)), bot_server(load_bot(STRONG))]
    first, second = play_against(endpoints, transport, seed), play_against(endpoints, transport, seed)
    strip = lambda r: (r.events, r.chance, [(d.seat, d.view, d.answer, d.action, d.fault) for d in r.decisions], r.results)
    assert strip(first) == strip(second)
    assert strip(first) != strip(play_against(endpoints, transport, seed + 1))
