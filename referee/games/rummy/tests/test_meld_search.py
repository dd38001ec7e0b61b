"""The bots' meld search (referee.games.rummy.meld_search): exact against a brute force, fast on adversarial hands."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator

import pytest

from referee.games.rummy.meld_search import FoundMeld, TableMeld, find_go_down, find_lay_offs
from referee.games.rummy import is_run, is_set
from referee.games.rummy.melds import MeldKind, RunEnd, lay_off, new_meld
from referee.games.rummy.rules import CONTRACTS

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"] * 2 + ["Jk"] * 6
#: A few ranks and two suits make near-misses (and so long searches) likely.
DENSE = [r + s for r in "A2345" for s in "hs"] * 2 + [r + s for r in "89TJ" for s in "dh"] + ["Jk"] * 4


def _submultisets(counter: Counter[str], low: int) -> Iterator[tuple[str, ...]]:
    items = sorted(counter.items())

    def rec(i: int, cur: list[str]) -> Iterator[tuple[str, ...]]:
        if i == len(items):
            if len(cur) >= low:
                yield tuple(cur)
            return
        card, n = items[i]
        for k in range(n + 1):
            yield from rec(i + 1, cur + [card] * k)

    yield from rec(0, [])


def brute_force(hand: list[str], sets: int, runs: int, whole: bool) -> bool:
    """Every way to pick the melds one after another, checked with the engine's is_set / is_run."""

    def rec(rest: Counter[str], s: int, r: int) -> bool:
        if s == 0 and r == 0:
            left = rest.total()
            return left == 0 if whole else left >= 1
        is_ok, low = (is_set, 3) if s else (is_run, 4)
        for meld in _submultisets(rest, low):
            if is_ok(meld) and rec(rest - Counter(meld), s - (1 if s else 0), r - (0 if s else 1)):
                return True
        return False

    return rec(Counter(hand), sets, runs)


def assert_valid(hand: list[str], melds: list[FoundMeld], sets: int, runs: int, whole: bool) -> None:
    """The melds are laid as the engine wants them: exactly the contract, cards held, a card kept (or none in round 7)."""
    used: Counter[str] = Counter()
    for m in melds:
        new_meld(0, 0, MeldKind.SET if m.kind == "set" else MeldKind.RUN, m.cards)
        used.update(m.cards)
    assert [m.kind for m in melds].count("set") == sets and [m.kind for m in melds].count("run") == runs
    assert not used - Counter(hand)
    left = (Counter(hand) - used).total()
    assert left == 0 if whole else left >= 1


def _cases(n: int, seed: int) -> list[tuple[list[str], int, int, bool]]:
    rng = random.Random(seed)
    contracts = list(CONTRACTS.values()) + [(1, 0), (0, 1), (2, 2)]
    out = []
    for _ in range(n):
        sets, runs = rng.choice(contracts)
        whole = rng.random() < 0.3
        pool = DENSE if rng.random() < 0.7 else DECK
        out.append((rng.sample(pool, rng.randint(6, 10)), sets, runs, whole))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_exact_against_brute_force(seed: int) -> None:
    for hand, sets, runs, whole in _cases(400, seed):
        found = find_go_down(hand, sets, runs, whole_hand=whole)
        assert (found is not None) == brute_force(hand, sets, runs, whole), (hand, sets, runs, whole)
        if found is not None:
            assert_valid(hand, found, sets, runs, whole)


ADVERSARIAL = [
    # (hand, round, expect a way down)
    ("5h 6h 7h 8h 9h 5s 6s 7s 8s 9s Jk Jk Jk Jk Jk Jk", 6, True),  # the prototype's 133 ms hand
    ("5h 6h 7h 8h 9h 5s 6s 7s 8s 9s Jk Jk Jk Jk Jk Jk", 7, False),
    ("5h 6h 7h 8h 9h 5s 6s 7s 8s 9s Jk Jk Jk Jk Jk Jk", 3, True),
    ("Ah 3h 5h 7h 9h Jh Kh As 3s 5s 7s 9s Js Ks Jk Jk", 6, False),  # each run needs 2 jokers
    ("Ah 3h 5h 7h 9h Jh Kh As 3s 5s 7s 9s Js Ks 2d 4c", 6, False),  # no jokers, no 4 in a row
    ("2h 2s 3h 3s 4h 4s 5h 5s 6h 6s 7h 7s 8h 8s Jk Jk", 6, True),
    ("2h 2s 3h 3s 4h 4s 5h 5s 6h 6s 7h 7s 8h 8s Jk Jk", 7, False),
    ("2c 5d 8h Js 3c 6d 9h Qs 4c 7d Th Ks Ac Jk", 6, False),
    ("2c 2d 2h 5c 5d 5h 9s 9s 9d Ts Js Qs Ks As", 7, True),
    ("2c 2d 2h 5c 5d 5h 9s 9s 9d Ts Js Qs Ks As", 5, True),
    ("Ah Ah 2h 2h 3h 3h 4h 4h 5h 5h 6h 6h 7h 7h Jk Jk", 6, True),
    ("Ah Ah 2h 2h 3h 3h 4h 4h 5h 5h 6h 6h 7h 7h Jk Jk", 7, False),
]


