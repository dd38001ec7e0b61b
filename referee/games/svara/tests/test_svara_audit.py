"""Svara's informed-play score (``referee.games.svara.audit``, the duplicate audit's ``GameSpec.informed``) on
known events (rules §2.2, §2.4)."""

from __future__ import annotations

import pytest

from referee.games.svara import SPEC
from referee.games.svara.audit import BEATEN, MOVE, at_most, held_fit, informed
from referee.games.svara.points import hand_points


def _events(*rows: tuple[str, dict]) -> list[dict]:
    return [{"kind": kind, "data": data, "visible_to": None} for kind, data in rows]


def test_the_spec_declares_the_scorer() -> None:
    assert SPEC.informed is informed


def test_stakes_with_the_best_hand_and_folds_of_a_beaten_one_fit_the_hidden_hands() -> None:
    """Seat 0 holds the best hand (31 points), seat 2 the middle one, seat 1 the worst: seat 0's stake and see
    fit the hands it cannot see (+1 each), seat 1's fold fits (+1), seat 2's stake with a beaten hand goes
    against them (-1) and its fold then fits (+1); a seat that has folded scores nothing more."""
    hands = {0: ["Ah", "Kh", "Qh"], 1: ["7d", "8s", "9h"], 2: ["7c", "Td", "9s"]}
    assert hand_points(hands[0], "6c") > hand_points(hands[2], "6c") > hand_points(hands[1], "6c")
    events = _events(*[("deal", {"seat": s, "cards": c}) for s, c in hands.items()],
                     ("dealt", {"dealer": 2, "seats": [0, 1, 2], "svara": False}),
                     ("stake", {"seat": 0, "amount": 1, "bank": 1}), ("fold", {"seat": 1}),
                     ("stake", {"seat": 2, "amount": 2, "bank": 3}), ("see", {"seat": 0, "amount": 2, "bank": 5}),
                     ("fold", {"seat": 2}), ("stake", {"seat": 1, "amount": 1, "bank": 6}))
    assert informed(events, 3, {"szacha": "6c"}) == (2.0, 1.0, 0.0)


def test_the_szacha_parameter_is_read() -> None:
    """Seat 0's 7d, Ac, 8s is beaten by seat 1's Th, Qh, 9c with the 6c as the szacha (11 against 20 points),
    and beats it with the 7d as the szacha (worth 11 wherever it stands, rules §2.1: 22 points): seat 0's stake
    goes against the hidden hand in the first game and fits it in the second."""
    hands = {0: ["7d", "Ac", "8s"], 1: ["Th", "Qh", "9c"]}
    assert hand_points(hands[0], "6c") < hand_points(hands[1], "6c")
    assert hand_points(hands[0], "7d") > hand_points(hands[1], "7d")
    events = _events(*[("deal", {"seat": s, "cards": c}) for s, c in hands.items()],
                     ("dealt", {"dealer": 1, "seats": [0, 1], "svara": False}),
                     ("stake", {"seat": 0, "amount": 1, "bank": 1}))
    assert informed(events, 2, {"szacha": "6c"}) == (-1.0, 0.0)
    assert informed(events, 2, {"szacha": "7d"}) == (1.0, 0.0)


