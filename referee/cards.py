"""Cards as the whole platform writes them.

A card is a 2-character string: rank from ``23456789TJQKA`` then suit from
``cdhs`` (``"Ah"``, ``"Td"``, ``"7s"``, ``"2c"``); a joker is ``"Jk"``.
With two packs equal cards are interchangeable, so hands are multisets
(rules §0.1).
"""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "cdhs"
JOKER = "Jk"


class BadCard(ValueError):
    """A string that is not a card in the platform's notation."""


def is_card(card: object) -> bool:
    """Whether ``card`` is a card string (a joker included)."""
    return isinstance(card, str) and card in _CARDS


def check(card: object) -> str:
    """Return ``card`` if it is a card string, else raise BadCard naming it."""
    if not is_card(card):
        raise BadCard(f"not a card: {card!r} (cards are written like 'Ah', 'Td', '7s', '2c', or 'Jk')")
    return card  # type: ignore[return-value]


def pack(ranks: str = RANKS) -> tuple[str, ...]:
    """One pack of the given ranks in a fixed order: rank-major, suits ``cdhs``."""
    return tuple(r + s for r in ranks for s in SUITS)


#: Every card string: the 52 cards and the joker (is_card is a lookup, on the per-decision path).
_CARDS = frozenset((*pack(), JOKER))
