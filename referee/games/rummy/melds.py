"""Melds of contract rummy: sets, runs, lay-offs and card points (rules §3.1, §3.7, §3.9).

Cards are strings in the platform's notation (``"Ah"``, ``"Td"``, ``"Jk"``);
with two packs, lists of cards are multisets.

*Positions* number the places of a run: 1 is a low ace, 2..13 are the
ranks 2..K and 14 is a high ace. A run occupies consecutive positions inside
1..14 and never both 1 and 14 (``KA23`` is not a run, rules §3.1), so it
holds at most 13 cards and never the same card twice.

Public, order-free checks: :func:`is_set`, :func:`is_run`, :func:`hand_points`.
The engine's helpers for melds on the table: :func:`new_meld` (validates a
meld as laid, puts a run without jokers low to high, and fixes what each
joker stands for) and :func:`lay_off`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from referee.cards import JOKER, RANKS, SUITS, is_card
from referee.engine import IllegalAction

#: Minimum lengths (rules §3.1): a set 3 cards, a run 4.
MIN_SET, MIN_RUN = 3, 4
#: Every meld holds at least this many natural (non-joker) cards (rules §3.1).
MIN_NATURALS = 2
#: Positions of a run: 1 = low ace, 14 = high ace; a run spans at most 13 of them.
LOW_ACE, HIGH_ACE, MAX_RUN = 1, 14, 13

#: Card points (rules §3.9: 2 to 7 score 5).
_POINTS = {**{r: 5 for r in "234567"}, **{r: 10 for r in "89TJQK"}, "A": 20}
JOKER_POINTS = 50


class MeldKind(enum.Enum):
    """A set (tress) or a run (serie), rules §3.1 (mirrors ``RummyMeldKind``)."""

    SET = 1
    RUN = 2


class RunEnd(enum.Enum):
    """The end of a run a lay-off extends (mirrors ``RummyRunEnd``)."""

    LOW = 1
    HIGH = 2


def card_points(card: str) -> int:
    """Points of one card left in a hand (rules §3.9): 2-7 = 5, 8-K = 10, A = 20, joker = 50.

    Raises IllegalAction for a string that is not a card.
    """
    if card == JOKER:
        return JOKER_POINTS
    if not is_card(card):
        raise IllegalAction(f"not a card: {card!r}")
    return _POINTS[card[0]]


def hand_points(cards: Iterable[str]) -> int:
    """Points of the cards left in a hand at the end of a round (rules §3.9), in points.

    >>> hand_points(["2c", "8d", "Ah", "Jk"])
    85
    """
    return sum(card_points(c) for c in cards)


def rank_at(position: int) -> str:
    """The rank character at a run position (1 and 14 are aces)."""
    return "A" if position in (LOW_ACE, HIGH_ACE) else RANKS[position - 2]


def positions_of(card: str) -> tuple[int, ...]:
    """The run positions a natural card may take: (1, 14) for an ace, else one."""
    if card[0] == "A":
        return (LOW_ACE, HIGH_ACE)
    return (RANKS.index(card[0]) + 2,)


def _check_cards(cards: Sequence[object]) -> None:
    for c in cards:
        if not is_card(c):
            raise IllegalAction(f"not a card: {c!r} (cards are written like 'Ah', 'Td', '7s', '2c', or 'Jk')")


# -- order-free checks -------------------------------------------------------


def is_set(cards: Sequence[str]) -> bool:
    """Whether ``cards`` (any order) form a set: 3+ cards of one rank, jokers wild, 2+ naturals (rules §3.1).

    Suits are free and, with two packs, may repeat (``["7h", "7h", "7c"]`` is a set).
    Non-card strings make it False.
    """
    if len(cards) < MIN_SET or not all(is_card(c) for c in cards):
        return False
    naturals = [c for c in cards if c != JOKER]
    return len(naturals) >= MIN_NATURALS and len({c[0] for c in naturals}) == 1


def is_run(cards: Sequence[str]) -> bool:
    """Whether ``cards`` (any order) can be laid as a run (rules §3.1).

    A run is 4+ consecutive cards of one suit, jokers wild, 2+ naturals; the
    ace is low (``A234``) or high (``JQKA``), never both, and there is no wrap
    (``KA23``). A run never holds the same card twice. Non-card strings make it False.
    """
    if not MIN_RUN <= len(cards) <= MAX_RUN or not all(is_card(c) for c in cards):
        return False
    naturals = [c for c in cards if c != JOKER]
    if len(naturals) < MIN_NATURALS or len({c[1] for c in naturals}) != 1:
        return False
    if len(set(naturals)) != len(naturals):
        return False
    others = [positions_of(c)[0] for c in naturals if c[0] != "A"]
    has_ace = len(others) < len(naturals)
    for ace in ((LOW_ACE, HIGH_ACE) if has_ace else (None,)):
        pos = others + ([ace] if ace is not None else [])
        if max(pos) - min(pos) + 1 <= len(cards):
            return True  # a window of len(cards) <= 13 fits inside 1..14 around them
    return False


# -- melds on the table ------------------------------------------------------


@dataclass(frozen=True)
class Meld:
    """A meld on the table (rules §3.1): melds stay separate as laid.

    ``id`` is stable within the round (melds are numbered 0, 1, 2, ... in the
    order they are laid); ``owner`` is the seat that laid it; ``cards`` are as
    laid, a run from low to high (one laid without jokers is put in that
    order). For a run, ``start`` is the position of
    ``cards[0]`` (1 = low ace ... 14 = high ace) and ``suit`` its suit; for a
    set, ``rank`` is its rank. What a joker stands for is fixed when laid.
    """

    id: int
    owner: int
    kind: MeldKind
    cards: tuple[str, ...]
    rank: str = ""
    suit: str = ""
    start: int = 0

    @property
    def low(self) -> int:
        """A run's lowest position."""
        return self.start

    @property
    def high(self) -> int:
        """A run's highest position."""
        return self.start + len(self.cards) - 1

    def stands_for(self) -> tuple[str, ...]:
        """Parallel to ``cards``: the card each one counts as (a joker in a set counts as ``""``)."""
        if self.kind is MeldKind.SET:
            return tuple("" if c == JOKER else c for c in self.cards)
        return tuple(rank_at(self.start + i) + self.suit for i in range(len(self.cards)))


