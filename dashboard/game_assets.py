"""Each game's own files the dashboard serves: its replay module.

A game's replay module is ``replay.js`` in the game's package (``referee.games.<package>``,
the game's name with ``-`` as ``_``), shipped as package data; the replay page loads it as
``/static/games/<game>.js`` after the generic ``replay_state.js`` (docs/replay.md).
"""

from __future__ import annotations

import importlib
from importlib.resources import files
from importlib.resources.abc import Traversable

from referee.games import spec

#: The file name of a game's replay module inside its package.
REPLAY_MODULE = "replay.js"


def game_package(game: str) -> str:
    """The package of ``game`` (a game's name in the registry): ``referee.games.<its protocol field>``.

    Raises ValueError for a game the registry does not know, or whose package does not hold
    the registry's spec of that game.
    """
    gs = spec(game)
    package = f"referee.games.{gs.proto_field}"
    if getattr(importlib.import_module(package), "SPEC", None) is not gs:
        raise ValueError(f"game {gs.name!r} is not defined by the package {package}")
    return package


def replay_module(game: str) -> Traversable:
    """The replay module of ``game`` (a file in its package, which may not exist); raises ValueError
    for an unknown game."""
    return files(game_package(game)) / REPLAY_MODULE
