"""is_card is a set lookup: it accepts exactly the strings of rank then suit, and the joker."""

from __future__ import annotations

import string

from referee.cards import JOKER, RANKS, SUITS, is_card


def test_is_card_accepts_exactly_rank_then_suit_and_the_joker() -> None:
    alphabet = string.ascii_letters + string.digits + " "
    for a in alphabet:
        assert not is_card(a)
        for b in alphabet:
            assert is_card(a + b) == ((a in RANKS and b in SUITS) or a + b == JOKER), a + b
    for other in ("", "Ahh", "10h", "jk", "JK", None, 7, ("A", "h"), b"Ah"):
        assert not is_card(other)