def _set_rank(cards: Sequence[str]) -> str:
    """The rank of a valid set laid as ``cards``; raises IllegalAction otherwise."""
    _check_cards(cards)
    if len(cards) < MIN_SET:
        raise IllegalAction(f"a set needs at least {MIN_SET} cards, got {list(cards)}")
    naturals = [c for c in cards if c != JOKER]
    if len(naturals) < MIN_NATURALS:
        raise IllegalAction(f"a meld needs at least {MIN_NATURALS} natural cards, got {list(cards)}")
    ranks = {c[0] for c in naturals}
    if len(ranks) != 1:
        raise IllegalAction(f"a set is of one rank, got {list(cards)}")
    return ranks.pop()


def _run_start(cards: Sequence[str]) -> tuple[int, str]:
    """(start position, suit) of a valid run laid low to high as ``cards``; raises IllegalAction otherwise."""
    _check_cards(cards)
    if len(cards) < MIN_RUN:
        raise IllegalAction(f"a run needs at least {MIN_RUN} cards, got {list(cards)}")
    if len(cards) > MAX_RUN:
        raise IllegalAction(f"a run holds at most {MAX_RUN} cards (the ace is low or high, never both)")
    naturals = [(i, c) for i, c in enumerate(cards) if c != JOKER]
    if len(naturals) < MIN_NATURALS:
        raise IllegalAction(f"a meld needs at least {MIN_NATURALS} natural cards, got {list(cards)}")
    suits = {c[1] for _, c in naturals}
    if len(suits) != 1:
        raise IllegalAction(f"a run is of one suit, got {list(cards)}")
    # A non-ace natural fixes the start; a run holds at most one ace (no card twice), so one exists.
    i0, c0 = next(((i, c) for i, c in naturals if c[0] != "A"), naturals[0])
    for p in positions_of(c0):
        start = p - i0
        if start < LOW_ACE or start + len(cards) - 1 > HIGH_ACE:
            continue
        if all(start + i in positions_of(c) for i, c in naturals):
            return start, suits.pop()
    raise IllegalAction(
        f"not a run: {list(cards)} (4+ consecutive cards of one suit; ace low A234 or high JQKA, no wrap; "
        "a run with jokers is laid low to high with each joker at its position)"
    )


