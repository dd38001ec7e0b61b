"""The game a cross-cutting test plays when any game will do, taken from the registry and never named.

Tests outside a game's folder that need *a* game to run a season, a worker, a page or a bot through
the platform use :data:`GAME` (the protocol's first game) and read what they need of it from its
declarations: its :class:`~referee.games.GameSpec` (:data:`SPEC`) and its
:class:`~referee.games.conformance.Conformance` (:data:`CONF`). A test that needs a game with some
property (a luck estimator, penalty points, more than one game) asks :func:`game_with` or
:func:`other_game`; one that checks a particular game's behaviour belongs in that game's folder
(``referee/games/<game>/tests/``), not here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from referee.games import GameName, GameSpec, games, spec
from referee.games.conformance import Conformance, conformance

#: The game the platform's tests play when any game will do: the protocol's first game.
GAME: GameName = games()[0]
#: Its GameSpec.
SPEC: GameSpec = spec(GAME)
#: Its conformance declarations.
CONF: Conformance = conformance(GAME)
#: Its strong reference bot (a ``GameSpec.bots`` name); ``random`` plays every game.
STRONG: str = CONF.strong_bot
#: Parameter overrides of a short game (a few hundred decisions), as a fresh dict.
QUICK: Mapping[str, Any] = dict(SPEC.quick_params)
#: Parameter overrides of a very short game (a few dozen decisions at four seats).
SHORT: Mapping[str, Any] = dict(CONF.short_params)


def game_with(predicate: Callable[[GameSpec], bool], why: str) -> GameName:
    """The first registered game whose spec satisfies ``predicate``; skips the calling test (reason
    ``why``) when no game does, so a registry without such a game does not fail the platform's tests."""
    for game in games():
        if predicate(spec(game)):
            return game
    pytest.skip(f"no registered game {why}")


def other_game(game: GameName = GAME) -> GameName:
    """A registered game other than ``game`` (for a bot that plays only some games); skips when there is none."""
    return game_with(lambda s: s.name != game, f"besides {game}")


def param_arg(params: Mapping[str, Any]) -> list[str]:
    """Parameter overrides as the CLI's ``--param name=value`` arguments (booleans as ``true``/``false``)."""
    args: list[str] = []
    for name, value in params.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        args += ["--param", f"{name}={text}"]
    return args


# --- seasons, CLI and workers ---


def scaled(params: Mapping[str, Any], factor: int) -> dict[str, Any]:
    """``params`` with each whole-number value times ``factor`` (booleans and other values as they are):
    from :data:`QUICK`, a game about ``factor`` times as long, as a game's short parameters bound its
    length (rounds, hands, turns); for tests that need a game to outlast a lease or a timeout."""
    return {name: value * factor if isinstance(value, int) and not isinstance(value, bool) else value
            for name, value in params.items()}


# --- dashboard, ladder and store ---


def game_without_luck() -> GameName:
    """The first game without a luck estimator (``GameSpec.luck`` None), for tests that finish games with
    made-up records (``tests/store/conftest.py``'s ``make_record``): no standings read their events as the
    game's. Skips the calling test when every game has an estimator."""
    return game_with(lambda s: s.luck is None, "without a luck estimator")


def games_of(game: GameName) -> list[GameName]:
    """``game`` and, when the registry has another, the first other game: the games a test bot registers for."""
    return [game, *[g for g in games() if g != game][:1]]
