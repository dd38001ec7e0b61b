"""The protocol guide's examples of Svara: the example game and its picks (the contract is in
docs/protocol_examples.py, which writes docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Pick = tuple[str, str, Any]  # title, note, decision

PARAMS: dict[str, Any] = {"hands": 10}
BOTS = ("points", "random", "random", "random")
SEEDS = range(1, 200)


def find(decisions: list[Any], view: Callable[[Any], Any], answer: Callable[[Any], Any]) -> list[Pick] | None:
    """A turn answered LOOK and the same turn asked again, a vote and a join."""
    look = next(filter(lambda d: answer(d).svara.move == 1, decisions), None)
    after = look and next((d for d in decisions if d.seat == look.seat and d.decision == look.decision + 1), None)
    vote = next(filter(lambda d: view(d).decision == 2, decisions), None)
    join = next(filter(lambda d: view(d).decision == 3, decisions), None)
    if not (look and after and vote and join):
        return None
    return [("TURN, answered LOOK", "This seat has not looked: its hand is empty and LOOK is among the legal moves (rules §2.5).", look),
            ("TURN again, after the LOOK", "The same turn, asked again: decision one higher, looked true, the hand filled, "
                                           "LOOK and PROPOSE no longer legal.", after),
            ("VOTE", "Another player proposed a svara (proposer is set only for a VOTE): accept or refuse (rules §2.9).", vote),
            ("JOIN", "A svara is about to be played: in_svara marks who is in it; join for join_cost or decline (rules §2.8).", join)]

