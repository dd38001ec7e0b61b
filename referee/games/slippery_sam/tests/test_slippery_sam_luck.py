"""Slippery Sam's luck estimator (referee.games.slippery_sam.luck) by hand: a bet's luck term and a scripted
deal's (moved here from the platform's luck tests, which check any game's estimator on real records)."""

from __future__ import annotations

import pytest

from referee.games.slippery_sam.luck import bet_luck, events_luck


def test_bet_luck_by_hand() -> None:
    # Ah 2c 3d against a stack of Kh 5c 4s Qd: only Kh is beaten (rules §1.5), p = 1/4
    hand, stack = ["Ah", "2c", "3d"], ["Kh", "5c", "4s", "Qd"]
    won, lost = bet_luck(hand, stack, 8, True), bet_luck(hand, stack, 8, False)
    assert won == pytest.approx(8 - 8 * (2 * 0.25 - 1)) == pytest.approx(12)
    assert lost == pytest.approx(-4)
    assert 0.25 * won + 0.75 * lost == pytest.approx(0)  # zero mean over the stack's cards
    assert bet_luck(["Ah"], ["Kh"], 5, True) == 0  # a sure win is no luck
    with pytest.raises(ValueError):
        bet_luck(hand, [], 1, True)


def test_a_scripted_deal_gives_the_player_plus_and_the_dealer_minus() -> None:
    ev = lambda kind, **data: {"kind": kind, "data": data, "visible_to": None}  # noqa: E731
    # dealer 0; seat 1 holds Ah 2c 3d and wins 8 tokens on Kh; seat 2 holds 4h 5h 6h and loses 2 on 7c
    events = [ev("deal", dealer=0, deal=1, players=[1, 2]), ev("hand", seat=1, cards=["Ah", "2c", "3d"]),
              ev("hand", seat=2, cards=["4h", "5h", "6h"]), ev("bet", seat=1, amount=8, shoot=False),
              ev("turn", seat=1, card="Kh", won=True, kitty=12), ev("bet", seat=2, amount=2, shoot=False),
              ev("turn", seat=2, card="7c", won=False, kitty=14)]
    luck = events_luck(events, 3)
    stack1 = 46  # 52 cards less the two hands
    # seat 1 beats the hearts below the ace not in a hand (2h 3h 7h-Kh: 9) and 2d below its 3d: p = 10/46
    assert luck[1] == pytest.approx(8 - 8 * (2 * 10 / stack1 - 1))
    # seat 2's hearts beat 2h 3h (not Ah); Kh is turned: 45 cards left, 2 beaten
    assert luck[2] == pytest.approx(-2 - 2 * (2 * 2 / 45 - 1))
    assert luck[0] == pytest.approx(-luck[1] - luck[2])


def test_inconsistent_events_are_refused() -> None:
    """A bet with no deal before it."""
    with pytest.raises(ValueError):
        events_luck([{"kind": "bet", "data": {"seat": 1, "amount": 1, "shoot": False}, "visible_to": None}], 3)
