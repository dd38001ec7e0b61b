"""Rummy's replay page in a real browser (chromium through Playwright; moved here from the platform's
browser tests, which cover every game alike): one real game, the table drawn at every event.

Hands, melds, discard pile and stock always hold the whole deck (rules §3); the round and its contract
are shown; the figures say they are points; the results table says its score change is lower-is-better
(rules §3.9-3.11) and no szacha is shown. Where its replay opens and what starts a deal are declared in
its conformance module and checked with every game's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.dashboard.test_browser import page, shot  # noqa: F401  (the page fixture)
from tests.dashboard.test_browser_replay import Played, figure, served_game, walk
from tests.dashboard.test_browser_replay_marks import open_replay


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Played]]:
    """One short game at a table of 3, stored and served: the site's URL and the game."""
    with served_game(tmp_path_factory.mktemp("replay"), "rummy", ["greedy", "random", "greedy"],
                     {"turn_limit": 12}, 5) as served:
        yield served


def test_rummy_cards_round_and_contract(page: Any, replay: tuple[str, Played]) -> None:
    site, played = replay
    record = played.record
    deck = 104 + (4 if record.num_seats <= 4 else 6)
    tables = walk(page, site, played)
    rounds = 0
    for pos in range(1, len(tables)):
        e, table = record.events[pos - 1], tables[pos]
        where = f"after event {pos} ({e['kind']})"
        if e["kind"] == "round":
            rounds += 1
            sets, runs = e["data"]["sets"], e["data"]["runs"]
            assert f"round {e['data']['round']} of 7" in table["center"], where
            contract = table["center"].split("contract:")[1]
            assert (f"{sets} set" in contract) == bool(sets) and (f"{runs} run" in contract) == bool(runs), where
        if rounds == 0:
            continue
        for s in table["seats"]:
            figure(s["score"], "points")
        pile = re.search(r"discard pile \((\d+)\)", table["center"])
        stock = re.search(r"stock (\d+)", table["center"])
        assert stock, f"{where}: no stock shown in {table['center']!r}"
        held = sum(len(s["up"]) + s["down"] + s["melds"] for s in table["seats"])
        cards = held + (int(pile.group(1)) if pile else 0) + int(stock.group(1))
        assert cards == deck, f"{where}: {cards} cards on the table, not {deck}"
    assert rounds == 7
    shot(page, "replay-rummy")


def test_rummy_shows_its_lower_is_better_change_and_no_szacha(page: Any, replay: tuple[str, Played]) -> None:
    site, rummy = replay
    open_replay(page, site, rummy.game_id)
    assert page.locator("#change-head").inner_text() == "Change (lower is better)"
    assert page.locator("#table #szacha").count() == 0
