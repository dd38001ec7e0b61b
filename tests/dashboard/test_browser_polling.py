"""The home page in a real browser (headless Chromium): it polls the API while a season runs, and stops
for a cancelled season (rules §4.11) even while one of its games is still running. A season page polls
its own season."""

from __future__ import annotations

from tests.dashboard.conftest import World
from tests.dashboard.test_browser import base_url, page, serve  # noqa: F401  (fixtures)


def _polls(page, base_url: str, seconds: float, path: str = "/", api: str = "/api/v1/seasons") -> int:  # noqa: F811
    """Requests the page at ``path`` makes to ``api`` (its query left out) within ``seconds`` of loading it
    (refresh every 1 s)."""
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url) if request.url.split("?")[0].endswith(api) else None)
    page.goto(base_url + path)
    page.wait_for_timeout(seconds * 1000)  # (events are delivered while Playwright waits)
    return len(seen)


def test_a_season_page_polls_its_own_season(page, base_url: str, world: World) -> None:  # noqa: F811
    assert _polls(page, base_url, 3.5, f"/seasons/{world.season_id}", f"/api/v1/seasons/{world.season_id}") >= 2


def test_the_home_page_polls_a_running_season_and_not_a_cancelled_one(page, base_url: str, world: World) -> None:  # noqa: F811
    assert _polls(page, base_url, 3.5) >= 2  # running (a game is running): live
    world.store.games.cancel_season(world.season_id, "abandoned")
    assert world.store.seasons.season_progress(world.season_id)["running"] == 1  # still running: the season is not over
    assert _polls(page, base_url, 3.5) == 0
    assert page.locator("#seasons .status").inner_text() == "cancelled"
    assert not page.locator("#live-note").is_visible()
    assert page.locator("#seasons .c-cancelled").inner_text() == "1"
