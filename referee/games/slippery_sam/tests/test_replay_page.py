"""Slippery Sam's replay page in a real browser (chromium through Playwright; moved here from the
platform's browser tests, which cover every game alike): one real game, the table drawn at every event.

A dealer holds no cards and is marked; nobody holds cards between turns or at the end; a kitty returned
to the dealer is no longer shown; every card drawn in a hand was dealt to that seat in this deal; seats
plus kitty always hold every token (rules §1.3-1.9). Where its replay opens and what starts a deal are
declared in its conformance module and checked with every game's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.dashboard.test_browser import page, shot  # noqa: F401  (the page fixture)
from tests.dashboard.test_browser_replay import Played, figure, pot, served_game, walk


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Played]]:
    """One short game at a table of 4, stored and served: the site's URL and the game."""
    with served_game(tmp_path_factory.mktemp("replay"), "slippery-sam", ["random", "odds", "random", "odds"],
                     {"orbits": 1, "starting_tokens": 100}, 7) as served:
        yield served


def test_slippery_sam_dealer_hands_and_kitty(page: Any, replay: tuple[str, Played]) -> None:
    site, played = replay
    events, n = played.record.events, played.record.num_seats
    total = n * played.record.params["starting_tokens"]
    tables = walk(page, site, played)
    dealer: int | None = None
    dealt: dict[int, list[str]] = {}  # seat -> its cards this deal, as far as named yet
    for pos, table in enumerate(tables):
        if pos > 0:  # what the events say holds after event pos - 1 (rules §1.3-1.9)
            e = events[pos - 1]
            if e["kind"] == "kitty":
                dealer = e["data"]["dealer"]
            elif e["kind"] == "deal":  # three cards to each player, named by the "hand" events that follow
                dealt = {s: [] for s in e["data"]["players"]}
            elif e["kind"] == "hand":
                dealt[e["data"]["seat"]] = e["data"]["cards"]
            elif e["kind"] in ("turn_end", "game_over"):
                dealer, dealt = None, {}
        where = f"after event {pos} ({events[pos - 1]['kind'] if pos else 'start'})"
        seats = table["seats"]
        for s, seat in enumerate(seats):
            assert set(seat["up"]) <= set(dealt.get(s, [])), f"{where}: seat {s} drawn with {seat['up']}, dealt {dealt.get(s)}"
            if s not in dealt:
                assert not seat["up"] and not seat["down"], f"{where}: seat {s} holds no cards but is drawn with some"
        if dealer is None:
            assert "kitty" not in table["pot"], f"{where}: a kitty is shown after it went back"
        else:
            assert not seats[dealer]["up"] and not seats[dealer]["down"], f"{where}: the dealer is drawn holding cards"
            assert seats[dealer]["dealer"], f"{where}: the dealer, seat {dealer}, is not marked"
        drawn = sum(figure(s["score"], "tokens") for s in seats) + pot(table["pot"])
        assert drawn == total, f"{where}: seats and kitty hold {drawn} tokens, not {total}"
    assert tables[-1]["seats"] and not any(s["up"] for s in tables[-1]["seats"])
    page.click("#btn-last")
    shot(page, "replay-slippery-sam")


