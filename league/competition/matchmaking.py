"""Matchmaking for a ladder: which entrants sit at the next table, and in which seats.

The ladder runner (``league.competition.ladder``) keeps a :class:`MatchState` of the ladder's
tables and asks :func:`choose_table` for one table at a time; it applies the table
to the state with :meth:`MatchState.record` before asking for the next one, so a
batch of tables is chosen with what the earlier ones did. A runner that starts
again rebuilds the state by recording the ladder's stored tables in schedule order
(:meth:`MatchState.from_tables`).

Every random choice comes from the ``rng`` the caller passes (seeded from the
ladder's epoch key, ``league.integrity.fairness``), so no entrant can choose its opponents: a
table is a function of the key, the ladder's record (tables scheduled, ratings from
results) and which entrants are active and have room. The rng only breaks ties.

**How a table is filled** (``N`` entrants given, tables of ``k`` seats; "age" of an
entrant: tables since it last sat; of a pair: tables since its two last sat at one
table, or since the later of the two first sat if they never met; the variance of
an entrant: its ``sd`` squared, less what its games scheduled since the fit will
tell, see :attr:`Entrant.rated_games`):

1. *The least certain entrant* (largest variance) takes the first seat, at tables
   of ``k >= 4``. A new entrant (prior sd 1000 Elo points) so sits at nearly every
   table until its rating is about as certain as the others'.
2. *A pair overdue* (age at least ``T = pair_deadline(N, k) = ceil(4 N (N-1) / (k (k-1)))``,
   four times the tables a perfect covering of all pairs needs): the oldest such
   pair sits (ties by the seeded draw).
3. *Entrants due* (age at least ``W = seat_deadline(N, k) = ceil(3 N / k)``, three times
   the tables between an entrant's games at its fair share ``k / N``; an entrant that
   never sat is due at once): the longest waiting take the seats steps 1 and 2 left,
   at most ``k - 2 - [k >= 4]`` of them when step 2 seated a pair.
4. Further overdue pairs, oldest first, where they fit.
5. *Information*: each free seat goes to the entrant that adds the most expected
   information: the sum over the pairs it forms at the table of
   ``p (1 - p) (v_a^2 + v_b^2)``, where ``p`` is the chance one finishes ahead of the
   other at the current ratings (the Fisher information of the pair's result) and
   ``v`` the two variances (so about the variance it removes): opponents near the
   least certain entrant's rating. At tables of 2 and 3, the first seat, if still
   free, goes to the least certain entrant.

For tables of two seats, steps 2 and 3 take turns (step 2 first on tables with an
even number, step 3 first on odd ones) when both have a claim.

**Guarantees**, by construction, for an entrant (a pair: both entrants) given with
``room >= 1`` at every call, ``N`` the number of distinct entrants given over the
interval and ``k`` the table size (proofs: each table that skips it seats at least
``k - 2 - [k >= 4]`` entrants (one pair) that waited at least as long, each of which
then waits less; there are at most ``N - 1`` entrants, ``P - 1`` pairs, ``P = N (N-1) / 2``):

- *no starvation*: an entrant sits at least once in every
  ``seat_gap_bound(N, k) = W + floor((N-1) / (k - 2 - [k >= 4]))`` consecutive tables
  (``W + N`` for ``k = 2``), so its share of tables is at least ``1 / seat_gap_bound``,
  against a fair share of ``k / N`` (N=20, k=4: every 34 tables, fair every 5;
  N=100, k=4: every 174, fair every 25);
- *coverage*: every pair meets at least once in every
  ``pair_gap_bound(N, k) = T + P - 1`` consecutive tables (``T + 2P - 1`` for ``k = 2``)
  (N=20, k=4: 316, T = 127; N=100, k=4: 8249, T = 3300). The bounds are worst
  cases; the gaps measured stay near ``W`` and ``T`` (``python -m bench.bench_ladder coverage``);
- *capacity*: only entrants with ``room >= 1`` are seated, each at most once a table;
- *seats*: :func:`seat_order` gives each entrant, at each table, a seat it has held
  least, as far as the table allows (the seating that minimises the largest excess,
  then the total excess, of the seats given over each entrant's least held seat).

**One per author** (a ladder's ``--one-per-author``, :attr:`Entrant.author`): no table seats two entrants
of one author; every step above skips an entrant whose author is at the table, step 2 and 4 skip pairs of
one author (they never meet), and no table is chosen (None) when the entrants with room have fewer authors
than ``k``. The bounds above are proven without it; with it they are measured, not proven (an entrant may
wait while the seats it could take go to others' authors).

A ladder whose tables take several sizes keeps the bounds of its smallest size
(each table, whatever its size, seats an overdue pair and a due entrant as above,
and the deadlines are longest for the smallest size). A gap is counted in tables
of the ladder (:attr:`MatchState.games`), all sizes. Choosing a table costs
O(N^2) for the pair ages (under 1 ms of CPU at N = 100,
``python -m bench.bench_ladder coverage``).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import permutations

#: Elo points per logit (as ``league.ratings.ratings_ml.SCALE``; repeated to keep this module free of imports).
SCALE: float = 400.0 / math.log(10.0)
#: Largest rating variance the matchmaker uses (the ratings' prior: 1000 Elo points sd), Elo points squared.
MAX_VARIANCE: float = 1000.0 ** 2
#: ``W = ceil(SEAT_FACTOR N / k)``: an entrant is due after SEAT_FACTOR times the tables between its games at a fair share.
SEAT_FACTOR: float = 3.0
#: ``T = ceil(PAIR_FACTOR N (N-1) / (k (k-1)))``: a pair is overdue after PAIR_FACTOR times the tables a covering needs.
PAIR_FACTOR: float = 4.0
#: Tables of at least this many seats keep their first seat for the least certain entrant (step 1).
ANCHOR_SEAT_FROM: int = 4
#: Tables with at most this many seats are seated by trying every seating; larger ones greedily.
EXACT_SEATING: int = 6


@dataclass(frozen=True)
class Entrant:
    """One entrant as the matchmaker sees it. ``id``: the store's entrant id; ``rating`` and
    ``sd``: its current Bradley-Terry rating and standard error (Elo points; a new entrant has
    the prior's, ``league.ratings.ratings_ml.PRIOR_SD_ELO``); ``room``: how many more games it may be
    seated in now (its declared capacity less its games pending or running; at least 1).
    ``rated_games``: optional, the entrant's seats (:attr:`MatchState.played`) when ``sd`` was
    fitted; seats scheduled since are taken to have told about a well-matched game's worth of
    information each, so a batch of tables chosen between two fits does not seat the same
    uncertain entrant at every table. None: ``sd`` is taken as current."""

    id: int
    rating: float
    sd: float
    room: int = 1
    rated_games: int | None = None
    #: with a ladder's ``--one-per-author``: who wrote it (``league.competition.seasons.author_key``); no table
    #: seats two entrants of one author. None: no constraint.
    author: str | None = None


@dataclass
class MatchState:
    """What the matchmaker knows of a ladder: ``games`` tables scheduled so far (all sizes);
    ``played[e]`` seats entrant ``e`` was scheduled in; ``last_met[(a, b)]`` (``a < b``) the
    value of ``games`` when the pair last sat at one table; ``seat_counts[e][s]`` how often
    ``e`` sat in seat ``s``; ``first_seat[e]`` and ``last_seat[e]`` the value of ``games`` when
    ``e`` first and last sat. A state built without the last two (not by :meth:`record`) has
    them filled in from ``last_met``: an entrant's last seat is its latest meeting, and an
    entrant whose first seat is unknown counts as seated first at table 0."""

    games: int = 0
    played: Counter[int] = field(default_factory=Counter)
    last_met: dict[tuple[int, int], int] = field(default_factory=dict)
    seat_counts: dict[int, Counter[int]] = field(default_factory=dict)
    first_seat: dict[int, int] = field(default_factory=dict)
    last_seat: dict[int, int] = field(default_factory=dict)
    #: ``last_met`` by entrant (``met[a][b]``, both ways), kept by :meth:`record` for fast reading;
    #: ignored unless it holds as many pairs as ``last_met``.
    met: dict[int, dict[int, int]] = field(default_factory=dict, repr=False, compare=False)
    met_pairs: int = field(default=0, repr=False, compare=False)
    #: by entrant, the entrants it ever met as a bit mask (bit ``b`` for entrant ``b``), kept with ``met``
    met_bits: dict[int, int] = field(default_factory=dict, repr=False, compare=False)
    #: by entrant, its meetings as ``(table, other)`` oldest first (each table is the newest when it is added);
    #: an entry whose pair met again since is stale (``met[a][b]`` differs) and is dropped when met on the way
    met_order: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False, compare=False)

    def record(self, seats: Sequence[int]) -> None:
        """Count a scheduled table (entrant ids in seat order)."""
        for s, e in enumerate(seats):
            if self.played[e] == 0:
                self.first_seat.setdefault(e, self.games)
            self.played[e] += 1
            self.seat_counts.setdefault(e, Counter())[s] += 1
            self.last_seat[e] = self.games
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                if a != b:
                    key = pair(a, b)
                    before = self.last_met.get(key)
                    if before is None:
                        self.met_pairs += 1
                        self.met_bits[a] = self.met_bits.get(a, 0) | 1 << b
                        self.met_bits[b] = self.met_bits.get(b, 0) | 1 << a
                    if before != self.games:  # (an entrant given twice at one table meets the other once)
                        self._order(a, b)
                        self._order(b, a)
                    self.last_met[key] = self.games
                    self.met.setdefault(a, {})[b] = self.games
                    self.met.setdefault(b, {})[a] = self.games
        self.games += 1

    def _order(self, a: int, b: int) -> None:
        """Add ``a``'s meeting with ``b`` at this table to ``met_order``, its stale entries dropped once they are as
        many as its live ones."""
        order = self.met_order.setdefault(a, [])
        order.append((self.games, b))
        if len(order) > 2 * len(self.met.get(a, ())) + 8:
            row = self.met.get(a, {})
            order[:-1] = [(t, x) for t, x in order[:-1] if row.get(x) == t]

    @classmethod
    def from_tables(cls, tables: Iterable[Sequence[int]]) -> MatchState:
        """The state after recording ``tables`` (each entrant ids in seat order) in schedule order."""
        state = cls()
        for seats in tables:
            state.record(seats)
        return state


def pair(a: int, b: int) -> tuple[int, int]:
    """The key of the pair ``{a, b}`` in :attr:`MatchState.last_met`."""
    return (a, b) if a < b else (b, a)


def seat_deadline(n: int, size: int) -> int:
    """``W``: tables after its last seat at which an entrant is due, ``ceil(2 n / size)`` (at least 1)."""
    return max(1, math.ceil(SEAT_FACTOR * n / size))


def pair_deadline(n: int, size: int) -> int:
    """``T``: tables after its last meeting at which a pair is overdue, ``ceil(2 n (n-1) / (size (size-1)))``
    (at least 1): twice the tables in which a perfect covering design seats every pair once."""
    return max(1, math.ceil(PAIR_FACTOR * n * (n - 1) / (size * (size - 1))))


def seat_gap_bound(n: int, size: int) -> int:
    """Most tables between two consecutive seats of an entrant that always has room (module docstring)."""
    w = seat_deadline(n, size)
    if size == 2:
        return w + n
    free = size - 2 - (1 if size >= ANCHOR_SEAT_FROM else 0)  # seats left to entrants due, at least
    return w + (n - 1) // free


def pair_gap_bound(n: int, size: int) -> int:
    """Most tables between two consecutive meetings of a pair that always has room (module docstring)."""
    p = n * (n - 1) // 2
    t = pair_deadline(n, size)
    return t + 2 * p - 1 if size == 2 else t + p - 1


def choose_table(entrants: Sequence[Entrant], size: int, state: MatchState,
                 rng: random.Random) -> list[int] | None:
    """The next table of ``size`` seats: entrant ids in seat order, or None when fewer than
    ``size`` of ``entrants`` (the active, available ones) have room. Does not change ``state``.

    Steps and guarantees: the module docstring. Raises ValueError for ``size < 2`` or an
    entrant id given twice."""
    if size < 2:
        raise ValueError(f"a table needs at least 2 seats, got {size}")
    ids = [e.id for e in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError("an entrant is given twice")
    n = len(entrants)
    ready = sorted((e for e in entrants if e.room > 0), key=lambda e: e.id)
    if len(ready) < size:
        return None
    # one draw per ready entrant, in id order: every tie below is broken by these keys
    key = {e.id: rng.random() for e in ready}
    first, last = _seat_times(state, [e.id for e in ready])
    now = state.games
    table: list[int] = []
    taken: set[int] = set()

    author = {e.id: e.author for e in ready}
    seated: set[str] = set()  # the authors at the table (one per author, Entrant.author)

    def add(e: int) -> None:
        table.append(e)
        taken.add(e)
        if author[e] is not None:
            seated.add(author[e])  # type: ignore[arg-type]

    def allowed(e: int) -> bool:
        return e not in taken and (author[e] is None or author[e] not in seated)

    var = {e.id: _variance(e, state, size) for e in ready}
    if size >= ANCHOR_SEAT_FROM:
        add(max(ready, key=lambda e: (var[e.id], key[e.id])).id)
    overdue = [p for p in _overdue_pairs(ready, state, first, key, now - pair_deadline(n, size))
               if author[p[2]] is None or author[p[2]] != author[p[3]]]  # one author's entrants never meet
    w = seat_deadline(n, size)
    due = sorted((e.id for e in ready if e.id not in last or now - last[e.id] >= w),
                 key=lambda e: (last.get(e, -1), key[e]))
    pair_first = bool(overdue) and not (size == 2 and due and now % 2 == 1)
    if pair_first:
        for x in overdue[0][2:]:
            if allowed(x):
                add(x)
    # entrants due take the seats the bounds count on (all but the anchor's and a pair's), no more
    due_seats = size - (2 if pair_first else 0) - (1 if size >= ANCHOR_SEAT_FROM else 0)
    for e in due:
        if len(table) == size or due_seats <= 0:
            break
        if allowed(e):
            add(e)
            due_seats -= 1
    for _, _, a, b in overdue:
        if len(table) == size:
            break
        need = [x for x in (a, b) if x not in taken]
        if len(table) + len(need) <= size and all(allowed(x) for x in need):
            for x in need:
                add(x)
    if not table:
        add(max(ready, key=lambda e: (var[e.id], key[e.id])).id)
    if len(table) < size:
        _fill_for_information(table, taken, ready, size, var, key, allowed, add)
    if len(table) < size:  # too few authors among the entrants with room
        return None
    return seat_order(table, state, rng)


def _seat_times(state: MatchState, ids: Sequence[int]) -> tuple[dict[int, int], dict[int, int]]:
    """``(first_seat, last_seat)`` of the state, with those of seated entrants that lack them
    filled in from ``last_met`` (see :class:`MatchState`)."""
    missing = [e for e in ids if state.played[e] > 0 and (e not in state.last_seat or e not in state.first_seat)]
    if not missing:
        return state.first_seat, state.last_seat
    first, last = dict(state.first_seat), dict(state.last_seat)
    latest: dict[int, int] = {}
    for (a, b), t in state.last_met.items():
        for x in (a, b):
            if t > latest.get(x, -1):
                latest[x] = t
    for e in missing:
        first.setdefault(e, 0)
        last.setdefault(e, latest.get(e, 0))
    return first, last


def _overdue_pairs(ready: Sequence[Entrant], state: MatchState, first: dict[int, int],
                   key: dict[int, float], cutoff: int) -> list[tuple[int, float, int, int]]:
    """The pairs of ready, seated entrants last met (or both first seated) at table ``cutoff``
    or before, as ``(last met, tie key, a, b)``, oldest first."""
    seated = [e.id for e in ready if e.id in first]
    out: list[tuple[int, float, int, int]] = []
    fast = state.met_pairs == len(state.last_met)
    if fast and seated and seated[0] >= 0 and len(state.met_order) == len(state.met):
        _overdue_by_entrant(seated, state, first, key, cutoff, out)
        out.sort()
        return out
    empty: dict[int, int] = {}
    for i, a in enumerate(seated):
        fa = first[a]
        row = state.met.get(a, empty) if fast else {b: state.last_met[pair(a, b)]
                                                   for b in seated[i + 1:] if pair(a, b) in state.last_met}
        for b in seated[i + 1:]:  # ready is in id order, so a < b
            t = row.get(b)
            if t is None:
                fb = first[b]
                t = fa if fa > fb else fb
            if t <= cutoff:
                out.append((t, key[a] + key[b], a, b))
    out.sort()
    return out


def _overdue_by_entrant(seated: Sequence[int], state: MatchState, first: dict[int, int], key: dict[int, float],
                        cutoff: int, out: list[tuple[int, float, int, int]]) -> None:
    """:func:`_overdue_pairs` from the meetings by entrant (``seated`` in id order, ids at least 0): the pairs that
    never met from the bit masks, those that met from each entrant's meetings oldest first, up to the cutoff; the
    same pairs, appended to ``out`` unsorted. Drops the stale meetings it passes."""
    met, bits, orders = state.met, state.met_bits, state.met_order
    mask = 0
    for a in seated:
        mask |= 1 << a
    for a in seated:
        fa = first[a]
        if fa <= cutoff:  # pairs that never met are overdue once both first sat by the cutoff
            unmet = mask & ~bits.get(a, 0) & ~((2 << a) - 1)  # the partners above a only
            while unmet:
                low = unmet & -unmet
                b = low.bit_length() - 1
                unmet ^= low
                fb = first[b]
                t = fa if fa > fb else fb
                if t <= cutoff:
                    out.append((t, key[a] + key[b], a, b))
        order = orders.get(a)
        if not order or order[0][0] > cutoff:
            continue
        row = met[a]
        live: list[tuple[int, int]] = []
        k, end = 0, len(order)
        while k < end:  # the meetings at the cutoff or before, oldest first
            t, b = order[k]
            if t > cutoff:
                break
            k += 1
            if row.get(b) != t:
                continue  # the pair met again since
            live.append((t, b))
            if b > a and mask >> b & 1:
                out.append((t, key[a] + key[b], a, b))
        if len(live) < k:
            order[:k] = live


def _variance(e: Entrant, state: MatchState, size: int) -> float:
    """The entrant's rating variance (Elo points squared, at most :data:`MAX_VARIANCE`), less the
    information of the seats scheduled since its fit (see :attr:`Entrant.rated_games`)."""
    var = min(e.sd * e.sd, MAX_VARIANCE) if e.sd > 0 else 1e-9
    if e.rated_games is not None:
        pending = state.played[e.id] - e.rated_games
        if pending > 0:
            per_seat = (size - 1) * 0.25 / (SCALE * SCALE)  # a seat's results against equals, per Elo^2
            var = 1.0 / (1.0 / var + pending * per_seat)
    return var


def _fill_for_information(table: list[int], taken: set[int], ready: Sequence[Entrant], size: int,
                          var: dict[int, float], key: dict[int, float], allowed: Callable[[int], bool],
                          add: Callable[[int], None]) -> None:
    """Fill the table's free seats for information (step 5 of the module docstring), each with an entrant
    ``allowed`` at the table (one per author); stops early when none is."""
    rating = {e.id: e.rating for e in ready}
    candidates = [e.id for e in ready if e.id not in taken]
    gain = dict.fromkeys(candidates, 0.0)
    newest = list(table)
    while len(table) < size:
        for c in candidates:
            rc, vc = rating[c], var[c]
            g = 0.0
            for s in newest:
                x = (rc - rating[s]) / SCALE
                p = 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0
                g += p * (1.0 - p) * (vc * vc + var[s] * var[s])
            gain[c] += g
        fit = [c for c in candidates if allowed(c)]
        if not fit:
            return
        best = max(fit, key=lambda c: (gain[c], key[c]))
        add(best)
        candidates.remove(best)
        newest = [best]


def seat_order(table: Sequence[int], state: MatchState, rng: random.Random) -> list[int]:
    """The table's entrants in seat order. Each entrant's *excess* in a seat is how many more
    times it held that seat than its least held one; the seating chosen minimises the largest
    excess given, then the total (every seating tried for tables of at most
    :data:`EXACT_SEATING` seats, else greedily seat by seat); ties by the seeded shuffle."""
    left = list(table)
    rng.shuffle(left)
    k = len(left)
    empty: Counter[int] = Counter()

    def excess(e: int, s: int) -> int:
        c = state.seat_counts.get(e, empty)
        return c[s] - min(c[x] for x in range(k))

    if k <= EXACT_SEATING:
        cost = [[excess(e, s) for s in range(k)] for e in left]
        best: tuple[int, int] | None = None
        chosen: tuple[int, ...] = tuple(range(k))
        for perm in permutations(range(k)):  # perm[i]: the seat of left[i]
            worst = total = 0
            for i, s in enumerate(perm):
                x = cost[i][s]
                total += x
                if x > worst:
                    worst = x
            if best is None or (worst, total) < best:
                best, chosen = (worst, total), perm
        seats = [0] * k
        for i, s in enumerate(chosen):
            seats[s] = left[i]
        return seats
    seats = []
    for s in range(k):
        pick = min(left, key=lambda e: excess(e, s))
        seats.append(pick)
        left.remove(pick)
    return seats
