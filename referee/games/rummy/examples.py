"""The protocol guide's examples of contract rummy: the example game and its picks (the contract is in
docs/protocol_examples.py, which writes docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Pick = tuple[str, str, Any]  # title, note, decision

PARAMS: dict[str, Any] = {"turn_limit": 60}
BOTS = ("greedy", "greedy", "random", "random")
SEEDS = range(1, 200)


def find(decisions: list[Any], view: Callable[[Any], Any], answer: Callable[[Any], Any]) -> list[Pick] | None:
    """The take-it window, a draw with callers, going down, and (if the game has one) a lay-off on a new meld."""
    call = next(filter(lambda d: view(d).decision == 1, decisions), None)
    draw = next(filter(lambda d: view(d).decision == 2 and bool(view(d).callers), decisions), None)
    down = next(filter(lambda d: bool(answer(d).rummy.go_down) and bool(view(d).melds), decisions), None)
    lay = next(filter(lambda d: bool(answer(d).rummy.go_down) and any(
        lo.meld_id >= len(view(d).melds) for lo in answer(d).rummy.lay_offs), decisions), None)
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

