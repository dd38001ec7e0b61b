"""The registry of games: the one place a game plugs into the platform.

Each game lives in its own package (``referee.games.<name>``) with its rules
(pure engine) and its codec (translation between the engine's views/actions
and the ``cardarena.v1`` protocol messages). Nothing outside a game's package
and its part of the protocol knows anything game-specific; the referee,
store, ratings, CLI and dashboard go through :func:`spec`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from referee.engine import BadParameters, GameName, Rules
from referee.wire import ViewCodec


class MalformedAction(ValueError):
    """A bot's answer that cannot be read as an action of the game (wrong or missing fields)."""


@dataclass(frozen=True)
class GameSpec:
    """How the platform plays one game.

    - ``params_type``: a frozen dataclass of the game's parameters, with defaults;
      its ``__post_init__`` raises BadParameters for impossible values.
    - ``make_rules(params, num_seats)``: the game's :class:`~referee.engine.Rules`.
    - ``proto_field``: the name of the game's member in the ``view``/``action``
      oneofs of ``ActRequest``/``ActResponse``.
    - ``encode_view(view)``: the engine's view -> the protocol view message.
    - ``view_codec``: the same encoding described for :mod:`referee.wire`, whose
      ``encoder()`` gives a game's views as wire bytes, each history entry
      encoded once (what the referee sends).
    - ``decode_action(message)``: the protocol action message -> the engine's
      action; raises MalformedAction.
    - ``encode_action(action)``: the engine's action -> the protocol message
      (for the replay and in-process bots).
    - ``min_seats``/``max_seats``: table sizes the rules allow.
    - ``score_unit``: "tokens" or "points", for reports.
    - ``higher_score_is_better``: False for rummy.
    - ``default_budget_s``: the thinking budget of a seat for one game, seconds,
      when a season sets none (rules §4.1): room for a bot that answers near the
      1 s deadline at every decision of a long game of the default parameters
      (at least twice the decisions of a seat in the longest tenth of games
      between the reference bots at the largest table), so the deadline can be used.
    """

    name: GameName
    params_type: type
    make_rules: Callable[[Any, int], Rules[Any, Any, Any]]
    proto_field: str
    encode_view: Callable[[Any], Message]
    view_codec: ViewCodec
    decode_action: Callable[[Message], Any]
    encode_action: Callable[[Any], Message]
    min_seats: int
    max_seats: int
    score_unit: str
    higher_score_is_better: bool = True
    default_budget_s: float = 120.0


_MODULES = {
    GameName.SLIPPERY_SAM: "referee.games.slippery_sam",
    GameName.SVARA: "referee.games.svara",
    GameName.RUMMY: "referee.games.rummy",
}


def available() -> list[GameName]:
    """Every game the platform plays, in registry order (Slippery Sam, Svara, rummy)."""
    return list(_MODULES)


def spec(game: GameName | str) -> GameSpec:
    """The GameSpec of ``game`` (a GameName or its value); raises ValueError for an unknown game."""
    try:
        name = GameName(game)
    except ValueError:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(g.value for g in GameName)}") from None
    module = importlib.import_module(_MODULES[name])
    return module.SPEC  # type: ignore[no-any-return]


def make_params(game: GameName | str, values: Mapping[str, Any] | None = None) -> Any:
    """The game's parameters from a mapping of overrides; raises BadParameters for unknown names or bad values."""
    gs = spec(game)
    values = dict(values or {})
    known = set(gs.params_type.__dataclass_fields__)
    unknown = sorted(set(values) - known)
    if unknown:
        raise BadParameters(f"unknown parameter(s) for {gs.name.value}: {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return gs.params_type(**values)
