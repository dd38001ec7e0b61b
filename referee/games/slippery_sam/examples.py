"""The protocol guide's examples of Slippery Sam: the example game and its picks (the contract is in
docs/protocol_examples.py, which writes docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Pick = tuple[str, str, Any]  # title, note, decision

PARAMS: dict[str, Any] = {"orbits": 1}
BOTS = ("odds", "random", "random")
SEEDS = range(1, 2)


def find(decisions: list[Any], view: Callable[[Any], Any], answer: Callable[[Any], Any]) -> list[Pick] | None:
    """The kitty and a bet."""
    kitty = next(filter(lambda d: view(d).decision == 1, decisions), None)
    bet = next(filter(lambda d: view(d).decision == 2, decisions), None)
    if not (kitty and bet):
        return None
    return [("KITTY", "The new dealer puts up the kitty: an amount from min_amount to max_amount (rules §1.3).", kitty),
            ("BET", "A player bets on his three cards against the next stack card (rules §1.5).", bet)]