def test_held_fit_reads_a_seats_moves_against_the_hands_it_held_before() -> None:
    """Seat 0 holds 28 points (Ah Kh 7h) and folds; seat 1 holds 31 (beats it), seat 2 holds 10 (does not). Against
    held seat 1 the fold is explained only by that hand: it counts ``beaten - expected`` = 1 - (1 - F(28)), nearly
    1 for a hand that strong, times its tokens (the last stake, 3, of a max_stake of 10). Against held seat 2, which
    it beats, the fold counts -(1 - F(28)) times 0.3; against both, each held hand counts apart and the two add up. No
    held seat (or only seats that had folded) counts 0. Seat
    2's stake of 3 with a hand seat 0 beats, against held seat 0, counts ``expected - beaten`` = (1 - F(10)) - 1
    times 0.3 (it staked into a hand it would have known beat it)."""
    hands = {0: ["Ah", "Kh", "7h"], 1: ["Ad", "Kd", "Qd"], 2: ["7s", "8c", "Td"]}
    assert [hand_points(hands[s], "6c") for s in range(3)] == [28, 31, 10]
    events = _events(*[("deal", {"seat": s, "cards": c}) for s, c in hands.items()],
                     ("dealt", {"dealer": 2, "seats": [0, 1, 2], "svara": False}),
                     ("stake", {"seat": 2, "amount": 3, "bank": 3}), ("fold", {"seat": 0}),
                     ("stake", {"seat": 1, "amount": 6, "bank": 9}))
    fit = held_fit(events, 3, {"szacha": "6c", "min_stake": 1, "max_stake": 10})
    table = at_most("6c")
    assert fit(0, frozenset({1})) == pytest.approx((table[28] * 0.3,) * 2)  # one held hand: both readings agree
    assert fit(0, frozenset({2})) == pytest.approx((-(1 - table[28]) * 0.3,) * 2)
    best, each = fit(0, frozenset({1, 2}))
    assert each == pytest.approx(fit(0, frozenset({1}))[1] + fit(0, frozenset({2}))[1])  # each held hand apart
    assert best == pytest.approx((1 - table[28] ** 2 - 1) * -0.3)  # one of the two beats it
    assert fit(0, frozenset()) == (0.0, 0.0)
    assert fit(2, frozenset({0})) == pytest.approx((((1 - table[10]) - 1) * 0.3,) * 2)
    assert fit(1, frozenset({0})) == (0.0, 0.0)  # seat 0 had folded before seat 1 moved
    assert table[33] == 1.0 and table[0] == 0.0 and all(a <= b for a, b in zip(table, table[1:]))


def test_held_fit_counts_each_move_by_its_tokens() -> None:
    """A bot cannot cancel a large stake its memory wins with small moves against it. In the first deal seat 0 stakes
    the maximum (10 tokens) with a hand held seat 1 does not beat (it fits); in the second it folds the same hand
    before any stake (against the held hand: it declined only the minimum stake, 1). The stake counts its 10 tokens,
    the fold its 1, so the stake's fit outweighs the fold's tenfold."""
    events = _events(("deal", {"seat": 0, "cards": ["7s", "8c", "Td"]}), ("deal", {"seat": 1, "cards": ["7c", "8d", "9h"]}),
                     ("dealt", {"dealer": 1, "seats": [0, 1], "svara": False}),
                     ("stake", {"seat": 0, "amount": 10, "bank": 10}), ("fold", {"seat": 1}),
                     ("deal", {"seat": 0, "cards": ["7s", "8c", "Td"]}), ("deal", {"seat": 1, "cards": ["7c", "8d", "9h"]}),
                     ("dealt", {"dealer": 0, "seats": [0, 1], "svara": False}), ("fold", {"seat": 0}))
    table = at_most("6c")
    mine, theirs = hand_points(["7s", "8c", "Td"], "6c"), hand_points(["7c", "8d", "9h"], "6c")
    assert mine > theirs
    fit = held_fit(events, 2, {"szacha": "6c", "min_stake": 1, "max_stake": 10})
    expected = 1 - table[mine]
    assert fit(0, frozenset({1})) == pytest.approx((expected * 1.0 + (0 - expected) * 0.1,) * 2)


def test_the_spec_declares_the_held_fit() -> None:
    assert SPEC.held_fit is held_fit