@pytest.mark.parametrize(("hand", "rnd", "expected"), ADVERSARIAL)
def test_adversarial_hands_fast_and_right(hand: str, rnd: int, expected: bool) -> None:
    cards = hand.split()
    sets, runs = CONTRACTS[rnd]
    start = time.perf_counter()
    found = find_go_down(cards, sets, runs, whole_hand=rnd == 7)
    elapsed = time.perf_counter() - start
    assert (found is not None) is expected
    if found is not None:
        assert_valid(cards, found, sets, runs, rnd == 7)
    assert elapsed < 0.05, f"{elapsed * 1000:.1f} ms"


def test_round_7_melds_the_whole_hand() -> None:
    hand = "2c 2d 2h 5c 5d 5h 9s 9s 9d Ts Js Qs Ks As Jk".split()
    found = find_go_down(hand, 3, 1, whole_hand=True)
    assert found is not None
    assert Counter(c for m in found for c in m.cards) == Counter(hand)
    assert find_go_down(hand + ["4c"], 3, 1, whole_hand=True) is None


def test_keep_leaves_cards() -> None:
    hand = "7h 7d 7c 9s 9d 9c".split()
    assert find_go_down(hand, 2, 0, keep=0) is not None
    assert find_go_down(hand, 2, 0) is None  # one card must be kept to discard
    assert find_go_down(hand + ["Kc"], 2, 0) is not None


def test_bad_cards_are_refused() -> None:
    with pytest.raises(ValueError):
        find_go_down(["7h", "7d", "Zz"], 1, 0)
    with pytest.raises(ValueError):
        find_go_down(["7h", "7h", "7h"], 1, 0)


def _table(*melds: tuple[str, str]) -> list[TableMeld]:
    out = []
    for i, (kind, cards) in enumerate(melds):
        m = new_meld(i, 0, MeldKind.SET if kind == "set" else MeldKind.RUN, cards.split())
        out.append(TableMeld(i, kind, m.cards, m.stands_for()))
    return out


def test_lay_offs_chain_and_keep_a_card() -> None:
    table = _table(("run", "5h 6h 7h 8h"), ("set", "Kc Kd Ks"), ("run", "Jk Qs Ks As"))
    hand = "9h Th 4h Kh 2c Jk".split()
    offs = find_lay_offs(hand, table, keep=1)
    laid = [o.card for o in offs]
    assert Counter(laid) + Counter(["2c"]) == Counter(hand) or len(hand) - len(laid) == 1
    # replaying them through the engine's lay_off keeps every meld valid
    melds = {i: new_meld(i, 0, MeldKind.SET if t.kind == "set" else MeldKind.RUN, t.cards) for i, t in enumerate(table)}
    for o in offs:
        end = {"low": RunEnd.LOW, "high": RunEnd.HIGH, "": None}[o.end]
        melds[o.meld_id] = lay_off(melds[o.meld_id], [o.card], end)
    assert melds[0].cards[:1] == ("4h",) and "Th" in melds[0].cards
    assert len(hand) - len(offs) == 1


def test_lay_offs_respect_the_ace_limits() -> None:
    table = _table(("run", "Jk Qs Ks As"), ("run", "Ah 2h 3h 4h"))
    assert find_lay_offs(["2s", "Kh"], table, keep=0) == []
    offs = find_lay_offs(["Ts", "5h"], table, keep=0)
    assert sorted((o.meld_id, o.card, o.end) for o in offs) == [(0, "Ts", "low"), (1, "5h", "high")]
