"""The ladder's matchmaker (``league.competition.matchmaking``): its stated bounds hold, by construction.

Ladders are simulated in-process: entrants of known strength, tables chosen by
``choose_table`` and recorded, and every gap measured from the tables themselves
(not from the state the matchmaker reads). The same checks catch the first version
of the matchmaker (least played first), whose pairs can go unmet far beyond the bound.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.competition.matchmaking import (
    Entrant,
    MatchState,
    _overdue_pairs,
    _seat_times,
    choose_table,
    pair,
    pair_deadline,
    pair_gap_bound,
    seat_deadline,
    seat_gap_bound,
    seat_order,
)

Chooser = Callable[[Sequence[Entrant], int, MatchState, random.Random], "list[int] | None"]


def first_version(entrants: Sequence[Entrant], size: int, state: MatchState,
                  rng: random.Random) -> list[int] | None:
    """The matchmaker's first version: the entrants that played least, ties by the seeded shuffle."""
    ready = [e for e in entrants if e.room > 0]
    if len(ready) < size:
        return None
    order = ready[:]
    rng.shuffle(order)
    order.sort(key=lambda e: state.played[e.id])
    return seat_order([e.id for e in order[:size]], state, rng)


@dataclass
class Gaps:
    """Worst gaps seen (tables), each with the bound for the entrants given over the run."""

    pair_gap: int = 0
    seat_gap: int = 0
    distinct: int = 0
    seats: dict[int, Counter[int]] = field(default_factory=dict)


def simulate(choose: Chooser, n: int, size: int | Sequence[int], tables: int, seed: int, *,
             clusters: bool = False, churn: int = 0) -> Gaps:
    """``tables`` tables among ``n`` entrants (``churn`` leave and as many join at the middle).
    Ratings: evenly spread, or (``clusters``) two groups 1200 Elo points apart, where tables chosen
    only for information would never cross; each entrant's sd shrinks with its games. ``size``: the
    seats of every table, or the sizes tables take in turn."""
    sizes = [size] if isinstance(size, int) else list(size)
    rng = random.Random(seed)
    mm = random.Random(seed + 1)
    state = MatchState()
    out = Gaps()
    rating: dict[int, float] = {}
    active: list[int] = []
    first: dict[int, int] = {}   # first table seated (pairs count from the later first seat)
    last_seat: dict[int, int] = {}
    since: dict[tuple[int, int], int] = {}
    joined: dict[int, int] = {}

    def join(e: int, t: int) -> None:
        rating[e] = (1500.0 + (600.0 if e % 2 else -600.0) + rng.uniform(-50, 50)) if clusters else 1000.0 + 50.0 * (e % 1000)
        joined[e] = t
        active.append(e)

    for e in range(n):
        join(e, 0)
    for t in range(tables):
        if churn and t == tables // 2:
            for e in rng.sample(active, churn):
                active.remove(e)
            for j in range(churn):
                join(1000 + j, t)
        entrants = [Entrant(e, rating[e], 1000.0 / (1.0 + state.played[e]) ** 0.5) for e in active]
        k = sizes[t % len(sizes)]
        seats = choose(entrants, k, state, mm)
        assert seats is not None and len(seats) == k and len(set(seats)) == k and set(seats) <= set(active)
        for e in seats:
            if e in last_seat:
                out.seat_gap = max(out.seat_gap, t - last_seat[e])
            else:
                out.seat_gap = max(out.seat_gap, t - joined[e])
                first[e] = t
            last_seat[e] = t
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                k = pair(a, b)
                start = since.get(k, max(first[a], first[b]))
                out.pair_gap = max(out.pair_gap, t - start)
                since[k] = t
        state.record(seats)
    for e in active:  # gaps still open at the end
        out.seat_gap = max(out.seat_gap, tables - last_seat.get(e, joined[e]))
        for o in active:
            if o < e and e in first and o in first:
                out.pair_gap = max(out.pair_gap, tables - since.get(pair(e, o), max(first[e], first[o])))
    out.distinct = len(rating)
    out.seats = state.seat_counts
    return out


