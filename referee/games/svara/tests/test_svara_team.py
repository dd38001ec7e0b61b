"""Svara's team-play scorer (``referee.games.svara.team``, rules §2.2, 2.6-2.8): the moves it reads against another
seat's hidden cards and the tokens it counts between seats."""

from __future__ import annotations

from typing import Any

from referee.games import PairMove, spec
from referee.games.svara.team import team_play


def ev(kind: str, **data: Any) -> dict[str, Any]:
    return {"kind": kind, "data": data, "visible_to": None}


#: Seat 0 holds 10 points (a pair of kings adds nothing), seat 1 31 (three diamonds), seat 2 19 (two spades).
HAND = [
    ev("hand", hand=0, dealer=2, seats=[0, 1, 2]),
    ev("ante", seats=[0, 1, 2], amount=10, bank=30),
    ev("deal", seat=0, cards=["Kc", "Kh", "9d"]),
    ev("deal", seat=1, cards=["Ad", "Kd", "Qd"]),
    ev("deal", seat=2, cards=["9s", "Ts", "7h"]),
    ev("dealt", dealer=2, seats=[0, 1, 2], svara=0),
    ev("look", seat=0),
    ev("stake", seat=0, amount=50, bank=80),
    ev("look", seat=1),
    ev("stake", seat=1, amount=50, bank=130),
    ev("look", seat=2),
    ev("fold", seat=2),
    ev("fold", seat=0),
    ev("win", seat=1, amount=130, unseen=True),
]


def test_a_fold_to_a_better_hand_when_two_are_left_fits_it() -> None:
    play = team_play(HAND, 3, {"szacha": "6c", "min_stake": 10})
    last = [m for m in play.moves if m.seat == 0 and m.stratum.startswith("two")]
    assert last == [PairMove(0, 1, "two/mid/10", 1.0, 1.0)]


def test_a_raise_with_three_in_is_read_against_whether_each_other_hand_is_the_best() -> None:
    play = team_play(HAND, 3, {})
    first = [m for m in play.moves if m.seat == 0 and m.stratum.startswith("more")]
    assert first == [PairMove(0, 1, "more3/min/10", 1.0, 1.0), PairMove(0, 2, "more3/min/10", 1.0, 0.0)]
    seat2 = [m for m in play.moves if m.seat == 2]
    assert {(m.other, m.move, m.fit) for m in seat2} == {(0, -1.0, 0.0), (1, -1.0, 1.0)}


def test_tokens_staked_go_to_the_winner_of_the_bank_and_antes_are_left_out() -> None:
    play = team_play(HAND, 3, {})
    assert play.flows == ((0.0, 50.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))


def test_an_unlooked_fold_has_no_hand_in_its_stratum() -> None:
    events = HAND[:6] + [ev("fold", seat=0)]
    assert {m.stratum for m in team_play(events, 3, {}).moves} == {"more3/min/-"}


def test_svara_declares_the_scorer() -> None:
    assert spec("svara").team_play is team_play
