"""Scripted deals of contract rummy with exact outcomes (rules §3, §4.2).

Every deal is a fixed shuffle order given through ``apply_chance``; the few
edge cases that need a nearly empty stock move cards between the stock, the
pile and a hand before the turn starts, keeping every card accounted for.
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest
from cardarena.v1 import rummy_pb2 as pb

from referee.driver import IllegalChance, answer_chance
from referee.engine import Ask, BadParameters, DrawLot, IllegalAction, Shuffle
from referee.games import MalformedAction, make_params, spec
from referee.games.rummy import (
    SPEC,
    Decision,
    DrawSource,
    LayOff,
    MeldKind,
    NewMeld,
    RummyAction,
    RummyParams,
    RummyRules,
    RummyState,
    RunEnd,
    hand_points,
)
from referee.games.rummy.codec import decode_action, encode_action, encode_view
from referee.games.rummy.rules import Phase, RoundEnd

NO = RummyAction(call=False)
CALL = RummyAction(call=True)
STOCK = RummyAction(draw=DrawSource.STOCK)
PILE = RummyAction(draw=DrawSource.DISCARD_PILE)


def cards(text: str) -> list[str]:
    return text.split()


def deal(rules: RummyRules, rnd: int, dealer: int, hands: list[str], upcard: str, stock_top: str = "") -> RummyState:
    """A state right after the deal of round ``rnd`` by ``dealer``: the given hands, upcard and top of the stock.

    The shuffle answered through apply_chance puts each hand's k-th card where
    the deal (one at a time from the dealer's left) gives it; the rest of the
    deck follows the stock's top in a fixed order.
    """
    n = rules.num_seats
    st = rules.new_state()
    assert rules.step(st) == DrawLot(tuple(range(n)))
    rules.apply_chance(st, (dealer - rnd + 1) % n)
    if rnd > 1:
        rules.start_at_round(st, rnd)  # jump to the round under test
    assert st.dealer == dealer
    size = len(cards(hands[0]))
    order: list[str] = [""] * (n * size)
    for seat, hand in enumerate(hands):
        assert len(cards(hand)) == size
        for k, c in enumerate(cards(hand)):
            order[k * n + (seat - dealer - 1) % n] = c
    fixed = order + [upcard] + cards(stock_top)
    rest = Counter(rules.deck) - Counter(fixed)
    assert not Counter(fixed) - Counter(rules.deck), "more copies than the deck holds"
    request = rules.step(st)
    assert isinstance(request, Shuffle)
    rules.apply_chance(st, fixed + sorted(rest.elements()))
    return st


def conserved(rules: RummyRules, st: RummyState) -> bool:
    held = [c for h in st.hands for c in h] + [c for m in st.melds for c in m.cards] + st.stock + st.pile
    return Counter(held) == Counter(rules.deck)


FOUR = ["2c 3c 4c 5c 6c 7c 8c", "2d 3d 4d 5d 6d 7d 8d", "2h 3h 4h 5h 6h 7h 8h", "2s 3s 4s 5s 6s 7s 8s"]


def test_spec_and_parameters() -> None:
    assert spec("rummy") is SPEC
    assert (SPEC.name, SPEC.proto_field, SPEC.score_unit) == ("rummy", "rummy", "points")
    assert (SPEC.min_seats, SPEC.max_seats, SPEC.higher_score_is_better) == (3, 6, False)
    assert RummyRules(RummyParams(), 4).jokers == 4
    assert RummyRules(RummyParams(), 5).jokers == 6
    assert len(RummyRules(RummyParams(jokers=5), 3).deck) == 109
    assert make_params("rummy", {"turn_limit": 50}).turn_limit == 50
    for bad in ({"jokers": 3}, {"jokers": 7}, {"turn_limit": 0}, {"take_it_limit": -1}, {"jokers": "4"}):
        with pytest.raises(BadParameters):
            RummyParams(**bad)  # type: ignore[arg-type]
    with pytest.raises(BadParameters):
        make_params("rummy", {"nope": 1})
    for seats in (2, 7):
        with pytest.raises(BadParameters):
            RummyRules(RummyParams(), seats)


def test_deal_upcard_and_first_window() -> None:
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd", "Qs Js")
    assert [sorted(h) for h in st.hands] == [sorted(cards(h)) for h in FOUR]
    assert st.pile == ["Kd"] and st.stock[:2] == ["Qs", "Js"]
    assert len(st.stock) == 108 - 4 * 7 - 1
    # rules §3.5: everyone but the player in turn may call on the first upcard, the dealer too.
    assert rules.step(st) == Ask((0, 2, 3))
    view = rules.view(st, 0)
    assert view.decision is Decision.CALL and view.discard_top == "Kd" and view.discard_live
    assert rules.view(st, 1).decision is None
    assert view.hand == tuple(cards(FOUR[0])) and view.contract == (2, 0)
    deal_events = [e for e in st.events if e.kind == "hand"]
    assert [e.visible_to for e in deal_events] == [(0,), (1,), (2,), (3,)]


@pytest.mark.parametrize("order", [(0, 2, 3), (3, 2, 0), (2, 0, 3)])
def test_take_it_several_callers_priority_from_the_left(order: tuple[int, ...]) -> None:
    """rules §3.5: answers ordered by seat from the left of the player in turn, never by arrival."""
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd", "Qs Js")
    answers = {0: CALL, 2: NO, 3: CALL}
    rules.apply(st, {s: answers[s] for s in order})
    assert rules.step(st) == Ask((1,))
    view = rules.view(st, 1)
    assert view.decision is Decision.DRAW and view.callers == (3, 0)
    rules.apply(st, {1: STOCK})  # give it to the first caller
    assert sorted(st.hands[3]) == sorted(cards(FOUR[3]) + ["Kd", "Qs"])  # the card and the penalty card
    assert sorted(st.hands[1]) == sorted(cards(FOUR[1]) + ["Js"])       # then he draws from the stock
    assert st.hands[0] == cards(FOUR[0])
    assert st.take_its == [0, 0, 0, 1]
    assert st.pile == [] and rules.view(st, 1).decision is Decision.PLAY
    assert rules.view(st, 3).take_its == 1
    penalty = [e for e in st.events if e.kind == "drawn_card" and e.data["seat"] == 3]
    assert penalty[-1].visible_to == (3,) and penalty[-1].data["card"] == "Qs"
    assert [e.visible_to for e in st.events if e.kind == "take_it"] == [None]
    assert conserved(rules, st)


def test_player_in_turn_takes_it_himself() -> None:
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd", "Qs Js")
    rules.apply(st, {0: CALL, 2: CALL, 3: NO})
    rules.apply(st, {1: PILE})
    assert sorted(st.hands[1]) == sorted(cards(FOUR[1]) + ["Kd"])  # no penalty card
    assert st.hands[0] == cards(FOUR[0]) and st.hands[2] == cards(FOUR[2])
    assert st.take_its == [0, 0, 0, 0] and st.stock[0] == "Qs"
    view = rules.view(st, 1)
    assert view.forbidden_discard == "Kd"
    before = copy.deepcopy(st)
    with pytest.raises(IllegalAction, match="taken from the discard pile"):
        rules.apply(st, {1: RummyAction(discard="Kd")})
    assert st == before
    rules.apply(st, {1: RummyAction(discard="8d")})
    # the next window: not the player in turn (2), not the discarder (1)
    assert rules.step(st) == Ask((0, 3))
    assert st.pile == ["8d"] and st.top_live


def test_dead_card_after_a_take_it() -> None:
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd", "Qs Js Ts 9s 9h")
    rules.apply(st, {0: NO, 2: NO, 3: NO})
    rules.apply(st, {1: STOCK})                        # seat 1 draws Qs
    rules.apply(st, {1: RummyAction(discard="8d")})
    rules.apply(st, {0: NO, 3: NO})                    # window on 8d
    rules.apply(st, {2: STOCK})                        # seat 2 draws Js
    rules.apply(st, {2: RummyAction(discard="8h")})
    assert st.pile == ["Kd", "8d", "8h"]
    assert rules.step(st) == Ask((0, 1))               # seat 3 in turn, seat 2 discarded
    rules.apply(st, {0: CALL, 1: NO})
    rules.apply(st, {3: STOCK})
    assert "8h" in st.hands[0] and "Ts" in st.hands[0]  # the card + the penalty
    assert "9s" in st.hands[3]
    # rules §3.5: the card now on top is dead until a new discard
    for seat in range(4):
        view = rules.view(st, seat)
        assert (view.discard_top, view.discard_live) == ("8d", False)
    rules.apply(st, {3: RummyAction(discard="9s")})
    assert rules.view(st, 0).discard_live and rules.step(st) == Ask((1, 2))


def test_take_it_refused_when_the_stock_cannot_pay_penalty_and_draw() -> None:
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd", "Qs")
    st.hands[0] += st.stock[1:]                        # keep one card in the stock, nothing to rebuild
    st.stock = st.stock[:1]
    rules.begin_turn(st)
    assert rules.step(st) == Ask((1,))                 # no take-it window
    assert rules.view(st, 0).decision is None
    rules.apply(st, {1: PILE})                         # he may still take the upcard as his draw
    assert "Kd" in st.hands[1] and st.stock == ["Qs"]


def test_stock_rebuilt_for_the_take_it_window_keeps_its_card_on_top() -> None:
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd", "Qs Js Ts")
    st.pile = st.stock[1:] + st.pile
    st.stock = st.stock[:1]
    rules.begin_turn(st)
    request = rules.step(st)
    assert isinstance(request, Shuffle) and Counter(request.cards) == Counter(st.pile[:-1])
    new_order = list(reversed(request.cards))
    rules.apply_chance(st, new_order)
    assert st.stock == ["Qs"] + new_order and st.pile == ["Kd"] and st.top_live
    assert rules.step(st) == Ask((0, 2, 3))
    assert conserved(rules, st)


def test_stock_rebuilt_for_the_draw_top_keeps_dead_state() -> None:
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd", "Qs Js")
    st.pile = st.stock + st.pile
    st.stock = []
    st.top_live = False
    rules.begin_turn(st)
    request = rules.step(st)
    assert isinstance(request, Shuffle) and len(request.cards) == 108 - 29
    with pytest.raises(IllegalChance):
        answer_chance(rules, st, list(request.cards[1:]))  # not a permutation
    answer_chance(rules, st, list(request.cards))
    assert st.pile == ["Kd"] and not st.top_live
    assert rules.step(st) == Ask((1,)) and st.phase is Phase.PLAY  # the only draw, made at once
    assert st.hands[1][-1] == "Qs"
    assert rules.default_action(st, 1) == RummyAction(discard="Qs")  # the card drawn this turn
    assert [e.kind for e in st.events].count("rebuild") == 1
    assert conserved(rules, st)


def test_empty_stock_and_a_live_top_card_the_player_in_turn_draws_it() -> None:
    """rules §3.6, §3.9: with the stock empty and nothing under the pile's live top card to rebuild from,
    the player in turn draws that card; the round goes on (it ends only when there is no card to draw)."""
    rules = RummyRules(RummyParams(jokers=5), 4)
    st = deal(rules, 1, 0, FOUR, "Kd")
    assert len(st.stock) == 80
    # Every eligible seat calls each time: each take-it costs the stock two cards (the penalty card and
    # the draw of the player in turn) and leaves the pile one card (his discard), until the stock is empty.
    while rules.view(st, 0).stock_size > 0:
        request = rules.step(st)
        assert isinstance(request, Ask) and st.round == 1
        decision = rules.view(st, request.seats[0]).decision
        if decision is Decision.CALL:
            rules.apply(st, {s: CALL for s in request.seats})
        elif decision is Decision.DRAW:
            rules.apply(st, {request.seats[0]: STOCK})
        else:
            rules.apply(st, {request.seats[0]: rules.default_action(st, request.seats[0])})
    last = request.seats[0]
    assert rules.view(st, last).decision is Decision.PLAY
    play = rules.default_action(st, last)
    rules.apply(st, {last: play})  # the stock is empty, the pile holds only his live discard
    nxt = (last + 1) % 4
    assert st.round_ends == [] and rules.step(st) == Ask((nxt,))
    view = rules.view(st, nxt)
    assert view.decision is Decision.PLAY and play.discard in view.hand
    assert view.forbidden_discard == play.discard and (view.stock_size, view.discard_size) == (0, 0)
    assert st.events[-1].kind == "draw" and st.events[-1].data["source"] == "discard_pile"
    assert st.events[-1].data["card"] == play.discard
    rules.apply(st, {nxt: rules.default_action(st, nxt)})
    assert st.round_ends == [] and rules.view(st, (nxt + 1) % 4).decision is Decision.PLAY  # and so on
    assert conserved(rules, st)


def test_no_card_to_draw_ends_the_round() -> None:
    """rules §3.9: the stock empty, nothing to rebuild from and the pile's top card dead: the round ends."""
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd")
    st.hands[2] += st.stock
    st.stock = []
    st.top_live = False
    rules.begin_turn(st)
    assert st.round_ends == [RoundEnd.NO_CARD]
    assert st.round_points[0] == [hand_points(h) for h in st.hands]
    assert st.totals == st.round_points[0]
    assert (st.round, st.dealer, st.phase) == (2, 1, Phase.DEAL)


def _round1_seat1(hand1: str, stock_top: str) -> tuple[RummyRules, RummyState]:
    rules = RummyRules(RummyParams(), 4)
    hands = list(FOUR)
    hands[1] = hand1
    st = deal(rules, 1, 0, hands, "Kd", stock_top)
    rules.apply(st, {0: NO, 2: NO, 3: NO})
    rules.apply(st, {1: STOCK})
    return rules, st


SEVENS_NINES = [NewMeld(MeldKind.SET, ("7h", "7d", "7c")), NewMeld(MeldKind.SET, ("9s", "9d", "Jk"))]


def test_go_down_lay_off_and_go_out_by_the_last_discard() -> None:
    rules, st = _round1_seat1("7h 7d 9h 9s 9d Jk Qc", "7c")
    play = RummyAction(
        go_down=(NewMeld(MeldKind.SET, ("7h", "7d", "7c")), NewMeld(MeldKind.SET, ("9s", "9d", "Jk"))),
        lay_offs=(LayOff(1, ("9h",)),),
        discard="Qc",
    )
    others = [hand_points(st.hands[s]) for s in (0, 2, 3)]
    rules.apply(st, {1: play})
    assert st.round_ends == [RoundEnd.WENT_OUT]
    assert st.round_points[0] == [others[0], 0, others[1], others[2]]
    assert st.totals == st.round_points[0]
    assert [m.cards for m in st.melds] == [("7h", "7d", "7c"), ("9s", "9d", "Jk", "9h")]
    kinds = [e.kind for e in st.events]
    assert kinds.index("go_down") < kinds.index("lay_off") < kinds.index("discard") < kinds.index("round_end")
    assert (st.round, st.dealer, st.phase) == (2, 1, Phase.DEAL)


def test_no_emptying_the_hand_by_lay_offs() -> None:
    """rules §3.7: every turn of rounds 1-6 ends with a discard, so a card is kept for it."""
    rules, st = _round1_seat1("7h 7d 9h 9s 9d Jk 9c", "7c")
    before = copy.deepcopy(st)
    with pytest.raises(IllegalAction, match="keeps a card"):
        rules.apply(st, {1: RummyAction(go_down=tuple(SEVENS_NINES), lay_offs=(LayOff(1, ("9h", "9c")),))})
    assert st == before
    rules.apply(st, {1: RummyAction(go_down=tuple(SEVENS_NINES), lay_offs=(LayOff(1, ("9h",)),), discard="9c")})
    assert st.round_ends == [RoundEnd.WENT_OUT] and st.round_points[0][1] == 0


def test_lay_off_on_another_players_meld_when_going_down() -> None:
    rules = RummyRules(RummyParams(), 4)
    hands = list(FOUR)
    hands[1] = "7h 7d 9s 9d Jk Qc Ac"
    hands[2] = "4s 4d 4h 6h 6d 6s 9h"
    st = deal(rules, 1, 0, hands, "Kd", "7c 9c")
    rules.apply(st, {0: NO, 2: NO, 3: NO})
    rules.apply(st, {1: STOCK})  # 7c
    rules.apply(st, {1: RummyAction(go_down=tuple(SEVENS_NINES), discard="Qc")})
    assert st.down == [False, True, False, False] and st.hands[1] == ["Ac"]
    assert [(m.id, m.owner) for m in st.melds] == [(0, 1), (1, 1)]
    rules.apply(st, {0: NO, 3: NO})
    rules.apply(st, {2: STOCK})  # 9c
    before = copy.deepcopy(st)
    with pytest.raises(IllegalAction, match="who is down"):
        rules.apply(st, {2: RummyAction(lay_offs=(LayOff(1, ("9c",)),), discard="9h")})
    assert st == before
    fours_sixes = (NewMeld(MeldKind.SET, ("4s", "4d", "4h")), NewMeld(MeldKind.SET, ("6h", "6d", "6s")))
    rules.apply(st, {2: RummyAction(go_down=fours_sixes, lay_offs=(LayOff(1, ("9c",)),), discard="9h")})
    assert st.melds[1].cards == ("9s", "9d", "Jk", "9c")
    assert [(m.id, m.owner) for m in st.melds] == [(0, 1), (1, 1), (2, 2), (3, 2)]
    assert st.round_ends == [RoundEnd.WENT_OUT] and st.round_points[0][2] == 0
    assert st.round_points[0][1] == 20  # the ace left in seat 1's hand


@pytest.mark.parametrize(
    ("play", "why"),
    [
        (RummyAction(go_down=(SEVENS_NINES[0],), discard="Qc"), "exactly 2 set"),
        (RummyAction(go_down=(*SEVENS_NINES, NewMeld(MeldKind.SET, ("Qc", "Qc", "Jk"))), discard="9h"), "exactly"),
        (RummyAction(go_down=(SEVENS_NINES[0], NewMeld(MeldKind.SET, ("9s", "Jk", "Jk"))), discard="Qc"), "natural"),
        (RummyAction(go_down=(SEVENS_NINES[0], NewMeld(MeldKind.RUN, ("9s", "Ts", "Jk", "Qs"))), discard="Qc"), "exactly"),
        (RummyAction(go_down=tuple(SEVENS_NINES), lay_offs=(LayOff(0, ("Qc",)),), discard="9h"), "cannot be laid off"),
        (RummyAction(go_down=tuple(SEVENS_NINES), lay_offs=(LayOff(5, ("9h",)),), discard="Qc"), "names no meld"),
        (RummyAction(go_down=tuple(SEVENS_NINES)), "ends with a discard"),
        (RummyAction(discard="As"), "not held"),
        (RummyAction(go_down=(SEVENS_NINES[0], NewMeld(MeldKind.SET, ("9s", "9d", "9c"))), discard="Qc"), "not held"),
        (RummyAction(discard="Zz"), "not a card"),
        (RummyAction(lay_offs=(LayOff(0, ("9h",)),), discard="Qc"), "who is down"),
        (RummyAction(), "discard"),
    ],
)
def test_illegal_plays_leave_the_table_unchanged(play: RummyAction, why: str) -> None:
    rules, st = _round1_seat1("7h 7d 9h 9s 9d Jk Qc", "7c")
    before = copy.deepcopy(st)
    with pytest.raises(IllegalAction, match=why):
        rules.check(st, 1, play)
    with pytest.raises(IllegalAction):
        rules.apply(st, {1: play})
    assert st == before


def test_decisions_checked() -> None:
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd")
    with pytest.raises(IllegalAction, match="not asked"):
        rules.check(st, 1, NO)
    with pytest.raises(IllegalAction):
        rules.apply(st, {0: NO, 2: NO})  # seat 3 missing
    with pytest.raises(IllegalChance):
        answer_chance(rules, st, 1)  # no chance pending
    rules.apply(st, {0: NO, 2: NO, 3: NO})
    with pytest.raises(IllegalAction, match="source"):
        rules.check(st, 1, RummyAction())
    with pytest.raises(IllegalAction):
        rules.check(st, 1, "draw")  # type: ignore[arg-type]


def _round7(hand1: str, stock_top: str) -> tuple[RummyRules, RummyState]:
    rules = RummyRules(RummyParams(), 3)
    hands = ["2c 3c 4c 6c 7c 9c Tc Jc Qc Ac 2d 3d 4d", hand1, "6d 7d 9d Td Jd Qd Ad 2h 3h 4h 6h 7h 9h"]
    st = deal(rules, 7, 0, hands, "Ks", stock_top)
    assert rules.view(st, 1).contract == (3, 1)
    rules.apply(st, {0: NO, 2: NO})
    rules.apply(st, {1: STOCK})
    return rules, st


ROUND7_HAND = "5c 5d 5h 8c 8d 8s Kc Kd Kh 2s 3s 4s 5s"
ROUND7_MELDS = (
    NewMeld(MeldKind.SET, ("5c", "5d", "5h")),
    NewMeld(MeldKind.SET, ("8c", "8d", "8s")),
    NewMeld(MeldKind.SET, ("Kc", "Kd", "Kh")),
    NewMeld(MeldKind.RUN, ("2s", "3s", "4s", "5s", "6s")),
)


def test_round_7_whole_hand_goes_down_without_discard() -> None:
    rules, st = _round7(ROUND7_HAND, "6s")
    others = [hand_points(st.hands[0]), hand_points(st.hands[2])]
    short = ROUND7_MELDS[:3] + (NewMeld(MeldKind.RUN, ("2s", "3s", "4s", "5s")),)
    before = copy.deepcopy(st)
    for bad, why in [
        (RummyAction(go_down=short), "whole hand"),
        (RummyAction(go_down=short, discard="6s"), "whole hand|no discard"),
        (RummyAction(go_down=short, lay_offs=(LayOff(3, ("6s",), RunEnd.HIGH),)), "no laying off"),
    ]:
        with pytest.raises(IllegalAction, match=why):
            rules.apply(st, {1: bad})
        assert st == before
    rules.apply(st, {1: RummyAction(go_down=ROUND7_MELDS)})
    assert st.round_ends == [RoundEnd.WENT_OUT]
    assert st.round_points[0] == [others[0], 0, others[1]]
    assert st.phase is Phase.OVER and rules.step(st) is None
    assert rules.scores(st) == tuple(st.totals)
    assert rules.rank_key(st, 1) == (0,) and rules.rank_key(st, 0) == (-others[0],)
    assert conserved(rules, st)


@pytest.mark.parametrize("run", ["6s 5s 4s 3s 2s", "4s 2s 6s 3s 5s"])
def test_a_run_without_jokers_may_be_listed_in_any_order(run: str) -> None:
    """rules §3.1: a run is defined by its cards; without jokers the order they are listed in does not
    matter, and the run is put on the table low to high."""
    rules, st = _round7(ROUND7_HAND, "6s")
    message = encode_action(RummyAction(go_down=ROUND7_MELDS[:3] + (NewMeld(MeldKind.RUN, tuple(cards(run))),)))
    action = decode_action(message)  # as a bot sends it
    rules.check(st, 1, action)
    rules.apply(st, {1: action})
    assert st.round_ends == [RoundEnd.WENT_OUT]
    table_run = st.melds[3]
    assert table_run.cards == ("2s", "3s", "4s", "5s", "6s") and table_run.start == 2
    assert [e.data["melds"][3]["cards"] for e in st.events if e.kind == "go_down"] == [["2s", "3s", "4s", "5s", "6s"]]


def test_round_7_discard_before_going_down() -> None:
    rules, st = _round7(ROUND7_HAND, "Qh")
    with pytest.raises(IllegalAction, match="whole hand"):
        rules.check(st, 1, RummyAction(go_down=ROUND7_MELDS[:3] + (NewMeld(MeldKind.RUN, ("2s", "3s", "4s", "5s")),)))
    rules.apply(st, {1: RummyAction(discard="Qh")})
    assert st.phase is Phase.CALL and len(st.hands[1]) == 13


def test_turn_limit_ends_the_round_and_everyone_scores() -> None:
    rules = RummyRules(RummyParams(turn_limit=2), 3)
    st = deal(rules, 1, 0, ["2c 3c 4c 5c 6c 7c 8c", "2d 3d 4d 5d 6d 7d 8d", "2h 3h 4h 5h 6h 7h 8h"], "Kd")
    while st.round == 1:
        request = rules.step(st)
        assert isinstance(request, Ask)
        rules.apply(st, {s: rules.default_action(st, s) for s in request.seats})
    assert st.round_ends == [RoundEnd.TURN_LIMIT]
    assert sum(1 for e in st.events if e.kind == "discard") == 2
    round_end = next(e for e in st.events if e.kind == "round_end")
    assert round_end.data["points"] == [hand_points(h) for h in round_end.data["hands"]]


def test_default_actions() -> None:
    rules = RummyRules(RummyParams(), 4)
    st = deal(rules, 1, 0, FOUR, "Kd", "Qs")
    assert rules.default_action(st, 0) == NO
    rules.apply(st, {0: CALL, 2: NO, 3: NO})
    assert rules.default_action(st, 1) == STOCK  # give it to the caller
    rules.apply(st, {1: STOCK})
    drawn = st.hands[1][-1]
    assert rules.default_action(st, 1) == RummyAction(discard=drawn)
    with pytest.raises(IllegalAction):
        rules.default_action(st, 0)


@pytest.mark.parametrize(
    ("hand", "taken", "expected"),
    [
        ("2c 3c Kh Ks Qs 9c", "Kd", "Ks"),   # ties on points: higher rank, then suit s h d c
        ("2c 3c Kh Kd 9c 9s", "Ks", "Kh"),
        ("2c Ad Kh Ks 9c 9s", "Ah", "Ad"),
        ("2c Jk Kh Ks 9c 9s", "Ah", "Jk"),
        ("2c 2d Kd 3c 4c 2h", "Kd", "5h"),   # never a card equal to the one taken
    ],
)
def test_default_discard_after_taking_from_the_pile(hand: str, taken: str, expected: str) -> None:
    rules = RummyRules(RummyParams(), 3)
    hands = [hand + " " + "5h", "2h 3h 4h 6h 7h 8h 9h", "2s 3s 4s 5s 6s 7s 8s"]
    st = deal(rules, 1, 2, hands, taken)
    rules.apply(st, {1: NO, 2: NO})
    rules.apply(st, {0: PILE})
    assert rules.default_action(st, 0) == RummyAction(discard=expected)
    rules.check(st, 0, rules.default_action(st, 0))


def test_default_discard_when_every_card_equals_the_taken_one() -> None:
    rules = RummyRules(RummyParams(), 3)
    st = deal(rules, 1, 2, ["Kd 5h 5h 5d 5d 5c 5c", "2h 3h 4h 6h 7h 8h 9h", "2s 3s 4s 5s 6s 7s 8s"], "Kd")
    rules.apply(st, {1: NO, 2: NO})
    rules.apply(st, {0: PILE})
    st.hands[0] = ["Kd", "Kd"]  # an edge case: only copies of the taken card
    assert rules.default_action(st, 0) == RummyAction(discard="Kd")
    rules.check(st, 0, RummyAction(discard="Kd"))


def test_take_it_limit() -> None:
    rules = RummyRules(RummyParams(take_it_limit=0), 4)
    st = deal(rules, 1, 0, FOUR, "Kd")
    assert rules.step(st) == Ask((1,))  # nobody may call: straight to the draw


def test_view_and_codec_round_trip() -> None:
    rules, st = _round1_seat1("7h 7d 9h 9s 9d Jk Qc", "7c")
    rules.apply(st, {1: RummyAction(go_down=(SEVENS_NINES[0], NewMeld(MeldKind.SET, ("9s", "Jk", "9d"))), discard="Qc")})
    rules.apply(st, {0: NO, 3: NO})
    view = rules.view(st, 2)
    message = encode_view(view)
    assert message.decision == pb.RUMMY_DECISION_DRAW
    assert list(message.hand) == list(view.hand)
    assert [list(m.stands_for) for m in message.melds] == [["7h", "7d", "7c"], ["9s", "", "9d"]]
    assert list(message.down) == [False, True, False, False]
    assert message.contract.sets == 2 and message.discard_top == "Qc" and message.discard_live
    action = RummyAction(
        go_down=(NewMeld(MeldKind.RUN, ("Jk", "5h", "6h", "7h")),),
        lay_offs=(LayOff(2, ("8h",), RunEnd.HIGH), LayOff(0, ("Jk",))),
        discard="Ks",
    )
    assert decode_action(encode_action(action)) == action
    assert decode_action(encode_action(STOCK)) == STOCK
    assert decode_action(pb.RummyAction(call=True)) == CALL


@pytest.mark.parametrize(
    "message",
    [
        pb.RummyAction(discard="Ace"),
        pb.RummyAction(go_down=[pb.RummyNewMeld(cards=["7h", "7d", "7c"])]),  # kind unspecified
        pb.RummyAction(go_down=[pb.RummyNewMeld(kind=pb.RUMMY_MELD_KIND_SET, cards=["7h", "7d", "x"])]),
        pb.RummyAction(lay_offs=[pb.RummyLayOff(meld_id=0, cards=["10h"])]),
        pb.RummyAction(draw=7),
        pb.RummyAction(lay_offs=[pb.RummyLayOff(meld_id=0, cards=["Th"], end=9)]),
        pb.RummyNewMeld(),
    ],
)
def test_malformed_actions(message: object) -> None:
    with pytest.raises(MalformedAction):
        decode_action(message)  # type: ignore[arg-type]



def test_a_lay_off_that_names_no_meld_is_malformed() -> None:
    """rules §3.7, §4.2: a lay-off names its meld; an unset meld_id is not read as meld 0 (which it would fit)."""
    rules, st = _round1_seat1("7h 7d 7s 9s 9d Jk Qc", "7c")
    go_down = encode_action(RummyAction(go_down=tuple(SEVENS_NINES))).go_down
    named = pb.RummyAction(go_down=go_down, lay_offs=[pb.RummyLayOff(meld_id=0, cards=["7s"])], discard="Qc")
    rules.check(st, 1, decode_action(named))  # the 7s fits meld 0, the set of sevens
    unnamed = pb.RummyAction(go_down=go_down, lay_offs=[pb.RummyLayOff(cards=["7s"])], discard="Qc")
    with pytest.raises(MalformedAction, match=r"lay_offs\[0\]: names no meld"):
        decode_action(unnamed)


def test_views_carry_the_game_parameters() -> None:
    """rules §3, §3.5: the jokers in the deck, the take-it limit and the take-its left reach the bot."""
    rules = RummyRules(RummyParams(take_it_limit=2), 4)
    message = encode_view(rules.view(deal(rules, 1, 0, FOUR, "Kd"), 1))
    assert message.jokers == 4
    assert message.HasField("take_it_limit") and message.take_it_limit == 2
    assert message.HasField("take_its_left") and message.take_its_left == 2
    rules = RummyRules(RummyParams(), 5)
    message = encode_view(rules.view(deal(rules, 1, 0, FOUR + ["2c 3c 4c 5c 6c 7c 8c"], "Kd"), 1))
    assert message.jokers == 6
    assert not message.HasField("take_it_limit") and not message.HasField("take_its_left")  # unlimited


def test_the_forbidden_discard_is_judged_on_the_cards_left_after_the_melds() -> None:
    """rules §3.7 (rummy.proto, forbidden_discard): the card taken from the pile may be discarded when every
    card left after this action's go-down and lay-offs equals it, though the hand held other cards before."""
    rules = RummyRules(RummyParams(), 4)
    hands = list(FOUR)
    hands[1] = "7h 7d 7s 9s 9d Jk Kd"
    st = deal(rules, 1, 0, hands, "Kd")
    rules.apply(st, {0: NO, 2: NO, 3: NO})
    rules.apply(st, {1: PILE})
    assert encode_view(rules.view(st, 1)).forbidden_discard == "Kd"
    with pytest.raises(IllegalAction, match="may not discard Kd"):
        rules.check(st, 1, RummyAction(discard="Kd"))
    sets = (NewMeld(MeldKind.SET, ("7h", "7d", "7s")), NewMeld(MeldKind.SET, ("9s", "9d", "Jk")))
    rules.apply(st, {1: RummyAction(go_down=sets, discard="Kd")})
    assert st.hands[1] == ["Kd"] and st.pile[-1] == "Kd"


def test_a_game_starts_at_a_later_round_only_before_the_first_deal() -> None:
    """rules §3.3: round r is dealt by the first dealer's r-1-th left neighbour; rules §3.2: its hand size."""
    rules = RummyRules(RummyParams(), 4)
    st = rules.new_state()
    with pytest.raises(IllegalAction):
        rules.start_at_round(st, 3)  # the first dealer is not drawn yet
    rules.apply_chance(st, 1)
    for bad in (0, 8, True):
        with pytest.raises(BadParameters):
            rules.start_at_round(st, bad)
    rules.start_at_round(st, 5)
    assert (st.round, st.dealer) == (5, (1 + 4) % 4)
    rules.apply_chance(st, list(rules.deck))
    assert all(len(h) == 11 for h in st.hands)
    with pytest.raises(IllegalAction):
        rules.start_at_round(st, 6)  # already dealt


def test_the_default_thinking_budget() -> None:
    """Rules §4.1: the seat's thinking budget of a season that sets none (moved from the platform's time-budget tests)."""
    from referee.games import spec
    from referee.timecontrol import TimeControl

    game = "rummy"
    assert TimeControl.for_game(spec(game)).budget_s == spec(game).default_budget_s == 900.0
