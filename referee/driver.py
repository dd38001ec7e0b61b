"""The step loop of a game (rules §0.2): chance answered and checked, decisions handed to the caller.

Every caller of a game's rules advances it the same way: :meth:`Rules.step`
names what is pending, a :class:`~referee.engine.Shuffle` or
:class:`~referee.engine.DrawLot` (chance) or an :class:`~referee.engine.Ask`
(seats to decide), or ``None`` when the game is over. A :class:`Driver` takes
one such step at a time:

- chance is answered by the caller's chance source (``request -> outcome``:
  the referee's per-deal streams, :meth:`referee.chance.Chance.answer`, or
  :func:`referee.chance.draw` on a generator of one's own), and the outcome is
  checked against the request here, once for every game (:func:`check_chance`),
  before the rules apply it; the rules themselves trust it;
- an ``Ask(seats)`` goes to the caller's ``decide(state, seats)``, which returns
  one action per asked seat (checked by the caller, as the referee does with
  its faults, rules §4.2); the rules apply them together.

The referee (:mod:`referee.referee`), replay verification (:mod:`referee.replay`),
in-process play (:mod:`referee.playout`) and the tests all drive games through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from referee.engine import Ask, DrawLot, IllegalAction, Rules, Shuffle, Step

#: Answers a chance request: a permutation of ``Shuffle.cards`` (top first) or one of ``DrawLot.seats``.
ChanceSource = Callable[[Shuffle | DrawLot], Any]
#: Decides an ``Ask``: ``(state, asked seats) -> {seat: action}``, one action per asked seat.
Decide = Callable[[Any, tuple[int, ...]], Mapping[int, Any]]


class IllegalChance(IllegalAction):
    """A chance outcome that does not answer the pending request (or no chance request is pending)."""


class BadStep(RuntimeError):
    """The rules returned something that is not a step (a rules bug); the message shows it."""


_LIST_OR_TUPLE = (list, tuple)


def check_chance(request: Shuffle | DrawLot, outcome: Any) -> None:
    """Raise IllegalChance unless ``outcome`` answers ``request``.

    A Shuffle is answered by a sequence holding exactly the requested cards
    (as a multiset: a game of two packs repeats cards) in any order; a DrawLot by
    an int that is one of its seats (never a bool). Where no requested card repeats
    (one pack), the outcome's set of cards is compared, its length already equal; else
    both are compared sorted.
    """
    if isinstance(request, Shuffle):
        cards = request.cards
        if (type(outcome) not in _LIST_OR_TUPLE  # a list or tuple is a sequence (no abstract check for them)
                and (isinstance(outcome, (str, bytes, int)) or not isinstance(outcome, Sequence))) or len(outcome) != len(cards):
            raise IllegalChance(f"a shuffle must be a permutation of the {len(cards)} cards asked for")
        distinct = _distinct_cards(cards) if type(cards) is tuple else None
        try:
            if distinct is not None:  # no card repeats: as many cards, all of them, make a permutation
                same = set(outcome) == distinct
            else:
                same = sorted(outcome) == (_sorted_cards(cards) if type(cards) is tuple else sorted(cards))
        except TypeError:  # not all strings (unhashable, or not comparable)
            same = False
        if not same:
            raise IllegalChance(f"a shuffle must be a permutation of the {len(cards)} cards asked for")
    elif isinstance(outcome, bool) or not isinstance(outcome, int) or outcome not in request.seats:
        raise IllegalChance(f"the draw by lot must be one of the seats {list(request.seats)}, not {outcome!r}")


@lru_cache(maxsize=256)
def _distinct_cards(cards: tuple[str, ...]) -> frozenset[str] | None:
    """The set of ``cards`` when no card repeats (one pack), else None (two packs: compared sorted);
    kept by value (a game shuffles the same pack again and again)."""
    cardset = frozenset(cards)
    return cardset if len(cardset) == len(cards) else None


@lru_cache(maxsize=256)
def _sorted_cards(cards: tuple[str, ...]) -> list[str]:
    """``sorted(cards)``, kept by value (a game shuffles the same pack again and again); never modified."""
    return sorted(cards)


def answer_chance(rules: Rules[Any, Any, Any], state: Any, outcome: Any) -> None:
    """Apply ``outcome`` to the chance request pending in ``state``, checked first.

    For tests and tools that choose the outcome (a fixed deal). Raises
    IllegalChance, with ``state`` unchanged, if no chance request is pending or
    ``outcome`` does not answer it (:func:`check_chance`).
    """
    request = rules.step(state)
    if not isinstance(request, (Shuffle, DrawLot)):
        raise IllegalChance(f"no chance request is pending (the rules ask {request!r})")
    check_chance(request, outcome)
    rules.apply_chance(state, outcome)


class Driver:
    """Advances one game's state step by step (see the module docstring).

    ``rules``: the game's rules; ``chance``: answers every chance request;
    ``decide``: answers every ``Ask``. Errors: IllegalChance when the chance
    source's outcome does not answer the request, IllegalAction from the rules
    when an action ``decide`` returned is illegal, BadStep for a request the
    driver does not know; whatever ``chance`` or ``decide`` raise passes through.
    """

    __slots__ = ("rules", "chance", "decide")

    def __init__(self, rules: Rules[Any, Any, Any], chance: ChanceSource, decide: Decide) -> None:
        self.rules = rules
        self.chance = chance
        self.decide = decide

    def step(self, state: Any) -> Step | None:
        """Take the pending step of ``state``; return the request it answered, None when the game is over."""
        request = self.rules.step(state)
        if request is None:
            return None
        if isinstance(request, Ask) and request.seats:
            self.rules.apply(state, self.decide(state, request.seats))
        elif isinstance(request, (Shuffle, DrawLot)):
            outcome = self.chance(request)
            check_chance(request, outcome)
            self.rules.apply_chance(state, outcome)
        else:
            raise BadStep(f"rules returned an unknown step {request!r}")
        return request

    def run(self, state: Any, max_steps: int) -> bool:
        """Take steps until the game is over (True) or ``max_steps`` steps were taken first (False)."""
        step = self.step
        for _ in range(max_steps):
            if step(state) is None:
                return True
        return self.rules.step(state) is None