@pytest.mark.parametrize("n,size,clusters,churn", [
    (12, 4, True, 0), (12, 4, False, 2), (9, 3, True, 0), (7, 2, True, 0), (16, 5, True, 3), (10, 6, False, 0),
])
def test_every_pair_meets_and_every_entrant_plays_within_the_stated_bounds(n: int, size: int, clusters: bool,
                                                                           churn: int) -> None:
    """Over many tables (all entrants with room), the worst pair gap and the worst seat gap stay within
    ``pair_gap_bound`` and ``seat_gap_bound`` of the entrants given, even when ratings fall in two far
    groups that information alone would never seat together, and when entrants leave and join."""
    tables = 12 * pair_deadline(n, size)
    got = simulate(choose_table, n, size, tables, seed=n * 100 + size, clusters=clusters, churn=churn)
    assert got.pair_gap <= pair_gap_bound(got.distinct, size)
    assert got.seat_gap <= seat_gap_bound(got.distinct, size)
    # and in practice far below the worst case: near the deadlines
    assert got.pair_gap <= 2 * pair_deadline(got.distinct, size)
    assert got.seat_gap <= 2 * seat_deadline(got.distinct, size) + size


@pytest.mark.parametrize("sizes", [(3, 4), (2, 3, 4)])
def test_with_tables_of_several_sizes_the_bounds_of_the_smallest_hold(sizes: tuple[int, ...]) -> None:
    """A ladder whose tables take several sizes in turn keeps the bounds of its smallest size."""
    n, k = 11, min(sizes)
    got = simulate(choose_table, n, sizes, 10 * pair_deadline(n, max(sizes)), seed=5, clusters=True)
    assert got.pair_gap <= pair_gap_bound(n, k)
    assert got.seat_gap <= seat_gap_bound(n, k)


def test_the_first_version_breaks_the_pair_bound_that_the_matchmaker_keeps() -> None:
    """Least-played-first tables are random as to who meets whom: some pair goes unmet for longer than
    ``pair_gap_bound``; the matchmaker, on the same ladder, keeps it."""
    n, size, tables = 12, 3, 10_000
    old = simulate(first_version, n, size, tables, seed=7)
    new = simulate(choose_table, n, size, tables, seed=7)
    bound = pair_gap_bound(n, size)
    assert old.pair_gap > bound
    assert new.pair_gap <= bound


def test_seat_positions_stay_balanced() -> None:
    """Each entrant's seat counts differ by at most 2 between its most and least held seat."""
    got = simulate(choose_table, 10, 4, 4000, seed=3, clusters=True)
    for counts in got.seats.values():
        spread = [counts[s] for s in range(4)]
        assert max(spread) - min(spread) <= 2, counts


def test_only_entrants_with_room_are_seated_and_none_twice() -> None:
    """Entrants without room never sit; None when fewer than a table's seats have room."""
    rng = random.Random(5)
    state = MatchState()
    for t in range(500):
        entrants = [Entrant(e, 1500.0 + 30 * e, 100.0, room=rng.choice([0, 0, 1, 2])) for e in range(10)]
        ready = {e.id for e in entrants if e.room > 0}
        seats = choose_table(entrants, 4, state, random.Random(t))
        if len(ready) < 4:
            assert seats is None
            continue
        assert seats is not None and len(set(seats)) == 4 and set(seats) <= ready
        state.record(seats)
    assert state.games > 300


def test_the_same_rng_state_and_record_give_the_same_table() -> None:
    """Deterministic: the same seed, state and entrants give the same table, in whatever order the
    entrants are listed; another seed may give another."""
    state = MatchState.from_tables([[1, 2, 3, 4], [5, 6, 7, 8], [1, 5, 2, 6], [3, 7, 4, 8]])
    entrants = [Entrant(e, 1500.0 + 10 * (e % 3), 80.0) for e in range(1, 9)]
    tables = {tuple(choose_table(entrants, 4, state, random.Random(42)) or []) for _ in range(5)}
    tables |= {tuple(choose_table(list(reversed(entrants)), 4, state, random.Random(42)) or [])}
    assert len(tables) == 1
    others = {tuple(choose_table(entrants, 4, state, random.Random(s)) or []) for s in range(30)}
    assert len(others) > 1


