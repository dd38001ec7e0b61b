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
- ``DrawLot`` requests are numbered in the ``"lot"`` stream;
- a shuffle marked ``aside`` (a deal only some plays of the seed have, such as
  a tie's replay among the tied seats) is numbered in the stream
  ``"<stream>-aside"``, so the deals after it keep their numbers: without that,
  a replayed tie in one rotation of a duplicate table and not in the other gave
  every later hand of the game other cards (``bench.bench_duplicate``).

The generator of request n of stream s is ``random.Random(k)`` with ``k`` the
first 8 bytes (big-endian) of ``SHA-256("<seed>/<s>/<n>")``; a shuffle is
``sample(cards, len(cards))`` and a lot ``choice(seats)`` of it.
:data:`PER_DEAL_1` is the first per-deal scheme (aside deals numbered with the
others) and :data:`SINGLE` the one before it (one ``random.Random(seed)`` for
the whole game); both are kept so that replays recorded with them still re-run
and verify.

**Attempts** (rules §4.3). A game voided by a platform failure is run again, and
the events of the voided attempt (turned cards, discards) may already have been
shown to its bots and on the live view. So attempt ``k`` of a game draws its
chance from :func:`attempt_seed` ``(seed, k)`` in place of the game's seed:
attempt 1 from the seed itself (every replay stored before attempts had seeds
of their own still re-runs), a rerun from a seed of its own, so a rerun deals
other cards. The record keeps the game's seed and the attempt
(``GameRecord.attempt``); a re-run derives the attempt's seed again.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from referee.engine import DrawLot, Shuffle

#: One stream per deal, aside deals in their own (what the referee plays with).
PER_DEAL = "per-deal-aside"
#: One stream per deal, aside deals numbered with the others (replays recorded before aside streams).
PER_DEAL_1 = "per-deal"
#: One generator for the whole game (replays recorded before per-deal streams).
SINGLE = "single"
SCHEMES = (PER_DEAL, PER_DEAL_1, SINGLE)


def attempt_seed(seed: int, attempt: int) -> int:
    """The seed attempt ``attempt`` (1-based) of a game of ``seed`` draws its chance from (rules §4.3):
    ``seed`` itself for attempt 1; for a rerun (``attempt >= 2``) the first 8 bytes (big-endian) of
    ``SHA-256("<seed>/attempt/<attempt>")`` shifted right by one bit (63 bits, in ``[0, 2**63)``).
    Raises ValueError for ``attempt < 1``."""
    if attempt < 1:
        raise ValueError(f"attempts are numbered from 1, got {attempt}")
    if attempt == 1:
        return seed
    return int.from_bytes(hashlib.sha256(f"{seed}/attempt/{attempt}".encode()).digest()[:8], "big") >> 1


def stream_seed(seed: int, stream: str, number: int) -> int:
    """The seed of request ``number`` (0-based) of ``stream`` in a game of ``seed``: a 64-bit int."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{stream}/{number}".encode()).digest()[:8], "big")


class Chance:
    """Answers a game's chance requests in order. ``scheme`` is one of :data:`SCHEMES`;
    ``attempt`` the game's attempt (1-based; its chance comes from :func:`attempt_seed`).
    Raises ValueError for another scheme or an attempt below 1."""

    def __init__(self, seed: int, scheme: str = PER_DEAL, attempt: int = 1) -> None:
        if scheme not in SCHEMES:
            raise ValueError(f"unknown chance scheme {scheme!r}; expected one of {SCHEMES}")
        seed = attempt_seed(seed, attempt)
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
            if self.scheme == PER_DEAL and isinstance(step, Shuffle) and step.aside:
                stream = f"{stream}-aside"
            number = self._counts.get(stream, 0)
            self._counts[stream] = number + 1
            rng = random.Random(stream_seed(self.seed, stream, number))
        return draw(rng, step)


def draw(rng: random.Random, step: Shuffle | DrawLot) -> Any:
    """The outcome of ``step`` drawn from ``rng``: ``rng.sample(cards, len(cards))`` (a list, top first) for a
    Shuffle (computed by :func:`sample_all`), ``rng.choice(seats)`` for a DrawLot. With a generator of one's own
    (``functools.partial(draw, rng)``, tests and benchmarks) it is a chance source for :class:`referee.driver.Driver`."""
    if isinstance(step, Shuffle):
        return sample_all(rng, step.cards)
    return rng.choice(step.seats)


def sample_all(rng: random.Random, cards: Sequence[str]) -> list[str]:
    """``rng.sample(cards, len(cards))``: the same list, with ``rng`` left in the same state.

    ``random.Random.sample`` takes a whole population (``k == n``) by its pool method: for
    ``i`` in ``0..n-1`` it draws ``j = rng._randbelow(n - i)`` (``getrandbits(m.bit_length())``
    for ``m = n - i``, drawn again while ``>= m``), takes ``pool[j]`` and moves the pool's last
    free card into its place. This is that loop with ``getrandbits`` called directly, without
    the two Python calls around every draw: the draws, and so the cards, are the same (a
    referee shuffles a pack every deal; ``tests/test_chance.py`` compares the two on many
    generators and packs). Shape: a new list of the ``len(cards)`` cards, top first.
    """
    pool = list(cards)
    out = pool[:]
    getrandbits = rng.getrandbits
    last = len(pool) - 1
    for i in range(len(pool)):
        left = last - i + 1
        bits = left.bit_length()
        j = getrandbits(bits)
        while j >= left:
            j = getrandbits(bits)
        out[i] = pool[j]
        pool[j] = pool[last - i]
    return out