def natural_run_order(cards: Sequence[str]) -> tuple[str, ...]:
    """A run without jokers put low to high (rules §3.1: a run is defined by its cards).

    ``["Ks", "Qs", "Js", "Ts"]`` gives ``("Ts", "Js", "Qs", "Ks")``; an ace
    goes low or high, wherever the run is consecutive. Cards holding a joker,
    or that are no run, are returned as given: a joker's place is its meaning.
    """
    if JOKER in cards or not is_run(cards):
        return tuple(cards)
    for ace in (LOW_ACE, HIGH_ACE):
        placed = sorted((ace if c[0] == "A" else positions_of(c)[0], c) for c in cards)
        if all(b[0] - a[0] == 1 for a, b in zip(placed, placed[1:])):
            return tuple(c for _, c in placed)
    return tuple(cards)  # unreachable: is_run found a window


def new_meld(meld_id: int, owner: int, kind: MeldKind, cards: Sequence[str]) -> Meld:
    """Validate a meld as laid and return it (rules §3.1).

    ``cards`` for a set in any order; for a run without jokers in any order
    (it is put low to high), for a run with jokers from low to high with the
    jokers at the positions they stand for (fixed from now on). Raises
    IllegalAction saying why for an invalid meld.
    """
    if kind is MeldKind.SET:
        return Meld(meld_id, owner, kind, tuple(cards), rank=_set_rank(cards))
    if kind is MeldKind.RUN:
        cards = natural_run_order(cards)
        start, suit = _run_start(cards)
        return Meld(meld_id, owner, kind, tuple(cards), suit=suit, start=start)
    raise IllegalAction(f"unknown meld kind {kind!r}")


def lay_off(meld: Meld, cards: Sequence[str], end: RunEnd | None) -> Meld:
    """The meld after laying off ``cards`` on it (rules §3.7); raises IllegalAction if it would break.

    On a set: any card of its rank, or a joker (``end`` is ignored). On a run:
    ``end`` (required) names the end extended and ``cards`` go outward from
    it, one position each; a natural must be the card of its position and a
    joker takes the card of that position. The run must stay inside positions
    1..14 without holding both aces.
    """
    _check_cards(cards)
    if not cards:
        raise IllegalAction(f"a lay-off on meld {meld.id} names no cards")
    if meld.kind is MeldKind.SET:
        wrong = [c for c in cards if c != JOKER and c[0] != meld.rank]
        if wrong:
            raise IllegalAction(f"{wrong} cannot be laid off on the set of {meld.rank}s (meld {meld.id})")
        return replace(meld, cards=meld.cards + tuple(cards))
    if end is None:
        raise IllegalAction(f"a lay-off on run {meld.id} must name its end (LOW or HIGH)")
    if len(meld.cards) + len(cards) > MAX_RUN:
        raise IllegalAction(f"run {meld.id} would hold more than {MAX_RUN} cards (the ace is low or high, never both)")
    step = -1 if end is RunEnd.LOW else 1
    pos = meld.low if end is RunEnd.LOW else meld.high
    for c in cards:
        pos += step
        if not LOW_ACE <= pos <= HIGH_ACE:
            raise IllegalAction(f"run {meld.id} cannot be extended past the ace ({c} laid off at the {end.name} end)")
        if c != JOKER and (c[1] != meld.suit or pos not in positions_of(c)):
            raise IllegalAction(f"{c} does not extend run {meld.id} at its {end.name} end (needs {rank_at(pos)}{meld.suit})")
    if end is RunEnd.LOW:
        return replace(meld, cards=tuple(reversed(cards)) + meld.cards, start=pos)
    return replace(meld, cards=meld.cards + tuple(cards))


__all__ = [
    "JOKER",
    "SUITS",
    "Meld",
    "MeldKind",
    "RunEnd",
    "card_points",
    "hand_points",
    "is_run",
    "is_set",
    "lay_off",
    "natural_run_order",
    "new_meld",
]
