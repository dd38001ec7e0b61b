"""The Bot base class: one method per game, each taking the protocol view and returning the action.

A game's method is named after its member of the ``view`` oneof of ``cardarena.v1.ActRequest``
(the game name with ``_`` for ``-``); :mod:`cardarena.games` lists the games.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from cardarena import games as protocol_games
from cardarena.v1 import bot_pb2


@dataclass(frozen=True)
class Context:
    """What a bot knows about the decision besides the view.

    ``rng`` is seeded from the bot's seed, the game id, the seat and the
    decision number, so a bot that draws only from it answers the same
    request the same way every time (games re-run exactly).
    """

    game_id: str
    seat: int
    decision: int
    deadline_ms: int
    time_bank_ms: int
    budget_ms: int
    rng: random.Random


#: Games a reference bot plays at once: they are stateless and thread-safe, so
#: one server answers many games (the server's thread pool is sized to match).
REFERENCE_CAPACITY = 8


class Bot:
    """Subclass and add a method for each game your bot plays.

    Class attributes describe the bot (returned by ``Describe``): ``name``
    (1-40 characters of ``[A-Za-z0-9_.-]``, starting with a letter or digit; the platform refuses
    path words such as ``api`` and a name taken in another case), ``version``, ``author``,
    ``games`` (game names, e.g. ``"a-game"``) and ``capacity`` (games it can play at once).
    A game's method is named after the game's protocol field (``a_game``): it receives the
    protocol view (``cardarena.v1.*View``) and a :class:`Context`, and returns the protocol
    action (``cardarena.v1.*Action``). Raising an exception makes the call fail (the referee
    records a fault and plays the default); a game without a method answers UNIMPLEMENTED.
    """

    name: str = "bot"
    version: str = "0.1.0"
    author: str = ""
    games: tuple[str, ...] = ()
    capacity: int = 1

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def describe(self) -> bot_pb2.DescribeResponse:
        """The Describe answer built from the class attributes; raises ValueError for a name in
        ``games`` that is not a game of the protocol."""
        return bot_pb2.DescribeResponse(
            name=self.name,
            version=self.version,
            author=self.author,
            games=[protocol_games.enum_of(g) for g in self.games],
            capacity=self.capacity,
        )

    def act(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        """Answer one ActRequest through :meth:`decide`; raises ValueError for a request without a view,
        NotImplementedError for a game the bot does not play."""
        which = request.WhichOneof("view")
        if which is None:
            raise ValueError("ActRequest carries no view")
        ctx = Context(
            game_id=request.game_id,
            seat=request.seat,
            decision=request.decision,
            deadline_ms=request.clock.deadline_ms,
            time_bank_ms=request.clock.time_bank_ms,
            budget_ms=request.clock.budget_ms,
            rng=random.Random(f"{self.seed}:{request.game_id}:{request.seat}:{request.decision}"),
        )
        action = self.decide(which, getattr(request, which), ctx)
        return bot_pb2.ActResponse(**{which: action})

    def decide(self, field: str, view: Message, ctx: Context) -> Any:
        """The answer to ``view`` of the game whose protocol field is ``field``: the bot's method of
        that name. Raises NotImplementedError, naming the game, when the bot has none."""
        method = getattr(self, field, None)
        if not callable(method):
            raise NotImplementedError(f"bot {self.name} does not play {protocol_games.name_of(field)} "
                                      f"(it has no {field}() method)")
        return method(view, ctx)
