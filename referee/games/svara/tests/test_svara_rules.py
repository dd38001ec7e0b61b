"""Scripted Svara deals with exact outcomes (rules §2), parameters, codec and illegal input.

Each scenario fixes the dealer (the first-dealer lot), feeds a fixed shuffle
order built by :func:`svara_order` through ``apply_chance``, then actions.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import pytest
from cardarena.v1 import svara_pb2

from referee.driver import IllegalChance, answer_chance
from referee.engine import Ask, BadParameters, DrawLot, IllegalAction, Shuffle
from referee.games import MalformedAction, make_params, spec
from referee.games.svara import PACK, SPEC, Decision, Phase, SvaraMove, SvaraMoveAction, SvaraParams, SvaraRules, SvaraState
from referee.games.svara.codec import decode_action, encode_action, encode_view

M = SvaraMove


def svara_order(dealer: int, seats: Sequence[int], hands: dict[int, str], bottom: str = "9s", n: int | None = None) -> list[str]:
    """A pack order (top first) dealing ``hands`` (seat -> "c1 c2 c3") one card at a time from the
    dealer's left to the seats in the deal, with ``bottom`` as the bottom card."""
    n = n if n is not None else max(list(seats) + [dealer]) + 1
    in_deal = set(seats)
    order_seats = [s % n for s in range(dealer + 1, dealer + n + 1) if s % n in in_deal]
    k = len(order_seats)
    top: list[str | None] = [None] * (3 * k)
    for i, s in enumerate(order_seats):
        for j, card in enumerate(hands[s].split()):
            top[i + j * k] = card
    used = {c for c in top if c is not None} | {bottom}
    assert len(used) == 3 * k + 1, "hands and bottom card must not share cards"
    filler = iter(c for c in PACK if c not in used)
    order = [c if c is not None else next(filler) for c in top]
    order += list(filler)
    order.append(bottom)
    assert sorted(order) == sorted(PACK)
    return order


def new_game(seats: int = 3, dealer: int = 0, tokens: dict[int, int] | None = None, **params: int | str) -> tuple[SvaraRules, SvaraState]:
    rules = SvaraRules(SvaraParams(**params), seats)  # type: ignore[arg-type]
    state = rules.new_state()
    for s, t in (tokens or {}).items():
        state.tokens[s] = t
    assert rules.step(state) == DrawLot(tuple(range(seats)))
    rules.apply_chance(state, dealer)
    return rules, state


def act(rules: SvaraRules, state: SvaraState, seat: int, move: SvaraMove, amount: int = 0) -> None:
    request = rules.step(state)
    assert isinstance(request, Ask) and request.seats == (seat,), (request, seat, move)
    rules.apply(state, {seat: SvaraMoveAction(move, amount)})


def kinds(state: SvaraState, kind: str) -> list[dict]:
    return [e.data for e in state.events if e.kind == kind]


def total(state: SvaraState) -> int:
    return sum(state.tokens) + state.bank


# Tied 21-point hands, a weak hand, a strong one.
H21A, H21B, H21C = "Ah Kh 9c", "As Ks 7d", "Ad Kd 8h"
WEAK = "7c 8c 9d"   # 15 (7c 8c)
STRONG = "Qs Js Ts"  # 30


def test_spec_and_registry() -> None:
    assert spec("svara") is SPEC
    assert (SPEC.min_seats, SPEC.max_seats, SPEC.score_unit, SPEC.proto_field) == (3, 8, "tokens", "svara")
    assert make_params("svara", {"hands": 5}) == SvaraParams(hands=5)
    assert isinstance(SPEC.make_rules(SvaraParams(), 5), SvaraRules)


@pytest.mark.parametrize(
    "bad",
    [
        {"szacha": "2c"},
        {"szacha": "Jk"},
        {"szacha": "6x"},
        {"min_stake": 0},
        {"max_stake": 5},
        {"starting_tokens": 9},
        {"hands": 0},
        {"circuits": 0},
        {"svaras_per_bank": -1},
        {"hands": 2.5},
        {"min_stake": True},
    ],
)
def test_bad_parameters(bad: dict) -> None:
    with pytest.raises(BadParameters):
        SvaraParams(**bad)


