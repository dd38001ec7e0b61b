"""Season schedules: which bots sit where in which game, with which deal seed.

A schedule is deterministic from the season's key (``league.integrity.fairness``) and fair:

- tables are filled by the bots that have played least so far (in units of
  the largest table size), ties broken by the most, then the total, meetings
  with the bots already chosen for the table (so pairs meet about equally
  often), then by a seeded draw;
- every table is played once in each of its rotations (the bot in seat p
  moves to seat p+1), so every bot sits in every seat position of a table
  equally often;
- with ``duplicate=True`` all rotations of a table share one deal seed, so
  the cards' luck cancels out (as in duplicate bridge), in an order drawn at
  random for each table (from its own stream, ``rotation_order_seed``), and
  the tables are scheduled in blocks of :data:`INTERLEAVE`: the first
  rotation of each table of the block, then the second of each, and so on;
  otherwise every game has its own seed and a table's rotations follow each
  other in order.

Why the rotations of a table are played in a random order: a bot that remembers
the cards of one rotation can use them in the rotations it plays later with the
same deal (nothing can make a remote bot forget). The duplicate audit
(``league.integrity.audit``) compares each bot's results in the rotations it played after
it had already played the deal with the rotation it played first; with the order
drawn at random, which rotation comes first is independent of the cards and the
seats, so for a bot that does not remember, the two have the same distribution
and the audit's false-alarm rate is exact (a randomisation test), whatever the
game's seat advantages.

Why the rotations of a block's tables are interleaved: a bot must never have
two rotations of one deal in flight at once, or it could learn, during play,
from whichever rotation is ahead, in an order nobody records. The store
refuses to start a rotation while another of its deal group is running
(``store.lifecycle``, rules §0.6), so the order in which a bot played a deal's
rotations is the order in which it could learn from them, and the audit reads
that order (the games' start times), not the schedule numbers. With a table's
rotations one after another, the workers would mostly wait for the rotation
ahead; interleaved, the next rotation of a table comes :data:`INTERLEAVE`
games later, when the one before it has usually ended, so the workers keep
playing. A block is short, so a bot that learns over the season (honestly)
changes little between a table's rotations.

Deal seeds are HMACs of the key (``league.integrity.fairness.deal_seed``: of the game's
number, or of the rotation group's number with ``duplicate``), never draws of
the seating generator. The seating draws come from their own stream, seeded
by ``league.integrity.fairness.schedule_seed`` (an HMAC of the key with its own label):
so a reproducible season (``--seed``) reproduces its seating too, a secret one
gets a fresh seating, and the seating, which is public from the start (every
pending game lists its seats), reveals at most that stream's seed, from which
neither the key nor any deal seed follows.

The number of games is rounded up to whole rotation groups.

Bounds (tests/test_schedule.py checks them for several bot counts and table
sizes): games per bot differ by at most twice the largest table size; within
each table size every bot sits in every seat position equally often; the
number of tables each pair of bots shares is within 2 + mean/2 of the mean
(counting tables, not games: a table of n seats is n games together). The
pair bound is greedy, not guaranteed: it held for 3,001 of 3,001 random
parameter sets (3-12 bots, tables of 3-6, 8-40 rotation groups, keys from
random seeds); with the seating drawn from the deal seeds' generator (before
season keys) it held for 3,000 of 3,001.
Cost: about 10k games per second (20 bots, tables of 4).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from league.integrity.fairness import deal_seed, derive, schedule_seed


#: A duplicate season's tables are scheduled in blocks of this many, their rotations interleaved
#: (the module docstring says why).
INTERLEAVE = 8


class ScheduleError(ValueError):
    """Impossible schedule parameters; the message says which."""


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a season: its number (schedule order), deal seed, the bot in each seat,
    and its deal group: the games sharing its deal (the table's rotation group number with
    ``duplicate``, else the game's own number)."""

    number: int
    seed: int
    seats: tuple[int, ...]
    deal_group: int


