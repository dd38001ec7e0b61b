"""The game registry is read from the protocol: names, order and enum numbers are never re-typed."""

from __future__ import annotations

import importlib

import pytest

from cardarena.v1 import bot_pb2
from referee.bots import RandomBot, reference_bots
from referee.games import game_for_enum, games, names_text, package, spec


def test_the_games_are_the_members_of_the_view_oneof_in_order() -> None:
    fields = [f.name for f in bot_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["view"].fields]
    assert [spec(g).proto_field for g in games()] == fields
    assert [f.name for f in bot_pb2.ActResponse.DESCRIPTOR.oneofs_by_name["action"].fields] == fields
    assert games() == [f.replace("_", "-") for f in fields]
    assert names_text() == ", ".join(games())


@pytest.mark.parametrize("game", games())
def test_each_game_has_its_protocol_enum_number(game: str) -> None:
    gs = spec(game)
    assert gs.proto_enum == bot_pb2.Game.Value("GAME_" + gs.proto_field.upper()) != bot_pb2.GAME_UNSPECIFIED
    assert game_for_enum(gs.proto_enum) == game
    assert gs.min_seats <= min(gs.demo.tables) and max(gs.demo.tables) <= gs.max_seats
    assert all(name in reference_bots() for name, _ in gs.demo.bots) and all(o in reference_bots() for o in gs.opponents)


@pytest.mark.parametrize("game", games())
def test_each_game_is_the_package_of_its_protocol_field(game: str) -> None:
    gs = spec(game)
    assert package(game) == f"referee.games.{gs.proto_field}"
    assert importlib.import_module(package(game)).SPEC is gs
    if gs.proto_field != game:
        with pytest.raises(ValueError, match="unknown game"):
            spec(gs.proto_field)  # the field name is not the game name


def test_unknown_games_and_numbers_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        spec("go-fish")
    with pytest.raises(ValueError, match="unknown game number"):
        game_for_enum(bot_pb2.GAME_UNSPECIFIED)


def test_the_random_bot_plays_every_game_and_each_reference_bot_is_named_once() -> None:
    assert RandomBot().games == tuple(games())
    described = RandomBot().describe()
    assert list(described.games) == [spec(g).proto_enum for g in games()]
    bots = reference_bots()
    assert list(bots)[0] == "random" and all(cls.name == name for name, cls in bots.items())
