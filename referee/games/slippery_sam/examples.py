"""The protocol guide's examples of Slippery Sam (docs/protocol.md, written by docs/protocol_examples.py).

``PARAMS``, ``BOTS`` (reference bots by seat) and ``SEEDS`` (tried in order) give the example game;
``find(decisions, view, answer)`` picks from its record the decisions to show, or None when the game
shows not every kind: ``decisions`` are the record's ``DecisionLog`` rows that were called and answered,
``view(d)`` the game's view message sent, ``answer(d)`` the ``ActResponse`` received. Each pick is a
title, a note (citing rules sections) and the decision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Pick = tuple[str, str, Any]

PARAMS: dict[str, Any] = {"orbits": 1}
BOTS = ("odds", "random", "random")
SEEDS = range(1, 2)


def find(decisions: list[Any], view: Callable[[Any], Any], answer: Callable[[Any], Any]) -> list[Pick] | None:
    """The kitty and a bet."""
    kitty = _first(decisions, lambda d: view(d).decision == 1)
    bet = _first(decisions, lambda d: view(d).decision == 2)
    if not (kitty and bet):
        return None
    return [("KITTY", "The new dealer puts up the kitty: an amount from min_amount to max_amount (rules §1.3).", kitty),
            ("BET", "A player bets on his three cards against the next stack card (rules §1.5).", bet)]


def _first(decisions: list[Any], test: Callable[[Any], bool]) -> Any:
    return next((d for d in decisions if test(d)), None)