def build_schedule(bots: Sequence[int], table_sizes: Sequence[int], games: int, key: bytes,
                   duplicate: bool = False, authors: Sequence[str] | None = None) -> list[ScheduledGame]:
    """Schedule at least ``games`` games for ``bots`` (ids) on tables of the given sizes, used in
    turn, with the deal seeds and seating of the season ``key`` (``league.integrity.fairness``).
    ``authors``: one per bot (``--one-per-author``): no table seats two bots of one author, so an
    author's bots never share a table to play as a team (rules §0.6).

    Raises ScheduleError for no bots, duplicate bot ids, a table size below 2
    or larger than the number of bots (or, with ``authors``, than the number of authors), or ``games`` < 1.
    """
    bots = list(bots)
    author_of = dict(zip(bots, authors, strict=True)) if authors is not None else None
    if author_of is not None:
        distinct = len(set(author_of.values()))
        if table_sizes and max(table_sizes) > distinct:
            raise ScheduleError(f"one bot per author at a table: a table of {max(table_sizes)} seats needs bots of "
                                f"{max(table_sizes)} authors, these bots have {distinct}")
    if games < 1:
        raise ScheduleError(f"a season needs at least 1 game, got {games}")
    if len(set(bots)) != len(bots):
        raise ScheduleError("a bot is listed twice")
    if not table_sizes:
        raise ScheduleError("no table sizes given")
    for size in table_sizes:
        if size < 2:
            raise ScheduleError(f"a table needs at least 2 seats, got {size}")
        if size > len(bots):
            raise ScheduleError(f"a table of {size} seats needs at least {size} bots, got {len(bots)}")
    rng = random.Random(schedule_seed(key))
    order_rng = random.Random(rotation_order_seed(key))
    played: Counter[int] = Counter()
    met: Counter[tuple[int, int]] = Counter()
    tables: list[list[tuple[int, ...]]] = []  # per table (deal group), its rotations in their drawn order
    total = 0
    while total < games:
        size = table_sizes[len(tables) % len(table_sizes)]
        table = _greedy_table(bots, size, played, met, rng, max(table_sizes), author_of)
        for b in table:
            played[b] += size
        for a, b in combinations(table, 2):
            met[_pair(a, b)] += size
        tables.append(rotations(table, order_rng if duplicate else None))
        total += size
    schedule: list[ScheduledGame] = []
    for group, seats in _play_order(tables, INTERLEAVE if duplicate else 1):
        number = len(schedule)
        deal_group = group if duplicate else number
        schedule.append(ScheduledGame(number, deal_seed(key, number, deal_group, duplicate), seats, deal_group))
    return schedule


def _play_order(tables: Sequence[Sequence[tuple[int, ...]]], block: int) -> list[tuple[int, tuple[int, ...]]]:
    """``(table index, seats)`` of every rotation of ``tables``, in schedule order: the tables taken in blocks
    of ``block``, and within a block the first rotation of each table, then the second of each, and so on
    (``block`` 1: each table's rotations one after another)."""
    out: list[tuple[int, tuple[int, ...]]] = []
    for start in range(0, len(tables), block):
        chunk = range(start, min(start + block, len(tables)))
        for r in range(max(len(tables[t]) for t in chunk)):
            out += [(t, tables[t][r]) for t in chunk if r < len(tables[t])]
    return out


def rotations(table: Sequence[int], order_rng: random.Random | None) -> list[tuple[int, ...]]:
    """Every rotation of ``table`` (the bot in seat p moves to seat p+1): in order, or, with ``order_rng``
    (a duplicate table's), in an order drawn from it (the module docstring says why)."""
    size = len(table)
    order = order_rng.sample(range(size), size) if order_rng is not None else range(size)
    return [tuple(table[(p - r) % size] for p in range(size)) for r in order]


def rotation_order_seed(key: bytes) -> int:
    """The seed of the draws of a duplicate season's rotation order: the key's HMAC of the label
    ``rotation-order`` (``league.integrity.fairness.derive``), a stream apart from the seating's, so the
    seating of a reproducible season is the same with and without ``duplicate``."""
    return derive(key, "rotation-order")


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _greedy_table(bots: list[int], size: int, played: Counter[int], met: Counter[tuple[int, int]],
                  rng: random.Random, bucket: int, author_of: dict[int, str] | None = None) -> list[int]:
    """A table: seat by seat a bot among those that have played least (counted in
    ``bucket``-game units, so that meetings decide more often), then that has met
    the table's bots least (most, then in total), ties by a seeded shuffle; with ``author_of``,
    only bots of an author not at the table yet."""
    order = bots[:]
    rng.shuffle(order)
    table: list[int] = []
    for _ in range(size):
        seated = {author_of[b] for b in table} if author_of is not None else set()
        table.append(min((b for b in order if b not in table
                          and (author_of is None or author_of[b] not in seated)), key=lambda b: (
            played[b] // bucket, max((met[_pair(b, o)] for o in table), default=0), sum(met[_pair(b, o)] for o in table))))
    return table