@pytest.mark.parametrize("seats", [2, 9, 0])
def test_bad_table_size(seats: int) -> None:
    with pytest.raises(BadParameters):
        SPEC.make_rules(SvaraParams(), seats)


def test_antes_and_first_turn() -> None:
    rules, state = new_game(dealer=1)
    assert state.tokens == [990, 990, 990] and state.bank == 30
    assert rules.step(state) == Shuffle(PACK)
    rules.apply_chance(state, svara_order(1, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    assert rules.step(state) == Ask((2,))
    assert state.cards[2] == ("Qs", "Js", "Ts")
    deal_events = [e for e in state.events if e.kind == "deal"]
    assert {e.visible_to for e in deal_events} == {(0,), (1,), (2,)}
    view = rules.view(state, 2)
    assert view.decision is Decision.TURN and view.hand == () and view.bottom_card == "9s"
    assert set(view.legal.moves) == {M.LOOK, M.FOLD, M.PROPOSE}


@pytest.mark.parametrize("bottom", ["As", "Ah", "6c"])
def test_bottom_card_redeal(bottom: str) -> None:
    rules, state = new_game(dealer=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: "6d 7h 8d", 2: STRONG}, bottom=bottom))
    # The dealer antes again and the deal passes left; the new dealer shuffles.
    assert state.tokens == [980, 990, 990] and state.bank == 40
    assert state.dealer == 1 and rules.step(state) == Shuffle(PACK)
    assert kinds(state, "bottom_penalty") == [{"seat": 0, "amount": 10, "next_dealer": 1}]
    rules.apply_chance(state, svara_order(1, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}, bottom="Kd"))
    assert rules.step(state) == Ask((2,)) and state.hand_dealer == 1
    assert rules.view(state, 0).bottom_card == "Kd"
    act(rules, state, 2, M.FOLD)
    act(rules, state, 0, M.FOLD)
    assert kinds(state, "win") == [{"seat": 1, "amount": 40, "unseen": True}]
    assert state.tokens == [970, 1020, 980] and state.bank == 30  # the next hand's antes are in
    # rules §2.10: the next hand is dealt from the left of the seat that dealt the first deal.
    assert state.hand_number == 1 and state.dealer == 2


def test_bottom_penalty_all_he_has() -> None:
    rules, state = new_game(dealer=0, tokens={0: 15})
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}, bottom="Ac"))
    assert state.tokens[0] == 0 and state.bank == 35 and state.dealer == 1


def test_two_player_see() -> None:
    rules, state = new_game(dealer=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: STRONG, 1: H21A, 2: WEAK}))
    act(rules, state, 1, M.FOLD)
    act(rules, state, 2, M.LOOK)
    assert rules.view(state, 2).hand == ("7c", "8c", "9d")
    assert M.SEE in rules.view(state, 2).legal.moves
    act(rules, state, 2, M.STAKE, 20)
    act(rules, state, 0, M.LOOK)
    assert rules.view(state, 0).legal.see_cost == 20
    act(rules, state, 0, M.SEE)
    shows = kinds(state, "show")
    assert [(s["seat"], s["points"]) for s in shows] == [(2, 15), (0, 30)]
    assert all(e.visible_to is None for e in state.events if e.kind == "show")
    assert state.tokens == [960 + 70, 980, 960] and state.bank == 30  # next ante in
    assert kinds(state, "win")[0] == {"seat": 0, "amount": 70, "unseen": False}


