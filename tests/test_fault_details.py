"""Fault details say whose the fault is and why: an illegal answer always cites its rule, a bot's own
error status reads as the bot's (docs/protocol.md, *Faults*; rules §4.7)."""

from __future__ import annotations

import base64
import random
from typing import Any

import grpc
import pytest

from botsdk import Bot
from cardarena.v1 import bot_pb2, rummy_pb2, slippery_sam_pb2, svara_pb2
from referee.bots import load_bot
from referee.clients import GrpcBotClient, InProcessBotClient
from referee.engine import IllegalAction
from referee.games import MalformedAction, games, make_params, spec
from referee.record import FaultKind
from referee.referee import play
from referee.replay import rerun


def _candidates(game: str, view_b64: str, rng: random.Random) -> list[Any]:
    """Well-formed answers drawn at random for a decision, most of them illegal there."""
    if game == "slippery-sam":
        return [slippery_sam_pb2.SlipperySamAction(amount=rng.randint(0, 1000)) for _ in range(6)]
    if game == "svara":
        return [svara_pb2.SvaraAction(move=m, amount=rng.randint(0, 300)) for m in range(1, 10)]
    view = rummy_pb2.RummyView.FromString(base64.b64decode(view_b64))
    hand = list(view.hand) or ["Ah"]
    out = []
    for _ in range(12):
        action = rummy_pb2.RummyAction(call=rng.random() < 0.5, draw=rng.choice([1, 2]))
        for _ in range(rng.choice([0, 0, 1, 2, 3])):
            action.go_down.add(kind=rng.choice([1, 2]), cards=rng.sample(hand, min(len(hand), rng.randint(1, 5))))
        for _ in range(rng.choice([0, 0, 1, 2])):
            action.lay_offs.add(meld_id=rng.randint(0, len(view.melds) + 1), end=rng.choice([0, 1, 2]),
                                cards=rng.sample(hand, min(len(hand), rng.randint(1, 2))))
        action.discard = rng.choice([*hand, "", "Ah", "Jk"])
        out.append(action)
    return out


@pytest.mark.parametrize("game", games())
def test_every_illegal_answer_cites_its_rule(game: str) -> None:
    """Random well-formed answers at every decision of real games: each one the rules refuse says
    why with a rules § reference (the detail an illegal fault records)."""
    gs, rng = spec(game), random.Random(27)
    seats = gs.demo.tables[0]
    refused: dict[str, str] = {}
    for seed in range(4 if game == "rummy" else 8):
        bots = [load_bot("random", seed * 10 + s) for s in range(seats)]
        record = play(gs, make_params(game), seats, seed, [InProcessBotClient(b.act) for b in bots])

        def try_answers(rules: Any, state: Any, logged: Any) -> None:
            for message in _candidates(game, logged.view, rng):
                try:
                    rules.check(state, logged.seat, gs.decode_action(message))
                except MalformedAction:
                    continue
                except IllegalAction as exc:
                    refused.setdefault(str(exc).split(":")[0][:40], str(exc))

        for _ in rerun(record, try_answers):
            pass
    assert len(refused) >= (8 if game == "rummy" else 2), refused
    uncited = sorted(m for m in refused.values() if "rules §" not in m)
    assert uncited == [], uncited


class _Raises(Bot):
    name, games = "raises", ("slippery-sam",)

    def slippery_sam(self, view: Any, ctx: Any) -> Any:
        raise ValueError("my own bug")


def test_a_bots_own_error_status_reads_as_the_bots(bot_server: Any) -> None:
    endpoint = bot_server(_Raises())
    gs = spec("slippery-sam")
    clients = [GrpcBotClient(endpoint)] + [InProcessBotClient(load_bot("random", s).act) for s in range(2)]
    record = play(gs, make_params("slippery-sam"), 3, 1, clients)
    errors = [f for f in record.faults if f.kind == FaultKind.ERROR]
    assert errors, record.faults
    assert errors[0].detail == "the bot returned an error of its own, status INVALID_ARGUMENT: my own bug", errors[0].detail
    assert grpc.StatusCode.INVALID_ARGUMENT.name in errors[0].detail
    assert bot_pb2 is not None
