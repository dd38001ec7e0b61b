"""The games of the protocol, read from ``cardarena.v1`` itself (never re-typed).

A game is a member of the ``view`` oneof of ``cardarena.v1.ActRequest``: its
field name (``snake_case``) names the game's proto messages and package, its
game name is the field name with ``-`` for ``_`` (the name the CLI, store and
API use), and its ``cardarena.v1.Game`` enum number is ``GAME_<FIELD>``.
The bot SDK and the platform's game registry both read the games from here.
"""

from __future__ import annotations

from cardarena.v1 import bot_pb2


def fields() -> list[str]:
    """The oneof field names of every game, in the order ``bot.proto`` declares them."""
    oneof = bot_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["view"]
    return [f.name for f in oneof.fields]


def names() -> list[str]:
    """The game names of every game (``"a-game"`` for field ``a_game``), in oneof order."""
    return [name_of(f) for f in fields()]


def name_of(field: str) -> str:
    """The game name of oneof field ``field``: ``_`` becomes ``-``."""
    return field.replace("_", "-")


def field_of(game: str) -> str:
    """The oneof field of game name ``game``; raises ValueError for a name that is not a game."""
    field = game.replace("-", "_") if isinstance(game, str) else ""
    if field not in fields() or name_of(field) != game:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(names())}")
    return field


def enum_of(game: str) -> int:
    """The ``cardarena.v1.Game`` number of game name ``game``; raises ValueError for an unknown game."""
    return bot_pb2.Game.Value("GAME_" + field_of(game).upper())


def game_for_enum(number: int) -> str:
    """The game name of ``cardarena.v1.Game`` number ``number``; raises ValueError for an unknown number."""
    for name in names():
        if enum_of(name) == number:
            return name
    raise ValueError(f"unknown game number {number}; games: {', '.join(f'{enum_of(n)} {n}' for n in names())}")