def test_held_fit_takes_the_bots_usual_move_in_that_spot_out() -> None:
    """Each move has a context from the seat's own view (its points in steps of 3, the seats still in, a raised
    stake) and a response (its tokens in units of max_stake, negative for a fold). With a centre, a move counts
    ``(expected - beaten) x (response - centre[context])``: a stake of 3 where the bot usually stakes 3 counts
    nothing, whatever the held hand; a context the centre does not name is taken less 0."""
    hands = {0: ["Ah", "Kh", "7h"], 1: ["Ad", "Kd", "Qd"], 2: ["7s", "8c", "Td"]}
    events = _events(*[("deal", {"seat": s, "cards": c}) for s, c in hands.items()],
                     ("dealt", {"dealer": 2, "seats": [0, 1, 2], "svara": False}),
                     ("stake", {"seat": 2, "amount": 3, "bank": 3}), ("fold", {"seat": 0}),
                     ("stake", {"seat": 1, "amount": 6, "bank": 9}))
    fit = held_fit(events, 3, {"szacha": "6c", "min_stake": 1, "max_stake": 10})
    assert [r for r in fit.responses(2) if r[0][0] == MOVE] == [((MOVE, (10 // 3, 3, False)), 0.3)]
    assert [r for r in fit.responses(0) if r[0][0] == MOVE] == [((MOVE, (28 // 3, 3, True)), -0.3)]  # seat 2 had raised
    assert [r for r in fit.responses(1) if r[0][0] == MOVE] == [((MOVE, (31 // 3, 2, True)), 0.6)]
    assert fit(2, frozenset({0}), {(MOVE, (10 // 3, 3, False)): 0.3}) == (0.0, 0.0)
    table = at_most("6c")
    usual_fold = {(MOVE, (28 // 3, 3, True)): -0.1}  # it folds a little there on average; this fold declined 3 tokens
    assert fit(0, frozenset({1}), usual_fold) == pytest.approx((((1 - table[28]) - 1) * (-0.3 - -0.1),) * 2)
    assert fit(0, frozenset({1}), {}) == fit(0, frozenset({1}))


def test_held_fit_expects_a_hand_beaten_as_often_as_the_bot_was_in_that_spot() -> None:
    """Each other hand still in at a move is an observation of how often the bot's hand was beaten in that spot (its
    points, the seats still in, the stake's level and that seat's own stakes' level: a stake raised to the maximum
    tells that the hand is likely strong). With the bot's rate in the centre, a held hand counts ``(rate - beaten) x
    move``: seat 0's fold of 28 points after seat 2 raised (level 1), where it was beaten 3 times in 4, against held
    seat 1 (which beats it and had not staked) counts (0.75 - 1) x -0.3. A call of a stake at the maximum has level 2,
    and so has the seat that staked it."""
    hands = {0: ["Ah", "Kh", "7h"], 1: ["Ad", "Kd", "Qd"], 2: ["7s", "8c", "Td"]}
    events = _events(*[("deal", {"seat": s, "cards": c}) for s, c in hands.items()],
                     ("dealt", {"dealer": 2, "seats": [0, 1, 2], "svara": False}),
                     ("stake", {"seat": 2, "amount": 3, "bank": 3}), ("fold", {"seat": 0}),
                     ("stake", {"seat": 1, "amount": 10, "bank": 13}), ("stake", {"seat": 2, "amount": 10, "bank": 23}))
    fit = held_fit(events, 3, {"szacha": "6c", "min_stake": 1, "max_stake": 10})
    assert [r for r in fit.responses(0) if r[0][0] == BEATEN] == [((BEATEN, (28, 3, 1, 0)), 1.0),
                                                                   ((BEATEN, (28, 3, 1, 1)), 0.0)]
    assert [r for r in fit.responses(2) if r[0][0] == BEATEN][-1] == ((BEATEN, (10, 2, 2, 2)), 1.0)  # at the maximum
    assert fit(0, frozenset({1}), {(BEATEN, (28, 3, 1, 0)): 0.75}) == pytest.approx(((0.75 - 1) * -0.3,) * 2)
    assert fit(0, frozenset({2}), {(BEATEN, (28, 3, 1, 1)): 0.75}) == pytest.approx((0.75 * -0.3,) * 2)
    assert fit(0, frozenset({2}), {(BEATEN, (28, 3, 1, 0)): 0.75}) == pytest.approx(((1 - at_most("6c")[28]) * -0.3,) * 2)
    rates = {(BEATEN, (28, 3, 1, 0)): 0.75, (BEATEN, (28, 3, 1, 1)): 0.5}
    best, each = fit(0, frozenset({1, 2}), rates)
    assert each == pytest.approx((0.75 - 1) * -0.3 + 0.5 * -0.3)
    assert best == pytest.approx((1 - 0.25 * 0.5 - 1) * -0.3)

