"""Meld checks of contract rummy (rules §3.1, §3.7, §3.9), table-driven."""

from __future__ import annotations

import pytest

from referee.engine import IllegalAction
from referee.games.rummy import hand_points, is_run, is_set
from referee.games.rummy.melds import MeldKind, RunEnd, lay_off, new_meld


@pytest.mark.parametrize(
    ("cards", "ok"),
    [
        ("7h 7d 7c", True),
        ("7h 7h 7c", True),               # two packs: the same card twice in a set
        ("7h 7h 7d 7d 7c 7c 7s 7s", True),  # all eight sevens
        ("7h 7d", False),                 # too short
        ("7h 7d Jk", True),               # one joker
        ("7h 7d Jk Jk Jk Jk", True),      # jokers: all but two
        ("7h Jk Jk", False),              # only one natural
        ("Jk Jk Jk", False),
        ("7h 7d 8c", False),              # two ranks
        ("Ah Ad As", True),
        ("7h 7d Xx", False),              # not a card
    ],
)
def test_is_set(cards: str, ok: bool) -> None:
    assert is_set(cards.split()) is ok


@pytest.mark.parametrize(
    ("cards", "ok"),
    [
        ("4h 5h 6h 7h", True),
        ("7h 4h 6h 5h", True),            # any order
        ("4h 5h 6h", False),              # too short
        ("4h 5h 6h 7d", False),           # two suits
        ("Ah 2h 3h 4h", True),            # ace low
        ("Jh Qh Kh Ah", True),            # ace high
        ("Kh Ah 2h 3h", False),           # no wrap
        ("Qh Kh Ah 2h", False),
        ("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah", True),  # 13 cards, the ace low or high
        ("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah", False),  # both aces
        ("4h 5h 5h 6h", False),           # the same card twice
        ("4h 5h 5h 6h 7h", False),
        ("4h Jk 6h 7h", True),
        ("4h Jk Jk 7h", True),
        ("4h Jk Jk Jk", False),           # one natural: every meld holds 2
        ("4h 8h Jk Jk Jk", True),         # 4..8
        ("4h 9h Jk Jk Jk", False),        # a gap of 6 needs 6 cards
        ("4h 9h Jk Jk Jk Jk", True),
        ("Ah Kh Jk Jk", True),            # J Q K A with the ace high
        ("Qh Ah Jk Jk", True),            # J Q K A or Q K A with a joker below
        ("Ah 4h Jk Jk", True),            # A 2 3 4
        ("Ah 5h Jk Jk", False),
        ("Jk Jk Jk Jk", False),
    ],
)
def test_is_run(cards: str, ok: bool) -> None:
    assert is_run(cards.split()) is ok


@pytest.mark.parametrize(
    ("cards", "points"),
    [("", 0), ("2c 7d", 10), ("8h Kc", 20), ("Ah", 20), ("Jk", 50), ("2c 8d Ah Jk", 85), ("Tc Jc Qc", 30)],
)
def test_hand_points(cards: str, points: int) -> None:
    assert hand_points(cards.split()) == points


@pytest.mark.parametrize(
    ("cards", "start", "stands"),
    [
        ("4h 5h 6h 7h", 4, "4h 5h 6h 7h"),
        ("Jk 5h 6h 7h", 4, "4h 5h 6h 7h"),
        ("Ah 2h Jk 4h", 1, "Ah 2h 3h 4h"),
        ("Jk Qh Kh Ah", 11, "Jh Qh Kh Ah"),
        ("Jk Jk Kh Ah", 11, "Jh Qh Kh Ah"),
        ("Ah Jk Jk 4h", 1, "Ah 2h 3h 4h"),
    ],
)
def test_run_laid_in_order_fixes_jokers(cards: str, start: int, stands: str) -> None:
    meld = new_meld(0, 1, MeldKind.RUN, cards.split())
    assert meld.start == start
    assert meld.stands_for() == tuple(stands.split())


