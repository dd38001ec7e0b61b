"""Playing a game in-process with one policy for every seat, through the protocol codec.

For benchmarks and the generic test harness: no referee, no clock, no RPC;
chance from ``rng``. A policy is ``(view message, rng) -> action message``,
like the reference bots' ``random_action``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import Message

from referee.chance import Chance
from referee.engine import Ask, DrawLot, IllegalAction, Rules, Shuffle
from referee.games import GameSpec
from referee.wire import ViewEncoder

Policy = Callable[[Message, random.Random], Message]


def step(rules: Rules[Any, Any, Any], spec: GameSpec, state: Any, rng: random.Random,
         policy: Policy | Sequence[Policy], chance: Chance | None = None,
         views: ViewEncoder | None = None) -> int | None:
    """Advance ``state`` by one step; return how many decisions it took (0 for chance), None when the game is over.

    ``policy`` answers for every seat, or is a sequence of one policy per seat. Chance comes
    from ``chance`` (the referee's per-deal streams, ``referee.chance``) if given, else from ``rng``.

    Each asked seat's view is encoded, answered by ``policy`` and decoded; an
    answer the rules refuse is replaced by the default action, which must be
    legal (IllegalAction is raised otherwise: a rules bug). With ``views`` (the
    game's encoder, ``spec.view_codec.encoder()``, one per game) each view goes
    through the wire bytes the referee would send, parsed back as a bot would.
    """
    next_step = rules.step(state)
    if next_step is None:
        return None
    if chance is not None and isinstance(next_step, (Shuffle, DrawLot)):
        rules.apply_chance(state, chance.answer(next_step))
        return 0
    if isinstance(next_step, Shuffle):
        rules.apply_chance(state, rng.sample(next_step.cards, len(next_step.cards)))
        return 0
    if isinstance(next_step, DrawLot):
        rules.apply_chance(state, rng.choice(next_step.seats))
        return 0
    if not isinstance(next_step, Ask) or not next_step.seats:
        raise ValueError(f"rules returned an unknown step {next_step!r}")
    actions = {}
    for seat in next_step.seats:
        answer = policy[seat] if isinstance(policy, Sequence) else policy
        view = rules.view(state, seat)
        if views is None:
            message = spec.encode_view(view)
        else:
            message = spec.view_codec.message_type.FromString(views.encode(view))
        action = spec.decode_action(answer(message, rng))
        try:
            rules.check(state, seat, action)
        except IllegalAction:
            action = rules.default_action(state, seat)
            rules.check(state, seat, action)
        actions[seat] = action
    rules.apply(state, actions)
    return len(next_step.seats)