def test_everyone_folds_to_one() -> None:
    rules, state = new_game(dealer=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    act(rules, state, 1, M.FOLD)
    act(rules, state, 2, M.FOLD)
    assert kinds(state, "win") == [{"seat": 0, "amount": 30, "unseen": True}]
    assert kinds(state, "show") == []
    assert state.tokens == [1010, 980, 980]


@pytest.mark.parametrize("circuits", [1, 3])
def test_circuit_limit_forced_show(circuits: int) -> None:
    rules, state = new_game(dealer=0, circuits=circuits)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    for seat in (1, 2, 0):
        act(rules, state, seat, M.LOOK)
        act(rules, state, seat, M.STAKE, 10)
    for _ in range(circuits - 1):
        assert state.circuit >= 1
        for seat in (1, 2, 0):
            act(rules, state, seat, M.STAKE, 10)  # matching never ends the betting
    assert [s["seat"] for s in kinds(state, "show")] == [1, 2, 0]
    assert state.tokens == [980 - 10 * circuits, 980 - 10 * circuits, 980 - 10 * circuits + 30 + 30 * circuits]
    assert state.dealer == 1  # next hand


def test_circuit_counts_past_folded_dealer() -> None:
    rules, state = new_game(dealer=0, circuits=1, seats=4)
    rules.apply_chance(state, svara_order(0, [0, 1, 2, 3], {0: WEAK, 1: H21A, 2: STRONG, 3: "8d 9h Th"}))
    act(rules, state, 1, M.LOOK)
    act(rules, state, 1, M.STAKE, 10)
    act(rules, state, 2, M.LOOK)
    act(rules, state, 2, M.STAKE, 10)
    act(rules, state, 3, M.FOLD)
    act(rules, state, 0, M.FOLD)  # the dealer's move ends the circuit: forced show of 1 and 2
    assert [s["seat"] for s in kinds(state, "show")] == [1, 2]
    assert state.tokens[2] == 970 + 60


def test_three_way_tie_svara_with_joiner() -> None:
    rules, state = new_game(seats=4, dealer=0, circuits=1)
    rules.apply_chance(state, svara_order(0, [0, 1, 2, 3], {0: WEAK, 1: H21A, 2: H21B, 3: H21C}))
    for seat in (1, 2, 3):
        act(rules, state, seat, M.LOOK)
        act(rules, state, seat, M.STAKE, 10)
    act(rules, state, 0, M.FOLD)
    assert [s["points"] for s in kinds(state, "show")] == [21, 21, 21]
    assert kinds(state, "svara")[0]["seats"] == [1, 2, 3]
    assert state.bank == 70
    view = rules.view(state, 0)
    assert view.decision is Decision.JOIN and view.legal.join_cost == 35
    assert view.in_play == (False, True, True, True)
    act(rules, state, 0, M.JOIN)
    assert state.bank == 105 and state.tokens[0] == 955
    assert rules.step(state) == DrawLot((0, 1, 2, 3))
    rules.apply_chance(state, 2)
    assert state.svara == 1 and state.current_stake == 10
    assert state.tokens == [955, 980, 980, 980]  # no new ante
    rules.apply_chance(state, svara_order(2, [0, 1, 2, 3], {0: WEAK, 1: H21A, 2: STRONG, 3: H21C}))
    view = rules.view(state, 3)
    assert view.svara == 1 and len(view.shown) == 3
    assert M.PROPOSE not in view.legal.moves  # no proposal inside a svara
    with pytest.raises(IllegalAction):
        rules.check(state, 3, SvaraMoveAction(M.PROPOSE))
    act(rules, state, 3, M.FOLD)
    act(rules, state, 0, M.FOLD)
    act(rules, state, 1, M.FOLD)
    assert kinds(state, "win")[-1] == {"seat": 2, "amount": 105, "unseen": True}
    assert state.tokens == [945, 970, 1075, 970] and state.bank == 40
    # The deal rotates from the hand's first dealer (0), not the svara's dealer (2).
    assert state.hand_number == 1 and state.dealer == 1


def test_join_order_from_dealer_left_and_decline() -> None:
    rules, state = new_game(seats=5, dealer=3, circuits=1)
    rules.apply_chance(state, svara_order(3, range(5), {0: WEAK, 1: "8d 9h Th", 2: "7h 8s Jd", 3: H21A, 4: H21B}))
    act(rules, state, 4, M.LOOK)
    act(rules, state, 4, M.STAKE, 10)
    for seat in (0, 1, 2):
        act(rules, state, seat, M.FOLD)
    act(rules, state, 3, M.LOOK)
    act(rules, state, 3, M.SEE)
    assert rules.step(state) == Ask((0,))
    act(rules, state, 0, M.DECLINE)
    act(rules, state, 1, M.JOIN)
    act(rules, state, 2, M.DECLINE)
    assert rules.step(state) == DrawLot((1, 3, 4))


def test_proposal_accepted() -> None:
    rules, state = new_game(dealer=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    act(rules, state, 1, M.PROPOSE)
    assert rules.step(state) == Ask((2,))  # rules §2.9: one voter at a time from the proposer's left
    view = rules.view(state, 2)
    assert view.decision is Decision.VOTE and view.proposer == 1
    assert view.legal.moves == (M.ACCEPT, M.REFUSE)
    act(rules, state, 2, M.ACCEPT)
    act(rules, state, 0, M.ACCEPT)
    assert kinds(state, "svara")[0]["reason"] == "proposal"
    assert rules.step(state) == DrawLot((0, 1, 2))  # everyone still in: no one to join
    assert state.cards == [(), (), ()] and state.bank == 30
    rules.apply_chance(state, 1)
    assert state.svara == 1


def test_votes_asked_one_at_a_time_from_the_proposers_left() -> None:
    """rules §2.9: every other player still in is asked in seat order from the proposer's left,
    one at a time, each seeing the earlier votes; a folded seat is not asked; any refusal refuses."""
    rules, state = new_game(seats=5, dealer=4)
    rules.apply_chance(state, svara_order(4, range(5), {0: WEAK, 1: H21A, 2: STRONG, 3: H21B, 4: H21C}))
    act(rules, state, 0, M.FOLD)
    act(rules, state, 1, M.LOOK)
    act(rules, state, 1, M.STAKE, 10)
    act(rules, state, 2, M.PROPOSE)
    assert kinds(state, "propose") == [{"seat": 2, "voters": [3, 4, 1]}]
    votes = [(3, M.ACCEPT), (4, M.REFUSE), (1, M.ACCEPT)]
    for i, (seat, move) in enumerate(votes):
        assert rules.step(state) == Ask((seat,))
        assert [s for s in range(5) if rules.view(state, s).decision is Decision.VOTE] == [seat]
        seen = [(e.seat, e.move) for e in rules.view(state, seat).history if e.move in (M.ACCEPT, M.REFUSE)]
        assert seen == votes[:i]
        act(rules, state, seat, move)
    assert [(v["seat"], v["accept"]) for v in kinds(state, "vote")] == [(3, True), (4, False), (1, True)]
    assert kinds(state, "proposal_refused") == [{"seat": 2}]
    assert rules.step(state) == Ask((2,)) and rules.view(state, 2).proposer == -1


def test_proposal_with_folded_joiner() -> None:
    rules, state = new_game(dealer=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    act(rules, state, 1, M.FOLD)
    act(rules, state, 2, M.PROPOSE)
    assert rules.step(state) == Ask((0,))
    rules.apply(state, {0: SvaraMoveAction(M.ACCEPT)})
    assert rules.view(state, 1).legal.join_cost == 15
    act(rules, state, 1, M.JOIN)
    assert rules.step(state) == DrawLot((0, 1, 2)) and state.bank == 45


def test_proposal_refused_then_act_normally() -> None:
    rules, state = new_game(dealer=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    act(rules, state, 1, M.PROPOSE)
    act(rules, state, 2, M.REFUSE)
    act(rules, state, 0, M.ACCEPT)  # asked too: every other player votes
    assert rules.step(state) == Ask((1,))
    assert kinds(state, "proposal_refused") == [{"seat": 1}]
    view = rules.view(state, 1)
    assert M.PROPOSE not in view.legal.moves  # once per hand
    with pytest.raises(IllegalAction):
        rules.check(state, 1, SvaraMoveAction(M.PROPOSE))
    act(rules, state, 1, M.LOOK)
    act(rules, state, 1, M.STAKE, 10)
    act(rules, state, 2, M.LOOK)
    with pytest.raises(IllegalAction):
        rules.check(state, 2, SvaraMoveAction(M.PROPOSE))  # looked
    act(rules, state, 2, M.FOLD)
    act(rules, state, 0, M.PROPOSE)
    act(rules, state, 1, M.REFUSE)
    act(rules, state, 0, M.FOLD)
    assert kinds(state, "win") == [{"seat": 1, "amount": 40, "unseen": True}]


def test_svara_limit_splits_bank() -> None:
    rules, state = new_game(dealer=0, circuits=1, svaras_per_bank=1)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: H21B}))
    act(rules, state, 1, M.LOOK)
    act(rules, state, 1, M.STAKE, 10)
    act(rules, state, 2, M.LOOK)
    act(rules, state, 2, M.STAKE, 15)
    act(rules, state, 0, M.FOLD)
    assert state.bank == 55 and rules.view(state, 0).legal.join_cost == 27
    act(rules, state, 0, M.DECLINE)
    rules.apply_chance(state, 1)
    rules.apply_chance(state, svara_order(1, [1, 2], {1: H21C, 2: H21A}, n=3))
    act(rules, state, 2, M.LOOK)
    act(rules, state, 2, M.STAKE, 11)
    act(rules, state, 1, M.LOOK)
    act(rules, state, 1, M.SEE)
    # Bank 77 split 38/38, the remainder to the first tied seat from the dealer's (1) left: seat 2.
    assert kinds(state, "split") == [{"seats": [2, 1], "amounts": [39, 38]}]
    assert state.tokens == [990 - 10, 1007 - 10, 1003 - 10] and state.bank == 30  # next ante in


def test_no_svara_when_limit_is_zero() -> None:
    rules, state = new_game(dealer=0, circuits=1, svaras_per_bank=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: H21B}))
    assert M.PROPOSE not in rules.view(state, 1).legal.moves
    act(rules, state, 1, M.LOOK)
    act(rules, state, 1, M.STAKE, 10)
    act(rules, state, 2, M.LOOK)
    act(rules, state, 2, M.STAKE, 11)
    act(rules, state, 0, M.FOLD)  # circuit limit: 1 and 2 tie; no svara may be played
    assert kinds(state, "svara") == []
    assert kinds(state, "split") == [{"seats": [1, 2], "amounts": [26, 25]}]


