"""The protocol guide's examples of contract rummy (docs/protocol.md, written by docs/protocol_examples.py).

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

PARAMS: dict[str, Any] = {"turn_limit": 60}
BOTS = ("greedy", "greedy", "random", "random")
SEEDS = range(1, 200)


def find(decisions: list[Any], view: Callable[[Any], Any], answer: Callable[[Any], Any]) -> list[Pick] | None:
    """The take-it window, a draw with callers, going down, and (if the game has one) a lay-off on a new meld."""
    call = _first(decisions, lambda d: view(d).decision == 1)
    draw = _first(decisions, lambda d: view(d).decision == 2 and bool(view(d).callers))
    down = _first(decisions, lambda d: bool(answer(d).rummy.go_down) and bool(view(d).melds))
    lay = _first(decisions, lambda d: bool(answer(d).rummy.go_down) and any(
        lo.meld_id >= len(view(d).melds) for lo in answer(d).rummy.lay_offs))
    if not (call and draw and down):
        return None
    shown = [("CALL", "The take-it window: the live top of the discard pile is offered to every eligible seat at once, "
                      "in concurrent calls (rules §3.5).", call),
             ("DRAW with callers", "The player in turn sees who called, in priority order: DISCARD_PILE takes the card "
                                   "himself, STOCK gives it to the first caller (rules §3.5, 3.6).", draw),
             ("PLAY: going down", "Going down with the contract's melds while melds are on the table: the new melds take "
                                  "the next ids, from len(melds) (rules §3.7).", down)]
    if lay is not None and lay is not down:
        shown.append(("PLAY: going down and laying off on a meld of the same action",
                      "A lay-off names its meld by id (required); a meld laid by this action's go_down is named by the "
                      "id it is about to take (rules §3.7).", lay))
    return shown


def _first(decisions: list[Any], test: Callable[[Any], bool]) -> Any:
    return next((d for d in decisions if test(d)), None)
