"""The protocol guide's examples of Svara (docs/protocol.md, written by docs/protocol_examples.py).

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

PARAMS: dict[str, Any] = {"hands": 10}
BOTS = ("points", "random", "random", "random")
SEEDS = range(1, 200)


def find(decisions: list[Any], view: Callable[[Any], Any], answer: Callable[[Any], Any]) -> list[Pick] | None:
    """A turn answered LOOK and the same turn asked again, a vote and a join."""
    look = _first(decisions, lambda d: answer(d).svara.move == 1)
    after = look and next((d for d in decisions if d.seat == look.seat and d.decision == look.decision + 1), None)
    vote = _first(decisions, lambda d: view(d).decision == 2)
    join = _first(decisions, lambda d: view(d).decision == 3)
    if not (look and after and vote and join):
        return None
    return [("TURN, answered LOOK", "This seat has not looked: its hand is empty and LOOK is among the legal moves (rules §2.5).", look),
            ("TURN again, after the LOOK", "The same turn, asked again: decision one higher, looked true, the hand filled, "
                                           "LOOK and PROPOSE no longer legal.", after),
            ("VOTE", "Another player proposed a svara (proposer is set only for a VOTE): accept or refuse (rules §2.9).", vote),
            ("JOIN", "A svara is about to be played: in_svara marks who is in it; join for join_cost or decline (rules §2.8).", join)]


def _first(decisions: list[Any], test: Callable[[Any], bool]) -> Any:
    return next((d for d in decisions if test(d)), None)
