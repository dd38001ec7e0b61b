"""Svara hand points (rules §2.1, 2.2): known values, full-pack agreement with a
brute-force formulation written independently, and bad input."""

from __future__ import annotations

import itertools

import pytest

from referee.games.svara import PACK, hand_points
from referee.games.svara.points import MAX_POINTS, BadHand

RULES_EXAMPLES = [
    ("Ah Kh Qh", 31),
    ("Ah Kh 6c", 32),
    ("As Ad 6c", 33),
    ("Ks Kh 9d", 10),
    ("Ks Kh 9s", 19),
    ("As Ad 7c", 22),
    ("6h 6d 6c", 23),
]


@pytest.mark.parametrize(("hand", "points"), RULES_EXAMPLES)
def test_rules_examples(hand: str, points: int) -> None:
    assert hand_points(hand.split()) == points


@pytest.mark.parametrize(
    ("hand", "szacha", "points"),
    [
        ("7d 8s 9h", "6c", 9),        # festiwal: highest card
        ("7d 8s 6c", "6c", 19),       # szacha joins the 8: 8 + 11
        ("Th Jd Qs", "6c", 10),
        ("Ah 7h 7c", "6c", 18),       # Ah 7h flush; the pair of sevens adds nothing
        ("9s 9h 9d", "6c", 27),       # three nines
        ("Ac Ad Ah", "6c", 33),       # three aces
        ("6c 6h 6d", "7d", 18),       # with another szacha the sixes are natural
        ("7d 7h 7s", "7d", 25),       # szacha 7d: 7 + 7 + 11
        ("As Kd Qh", "Kd", 22),       # szacha joins the ace as an ace (or its suit)
    ],
)
def test_more_known_values(hand: str, szacha: str, points: int) -> None:
    assert hand_points(hand.split(), szacha) == points


VALUE = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11}


def brute_natural(cards: list[tuple[str, str, int]]) -> int:
    """Score (rank, suit, points) cards without wild cards by enumerating every combination."""
    best = 0
    for size in (1, 2, 3):
        for combo in itertools.combinations(cards, size):
            ranks = {c[0] for c in combo}
            suits = {c[1] for c in combo}
            total = sum(c[2] for c in combo)
            if size == 1:
                best = max(best, total)
            elif len(suits) == 1:
                best = max(best, total)
            elif size == 3 and len(ranks) == 1:
                best = max(best, total)
            elif size == 2 and ranks == {"A"}:
                best = max(best, 22)
    return best


def brute_points(hand: tuple[str, ...], szacha: str) -> int:
    """Try every card the szacha could stand for (counting 11) and keep the best."""
    naturals = [(c[0], c[1], VALUE[c[0]]) for c in hand if c != szacha]
    if len(naturals) == 3:
        return brute_natural(naturals)
    return max(
        brute_natural(naturals + [(stand[0], stand[1], 11)])
        for stand in PACK
        if stand not in hand or stand == szacha
    )


@pytest.mark.parametrize("szacha", ["6c", "Kd"])
def test_full_pack_agrees_with_brute_force(szacha: str) -> None:
    hands = list(itertools.combinations(PACK, 3))
    assert len(hands) == 7140
    best = 0
    for hand in hands:
        points = hand_points(hand, szacha)
        assert points == brute_points(hand, szacha), hand
        best = max(best, points)
    assert best == MAX_POINTS == 33


@pytest.mark.parametrize(
    ("hand", "szacha"),
    [
        (["Ah", "Kh"], "6c"),
        (["Ah", "Kh", "Qh", "Jh"], "6c"),
        (["Ah", "Ah", "Kh"], "6c"),
        (["Ah", "Kh", "2c"], "6c"),     # not in the 36-card pack
        (["Ah", "Kh", "Xx"], "6c"),
        (["Ah", "Kh", "Jk"], "6c"),
        (["Ah", "Kh", 7], "6c"),
        (["Ah", "Kh", ["Qh"]], "6c"),  # unhashable: past the kept answers, refused as any other non-card
        (["Ah", "Kh", "Qh"], "5c"),     # szacha outside the pack
    ],
)
def test_bad_hands_raise_value_error(hand: list[object], szacha: str) -> None:
    with pytest.raises(BadHand):
        hand_points(hand, szacha)  # type: ignore[arg-type]
    assert issubclass(BadHand, ValueError)