@pytest.mark.parametrize(
    ("cards", "laid", "start"),
    [
        ("Ks Qs Js Ts", "Ts Js Qs Ks", 10),
        ("5h 4h 6h 7h", "4h 5h 6h 7h", 4),
        ("As Ks Qs Js", "Js Qs Ks As", 11),
        ("3d Ad 4d 2d", "Ad 2d 3d 4d", 1),
    ],
)
def test_run_without_jokers_in_any_order_is_put_low_to_high(cards: str, laid: str, start: int) -> None:
    """rules §3.1: a run is defined by its cards; order matters only to place jokers."""
    meld = new_meld(0, 1, MeldKind.RUN, cards.split())
    assert meld.cards == tuple(laid.split()) and meld.start == start
    assert meld.stands_for() == meld.cards


@pytest.mark.parametrize(
    "cards",
    ["5h Jk 6h 7h", "Jk 4h 6h 7h", "Kh Ah 2h 3h", "Jk Jk Jk 4h", "4h 5h 6h", "4h 5h 6h 7d", "4h 4h 5h 6h", "4h 5h 6h 8h"],
)
def test_run_out_of_order_with_jokers_or_invalid_is_refused(cards: str) -> None:
    with pytest.raises(IllegalAction):
        new_meld(0, 1, MeldKind.RUN, cards.split())


def test_set_stands_for_and_refusals() -> None:
    meld = new_meld(3, 2, MeldKind.SET, ["9c", "Jk", "9d"])
    assert (meld.id, meld.owner, meld.rank) == (3, 2, "9")
    assert meld.stands_for() == ("9c", "", "9d")
    for bad in (["9c", "Jk", "Jk"], ["9c", "8c", "9d"], ["9c", "9d"]):
        with pytest.raises(IllegalAction):
            new_meld(0, 0, MeldKind.SET, bad)


@pytest.mark.parametrize(
    ("run", "cards", "end", "after", "start"),
    [
        ("4h 5h 6h 7h", "8h", RunEnd.HIGH, "4h 5h 6h 7h 8h", 4),
        ("4h 5h 6h 7h", "8h 9h Jk", RunEnd.HIGH, "4h 5h 6h 7h 8h 9h Jk", 4),
        ("4h 5h 6h 7h", "3h 2h", RunEnd.LOW, "2h 3h 4h 5h 6h 7h", 2),
        ("4h 5h 6h 7h", "Jk", RunEnd.LOW, "Jk 4h 5h 6h 7h", 3),
        ("2h 3h 4h 5h", "Ah", RunEnd.LOW, "Ah 2h 3h 4h 5h", 1),
        ("Th Jh Qh Kh", "Ah", RunEnd.HIGH, "Th Jh Qh Kh Ah", 10),
    ],
)
def test_lay_off_on_run(run: str, cards: str, end: RunEnd, after: str, start: int) -> None:
    meld = lay_off(new_meld(0, 0, MeldKind.RUN, run.split()), cards.split(), end)
    assert meld.cards == tuple(after.split())
    assert meld.start == start


@pytest.mark.parametrize(
    ("run", "cards", "end"),
    [
        ("4h 5h 6h 7h", "9h", RunEnd.HIGH),        # not adjacent
        ("4h 5h 6h 7h", "8d", RunEnd.HIGH),        # wrong suit
        ("4h 5h 6h 7h", "8h", None),               # no end named
        ("4h 5h 6h 7h", "8h", RunEnd.LOW),         # wrong end
        ("Jh Qh Kh Ah", "2h", RunEnd.HIGH),        # no wrap
        ("Jh Qh Kh Ah", "Jk", RunEnd.HIGH),        # nothing above the high ace
        ("Ah 2h 3h 4h", "Jk", RunEnd.LOW),         # nothing below the low ace
        ("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", "Ah Jk", RunEnd.HIGH),  # 14 cards
        ("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah", "Ah", RunEnd.LOW),  # both aces
    ],
)
def test_lay_off_breaking_a_run_is_refused(run: str, cards: str, end: RunEnd | None) -> None:
    with pytest.raises(IllegalAction):
        lay_off(new_meld(0, 0, MeldKind.RUN, run.split()), cards.split(), end)


def test_lay_off_on_set() -> None:
    meld = new_meld(0, 0, MeldKind.SET, ["9c", "9d", "9h"])
    assert lay_off(meld, ["9c", "Jk"], None).cards == ("9c", "9d", "9h", "9c", "Jk")
    with pytest.raises(IllegalAction):
        lay_off(meld, ["8c"], None)
    with pytest.raises(IllegalAction):
        lay_off(meld, [], None)