def test_svara_seat_short_of_min_stake_shows_at_once() -> None:
    rules, state = new_game(dealer=0, circuits=1, tokens={2: 25})
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: H21B}))
    act(rules, state, 1, M.LOOK)
    act(rules, state, 1, M.STAKE, 10)
    act(rules, state, 2, M.LOOK)
    act(rules, state, 2, M.STAKE, 10)
    act(rules, state, 0, M.FOLD)
    assert state.tokens[2] == 5 and state.bank == 50
    act(rules, state, 0, M.DECLINE)
    rules.apply_chance(state, 1)
    rules.apply_chance(state, svara_order(1, [1, 2], {1: WEAK, 2: STRONG}, n=3))
    # No one bets: the cards are shown at once and the bank is taken.
    assert kinds(state, "no_betting") == [{"seats": [2]}]
    assert [(s["seat"], s["points"]) for s in kinds(state, "show")][-2:] == [(2, 30), (1, 15)]
    assert kinds(state, "win")[-1] == {"seat": 2, "amount": 50, "unseen": False}
    assert state.tokens == [980, 970, 45] and state.hand_number == 1


def test_too_short_to_pay_must_fold() -> None:
    rules, state = new_game(dealer=0, tokens={2: 40})
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    act(rules, state, 1, M.LOOK)
    act(rules, state, 1, M.STAKE, 50)
    assert rules.view(state, 2).legal.moves == (M.LOOK, M.FOLD)
    act(rules, state, 2, M.LOOK)
    assert rules.view(state, 2).legal.moves == (M.FOLD,)
    for bad in (SvaraMoveAction(M.STAKE, 30), SvaraMoveAction(M.STAKE, 50), SvaraMoveAction(M.PROPOSE)):
        with pytest.raises(IllegalAction):
            rules.check(state, 2, bad)
    act(rules, state, 2, M.FOLD)
    assert rules.step(state) == Ask((0,))


