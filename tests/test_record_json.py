"""GameRecord.to_json builds the JSON-ready dict directly: it must equal ``dataclasses.asdict``
of records of every game, faults included, and stay independent where callers edit it."""

from __future__ import annotations

import dataclasses

import pytest

from referee.bots import load_bot
from cardarena.v1 import bot_pb2
from referee.clients import InProcessBotClient
from referee.games import games, make_params, spec
from referee.games.conformance import conformance
from referee.record import GameRecord
from referee.referee import play

def short_record(game: str, seed: int) -> GameRecord:
    """A short game of three random bots and a fourth that never sends an action (so faults too)."""
    def wrong_game(request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        return bot_pb2.ActResponse()  # no action: a MALFORMED fault each time, then retired

    clients = [InProcessBotClient(load_bot("random", seed + s).act) for s in range(3)] + [InProcessBotClient(wrong_game)]
    return play(spec(game), make_params(game, conformance(game).short_params), 4, seed, clients)


@pytest.mark.parametrize("game", games())
def test_to_json_equals_asdict(game: str) -> None:
    for seed in range(3):
        record = short_record(game, seed)
        assert record.faults and record.decisions and record.events
        assert record.to_json() == dataclasses.asdict(record)
        assert GameRecord.from_json(record.to_json()) == record


@pytest.mark.parametrize("game", games())
def test_editing_the_dict_leaves_the_record_alone(game: str) -> None:
    record = short_record(game, 0)
    data = record.to_json()
    data["decisions"][0]["view"] = {"decoded": True}
    data["events"][0]["kind"] = "edited"
    data["results"][0]["score"] = -1
    data["faults"].clear()
    assert record.to_json() == dataclasses.asdict(record) != data
    assert isinstance(record.decisions[0].view, str) and record.events[0]["kind"] != "edited"
