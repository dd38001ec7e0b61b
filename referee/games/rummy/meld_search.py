"""Meld search for contract-rummy bots: how to go down, and what can be laid off.

Rules searched (rules §3.1, §3.7, §3.8): a set is 3+ cards of one rank, a
run 4+ consecutive cards of one suit (ace low ``A234`` or high ``JQKA``,
never both, no wrap), jokers (``"Jk"``) wild, every meld with at least 2
natural cards; two packs, so a hand is a multiset and a run never holds the
same card twice.

:func:`find_go_down` is exact: it returns melds laying exactly the contract
when any exist, and None only when none exist. In rounds 1-6
(``whole_hand=False``) the melds leave at least ``keep`` cards in the hand
(one to discard); in round 7 (``whole_hand=True``) they use every card.

How it stays fast (the search works on counts, never on card lists):

- A hand is, per suit, two 13-bit rank masks (holds one copy / holds two)
  plus a joker count; taking a run's naturals is three bit operations.
- Rounds 1-6 only need *minimal* melds: any meld can be trimmed (drop a
  joker end, or a natural while 2 remain) down to a set of 3 cards, a run of
  4, or a run of two naturals at its ends with jokers between; trimmed cards
  simply stay in the hand. So only those are searched.
- Sets only care about how many naturals of each rank are left: the least
  number of jokers for ``s`` sets is the sum of the ``s`` smallest marginal
  costs over ranks (the cost of a rank's m-th set grows with m), no search.
- With at most one run, runs are enumerated and the sets are costed as
  above. With two runs or more, the sets are enumerated (naturals by suit)
  and the runs costed per suit with a memoised table of (jokers, cards)
  trade-offs, combined over the suits.
- Round 7 enumerates the run (any length) only with the naturals it must
  hold: every natural left out must fit a set, and sets span at most ``s``
  ranks, which prunes almost every window at once.

Run cards are returned low to high with jokers at their positions, ready
for ``RummyNewMeld``. The reference bots (:mod:`referee.games.rummy.bots`) search with it; the
engine's own checks of melds as laid are :mod:`referee.games.rummy.melds`. It imports nothing
but the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

RANKS = "23456789TJQKA"
SUITS = "cdhs"
JOKER = "Jk"
_ACE = 12  # rank index of the ace
_MASK13 = (1 << 13) - 1

Masks = tuple[tuple[int, int], ...]  # per suit: (holds >= 1 copy, holds 2 copies), 13-bit rank masks


@dataclass(frozen=True)
class FoundMeld:
    """A meld to lay: ``kind`` is "set" or "run"; a run's ``cards`` go low to high, jokers at their positions."""

    kind: str
    cards: tuple[str, ...]


# -- hand <-> masks --------------------------------------------------------------


def _masks(hand: Iterable[str]) -> tuple[Masks, int, int]:
    """(per-suit masks, jokers, hand size); raises ValueError for a non-card or a third copy."""
    one = [0, 0, 0, 0]
    two = [0, 0, 0, 0]
    jokers = size = 0
    for c in hand:
        size += 1
        if c == JOKER:
            jokers += 1
            continue
        if len(c) != 2 or c[0] not in RANKS or c[1] not in SUITS:
            raise ValueError(f"not a card: {c!r}")
        s, b = SUITS.index(c[1]), 1 << RANKS.index(c[0])
        if two[s] & b:
            raise ValueError(f"more than two copies of {c}")
        if one[s] & b:
            two[s] |= b
        else:
            one[s] |= b
    return tuple(zip(one, two)), jokers, size


def _pos_mask(ranks: int) -> int:
    """Rank mask -> position mask (bit p for position p: 1 = low ace, 2..13, 14 = high ace)."""
    return (ranks << 2) | (((ranks >> _ACE) & 1) << 1)


def _rank_mask(positions: int) -> int:
    """Position mask -> rank mask."""
    return ((positions >> 2) & _MASK13) | (((positions >> 1) & 1) << _ACE)


def _take(pair: tuple[int, int], ranks: int) -> tuple[int, int]:
    """Remove one copy of each rank in ``ranks`` (all held) from a suit's masks."""
    one, two = pair
    return (one & ~ranks) | (two & ranks), two & ~ranks


