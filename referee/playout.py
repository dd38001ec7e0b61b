"""Playing a game in-process with one policy for every seat, through the protocol codec.

For benchmarks and the generic test harness: no referee, no clock, no RPC;
chance from ``rng``. A policy is ``(view message, rng) -> action message``,
like the reference bots' ``random_action``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from google.protobuf.message import Message

from referee.chance import Chance, draw
from referee.driver import Driver
from referee.engine import Ask, IllegalAction, Rules
from referee.games import GameSpec
from referee.wire import ViewEncoder

Policy = Callable[[Message, random.Random], Message]


class Playout:
    """Plays states of one game with ``policy`` in-process (one object per game and chance source).

    ``policy`` answers for every seat, or is a sequence of one policy per seat. Chance comes
    from ``chance`` (the referee's per-deal streams, ``referee.chance``) if given, else from
    ``rng`` (``referee.chance.draw``), which the policies draw from too.

    Each asked seat's view goes through the wire bytes the referee would send
    (``views``, the game's encoder: by default a new ``spec.view_codec.encoder()``,
    one per game), parsed back as a bot would, answered by the policy and decoded;
    an answer the rules refuse is replaced by the default action, which must be
    legal (IllegalAction is raised otherwise: a rules bug). The bytes are those of
    the message the game's ``encode_view`` builds from scratch, made for less: most
    of a view's fields and history repeat from the last (``docs/measurements.md``).
    """

    def __init__(self, rules: Rules[Any, Any, Any], spec: GameSpec, rng: random.Random,
                 policy: Policy | Sequence[Policy], chance: Chance | None = None,
                 views: ViewEncoder | None = None) -> None:
        self.rules, self.spec, self.rng = rules, spec, rng
        self.views = views if views is not None else spec.view_codec.encoder()
        self._policies = policy if isinstance(policy, Sequence) else None
        self._policy = policy if not isinstance(policy, Sequence) else None
        source = chance.answer if chance is not None else partial(draw, rng)
        self.driver = Driver(rules, source, self._decide)
        self._parse = spec.view_codec.message_type.FromString

    def step(self, state: Any) -> int | None:
        """Advance ``state`` by one step; return how many decisions it took (0 for chance), None when the game is over."""
        request = self.driver.step(state)
        if request is None:
            return None
        return len(request.seats) if isinstance(request, Ask) else 0

    def play(self, state: Any) -> int:
        """Play ``state`` to the end of the game; return the number of decisions taken."""
        decisions = 0
        while (made := self.step(state)) is not None:
            decisions += made
        return decisions

    def _decide(self, state: Any, seats: tuple[int, ...]) -> dict[int, Any]:
        rules, spec, views, rng = self.rules, self.spec, self.views, self.rng
        actions = {}
        for seat in seats:
            answer = self._policies[seat] if self._policies is not None else self._policy
            message = self._parse(views.encode(rules.view(state, seat)))
            action = spec.decode_action(answer(message, rng))  # type: ignore[misc]
            try:
                rules.check(state, seat, action)
            except IllegalAction:
                action = rules.default_action(state, seat)
                rules.check(state, seat, action)
            actions[seat] = action
        return actions
