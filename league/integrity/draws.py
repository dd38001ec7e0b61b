"""The draws of the integrity screens' randomisation tests (the duplicate audit's, :mod:`league.integrity.audit`; the
collusion screen's, :mod:`league.integrity.collusion`): a sum of one value drawn uniformly from each group, up to
20,000 times a test. Pure logic, no I/O."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence


def drawn_sum(tables: Sequence[Sequence[float]], rng: random.Random) -> Callable[[], float]:
    """A function that draws one value uniformly from each of ``tables`` (in their order) and returns the values' exact
    sum (``math.fsum``): at each call the same draws from ``rng``'s stream, so the same sum, as
    ``math.fsum(rng.choice(t) for t in tables)`` (``random.Random.choice`` takes ``len(t).bit_length()`` bits and
    draws again while they are ``len(t)`` or more), without ``choice``'s cost per value, which was most of a screen's
    time. Raises IndexError for an empty table, as ``choice`` does."""
    sized = [(t, len(t), len(t).bit_length()) for t in tables]
    if any(n == 0 for _, n, _ in sized):
        raise IndexError("Cannot choose from an empty sequence")
    getrandbits = rng.getrandbits
    fsum = math.fsum

    def draw() -> float:
        picked = []
        for table, n, k in sized:
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            picked.append(table[r])
        return fsum(picked)

    return draw
