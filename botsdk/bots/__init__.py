"""The reference bots, by name, for ``cardarena bot serve NAME`` and the demo.

- ``random``: uniformly random legal play, every game.
- ``odds``: Slippery Sam, bets by its exact chance of winning.
- ``points``: Svara, looks and stakes by its hand points.
- ``greedy``: rummy, goes down as soon as the meld search finds the contract.
"""

from __future__ import annotations

import importlib
import os
import sys

from cardarena.v1 import rummy_pb2, slippery_sam_pb2, svara_pb2

from botsdk.bot import REFERENCE_CAPACITY, Bot, Context
from botsdk.bots import rummy as _rummy
from botsdk.bots import slippery_sam as _sam
from botsdk.bots import svara as _svara
from referee.games import GameName

#: Reference bot names -> "module:Class".
REFERENCE_BOTS = {
    "random": "botsdk.bots:RandomBot",
    "odds": "botsdk.bots.slippery_sam:OddsBot",
    "points": "botsdk.bots.svara:PointsBot",
    "greedy": "botsdk.bots.rummy:GreedyBot",
}


class RandomBot(Bot):
    """Plays a uniformly random legal action in every game it knows."""

    name = "random"
    capacity = REFERENCE_CAPACITY
    version = "1.0.0"
    author = "cardarena"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.games = tuple(g.value for g in GameName)

    def slippery_sam(self, view: slippery_sam_pb2.SlipperySamView, ctx: Context) -> slippery_sam_pb2.SlipperySamAction:
        """A uniformly random legal amount."""
        return _sam.random_action(view, ctx.rng)

    def svara(self, view: svara_pb2.SvaraView, ctx: Context) -> svara_pb2.SvaraAction:
        """A uniformly random legal move."""
        return _svara.random_action(view, ctx.rng)

    def rummy(self, view: rummy_pb2.RummyView, ctx: Context) -> rummy_pb2.RummyAction:
        """A random legal answer."""
        return _rummy.random_action(view, ctx.rng)


class BotLoadError(ValueError):
    """A bot name or ``module:Class`` that does not name a Bot subclass."""


def load_bot(name: str, seed: int = 0) -> Bot:
    """A bot instance from a reference name (see REFERENCE_BOTS) or ``module:Class``; raises BotLoadError."""
    target = REFERENCE_BOTS.get(name, name)
    if ":" not in target:
        raise BotLoadError(f"unknown bot {name!r}: use one of {', '.join(REFERENCE_BOTS)} or module:Class")
    module_name, _, class_name = target.partition(":")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # `cardarena bot serve mybot:MyBot` finds mybot.py here, as `python -m` would
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise BotLoadError(f"cannot load bot {name!r}: {exc}") from None
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise BotLoadError(f"{target} is not a subclass of botsdk.Bot")
    return cls(seed=seed)
