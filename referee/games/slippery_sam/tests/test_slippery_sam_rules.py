"""Slippery Sam rules: scripted deals with exact outcomes (rules §1)."""

from __future__ import annotations

import pytest

from referee.cards import BadCard
from referee.engine import Ask, BadParameters, IllegalAction, Shuffle
from referee.games.slippery_sam import SlipperySamAction, SlipperySamParams, SlipperySamRules, beats
from referee.games.slippery_sam.rules import Decision, Phase
from referee.games.slippery_sam.tests.sam_helpers import act, deal_order, jack_order


@pytest.mark.parametrize(
    ("hand", "turned", "wins"),
    [
        (["5h", "Kc", "Qs"], "2d", False),  # rules §1.5, first example: no diamond
        (["Ac", "4h", "7d"], "3h", True),   # rules §1.5, second example: 4h beats 3h
        (["Ah", "2c", "3c"], "Kh", True),   # ace high
        (["Kh", "2c", "3c"], "Ah", False),  # nothing beats an ace
        (["7h", "2c", "3c"], "7h", False),  # equal rank does not win (strictly higher)
        (["2d", "3d", "4d"], "5d", False),  # right suit, all lower
        (["Td", "9s", "2c"], "9d", True),
    ],
)
def test_beats(hand: list[str], turned: str, wins: bool) -> None:
    assert beats(hand, turned) is wins


def test_beats_rejects_non_cards() -> None:
    with pytest.raises(BadCard):
        beats(["Xh", "2c", "3c"], "4h")


def new_game(seats: int = 3, tokens: int = 300, first_jack: int = 1) -> tuple[SlipperySamRules, object]:
    rules = SlipperySamRules(SlipperySamParams(starting_tokens=tokens), seats)
    state = rules.new_state()
    rules.apply_chance(state, jack_order(first_jack))
    return rules, state


@pytest.mark.parametrize(("position", "seats", "dealer"), [(0, 3, 0), (1, 3, 1), (4, 3, 1), (7, 4, 3), (11, 5, 1)])
def test_black_jack_method(position: int, seats: int, dealer: int) -> None:
    rules, state = new_game(seats, first_jack=position)
    assert state.first_dealer == dealer
    assert len(state.first_dealer_cards) == position + 1 and state.first_dealer_cards[-1][0] == "J"
    assert rules.step(state) == Ask((dealer,))
    for seat in range(seats):  # rules §1.2: the cards are in every view
        assert rules.view(state, seat).first_dealer_cards == tuple(state.first_dealer_cards)


def test_the_seeds_two_examples() -> None:
    rules, state = new_game()  # dealer = seat 1; players from his left: 2, 0
    view = rules.view(state, 1)
    assert (view.decision, view.min_amount, view.max_amount) == (Decision.KITTY, 30, 300)
    act(rules, state, 30)
    assert state.kitty == 30 and state.tokens[1] == 270
    assert isinstance(rules.step(state), Shuffle)
    rules.apply_chance(state, deal_order([2, 0], {2: ["5h", "Kc", "Qs"], 0: ["Ac", "4h", "7d"]}, ["2d", "3h"]))
    assert state.hands[2] == ["5h", "Kc", "Qs"] and state.hands[0] == ["Ac", "4h", "7d"]
    assert rules.step(state) == Ask((2,))
    act(rules, state, 3)  # 3 tokens against the 2 of diamonds: lost, into the kitty
    assert state.tokens[2] == 297 and state.kitty == 33
    assert rules.step(state) == Ask((0,))
    act(rules, state, 1)  # 1 token; the 3 of hearts is beaten by the 4 of hearts
    assert state.tokens[0] == 301 and state.kitty == 32
    assert [b.won for b in state.bets] == [False, True]
    assert state.deal_in_turn == 1 and isinstance(rules.step(state), Shuffle)  # the second deal


def test_shoot_shows_the_hand_to_all_before_the_turn() -> None:
    rules, state = new_game()
    act(rules, state, 30)
    rules.apply_chance(state, deal_order([2, 0], {2: ["Ah", "Ad", "As"], 0: ["2c", "3c", "4c"]}, ["5s", "6s"]))
    act(rules, state, 30)  # seat 2 bets the whole kitty: a shoot
    kinds = [e.kind for e in state.events]
    assert kinds.index("shoot") < kinds.index("turn")
    shoot = next(e for e in state.events if e.kind == "shoot")
    assert shoot.visible_to is None and shoot.data == {"seat": 2, "cards": ["Ah", "Ad", "As"]}


