"""Bot names cannot pass for another bot's or for a path of the dashboard: matched whole, unique whatever
their case, reserved words refused (``league.names``)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from arena import http as arena_http, pages as arena_pages
from dashboard.routers import assets, bots, games, ladders, pages, replays, seasons
from league.names import RESERVED_NAMES, bot_name_problem
from referee.bots import load_bot
from store import Store
from tests.a_game import GAME, STRONG
from tests.arena.test_arena_http import http  # noqa: F401  (the fixture)


@pytest.mark.parametrize("name", ["odds-1\n", "odds-1\r\n", " odds-1", "odds-1 ", "odds\n-1", ".", "..", "-", "_",
                                  "...", ".hidden", "-x", "api", "API", "static", "Static", "bots", "arena", "v1",
                                  "openapi.json", "123", "", "x" * 41, "odds/1", "odds\x00"])
def test_impostor_and_reserved_names_are_refused(http, bot_server, store: Store, name: str) -> None:  # noqa: F811
    client = http()
    r = client.post("/api/v1/arena/bots", json={"name": name, "endpoint": bot_server(load_bot(STRONG)), "games": [GAME]})
    assert (r.status_code, r.json()["code"]) == (422, "INVALID_ARGUMENT"), r.json()
    assert r.json()["detail"].startswith(f"bad bot name {name!r}: ")
    assert store.bots.list_bots() == []  # nothing registered


def test_a_name_with_a_final_newline_or_another_case_does_not_stand_beside_the_bot(http, bot_server,  # noqa: F811
                                                                                  store: Store) -> None:
    client = http()
    endpoint = bot_server(load_bot(STRONG))
    assert client.post("/api/v1/arena/bots", json={"name": "odds-1", "endpoint": endpoint, "games": [GAME]}).status_code == 201
    r = client.post("/api/v1/arena/bots", json={"name": "odds-1\n", "endpoint": endpoint, "games": [GAME]})
    assert r.status_code == 422 and "bad bot name 'odds-1\\n'" in r.json()["detail"]
    r = client.post("/api/v1/arena/bots", json={"name": "Odds-1", "endpoint": endpoint, "games": [GAME]})
    assert (r.status_code, r.json()["detail"]) == (
        409, "a bot named 'odds-1' is already registered: names are unique whatever their case")
    assert [b.name for b in store.bots.list_bots()] == ["odds-1"]


def test_every_path_word_of_the_dashboard_and_the_arena_is_reserved() -> None:
    """A route added later names a word a bot may hold already; this test says to reserve it."""
    words: set[str] = set()
    for module in (seasons, ladders, bots, games, replays, pages, assets, arena_http, arena_pages):
        for route in module.router.routes:
            path = module.router.prefix + getattr(route, "path", "")
            words |= {w.lower() for w in path.split("/") if w and "{" not in w}
    assert {"api", "static", "bots", "seasons"} <= words
    assert words <= RESERVED_NAMES, f"reserve these path words in league.names: {sorted(words - RESERVED_NAMES)}"
    assert all(bot_name_problem(w) is not None for w in RESERVED_NAMES)
    assert bot_name_problem("odds-1") is None and bot_name_problem("Odds_1.v2") is None
