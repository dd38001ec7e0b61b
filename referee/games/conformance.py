"""What a game declares for the conformance checks (:mod:`referee.conformance`) and the cross-cutting tests.

Each game's package has a ``conformance`` module whose ``CONFORMANCE`` is a :class:`Conformance`
(``referee/games/<game>/conformance.py``): the per-game data of the generic checks lives beside the
game, not in a table in a test.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.games import GameName, package


@dataclass(frozen=True)
class Conformance:
    """What the conformance checks and the cross-cutting tests need of one game.

    - ``strong_bot``: the reference bot seated with ``random`` in playouts, the time-budget
      check (rules §4.1) and the playthrough; one of the game's ``GameSpec.bots``.
    - ``short_params``: overrides for a very short game (a few dozen decisions at four seats),
      for record round trips.
    - ``season_params``: overrides for one short season game at a 3-seat table (examples).
    - ``playthrough_seats``: the table size of the golden playthrough.
    - ``playthrough_seed``: its seed.
    - ``deals_params``: overrides for a game of several deals at four seats (the per-deal chance
      check: other bots, the same deals), or None for a game of one deal.
    - ``wire_edge_views``: views (field name -> value, the rest unset) of edge values the wire encoder
      (:mod:`referee.wire`) must write as protobuf does: zeros with and without presence, the largest
      uint32, unknown enum numbers, strings beyond ASCII, repeated and empty repeated fields.
    - ``extra``: anything further a game-specific part of a cross-cutting test reads, by name.
    """

    strong_bot: str
    short_params: Mapping[str, Any] = field(default_factory=dict)
    season_params: Mapping[str, Any] = field(default_factory=dict)
    playthrough_seats: int = 3
    playthrough_seed: int = 1
    deals_params: Mapping[str, Any] | None = None
    wire_edge_views: tuple[Mapping[str, Any], ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


class ConformanceError(AssertionError):
    """A game that fails a conformance check; the message names the game and what failed."""


def conformance(game: GameName) -> Conformance:
    """The :class:`Conformance` of ``game`` (``<its package>.conformance.CONFORMANCE``); raises
    ValueError for an unknown game and ConformanceError for a game that declares none."""
    try:
        module = importlib.import_module(f"{package(game)}.conformance")
    except ModuleNotFoundError as error:
        raise ConformanceError(f"{game}: no {package(game)}.conformance module ({error})") from None
    declared = getattr(module, "CONFORMANCE", None)
    if not isinstance(declared, Conformance):
        raise ConformanceError(f"{game}: {module.__name__}.CONFORMANCE is not a Conformance")
    return declared
