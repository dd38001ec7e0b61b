"""The referee against a real gRPC bot that bets one token more than allowed: the fault's detail gives the
legal range (rules §1.3, §1.5) and records the answer as sent (rules §4)."""

from __future__ import annotations

from botsdk import Bot
from cardarena.v1 import slippery_sam_pb2
from referee.bots import load_bot
from referee.clients import GrpcBotClient
from referee.games import make_params, spec
from referee.record import FaultKind
from referee.referee import play
from referee.replay import expand, verify
from referee.timecontrol import TimeControl
from tests.conftest import bot_server  # noqa: F401 (the fixture)

SAM = spec("slippery-sam")
#: Roomy enough that a loaded machine never makes a fault.
ROOMY = TimeControl(deadline_s=2.0, time_bank_s=5.0, budget_s=60, max_faults=3)


class IllegalBot(Bot):
    """Bets one token more than allowed."""

    name = "illegal"
    games = ("slippery-sam",)

    def slippery_sam(self, view, ctx):
        return slippery_sam_pb2.SlipperySamAction(amount=view.max_amount + 1)


def play_against(endpoints: list[str], seed: int = 3, tc: TimeControl = ROOMY, orbits: int = 1):
    record = play(SAM, make_params("slippery-sam", {"orbits": orbits}), len(endpoints), seed,
                  [GrpcBotClient(e) for e in endpoints], tc, game_id="test")
    verify(record)  # every finished game re-runs exactly from its record
    return record


def faults_of(record, seat: int) -> list[FaultKind]:
    return [f.kind for f in record.faults if f.seat == seat]


def test_an_illegal_bet_is_a_fault_with_the_answer_recorded(bot_server) -> None:  # noqa: F811
    record = play_against([bot_server(IllegalBot()), bot_server(load_bot("random", 1)), bot_server(load_bot("odds"))])
    assert faults_of(record, 0) == [FaultKind.ILLEGAL] * 3
    first = record.faults[0]
    assert "outside" in first.detail and first.answer == {"slippery_sam": {"amount": int(first.answer["slippery_sam"]["amount"])}}
    decision = next(d for d in expand(record)["decisions"] if d["seat"] == 0)
    assert decision["fault"] == "illegal" and decision["answer"] is not None