def test_out_seats_and_game_end() -> None:
    rules, state = new_game(dealer=0, tokens={1: 20, 2: 10})  # test surgery: short seats
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    act(rules, state, 1, M.FOLD)
    act(rules, state, 2, M.FOLD)  # seat 2 has 0 tokens left: out of the game
    assert state.out == [False, False, True] and state.bank == 20
    assert kinds(state, "out") == [{"seat": 2, "tokens": 0}]
    assert rules.view(state, 0).out == (False, False, True)
    assert rules.step(state) == Shuffle(PACK) and state.dealer == 1
    rules.apply_chance(state, svara_order(1, [0, 1], {0: WEAK, 1: H21A}, n=3))
    act(rules, state, 0, M.LOOK)
    act(rules, state, 0, M.STAKE, 10)
    assert rules.view(state, 1).legal.moves == (M.LOOK, M.FOLD)  # 0 tokens: must fold
    act(rules, state, 1, M.FOLD)
    assert state.phase is Phase.OVER and rules.step(state) is None
    assert state.end_reason == "too few seats can ante"
    assert state.out == [False, True, True]
    assert rules.scores(state) == (1030, 0, 0)
    assert rules.score_changes(state) == (30, -1000, -1000)
    assert rules.rank_key(state, 0) == (1030,) and rules.rank_key(state, 1) == rules.rank_key(state, 2)


