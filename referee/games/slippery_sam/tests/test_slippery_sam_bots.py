"""The ``odds`` bot's winning chance (rules §1.5) against a plain count over the pack."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import JOKER, RANKS, pack
from referee.games.slippery_sam.bots import win_probability

_PACK = pack()


def counted(hand: list[str], seen: set[str]) -> float:
    """The chance by definition: of the pack's cards not seen, the share a hand card of the same suit outranks."""
    unknown = [c for c in _PACK if c not in seen]
    if not unknown:
        return 0.0
    wins = [c for c in unknown if any(h[1] == c[1] and RANKS.index(h[0]) > RANKS.index(c[0]) for h in hand)]
    return len(wins) / len(unknown)


@settings(max_examples=400, deadline=None)
@given(cards=st.permutations(_PACK), hand_size=st.integers(1, 6), others=st.integers(0, 46), joker=st.booleans())
def test_win_probability_is_the_count_over_unseen_cards(cards: list[str], hand_size: int, others: int, joker: bool) -> None:
    hand = cards[:hand_size]
    seen = set(cards[: hand_size + others]) | ({JOKER} if joker else set())  # a string outside the pack counts for nothing
    assert win_probability(hand, seen) == counted(hand, seen)


def test_nothing_unseen_is_no_chance() -> None:
    assert win_probability(["Ah", "Kh", "Qh"], set(_PACK)) == 0.0


def test_the_ace_of_a_suit_beats_every_unseen_card_below_it() -> None:
    hand = ["Ah", "2c", "3d"]
    # unseen: 49 cards; beaten: the 12 hearts below the ace, the 2c beats nothing, the 3d beats the 2d
    assert win_probability(hand, set(hand)) == 13 / 49
