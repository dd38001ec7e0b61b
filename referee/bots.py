"""The reference bots, by name, for ``cardarena bot serve NAME``, the demo and the entry checks.

Built from the registry: ``random`` (:class:`RandomBot`) plays every game with each game's
``GameSpec.random_action``; every other reference bot is one of a game's ``GameSpec.bots``
(``referee/games/<game>/bots.py``), named by its ``name`` attribute.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from google.protobuf.message import Message

from botsdk.bot import REFERENCE_CAPACITY, Bot, Context
from referee.games import specs


class RandomBot(Bot):
    """Plays a uniformly random legal action in every game of the registry (``GameSpec.random_action``)."""

    name = "random"
    capacity = REFERENCE_CAPACITY
    version = "1.0.0"
    author = "cardarena"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        every = specs()
        self.games = tuple(gs.name for gs in every)
        self._random_action = {gs.proto_field: gs.random_action for gs in every}  # protocol field -> its game's

    def decide(self, field: str, view: Message, ctx: Context) -> Any:
        """A uniformly random legal answer of the game whose protocol field is ``field``."""
        return self._random_action[field](view, ctx.rng)


def reference_bots() -> dict[str, type[Bot]]:
    """Reference bot name -> class: ``random``, then each game's ``GameSpec.bots`` in registry order.

    Raises RuntimeError when two bots share a name."""
    out: dict[str, type[Bot]] = {RandomBot.name: RandomBot}
    for gs in specs():
        for cls in gs.bots:
            if out.get(cls.name, cls) is not cls:
                raise RuntimeError(f"two reference bots are named {cls.name!r}")
            out[cls.name] = cls
    return out


def names_text() -> str:
    """The reference bots' names for help texts: ``"random, a, b"``."""
    return ", ".join(reference_bots())


class BotLoadError(ValueError):
    """A bot name or ``module:Class`` that does not name a Bot subclass."""


def load_bot(name: str, seed: int = 0) -> Bot:
    """A bot instance from a reference name (:func:`reference_bots`) or ``module:Class``; raises BotLoadError."""
    reference = reference_bots().get(name)
    if reference is not None:
        return reference(seed=seed)
    if ":" not in name:
        raise BotLoadError(f"unknown bot {name!r}: use one of {names_text()} or module:Class")
    module_name, _, class_name = name.partition(":")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # `cardarena bot serve mybot:MyBot` finds mybot.py here, as `python -m` would
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise BotLoadError(f"cannot load bot {name!r}: {exc}") from None
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise BotLoadError(f"{name} is not a subclass of botsdk.Bot")
    return cls(seed=seed)