def test_game_ends_after_hands() -> None:
    rules, state = new_game(dealer=0, hands=2)
    for dealer in (0, 1):
        rules.apply_chance(state, svara_order(dealer, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
        first = (dealer + 1) % 3
        act(rules, state, first, M.FOLD)
        act(rules, state, (first + 1) % 3, M.FOLD)
    assert rules.step(state) is None and state.end_reason == "hands"
    assert sum(state.tokens) == 3000


def _at_first_turn() -> tuple[SvaraRules, SvaraState]:
    rules, state = new_game(dealer=0, tokens={1: 60})
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    return rules, state


ILLEGAL = [
    ("stake without looking", [], 1, SvaraMoveAction(M.STAKE, 10)),
    ("see without looking (2 left)", [(1, M.FOLD, 0)], 2, SvaraMoveAction(M.SEE)),
    ("stake below current", [(1, M.LOOK, 0), (1, M.STAKE, 30), (2, M.LOOK, 0)], 2, SvaraMoveAction(M.STAKE, 20)),
    ("stake above max", [(1, M.LOOK, 0)], 1, SvaraMoveAction(M.STAKE, 101)),
    ("stake above own tokens", [(1, M.LOOK, 0)], 1, SvaraMoveAction(M.STAKE, 51)),
    ("see with three in", [(1, M.LOOK, 0)], 1, SvaraMoveAction(M.SEE)),
    ("vote when not asked", [], 1, SvaraMoveAction(M.ACCEPT)),
    ("vote by a non-voter", [(1, M.PROPOSE, 0)], 1, SvaraMoveAction(M.ACCEPT)),
    ("act out of turn", [], 2, SvaraMoveAction(M.FOLD)),
    ("join when not asked", [], 1, SvaraMoveAction(M.JOIN)),
    ("look twice", [(1, M.LOOK, 0)], 1, SvaraMoveAction(M.LOOK)),
    ("not an action", [], 1, "fold"),
    ("amount not an int", [(1, M.LOOK, 0)], 1, SvaraMoveAction(M.STAKE, 10.0)),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("why", "before", "seat", "action"), ILLEGAL, ids=[i[0] for i in ILLEGAL])
def test_illegal_input_leaves_state_unchanged(why: str, before: list, seat: int, action: object) -> None:
    rules, state = _at_first_turn()
    for s, move, amount in before:
        if move is M.PROPOSE:
            act(rules, state, s, move)
        else:
            act(rules, state, s, move, amount)
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalAction):
        rules.check(state, seat, action)  # type: ignore[arg-type]
    assert state == snapshot
    request = rules.step(state)
    assert isinstance(request, Ask)
    actions = {s: SvaraMoveAction(M.FOLD) for s in request.seats}
    actions[seat] = action  # type: ignore[assignment]
    with pytest.raises(IllegalAction):
        rules.apply(state, actions)
    assert state == snapshot


def test_apply_needs_exactly_the_asked_seats() -> None:
    rules, state = _at_first_turn()
    act(rules, state, 1, M.PROPOSE)
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalAction):
        rules.apply(state, {0: SvaraMoveAction(M.ACCEPT)})
    with pytest.raises(IllegalAction):  # one legal, one illegal: nothing applied
        rules.apply(state, {0: SvaraMoveAction(M.ACCEPT), 2: SvaraMoveAction(M.FOLD)})
    assert state == snapshot


