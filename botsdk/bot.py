"""The Bot base class: one method per game, each taking the protocol view and returning the action."""

from __future__ import annotations

import random
from dataclasses import dataclass

from cardarena.v1 import bot_pb2, rummy_pb2, slippery_sam_pb2, svara_pb2

from referee.engine import GameName

_GAME_ENUM = {
    GameName.SLIPPERY_SAM: bot_pb2.GAME_SLIPPERY_SAM,
    GameName.SVARA: bot_pb2.GAME_SVARA,
    GameName.RUMMY: bot_pb2.GAME_RUMMY,
}


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
    """Subclass and override the methods of the games your bot plays.

    Class attributes describe the bot (returned by ``Describe``): ``name``
    (1-40 characters of ``[A-Za-z0-9_.-]``), ``version``, ``author``,
    ``games`` (GameName values) and ``capacity`` (games it can play at once).
    Each game method receives the protocol view (``cardarena.v1.*View``) and a
    :class:`Context`, and returns the protocol action. Raising an exception
    makes the call fail (the referee records a fault and plays the default).
    """

    name: str = "bot"
    version: str = "0.1.0"
    author: str = ""
    games: tuple[str, ...] = ()
    capacity: int = 1

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def slippery_sam(self, view: slippery_sam_pb2.SlipperySamView, ctx: Context) -> slippery_sam_pb2.SlipperySamAction:
        """Answer a Slippery Sam decision: the kitty or a bet, in tokens, within view.min_amount..view.max_amount."""
        raise NotImplementedError(f"{self.name} does not play Slippery Sam")

    def svara(self, view: svara_pb2.SvaraView, ctx: Context) -> svara_pb2.SvaraAction:
        """Answer a Svara decision with one of view.legal.moves (a stake amount in tokens for STAKE)."""
        raise NotImplementedError(f"{self.name} does not play Svara")

    def rummy(self, view: rummy_pb2.RummyView, ctx: Context) -> rummy_pb2.RummyAction:
        """Answer a rummy decision: a take-it call, a draw source, or a play (melds, lay-offs, discard)."""
        raise NotImplementedError(f"{self.name} does not play rummy")

    def describe(self) -> bot_pb2.DescribeResponse:
        """The Describe answer built from the class attributes."""
        return bot_pb2.DescribeResponse(
            name=self.name,
            version=self.version,
            author=self.author,
            games=[_GAME_ENUM[GameName(g)] for g in self.games],
            capacity=self.capacity,
        )

    def act(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        """Dispatch one ActRequest to the game method; raises ValueError for a request without a view."""
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
        action = getattr(self, which)(getattr(request, which), ctx)
        return bot_pb2.ActResponse(**{which: action})
