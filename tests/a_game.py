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

import base64
import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from google.protobuf.message import Message

from botsdk.bot import Bot, Context
from cardarena.v1 import bot_pb2
from referee.games import GameName, GameSpec, games, spec
from referee.games.conformance import Conformance, ConformanceError, conformance

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


# Seasons, CLI and workers


def scaled(params: Mapping[str, Any], factor: int) -> dict[str, Any]:
    """``params`` with each whole-number value times ``factor`` (booleans and other values as they are):
    from :data:`QUICK`, a game about ``factor`` times as long, as a game's short parameters bound its
    length (rounds, hands, turns); for tests that need a game to outlast a lease or a timeout."""
    return {name: value * factor if isinstance(value, int) and not isinstance(value, bool) else value
            for name, value in params.items()}


# Dashboard, ladder and store


def game_without_luck() -> GameName:
    """The first game without a luck estimator (``GameSpec.luck`` None), for tests that finish games with
    made-up records (``tests/store/conftest.py``'s ``make_record``): no standings read their events as the
    game's. Skips the calling test when every game has an estimator."""
    return game_with(lambda s: s.luck is None, "without a luck estimator")


def games_of(game: GameName) -> list[GameName]:
    """``game`` and, when the registry has another, the first other game: the games a test bot registers for."""
    return [game, *[g for g in games() if g != game][:1]]


# Arena and bot faults


def action_class(game: GameName = GAME) -> type[Message]:
    """The protocol action message class of ``game`` (``GameSpec.action_type``)."""
    return spec(game).action_type


def wrong_game_answer(game: GameName = GAME) -> bot_pb2.ActResponse:
    """A malformed answer to a view of ``game``: an empty action of another game (skips when there is none)."""
    other = other_game(game)
    return bot_pb2.ActResponse(**{spec(other).proto_field: action_class(other)()})


def illegal_or_legal(view: Message, rng: random.Random, game: GameName = GAME) -> Message:
    """The game's declared illegal answer at ``view`` (:attr:`Conformance.illegal_answer`), or a random legal
    one where the view leaves none; raises ConformanceError for a game that declares no illegal answer."""
    declared = conformance(game).illegal_answer
    if declared is None:
        raise ConformanceError(f"{game}: its conformance declares no illegal_answer")
    answer = declared(view)
    return spec(game).random_action(view, rng) if answer is None else answer


class GameBot(Bot):
    """A bot of one game (``game``, default :data:`GAME`) whose answer is :meth:`answer`; subclasses override it.

    ``games`` lists the game; a view of any other game is refused (NotImplementedError, UNIMPLEMENTED)."""

    name = "game-bot"

    def __init__(self, seed: int = 0, game: GameName = GAME) -> None:
        super().__init__(seed)
        self.game = game
        self.games = (game,)

    def decide(self, field_: str, view: Message, ctx: Context) -> Any:
        """:meth:`answer` for a view of the bot's game; raises NotImplementedError for another game's."""
        if field_ != spec(self.game).proto_field:
            return super().decide(field_, view, ctx)
        return self.answer(view, ctx)

    def answer(self, view: Message, ctx: Context) -> Message:
        """A random legal answer (``GameSpec.random_action`` drawn from ``ctx.rng``)."""
        return spec(self.game).random_action(view, ctx.rng)


class IllegalBot(GameBot):
    """Answers every view with :func:`illegal_or_legal`: illegal answers fault it (rules §4.2)."""

    name = "illegal"

    def answer(self, view: Message, ctx: Context) -> Message:
        return illegal_or_legal(view, ctx.rng, self.game)


def view_class(game: GameName = GAME) -> type[Message]:
    """The protocol view message class of ``game`` (``GameSpec.view_type``)."""
    return spec(game).view_type


def first_request(game: GameName = GAME, seed: int = 1) -> bot_pb2.ActRequest:
    """The ActRequest of the first decision of a short game of ``game`` (its ``short_params``, its fewest
    seats, ``random`` bots, seed ``seed``): a real view a bot of the game can answer (game id ``"t"``)."""
    from referee.bots import load_bot
    from referee.clients import InProcessBotClient
    from referee.games import make_params
    from referee.referee import play

    gs = spec(game)
    seats = gs.min_seats
    clients = [InProcessBotClient(load_bot("random", s).act) for s in range(seats)]
    record = play(gs, make_params(game, conformance(game).short_params), seats, seed, clients)
    first = record.decisions[0]
    view = view_class(game).FromString(base64.b64decode(first.view))
    return bot_pb2.ActRequest(game_id="t", seat=first.seat, decision=0, **{gs.proto_field: view})