def _rank_counts(masks: Masks) -> list[int]:
    return [sum(((o >> r) & 1) + ((t >> r) & 1) for o, t in masks) for r in range(13)]


def _run_cards(suit: int, start: int, length: int, naturals: int) -> tuple[str, ...]:
    out = []
    for p in range(start, start + length):
        if naturals >> p & 1:
            out.append(("A" if p in (1, 14) else RANKS[p - 2]) + SUITS[suit])
        else:
            out.append(JOKER)
    return tuple(out)


def _submasks(mask: int, min_bits: int) -> Iterator[int]:
    """Submasks of ``mask`` with at least ``min_bits`` bits, largest first."""
    sub = mask
    while sub:
        if sub.bit_count() >= min_bits:
            yield sub
        sub = (sub - 1) & mask


# -- sets by counts ------------------------------------------------------------------


def _set_costs(counts: Sequence[int], sets: int) -> tuple[int, list[int]] | None:
    """Least jokers for ``sets`` minimal sets from ``counts`` naturals per rank, and the ranks (one per set).

    The m-th set of a rank with c naturals needs c >= 2m and costs
    max(0, 3m - c) - max(0, 3(m - 1) - c) more jokers; these marginal costs
    grow with m, so the cheapest choice is the ``sets`` smallest of them.
    None if fewer than ``sets`` sets can be made at all.
    """
    if sets == 0:
        return 0, []
    options = []
    for r, c in enumerate(counts):
        for m in range(1, min(sets, c // 2) + 1):
            options.append((max(0, 3 * m - c) - max(0, 3 * (m - 1) - c), r))
    if len(options) < sets:
        return None
    options.sort()
    chosen = options[:sets]
    return sum(cost for cost, _ in chosen), [r for _, r in chosen]


def _all_sets_cost(counts: Sequence[int], jokers: int, sets: int) -> list[int] | None:
    """Round 7: can ``sets`` sets hold every natural counted and every joker? Returns the ranks (one per set) or None."""
    present = [r for r, c in enumerate(counts) if c]
    if len(present) > sets or any(counts[r] < 2 for r in present):
        return None
    if sets == 0:
        return [] if jokers == 0 else None
    need = sum(max(0, 3 - counts[r]) for r in present)
    extra = []
    for r in present:
        c = counts[r]
        for m in range(2, c // 2 + 1):
            extra.append((max(0, 3 * m - c) - max(0, 3 * (m - 1) - c), r))
    more = sets - len(present)
    if len(extra) < more:
        return None
    extra.sort()
    need += sum(cost for cost, _ in extra[:more])
    if need > jokers:
        return None
    return sorted(present + [r for _, r in extra[:more]])


def _build_sets(masks: Masks, ranks: Sequence[int], jokers: int, whole: bool) -> list[FoundMeld]:
    """Cards for sets of the given ranks (one entry per set) from what ``masks`` hold.

    Minimal sets (3 cards) unless ``whole``: then every natural of those ranks
    and every joker go in, the spare jokers on the first set.
    """
    pool: dict[int, list[str]] = {}
    for r in set(ranks):
        cards = []
        for s, (o, t) in enumerate(masks):
            cards += [RANKS[r] + SUITS[s]] * (((o >> r) & 1) + ((t >> r) & 1))
        pool[r] = cards
    per_rank: dict[int, int] = {}
    for r in ranks:
        per_rank[r] = per_rank.get(r, 0) + 1
    melds: list[FoundMeld] = []
    left_jokers = jokers
    for r, m in sorted(per_rank.items()):
        cards = pool[r]
        if whole:
            # spread: each set 2 naturals first, the rest to the sets in turn
            groups: list[list[str]] = [cards[2 * i: 2 * i + 2] for i in range(m)]
            for i, c in enumerate(cards[2 * m:]):
                groups[i % m].append(c)
        else:
            groups = []
            rest = list(cards)
            for i in range(m):
                remaining_sets = m - i - 1
                take = 3 if len(rest) - 3 >= 2 * remaining_sets else 2
                groups.append(rest[:take])
                rest = rest[take:]
        for g in groups:
            while len(g) < 3:
                g.append(JOKER)
                left_jokers -= 1
            melds.append(FoundMeld("set", tuple(g)))
    if whole and left_jokers > 0 and melds:
        first = melds[0]
        melds[0] = FoundMeld("set", first.cards + (JOKER,) * left_jokers)
    return melds


# -- runs --------------------------------------------------------------------------------


def _minimal_runs(one: int, max_jokers: int) -> list[tuple[int, int, int, int]]:
    """Minimal runs of one suit from its held ranks ``one``: (jokers, start, length, natural positions).

    Windows of 4 with any 2+ of their held positions, and runs of two naturals
    at their ends with only jokers between (rules §3.1 limits: positions
    1..14, at most 13 long, so never both aces).
    """
    pm = _pos_mask(one)
    out = []
    for start in range(1, 12):
        held = pm & (0b1111 << start)
        if held.bit_count() < 2:
            continue
        for sub in _submasks(held, 2):
            j = 4 - sub.bit_count()
            if j <= max_jokers:
                out.append((j, start, 4, sub))
    positions = [p for p in range(1, 15) if pm >> p & 1]
    for i, a in enumerate(positions):
        for b in positions[i + 1:]:
            length = b - a + 1
            if length >= 5 and length - 2 <= max_jokers and length <= 13:
                out.append((length - 2, a, length, (1 << a) | (1 << b)))
    out.sort()
    return out


@lru_cache(maxsize=65536)
def _suit_runs(one: int, two: int, k: int, max_jokers: int) -> tuple[tuple[int, int, tuple[tuple[int, int, int], ...]], ...]:
    """Pareto-minimal ways to make ``k`` minimal runs in one suit: (jokers, cards, runs as (start, length, naturals))."""
    if k == 0:
        return ((0, 0, ()),)
    if k == 1:
        return _best_single_run(one, max_jokers)
    found: dict[tuple[int, int], tuple[tuple[int, int, int], ...]] = {}
    for j, start, length, sub in _minimal_runs(one, max_jokers):
        o2, t2 = _take((one, two), _rank_mask(sub))
        for j2, n2, runs in _suit_runs(o2, t2, k - 1, max_jokers - j):
            key = (j + j2, length + n2)
            if key not in found:
                found[key] = ((start, length, sub),) + runs
    return _pareto(found)


def _best_single_run(one: int, max_jokers: int) -> tuple[tuple[int, int, tuple[tuple[int, int, int]]], ...]:
    """The one Pareto-minimal single run of a suit: a window of 4 with the most naturals (at most
    2 jokers) beats every longer run (3+ jokers, 5+ cards); failing that, the shortest run with
    two naturals at its ends."""
    pm = _pos_mask(one)
    best = None
    for start in range(1, 12):
        held = pm & (0b1111 << start)
        if held.bit_count() >= 2 and (best is None or held.bit_count() > best[1].bit_count()):
            best = (start, held)
    if best is not None:
        j = 4 - best[1].bit_count()
        return ((j, 4, ((best[0], 4, best[1]),)),) if j <= max_jokers else ()
    positions = [p for p in range(1, 15) if pm >> p & 1]
    gaps = [(b - a + 1, a, b) for a, b in zip(positions, positions[1:]) if b - a + 1 <= 13]
    if not gaps:
        return ()
    length, a, b = min(gaps)
    if length - 2 > max_jokers:
        return ()
    return ((length - 2, length, ((a, length, (1 << a) | (1 << b)),)),)


def _pareto(found: dict[tuple[int, int], tuple]) -> tuple:
    out = []
    best_cards = None
    for (j, n) in sorted(found):
        if best_cards is None or n < best_cards:
            out.append((j, n, found[(j, n)]))
            best_cards = n
    return tuple(out)


def _runs_over_suits(masks: Masks, k: int, max_jokers: int) -> tuple:
    """Pareto-minimal (jokers, cards, runs as (suit, start, length, naturals)) for ``k`` runs over all suits."""
    options: dict[tuple[int, int, int], tuple] = {(0, 0, 0): ()}
    for s, (one, two) in enumerate(masks):
        nxt: dict[tuple[int, int, int], tuple] = {}
        for (used, j, n), runs in options.items():
            for extra in range(0, k - used + 1):
                for j2, n2, runs2 in _suit_runs(one, two, extra, max_jokers - j):
                    key = (used + extra, j + j2, n + n2)
                    if key not in nxt:
                        nxt[key] = runs + tuple((s,) + r for r in runs2)
        options = nxt
    return _pareto({(j, n): runs for (used, j, n), runs in options.items() if used == k})


# -- set choices, for the sets-first search ------------------------------------------------


def _set_choices(masks: Masks) -> list[tuple[int, int, tuple[int, ...]]]:
    """Minimal sets by naturals: (rank, jokers 0 or 1, suits of its 2 or 3 naturals, a multiset)."""
    out = []
    for r in range(13):
        suits: list[int] = []
        for s, (o, t) in enumerate(masks):
            suits += [s] * (((o >> r) & 1) + ((t >> r) & 1))
        if len(suits) < 2:
            continue
        seen = set()
        for size, j in ((3, 0), (2, 1)):
            for combo in _multisubsets(suits, size):
                if combo not in seen:
                    seen.add(combo)
                    out.append((r, j, combo))
    return out


def _multisubsets(items: Sequence[int], size: int) -> Iterator[tuple[int, ...]]:
    have = {x: items.count(x) for x in set(items)}
    for combo in combinations_with_replacement(sorted(have), size):
        if all(combo.count(x) <= have[x] for x in set(combo)):
            yield combo


def _take_set(masks: Masks, rank: int, suits: Sequence[int]) -> Masks | None:
    m = list(masks)
    b = 1 << rank
    for s in suits:
        o, t = m[s]
        if not o & b:
            return None
        m[s] = _take((o, t), b)
    return tuple(m)


# -- the search -------------------------------------------------------------------------------


def find_go_down(hand: Sequence[str], sets: int, runs: int, whole_hand: bool = False, keep: int = 1) -> list[FoundMeld] | None:
    """Melds laying exactly ``sets`` sets and ``runs`` runs from ``hand``, or None if no way exists.

    ``hand``: cards like ``"Ah"``/``"Jk"`` (a multiset, two copies at most of
    a natural card). Rounds 1-6 (``whole_hand`` False): minimal melds leaving
    at least ``keep`` cards in hand (rules §3.7). Round 7 (``whole_hand``
    True): every card is melded (rules §3.8). Raises ValueError for a
    non-card. Exact: None means no way exists.
    """
    masks, jokers, size = _masks(hand)
    if whole_hand:
        return _search_whole(masks, jokers, sets, runs)
    budget = size - keep
    if runs <= 1:
        return _search_runs_first(masks, jokers, sets, runs, budget)
    return _search_sets_first(masks, jokers, sets, runs, budget)


def _search_runs_first(masks: Masks, jokers: int, sets: int, runs: int, budget: int) -> list[FoundMeld] | None:
    if runs == 0:
        if 3 * sets > budget:
            return None
        got = _set_costs(_rank_counts(masks), sets)
        if got is None or got[0] > jokers:
            return None
        return _build_sets(masks, got[1], jokers, whole=False)
    for s, (one, two) in enumerate(masks):
        for j, start, length, sub in _minimal_runs(one, jokers):
            if length + 3 * sets > budget:
                continue
            m = list(masks)
            m[s] = _take((one, two), _rank_mask(sub))
            rest = _search_runs_first(tuple(m), jokers - j, sets, runs - 1, budget - length)
            if rest is not None:
                return [FoundMeld("run", _run_cards(s, start, length, sub))] + rest
    return None


def _search_sets_first(masks: Masks, jokers: int, sets: int, runs: int, budget: int) -> list[FoundMeld] | None:
    choices = _set_choices(masks) if sets else []

    def rec(masks: Masks, jokers: int, k: int, first: int, chosen: list[tuple[int, tuple[int, ...]]]) -> list[FoundMeld] | None:
        if k == 0:
            room = budget - 3 * sets
            for j, n, found in _runs_over_suits(masks, runs, jokers):
                if n <= room:
                    melds = [FoundMeld("set", tuple(RANKS[r] + SUITS[s] for s in suits) + (JOKER,) * (3 - len(suits))) for r, suits in chosen]
                    return melds + [FoundMeld("run", _run_cards(s, st, ln, sub)) for s, st, ln, sub in found]
            return None
        for i in range(first, len(choices)):
            r, j, suits = choices[i]
            if j > jokers:
                continue
            m = _take_set(masks, r, suits)
            if m is None:
                continue
            got = rec(m, jokers - j, k - 1, i, chosen + [(r, suits)])
            if got is not None:
                return got
        return None

    return rec(masks, jokers, sets, 0, [])


def _search_whole(masks: Masks, jokers: int, sets: int, runs: int) -> list[FoundMeld] | None:
    """Round 7: every card melded; runs enumerated with only the naturals they must hold."""
    if runs == 0:
        ranks = _all_sets_cost(_rank_counts(masks), jokers, sets)
        return None if ranks is None else _build_sets(masks, ranks, jokers, whole=True)
    if runs == 1 and sets >= 1:
        return _whole_one_run(masks, jokers, sets)
    counts = _rank_counts(masks)
    for s, (one, two) in enumerate(masks):
        pm = _pos_mask(one)
        for start in range(1, 12):
            for length in range(4, min(13, 15 - start) + 1):
                held = pm & (((1 << length) - 1) << start)
                if held.bit_count() < 2 or length - held.bit_count() > jokers:
                    continue
                for sub in _whole_run_subsets(held, counts, sets, runs):
                    j = length - sub.bit_count()
                    if j > jokers:
                        continue
                    m = list(masks)
                    m[s] = _take((one, two), _rank_mask(sub))
                    rest = _search_whole(tuple(m), jokers - j, sets, runs - 1)
                    if rest is not None:
                        return [FoundMeld("run", _run_cards(s, start, length, sub))] + rest
    return None


def _whole_one_run(masks: Masks, jokers: int, sets: int) -> list[FoundMeld] | None:
    """Round 7 with one run and 1+ sets: choose the run's naturals by rank, never its window.

    Sets absorb any number of jokers, so for a given set of naturals the
    shortest window holding them is best. The naturals the run leaves out
    must fall in at most ``sets`` ranks together with every other natural.
    """
    counts = _rank_counts(masks)
    for s, (one, two) in enumerate(masks):
        if one.bit_count() < 2:
            continue
        ranks = [r for r in range(13) if one >> r & 1]
        base = {r for r in range(13) if counts[r] - (one >> r & 1) > 0}
        if len(base) > sets:
            continue
        free = [r for r in ranks if r in base]        # may go to a set at no extra cost
        costly = [r for r in ranks if r not in base]  # each one left out opens a set rank
        room = sets - len(base)
        for k in range(0, min(room, len(costly)) + 1):
            for out2 in combinations(costly, k):
                for mask1 in range(1 << len(free)):
                    out = set(out2) | {free[i] for i in range(len(free)) if mask1 >> i & 1}
                    kept = [r for r in ranks if r not in out]
                    if len(kept) < 2:
                        continue
                    rest = list(counts)
                    for r in kept:
                        rest[r] -= 1
                    for ace_low in ((True, False) if _ACE in kept else (False,)):
                        pos = sorted((1 if (r == _ACE and ace_low) else r + 2) for r in kept)
                        span = pos[-1] - pos[0] + 1
                        if span > 13:
                            continue
                        length = max(4, span)
                        j = length - len(kept)
                        if j > jokers:
                            continue
                        found = _all_sets_cost(rest, jokers - j, sets)
                        if found is None:
                            continue
                        start = min(pos[0], 15 - length)
                        sub = sum(1 << p for p in pos)
                        m = list(masks)
                        m[s] = _take((one, two), _rank_mask(sub))
                        run = FoundMeld("run", _run_cards(s, start, length, sub))
                        return [run] + _build_sets(tuple(m), found, jokers - j, whole=True)
    return None


def _whole_run_subsets(held: int, counts: Sequence[int], sets: int, runs: int) -> Iterator[int]:
    """Natural positions a round-7 run may hold out of ``held``: those leaving at most ``sets`` ranks for sets.

    With more runs still to lay nothing is pruned (they may take the rest).
    """
    if runs > 1:
        yield from _submasks(held, 2)
        return
    ranks_taken = _rank_mask(held)
    rest = [c - ((ranks_taken >> r) & 1) for r, c in enumerate(counts)]
    base = {r for r, c in enumerate(rest) if c}
    if len(base) > sets:
        return
    positions = [p for p in range(1, 15) if held >> p & 1]

    def rec(i: int, sub: int, ranks: frozenset[int]) -> Iterator[int]:
        if i == len(positions):
            if sub.bit_count() >= 2:
                yield sub
            return
        p = positions[i]
        bit = 1 << p
        yield from rec(i + 1, sub | bit, ranks)  # the run holds it
        r = _ACE if p in (1, 14) else p - 2
        grown = ranks | {r}
        if len(grown) <= sets:
            yield from rec(i + 1, sub, grown)  # a set holds it

    yield from rec(0, 0, frozenset(base))


# -- lay-offs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table as a bot sees it: ``stands_for`` as in ``RummyMeld`` (a run's positions)."""

    id: int
    kind: str  # "set" or "run"
    cards: tuple[str, ...]
    stands_for: tuple[str, ...]


@dataclass(frozen=True)
class FoundLayOff:
    """One card laid off: on meld ``meld_id``; ``end`` is "low"/"high" for a run, "" for a set."""

    meld_id: int
    card: str
    end: str


def _position(card: str) -> int:
    return 14 if card[0] == "A" else RANKS.index(card[0]) + 2


def find_lay_offs(hand: Sequence[str], melds: Sequence[TableMeld], keep: int = 1, jokers: bool = True) -> list[FoundLayOff]:
    """Cards of ``hand`` that can be laid off on ``melds``, one at a time in order, keeping ``keep`` cards.

    Greedy: naturals first (a run end extended may make room for the next
    card), then jokers when ``jokers`` is True (on a set, else a run's end).
    Each lay-off keeps its meld valid (rules §3.7). Returns them in the
    order to lay them.
    """
    left = list(hand)
    state = {}
    for m in melds:
        if m.kind == "set":
            rank = next((c[0] for c in m.cards if c != JOKER), "")
            state[m.id] = ("set", rank, "", 0, 0)
        else:
            first = m.stands_for[0]
            low = 1 if (first[0] == "A" and len(m.stands_for) > 1 and m.stands_for[1][0] == "2") else _position(first)
            state[m.id] = ("run", "", first[1], low, low + len(m.cards) - 1)
    out: list[FoundLayOff] = []
    progress = True
    while progress and len(left) > keep:
        progress = False
        for card in sorted(set(left), key=lambda c: (c == JOKER, c)):  # a fixed order: the same answer in every process
            if card == JOKER and not jokers:
                continue
            for mid, (kind, rank, suit, low, high) in state.items():
                if len(left) <= keep:
                    break
                if kind == "set":
                    if card == JOKER or card[0] == rank:
                        out.append(FoundLayOff(mid, card, ""))
                        left.remove(card)
                        progress = True
                        break
                    continue
                if high - low + 1 >= 13:
                    continue
                if card == JOKER:
                    if high < 14:
                        state[mid] = (kind, rank, suit, low, high + 1)
                        out.append(FoundLayOff(mid, card, "high"))
                    elif low > 1:
                        state[mid] = (kind, rank, suit, low - 1, high)
                        out.append(FoundLayOff(mid, card, "low"))
                    else:
                        continue
                    left.remove(card)
                    progress = True
                    break
                if card[1] != suit:
                    continue
                p = _position(card)
                if p == high + 1 or (card[0] == "A" and high + 1 == 14):
                    state[mid] = (kind, rank, suit, low, high + 1)
                    out.append(FoundLayOff(mid, card, "high"))
                elif p == low - 1 or (card[0] == "A" and low - 1 == 1):
                    state[mid] = (kind, rank, suit, low - 1, high)
                    out.append(FoundLayOff(mid, card, "low"))
                else:
                    continue
                left.remove(card)
                progress = True
                break
            if progress:
                break
    return out