def test_an_entrant_cannot_choose_its_opponents_except_through_its_results() -> None:
    """What an entrant controls besides its results (its declared capacity, so its room, as long as it
    has some) changes nothing of a table; a change of its rating (its results) may."""
    rng = random.Random(9)
    state = MatchState.from_tables([rng.sample(range(12), 4) for _ in range(200)])
    base = [Entrant(e, 1200.0 + 50 * e, 40.0 + e) for e in range(12)]
    for seed in range(50):
        table = choose_table(base, 4, state, random.Random(seed))
        for who in range(12):
            roomy = [Entrant(e.id, e.rating, e.sd, room=8) if e.id == who else e for e in base]
            assert choose_table(roomy, 4, state, random.Random(seed)) == table
    moved = [Entrant(e.id, e.rating - (900.0 if e.id == 10 else 0.0), e.sd) for e in base]
    assert any(choose_table(moved, 4, state, random.Random(s)) != choose_table(base, 4, state, random.Random(s))
               for s in range(50))


def test_a_new_entrant_sits_at_nearly_every_table_until_its_rating_is_known() -> None:
    """A new entrant (prior sd 1000) takes the least certain entrant's seat: it sits at the next table and
    at most of a batch chosen before its rating is fitted again, against opponents near its estimate."""
    state = MatchState.from_tables([random.Random(t).sample(range(20), 4) for t in range(400)])
    others = [Entrant(e, 1000.0 + 50 * e, 25.0) for e in range(20)]
    new = Entrant(99, 1500.0, 1000.0, room=50, rated_games=0)
    rng = random.Random(1)
    seated = 0
    for _ in range(20):
        seats = choose_table([*others, new], 4, state, rng)
        assert seats is not None
        seated += 99 in seats
        state.record(seats)
    assert seated >= 15
    # once as certain as the others it is one entrant among many
    settled = Entrant(99, 1500.0, 25.0, rated_games=state.played[99])
    later = 0
    for _ in range(100):
        seats = choose_table([*others, settled], 4, state, rng)
        assert seats is not None
        later += 99 in seats
        state.record(seats)
    assert later <= 40


def test_a_state_built_without_seat_times_is_read_from_its_meetings() -> None:
    """A state given only games, played, last meetings and seats (not built by ``record``) is read as one
    whose entrants last sat at their latest meeting: where every pair has met, the same tables."""
    tables = [random.Random(t).sample(range(8), 4) for t in range(60)]
    full = MatchState.from_tables(tables)
    bare = MatchState(full.games, Counter(full.played), dict(full.last_met), dict(full.seat_counts))
    entrants = [Entrant(e, 1500.0, 50.0) for e in range(8)]
    for seed in range(20):
        a = choose_table(entrants, 4, full, random.Random(seed))
        b = choose_table(entrants, 4, bare, random.Random(seed))
        assert a is not None and a == b


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 14), st.integers(0, 120), st.integers(0, 300))
def test_overdue_pairs_by_entrant_match_the_pair_by_pair_reading(seed: int, n: int, tables: int, back: int) -> None:
    """The overdue pairs read from the meetings by entrant (bit masks and floors, tightened as it reads) are those
    read pair by pair, whatever the ready entrants, the cutoff, entrants that joined late or left, and pairs that
    never met, call after call on one state."""
    rng = random.Random(seed)
    state = MatchState()
    for t in range(tables):
        pool = [e for e in range(n) if e < 3 + t // 4 and (e % 5 != 4 or t < tables // 2)]  # late joiners, leavers
        state.record(rng.sample(pool, min(len(pool), rng.choice((2, 3, 4)))))
    for _ in range(4):
        ready = [Entrant(e, 1500.0, 50.0) for e in sorted(rng.sample(range(n + 2), rng.randint(0, n + 2)))]
        bare = MatchState(state.games, Counter(state.played), dict(state.last_met), dict(state.seat_counts),
                          dict(state.first_seat), dict(state.last_seat))  # no meetings by entrant: pair by pair
        first, _ = _seat_times(state, [e.id for e in ready])
        key = {e.id: rng.random() for e in ready}
        cutoff = state.games - rng.randint(0, back)
        assert _overdue_pairs(ready, state, first, key, cutoff) == _overdue_pairs(ready, bare, first, key, cutoff)
        state.record(rng.sample(range(n), min(n, 4)))


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 seats"):
        choose_table([Entrant(1, 1500.0, 100.0)], 1, MatchState(), random.Random(0))
    with pytest.raises(ValueError, match="twice"):
        choose_table([Entrant(1, 1500.0, 100.0)] * 2, 2, MatchState(), random.Random(0))
    assert choose_table([Entrant(1, 1500.0, 100.0)], 2, MatchState(), random.Random(0)) is None


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 6), st.lists(st.tuples(st.floats(800, 2200), st.floats(0, 1200), st.integers(0, 3)),
                                   min_size=1, max_size=14),
       st.lists(st.permutations(list(range(14))), max_size=30), st.integers(0, 2**32))
