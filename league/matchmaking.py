"""Matchmaking for a ladder: which entrants sit at the next table, and in which seats.

The ladder runner (``league.ladder``) keeps a :class:`MatchState` of the ladder's
active, available entrants and asks :func:`choose_table` for one table at a time;
it applies the table to the state with :meth:`MatchState.record` before asking for
the next one, so a batch of tables is chosen with what the earlier ones did.

Every random choice comes from the ``rng`` the caller passes (seeded from the
ladder's epoch key, ``league.fairness``), so no entrant can choose its opponents and
a ladder's tables are a function of its key and its stored record.

This first version seats the entrants that have played least (ties by the seeded
shuffle) and balances seat positions; the information-driven choice with its stated
guarantees replaces it behind the same interface.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Entrant:
    """One entrant as the matchmaker sees it. ``id``: the store's entrant id; ``rating`` and
    ``sd``: its current Bradley-Terry rating and standard error (Elo points; a new entrant has
    the prior's, ``league.ratings_ml.PRIOR_SD_ELO``); ``room``: how many more games it may be
    seated in now (its declared capacity less its games pending or running; at least 1)."""

    id: int
    rating: float
    sd: float
    room: int = 1


@dataclass
class MatchState:
    """What the matchmaker knows of a ladder: ``games`` tables scheduled so far (all sizes);
    ``played[e]`` seats entrant ``e`` was scheduled in; ``last_met[(a, b)]`` (``a < b``) the
    value of ``games`` when the pair last sat at one table; ``seat_counts[e][s]`` how often
    ``e`` sat in seat ``s``."""

    games: int = 0
    played: Counter[int] = field(default_factory=Counter)
    last_met: dict[tuple[int, int], int] = field(default_factory=dict)
    seat_counts: dict[int, Counter[int]] = field(default_factory=dict)

    def record(self, seats: Sequence[int]) -> None:
        """Count a scheduled table (entrant ids in seat order)."""
        for s, e in enumerate(seats):
            self.played[e] += 1
            self.seat_counts.setdefault(e, Counter())[s] += 1
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                self.last_met[pair(a, b)] = self.games
        self.games += 1


def pair(a: int, b: int) -> tuple[int, int]:
    """The key of the pair ``{a, b}`` in :attr:`MatchState.last_met`."""
    return (a, b) if a < b else (b, a)


def choose_table(entrants: Sequence[Entrant], size: int, state: MatchState,
                 rng: random.Random) -> list[int] | None:
    """The next table of ``size`` seats: entrant ids in seat order, or None when fewer than
    ``size`` of ``entrants`` (the active, available ones) have room. Does not change ``state``."""
    ready = [e for e in entrants if e.room > 0]
    if len(ready) < size:
        return None
    order = ready[:]
    rng.shuffle(order)
    order.sort(key=lambda e: state.played[e.id])
    table = [e.id for e in order[:size]]
    return seat_order(table, state, rng)


def seat_order(table: Sequence[int], state: MatchState, rng: random.Random) -> list[int]:
    """The table's entrants in seat order: greedily, each seat to the entrant that sat in it least
    (ties by the seeded shuffle)."""
    left = list(table)
    rng.shuffle(left)
    seats: list[int] = []
    for s in range(len(table)):
        best = min(left, key=lambda e: state.seat_counts.get(e, Counter())[s])
        seats.append(best)
        left.remove(best)
    return seats
