"""Svara's replay page in a real browser (chromium through Playwright; moved here from the platform's
browser tests, which cover every game alike): one real game, the table drawn at every event.

Seats plus bank always hold every token, and every ante, stake, see and join is taken from its seat at
that event (rules §2.4-2.8); seat figures say they are tokens; a seat dealt in is marked until it looks
at its cards (rules §2.5); the szacha (the wild card, rules §2.1) is shown on the table. Where its
replay opens and what starts a deal are declared in its conformance module and checked with every game's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.dashboard.test_browser import page, shot  # noqa: F401  (the page fixture)
from tests.dashboard.test_browser_replay import Played, figure, pot, served_game, walk
from tests.dashboard.test_browser_replay_marks import open_replay


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Played]]:
    """One short game at a table of 3, stored and served: the site's URL and the game."""
    with served_game(tmp_path_factory.mktemp("replay"), "svara", ["random", "points", "random"],
                     {"hands": 8, "starting_tokens": 200}, 3) as served:
        yield served


def test_svara_tokens_follow_every_event(page: Any, replay: tuple[str, Played]) -> None:
    site, played = replay
    events, n = played.record.events, played.record.num_seats
    total = n * played.record.params["starting_tokens"]
    tables = walk(page, site, played)
    paid = 0
    for pos in range(1, len(tables)):
        e, before, after = events[pos - 1], tables[pos - 1], tables[pos]
        where = f"after event {pos} ({e['kind']} {e['data']})"
        scores = [figure(s["score"], "tokens") for s in after["seats"]]
        assert sum(scores) + pot(after["pot"]) == total, f"{where}: seats {scores} and {after['pot']!r} hold not {total}"
        if e["kind"] in ("stake", "see", "join"):  # rules §2.6-2.8: paid into the bank at once
            seat, amount = e["data"]["seat"], e["data"]["amount"]
            assert figure(before["seats"][seat]["score"], "tokens") - scores[seat] == amount, where
            assert pot(after["pot"]) == e["data"]["bank"], where
            paid += 1
        if e["kind"] == "look":  # rules §2.5: marked until the seat looks at its cards
            assert "not looked" in before["seats"][e["data"]["seat"]]["head"], where
            assert "not looked" not in after["seats"][e["data"]["seat"]]["head"], where
    assert paid > 0
    shot(page, "replay-svara")


def test_svara_shows_its_szacha(page: Any, replay: tuple[str, Played]) -> None:
    site, svara = replay
    open_replay(page, site, svara.game_id)
    szacha = page.locator("#table #szacha")
    assert szacha.count() == 1 and "szacha" in szacha.inner_text()
    assert szacha.locator(".card").get_attribute("title") == svara.record.params["szacha"]
    assert "lower is better" not in page.locator("#change-head").inner_text()