def test_any_ladder_gets_a_valid_table_without_its_state_changing(size: int, spec: list[tuple[float, float, int]],
                                                                   history: list[list[int]], seed: int) -> None:
    """For any entrants, rooms and past tables: None exactly when fewer than ``size`` have room, else
    ``size`` distinct entrants with room; the state is left as it was, and the same seed gives the same table."""
    entrants = [Entrant(i, r, sd, room) for i, (r, sd, room) in enumerate(spec)]
    state = MatchState.from_tables([p[:size] for p in history])
    before = copy.deepcopy(state)
    seats = choose_table(entrants, size, state, random.Random(seed))
    ready = {e.id for e in entrants if e.room > 0}
    if len(ready) < size:
        assert seats is None
    else:
        assert seats is not None and len(seats) == size and len(set(seats)) == size and set(seats) <= ready
    assert state == before
    assert choose_table(entrants, size, state, random.Random(seed)) == seats


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_one_per_author_never_seats_two_entrants_of_an_author(size: int) -> None:
    """``--one-per-author``: over a long ladder no table seats two entrants of one author, every entrant still plays
    and every pair of different authors meets; with the constraint off the same entrants do share tables."""
    authors = ["ann", "ann", "ann", "bob", "bob", None, "cy", "dee", None]
    for apart in (True, False):
        rng = random.Random(size)
        state = MatchState()
        shared = 0
        for t in range(400):
            entrants = [Entrant(e, 1500.0 + 20 * e, 80.0, room=rng.choice([1, 1, 2]),
                                author=(authors[e] or f"#{e}") if apart else None) for e in range(len(authors))]
            seats = choose_table(entrants, size, state, random.Random(t))
            assert seats is not None and len(set(seats)) == size
            named = [authors[e] for e in seats if authors[e] is not None]
            shared += len(named) != len(set(named))
            state.record(seats)
        if apart:
            assert shared == 0
            assert min(state.played[e] for e in range(len(authors))) > 0
            met = {pair(a, b) for a in range(len(authors)) for b in range(a + 1, len(authors))
                   if state.last_met.get(pair(a, b)) is not None}
            assert all(pair(a, b) in met for a in range(len(authors)) for b in range(a + 1, len(authors))
                       if authors[a] is None or authors[a] != authors[b])
        else:
            assert shared > 0


def test_one_per_author_gives_no_table_when_too_few_authors_have_room() -> None:
    entrants = [Entrant(e, 1500.0, 80.0, author=a) for e, a in enumerate(["ann", "ann", "bob", "bob"])]
    assert choose_table(entrants, 3, MatchState(), random.Random(1)) is None
    assert sorted(choose_table(entrants, 2, MatchState(), random.Random(1)) or []) in ([0, 2], [0, 3], [1, 2], [1, 3])
