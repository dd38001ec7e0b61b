"""Each game's own files the dashboard serves: its replay module.

A game's replay module is ``replay.js`` in the game's package (``referee.games.<package>``,
the game's name with ``-`` as ``_``), shipped as package data; the replay page loads it as
``/static/games/<game>.js`` after the generic ``replay_state.js`` (docs/replay.md).
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

from referee.games import package, spec

#: The file name of a game's replay module inside its package.
REPLAY_MODULE = "replay.js"


def game_package(game: str) -> str:
    """The package of ``game`` (a game's name in the registry): ``referee.games.<its protocol field>``.

    Raises ValueError for a game the registry does not know, RuntimeError for a package whose
    spec describes another game (:func:`referee.games.spec`).
    """
    spec(game)  # the registry's own check of the package
    return package(game)


def replay_module(game: str) -> Traversable:
    """The replay module of ``game`` (a file in its package, which may not exist); raises ValueError
    for an unknown game."""
    return files(game_package(game)) / REPLAY_MODULE