def test_kitty_empty_ends_the_turn_at_once() -> None:
    rules, state = new_game(4)  # dealer 1; players 2, 3, 0
    act(rules, state, 40)
    rules.apply_chance(state, deal_order([2, 3, 0], {2: ["Ah", "Ad", "As"], 3: ["2c", "3c", "4c"], 0: ["2d", "3d", "4d"]}, ["5s"]))
    act(rules, state, 40)  # shoot and win: the kitty is empty
    assert state.tokens == [300, 260, 340, 300] and state.kitty == 0
    # no one else plays that deal, and the deal passes left to seat 2
    assert rules.step(state) == Ask((2,)) and state.dealer == 2
    assert rules.view(state, 3).shots == ()  # a new turn: the shot belonged to the old deal
    end = next(e for e in state.events if e.kind == "turn_end")
    assert end.data == {"dealer": 1, "returned": 0, "reason": "kitty empty"}


def test_after_three_deals_the_kitty_goes_back_and_the_deal_passes_left() -> None:
    rules, state = new_game()
    act(rules, state, 30)
    for _ in range(3):
        rules.apply_chance(state, deal_order([2, 0], {2: ["2c", "3c", "4c"], 0: ["2d", "3d", "4d"]}, ["As", "Ah"]))
        act(rules, state, 1)
        act(rules, state, 1)
    assert state.tokens == [297, 306, 297]  # 6 lost bets: the kitty of 36 went back to the dealer
    assert state.dealer == 2 and rules.step(state) == Ask((2,))


def test_a_seat_going_broke_is_out() -> None:
    rules, state = new_game(3, tokens=30)  # the minimum: 10 x 3 seats
    act(rules, state, 30)  # dealer 1 puts up all he has
    rules.apply_chance(state, deal_order([2, 0], {2: ["2c", "3c", "4c"], 0: ["2d", "3d", "4d"]}, ["As", "Ah"]))
    act(rules, state, 30)  # seat 2 shoots all his tokens and loses
    assert state.tokens[2] == 0 and rules.view(state, 0).out == (False, False, True)
    act(rules, state, 30)  # seat 0 too
    assert state.tokens == [0, 90, 0]
    # fewer than two seats not out: the game is over; the dealer ranks first, then the later exit
    assert state.phase is Phase.OVER and rules.step(state) is None
    assert state.exits == [2, 0]
    keys = [rules.rank_key(state, s) for s in range(3)]
    assert keys[1] > keys[0] > keys[2]
    assert rules.score_changes(state) == (-30, 60, -30)


def test_out_seats_get_no_cards_and_a_poor_dealer_is_skipped() -> None:
    rules, state = new_game(4, tokens=40)  # dealer 1
    act(rules, state, 40)
    rules.apply_chance(state, deal_order([2, 3, 0], {2: ["2c", "3c", "4c"], 3: ["Ah", "Ad", "As"], 0: ["2d", "3d", "4d"]}, ["Ks", "Qs"]))
    act(rules, state, 40)  # seat 2 shoots and loses everything: out
    act(rules, state, 1)   # seat 3 bets 1 and wins against the Qs
    act(rules, state, 1)   # seat 0 bets 1 ...
    rules.apply_chance(state, deal_order([3, 0], {3: ["2h", "3h", "4h"], 0: ["2s", "3s", "4s"]}, ["Ac", "Kc"]))
    assert state.players == [3, 0] and state.hands[2] == []  # the out seat gets no cards


def test_illegal_amounts_are_refused_and_change_nothing() -> None:
    rules, state = new_game()
    for bad in (29, 301, -1):
        with pytest.raises(IllegalAction):
            rules.check(state, 1, SlipperySamAction(bad))
    with pytest.raises(IllegalAction):
        rules.check(state, 0, SlipperySamAction(30))  # not asked
    before = (list(state.tokens), state.kitty, len(state.events))
    with pytest.raises(IllegalAction):
        rules.apply(state, {1: SlipperySamAction(1000)})
    assert (list(state.tokens), state.kitty, len(state.events)) == before


def test_default_actions_follow_rules_4_2() -> None:
    rules, state = new_game(4)
    assert rules.default_action(state, 1) == SlipperySamAction(40)  # the minimum kitty
    act(rules, state, 100)
    rules.apply_chance(state, deal_order([2, 3, 0], {2: ["2c", "3c", "4c"], 3: ["Ah", "Ad", "As"], 0: ["2d", "3d", "4d"]}, ["Ks"]))
    assert rules.default_action(state, 2) == SlipperySamAction(1)  # bet 1 token


@pytest.mark.parametrize(("params", "seats"), [({"starting_tokens": 29}, 3), ({"orbits": 0}, 3), ({}, 2), ({}, 9)])
def test_impossible_parameters_are_refused(params: dict, seats: int) -> None:
    with pytest.raises(BadParameters):
        SlipperySamRules(SlipperySamParams(**params), seats)


def test_the_default_thinking_budget() -> None:
    """Rules §4.1: the seat's thinking budget of a season that sets none (moved from the platform's time-budget tests)."""
    from referee.games import spec
    from referee.timecontrol import TimeControl

    game = "slippery-sam"
    assert TimeControl.for_game(spec(game)).budget_s == spec(game).default_budget_s == 120.0