@pytest.mark.parametrize("outcome", [0, ["Ah"] * 36, list(PACK[:-1]), list(PACK[:-1]) + ["2c"], "Ah"])
def test_bad_shuffle_rejected(outcome: object) -> None:
    rules, state = new_game()
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalChance):
        answer_chance(rules, state, outcome)
    assert state == snapshot


def test_bad_lot_rejected() -> None:
    rules = SvaraRules(SvaraParams(), 3)
    state = rules.new_state()
    for bad in (3, -1, True, list(PACK)):
        with pytest.raises(IllegalChance):
            answer_chance(rules, state, bad)
    answer_chance(rules, state, 2)
    with pytest.raises(IllegalChance):
        answer_chance(rules, state, 1)  # a shuffle is pending


def test_default_actions() -> None:
    rules, state = _at_first_turn()
    assert rules.default_action(state, 1) == SvaraMoveAction(M.FOLD)
    with pytest.raises(IllegalAction):
        rules.default_action(state, 2)
    act(rules, state, 1, M.PROPOSE)
    assert rules.default_action(state, 2) == SvaraMoveAction(M.REFUSE)
    with pytest.raises(IllegalAction):
        rules.default_action(state, 0)  # asked after seat 2
    act(rules, state, 2, M.ACCEPT)
    act(rules, state, 0, M.ACCEPT)
    rules.apply_chance(state, 0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: STRONG}))
    act(rules, state, 1, M.FOLD)
    act(rules, state, 2, M.LOOK)
    act(rules, state, 2, M.STAKE, 10)
    act(rules, state, 0, M.LOOK)
    act(rules, state, 0, M.SEE)  # 0: 17 vs 2: 30 -> 2 wins
    assert state.hand_number == 1


def test_join_default_is_decline() -> None:
    rules, state = new_game(dealer=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: WEAK, 1: H21A, 2: H21B}))
    act(rules, state, 1, M.FOLD)
    act(rules, state, 2, M.LOOK)
    act(rules, state, 2, M.STAKE, 10)
    act(rules, state, 0, M.LOOK)
    act(rules, state, 0, M.SEE)  # 17 vs 21: seat 2 wins
    assert state.hand_number == 1
    rules, state = new_game(dealer=0)
    rules.apply_chance(state, svara_order(0, [0, 1, 2], {0: H21C, 1: H21A, 2: H21B}))
    act(rules, state, 1, M.FOLD)
    act(rules, state, 2, M.LOOK)
    act(rules, state, 2, M.SEE)  # 21 vs 21: svara, seat 1 may join
    assert rules.default_action(state, 1) == SvaraMoveAction(M.DECLINE)


