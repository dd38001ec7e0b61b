"""The contract between a game's rules and the referee.

Every game is a :class:`Rules` object (immutable: the game's parameters)
working on a mutable state dataclass of its own, in the OpenSpiel manner:
game, state, view and result are four different things.

The rules never do I/O, never sleep and never draw random numbers. When the
game needs chance (a shuffle, a draw by lot), :meth:`Rules.step` returns a
:class:`Shuffle` or :class:`DrawLot` request and the referee answers it from
the game's seed (one stream per deal, :mod:`referee.chance`), so a game is a
pure function of (parameters, seed, bots' answers) (rules §0.2). The loop
that answers the requests is :class:`referee.driver.Driver`, shared by every
caller of the rules.

When seats must decide, ``step`` returns an :class:`Ask` naming them (more
than one seat only where the rules ask several players at once, e.g. a
window where any player may claim a card); the referee collects one action per seat, checks each
with :meth:`Rules.check` (an illegal one becomes a fault and is replaced by
:meth:`Rules.default_action`), and applies them together with
:meth:`Rules.apply`, ordered by seat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, Protocol, TypeVar


#: A game's name as the CLI, store and API use it (``"a-game"``). The games are the registry's
#: (:func:`referee.games.games`, read from the protocol); :func:`referee.games.spec` validates a name.
GameName = str


class IllegalAction(ValueError):
    """An action the rules do not allow now. The message says why, for the fault log."""


class BadParameters(ValueError):
    """Game parameters out of their allowed range; the message names the parameter."""


@dataclass(frozen=True)
class Shuffle:
    """Chance request: answer with a permutation of ``cards`` (the new order, top first).

    ``stream`` names the chance stream it is numbered in (``referee.chance``): ``"deal"``
    for a deal, so the n-th deal of a game gets the same cards whatever came before it.
    ``aside``: a deal outside the game's sequence of deals, which only some plays of a seed
    have (such as a tie replayed among the tied seats); the referee numbers it in
    a stream of its own so that the deals after it keep their cards."""

    cards: tuple[str, ...]
    stream: str = "deal"
    aside: bool = False


@dataclass(frozen=True)
class DrawLot:
    """Chance request: answer with one of ``seats``, drawn uniformly."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class Ask:
    """Decision request: each of ``seats`` must answer one action; they are asked at once.

    A seat may be asked again right after its answer when that action does
    not end its turn (a look at one's own cards): each ask is a new decision.
    """

    seats: tuple[int, ...]


@lru_cache(maxsize=64)
def ask_one(seat: int) -> Ask:
    """``Ask((seat,))``, one object per seat (an Ask is immutable; most steps ask one seat)."""
    return Ask((seat,))


Step = Shuffle | DrawLot | Ask


@dataclass(frozen=True)
class Event:
    """One thing that happened, for the replay.

    ``kind`` is a short snake_case name (``"deal"``, ``"bet"``); ``data`` is
    JSON-serialisable; ``visible_to`` is ``None`` when every seat saw it, else
    the seats that saw it (a dealt hand is visible to its owner only). The
    dashboard shows non-public events only once the game is over.
    """

    kind: str
    data: dict[str, Any]
    visible_to: tuple[int, ...] | None = None


@dataclass
class BaseState:
    """Fields every game's state has. Games subclass it with their own dataclass."""

    num_seats: int
    events: list[Event] = field(default_factory=list)
    end_reason: str = ""  # why the game ended, set by the rules when it is over (stored with the result)

    def log(self, kind: str, visible_to: tuple[int, ...] | None = None, **data: Any) -> None:
        """Append an event to the state's history."""
        self.events.append(Event(kind, data, visible_to))


S = TypeVar("S", bound=BaseState)
A = TypeVar("A")
V = TypeVar("V")


class Rules(Protocol, Generic[S, A, V]):
    """The rules of one game with fixed parameters. All methods are pure functions
    of their arguments apart from mutating the ``state`` they are given."""

    game: GameName
    num_seats: int

    def new_state(self) -> S:
        """The state before any chance or decision."""
        ...

    def step(self, state: S) -> Step | None:
        """What must happen next: a chance request, seats to ask, or None when the game is over."""
        ...

    def apply_chance(self, state: S, outcome: Sequence[str] | int) -> None:
        """Apply the referee's answer to the pending Shuffle (a permutation) or DrawLot (a seat).

        ``outcome`` must answer the pending request: the step driver checks it once, for every
        game (``referee.driver.check_chance``), so the rules do not check it again.
        """
        ...

    def check(self, state: S, seat: int, action: A) -> None:
        """Raise IllegalAction if ``seat`` may not play ``action`` now; never changes ``state``."""
        ...

    def apply(self, state: S, actions: Mapping[int, A]) -> None:
        """Apply one checked action per asked seat, resolved in the game's priority order (e.g. from the
        left of the player in turn), never by arrival. Raises IllegalAction (state unchanged) if one is illegal."""
        ...

    def default_action(self, state: S, seat: int) -> A:
        """The action the referee plays for a faulted or retired seat (rules §4.2)."""
        ...

    def view(self, state: S, seat: int) -> V:
        """Everything ``seat`` may see now, and nothing else."""
        ...

    def rank_key(self, state: S, seat: int) -> tuple[int, ...]:
        """The seat's ranking key at the end of the game; larger ranks higher, equal keys share a place."""
        ...

    def scores(self, state: S) -> tuple[int, ...]:
        """Per seat, the final score, in the game's ``GameSpec.score_unit`` (tokens or points)."""
        ...

    def score_changes(self, state: S) -> tuple[int, ...]:
        """Per seat, the score change over the game, in the game's ``GameSpec.score_unit`` (tokens won or lost, points taken)."""
        ...


def places(keys: Sequence[tuple[int, ...]], retired: Sequence[bool]) -> tuple[int, ...]:
    """Places (1 = best) from per-seat ranking keys, rules §0.3.

    Seats not retired rank above retired seats; within each group larger keys
    rank higher and equal keys share a place (standard competition ranking:
    1, 1, 3). ``keys`` and ``retired`` are per seat and of equal length;
    raises ValueError otherwise.
    """
    if len(keys) != len(retired):
        raise ValueError("keys and retired must have one entry per seat")
    full = [((0 if r else 1),) + tuple(k) for k, r in zip(keys, retired)]
    return tuple(1 + sum(1 for other in full if other > mine) for mine in full)
