"""Svara's informed-play score (``referee.games.svara.audit``, the duplicate audit's ``GameSpec.informed``) on
known events (rules §2.2, §2.4)."""

from __future__ import annotations

from referee.games.svara import SPEC
from referee.games.svara.audit import informed
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