def test_codec_round_trip() -> None:
    for move in M:
        action = SvaraMoveAction(move, 25 if move is M.STAKE else 0)
        assert decode_action(encode_action(action)) == action
    assert decode_action(svara_pb2.SvaraAction(move=svara_pb2.SVARA_MOVE_FOLD, amount=99)) == SvaraMoveAction(M.FOLD)
    with pytest.raises(MalformedAction):
        decode_action(svara_pb2.SvaraAction())
    with pytest.raises(MalformedAction):
        decode_action(svara_pb2.SvaraAction(move=42))
    with pytest.raises(MalformedAction):
        decode_action(svara_pb2.SvaraLegal())  # type: ignore[arg-type]


def test_encode_view() -> None:
    rules, state = _at_first_turn()
    act(rules, state, 1, M.LOOK)
    message = encode_view(rules.view(state, 1))
    assert message.decision == svara_pb2.SVARA_DECISION_TURN
    assert list(message.hand) == ["Ah", "Kh", "9c"] and message.looked
    assert list(message.tokens) == [990, 50, 990] and message.bank == 30
    assert message.legal.stake_min == 10 and message.legal.stake_max == 50
    assert list(message.history) == [svara_pb2.SvaraEvent(seat=1, move=svara_pb2.SVARA_MOVE_LOOK)]
    other = encode_view(rules.view(state, 2))
    assert other.decision == svara_pb2.SVARA_DECISION_UNSPECIFIED and not other.hand and not other.legal.moves


def test_views_mark_none_by_presence_and_carry_the_parameters() -> None:
    """Seat fields that can be "none" are unset then (seat 0 is present as 0); JOIN says who is
    in the coming svara in ``in_svara``; the svaras per bank and starting tokens reach the bot (rules §2.8)."""
    import random

    from referee.games.svara.bots import random_action
    from referee.playout import Playout

    gs = spec("svara")
    params = make_params("svara", {"hands": 30, "svaras_per_bank": 2, "starting_tokens": 500})
    seen: list[svara_pb2.SvaraView] = []

    def policy(view, rng):  # type: ignore[no-untyped-def]
        seen.append(view)
        return random_action(view, rng)

    for seed in range(3):
        rules, rng = gs.make_rules(params, 4), random.Random(seed)
        state = rules.new_state()
        Playout(rules, gs, rng, policy).play(state)
    kinds = {v.decision for v in seen}
    assert {svara_pb2.SVARA_DECISION_TURN, svara_pb2.SVARA_DECISION_VOTE, svara_pb2.SVARA_DECISION_JOIN} <= kinds
    assert all(v.HasField("dealer") for v in seen) and any(v.dealer == 0 for v in seen)
    assert all(v.HasField("proposer") == (v.decision == svara_pb2.SVARA_DECISION_VOTE) for v in seen)
    assert all(bool(v.in_svara) == (v.decision == svara_pb2.SVARA_DECISION_JOIN) for v in seen)
    assert all(list(v.in_svara) == list(v.in_play) for v in seen if v.decision == svara_pb2.SVARA_DECISION_JOIN)
    assert all(v.svaras_per_bank == 2 and v.starting_tokens == 500 for v in seen)


def test_the_default_thinking_budget() -> None:
    """Rules §4.1: the seat's thinking budget of a season that sets none (moved from the platform's time-budget tests)."""
    from referee.games import spec
    from referee.timecontrol import TimeControl

    game = "svara"
    assert TimeControl.for_game(spec(game)).budget_s == spec(game).default_budget_s == 300.0
