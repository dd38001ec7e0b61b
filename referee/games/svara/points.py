"""Svara hand points: a pure scoring function (rules §2.1, 2.2).

A hand is three distinct cards of the 36-card pack (``6``..``A`` in ``cdhs``),
written as the platform writes cards (``"Ah"``, ``"Td"``, ``"6c"``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from referee.cards import BadCard, is_card

#: The ranks of the Svara pack, low to high (rules §2: one 36-card pack, 6 to ace).
SVARA_RANKS = "6789TJQKA"

#: Card points by rank (rules §2.1): A = 11; K, Q, J, T = 10; 9..6 = face value.
CARD_POINTS = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11}

#: What the szacha counts wherever it stands (rules §2.1).
SZACHA_POINTS = 11

#: The highest hand: two aces and the szacha as the third ace (rules §2.2).
MAX_POINTS = 33


class BadHand(BadCard):
    """Not a Svara hand: a non-card, a card outside the 36-card pack, a wrong count or a duplicate."""


def is_svara_card(card: object) -> bool:
    """Whether ``card`` is a card of the 36-card Svara pack."""
    return is_card(card) and card != "Jk" and card[0] in SVARA_RANKS  # type: ignore[index]


def card_points(card: str) -> int:
    """Points of one natural card (rules §2.1); raises BadHand outside the 36-card pack."""
    if not is_svara_card(card):
        raise BadHand(f"not a card of the 36-card Svara pack: {card!r}")
    return CARD_POINTS[card[0]]


def check_hand(hand: Iterable[object], szacha: str = "6c") -> tuple[str, str, str]:
    """Return ``hand`` as a tuple of three cards, or raise BadHand (a ValueError) saying why."""
    if not is_svara_card(szacha):
        raise BadHand(f"the szacha must be a card of the 36-card pack, not {szacha!r}")
    cards = tuple(hand)
    if len(cards) != 3:
        raise BadHand(f"a Svara hand has 3 cards, not {len(cards)}: {cards!r}")
    for c in cards:
        if not is_svara_card(c):
            raise BadHand(f"not a card of the 36-card Svara pack: {c!r}")
    if len(set(cards)) != 3:
        raise BadHand(f"duplicate card in {cards!r}")
    return cards  # type: ignore[return-value]


def hand_points(hand: Iterable[str], szacha: str = "6c") -> int:
    """Points of a three-card hand, 6..33 (rules §2.2).

    The largest of: (a) the sum of the cards of one suit holding 2 or 3 of the
    hand's cards; (b) three of one rank: their sum; (c) two aces: 22; (d) the
    highest single card. The ``szacha`` (default ``"6c"``) is wild: it joins
    whichever combination scores most and always counts 11 (rules §2.1).
    Examples: ``Ah Kh Qh`` = 31, ``Ah Kh 6c`` = 32, ``As Ad 6c`` = 33,
    ``Ks Kh 9d`` = 10, ``Ks Kh 9s`` = 19, ``As Ad 7c`` = 22, ``6h 6d 6c`` = 23.

    Raises BadHand (a ValueError) for non-cards, cards outside the 36-card
    pack, a count other than 3, or duplicates.
    """
    cards = hand if type(hand) is tuple else tuple(hand)
    try:
        return _points(cards, szacha)  # type: ignore[arg-type]
    except TypeError:  # something unhashable in the hand: not a card, which check_hand says
        return _count(cards, szacha)  # type: ignore[arg-type]


@lru_cache(maxsize=1 << 16)
def _points(cards: tuple[str, ...], szacha: str) -> int:
    """:func:`hand_points`, kept by hand and szacha (a pure function of them, asked for again and again by the bots
    and the duplicate audit: at most 42,840 hands in the order they are held, for one szacha; a refused hand is not
    kept)."""
    return _count(cards, szacha)


def _count(hand: tuple[str, ...], szacha: str) -> int:
    """:func:`hand_points`, counted."""
    cards = check_hand(hand, szacha)
    wild = 1 if szacha in cards else 0
    naturals = [c for c in cards if c != szacha]
    extra = SZACHA_POINTS * wild
    best = extra  # (d) the szacha alone counts 11
    # (a) suits: the szacha joins any suit that holds at least one natural card.
    sums: dict[str, list[int]] = {}
    for c in naturals:
        entry = sums.setdefault(c[1], [0, 0])
        entry[0] += CARD_POINTS[c[0]]
        entry[1] += 1
    for total, count in sums.values():
        if count + wild >= 2:
            best = max(best, total + extra)
    # (b) three of one rank, the szacha standing for the third.
    if len({c[0] for c in naturals}) == 1:
        best = max(best, sum(CARD_POINTS[c[0]] for c in naturals) + extra)
    # (c) two aces (three aces are covered by (b)).
    if sum(1 for c in naturals if c[0] == "A") + wild >= 2:
        best = max(best, 22)
    # (d) the highest single card.
    best = max(best, max(CARD_POINTS[c[0]] for c in naturals))
    return best
