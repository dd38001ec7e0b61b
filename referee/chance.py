"""The referee's answers to the rules' chance requests: one stream per deal.

A game's chance comes from its seed alone (rules §0.2). With one generator for
the whole game, every shuffle depends on how many draws came before it, so once
two plays of the same seed differ (a deal ended early, a tie replayed, a
stock rebuilt once more) every later deal differs too, and a duplicate
season's rotations stop sharing their cards. So each request is answered from
its own generator, seeded from the game seed, the request's stream and its
number in that stream:

- ``Shuffle`` requests are numbered in the stream the rules name
  (``Shuffle.stream``: ``"deal"`` for a deal, another name such as ``"stock"``
  for a rebuilt stock), so the n-th deal of a game is the same cards whatever happened before it;
- ``DrawLot`` requests are numbered in the ``"lot"`` stream.

The generator of request n of stream s is ``random.Random(k)`` with ``k`` the
first 8 bytes (big-endian) of ``SHA-256("<seed>/<s>/<n>")``; a shuffle is
``sample(cards, len(cards))`` and a lot ``choice(seats)`` of it.
:data:`SINGLE` is the former scheme (one ``random.Random(seed)`` for the whole
game), kept so that replays recorded with it still re-run and verify.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from referee.engine import DrawLot, Shuffle

#: One stream per deal (what the referee plays with).
PER_DEAL = "per-deal"
#: One generator for the whole game (replays recorded before per-deal streams).
SINGLE = "single"
SCHEMES = (PER_DEAL, SINGLE)


def stream_seed(seed: int, stream: str, number: int) -> int:
    """The seed of request ``number`` (0-based) of ``stream`` in a game of ``seed``: a 64-bit int."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{stream}/{number}".encode()).digest()[:8], "big")


class Chance:
    """Answers a game's chance requests in order. ``scheme`` is :data:`PER_DEAL` or :data:`SINGLE`;
    raises ValueError for another."""

    def __init__(self, seed: int, scheme: str = PER_DEAL) -> None:
        if scheme not in SCHEMES:
            raise ValueError(f"unknown chance scheme {scheme!r}; expected one of {SCHEMES}")
        self.seed = seed
        self.scheme = scheme
        self._single = random.Random(seed)
        self._counts: dict[str, int] = {}

    def answer(self, step: Shuffle | DrawLot) -> Any:
        """A permutation of ``step.cards`` (a list, top first) for a Shuffle, one of ``step.seats`` for a DrawLot."""
        if self.scheme == SINGLE:
            rng = self._single
        else:
            stream = step.stream if isinstance(step, Shuffle) else "lot"
            number = self._counts.get(stream, 0)
            self._counts[stream] = number + 1
            rng = random.Random(stream_seed(self.seed, stream, number))
        if isinstance(step, Shuffle):
            return rng.sample(step.cards, len(step.cards))
        return rng.choice(step.seats)
