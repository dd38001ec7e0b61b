"""A real browser on the dashboard: headless Chromium (Debian's ``chromium``) driven by Playwright.

The test serves the dashboard with uvicorn on a free port over a season played in
the test, then, like a person: opens the standings, follows a bot, goes to its
games, opens a replay, steps through it, switches to one seat's view and checks
what is shown. A screenshot of each page is saved under ``artifacts/screenshots/``.
Playwright's own browser downloads are never used: the system's chromium is.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn

from config import Settings
from dashboard.main import create_app
from tests.dashboard.conftest import World, play_game

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

MISSING_CHROMIUM = ("Debian's chromium is not installed at /usr/bin/chromium (the browser tests need it): install it "
                    "with `sudo apt-get install -y chromium` (never `playwright install`)")


@contextmanager
def serve(db_url: str) -> Iterator[str]:
    """The dashboard over the store at ``db_url``, served by uvicorn in a thread, on a socket
    bound here (no gap between choosing a port and binding it); yields its base URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = int(listener.getsockname()[1])
    app = create_app(Settings(db_url=db_url, refresh_s=1))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
    listener.close()


@pytest.fixture
def base_url(world: World) -> Iterator[str]:
    """The dashboard over ``world``'s store, for this test."""
    with serve(world.url) as url:
        yield url


@pytest.fixture
def page() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip(MISSING_CHROMIUM)
    sync_api = pytest.importorskip("playwright.sync_api")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            pg = browser.new_page(viewport={"width": 1280, "height": 900})
            pg.set_default_timeout(10_000)
            yield pg
        finally:
            browser.close()


def finish_pending_game(world: World) -> None:
    """Play and store the season's pending game, as a worker would."""
    claim = world.store.games.claim_game(world.pending_id, "browser-test", 60)
    assert claim is not None
    names = {v: k for k, v in world.bot_ids.items()}
    record = play_game([s.bot_id for s in claim.seats], claim.seed, names, None)
    assert world.store.games.finish_game(world.pending_id, claim.attempt, record)


def shot(page: object, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]


def test_a_person_follows_standings_to_a_bot_to_a_replay(page, base_url: str, world: World) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    # Home: the season with its progress, live: a game finishing while the page is open shows up.
    page.goto(base_url + "/")
    assert page.locator("#seasons tbody tr").count() == 1
    assert page.locator("#seasons .n-done").inner_text() == "3"
    assert page.locator("#live-note").is_visible()
    finish_pending_game(world)
    page.wait_for_function("document.querySelector('#seasons .n-done').textContent === '4'", timeout=10_000)
    shot(page, "home")

    # Season: standings of the three bots and the crosstable.
    page.click(f"text={world.season_name}")
    page.wait_for_selector("#standings")
    assert page.locator("#standings tbody tr").count() == 3
    assert page.locator("#crosstable td.h2h").count() == 6
    shot(page, "season")

    # Follow the bot that faulted.
    page.click(f"#standings a.bot-link:text-is('{world.faulty_bot}')")
    page.wait_for_selector("#faults")
    assert page.locator("h1").inner_text().startswith(world.faulty_bot)
    assert page.locator("#faults tr.fault").count() == 1
    assert "error" in page.locator("#faults tr.fault").inner_text()
    assert page.locator("#rating-history svg polyline").count() == 1
    assert page.locator("#latency-histogram rect.bar").count() > 0
    shot(page, "bot")
    page.goto(f"{base_url}/bots/{world.bot_ids['charlie']}")
    row = page.locator("#faults tr.fault").inner_text()
    assert "illegal" in row and "SVARA_MOVE_" in row  # the answer that caused the fault
    shot(page, "bot-illegal-answer")
    page.go_back()

    # Its games, then the first done game's replay.
    page.click("text=games with faults")
    page.wait_for_selector("#games")
    assert page.locator("#games tbody tr").count() == 1
    page.click("#game-filters >> text=clear")
    page.wait_for_selector("#games")
    assert page.locator("#games tbody tr").count() == 5
    assert page.locator("#games-total").inner_text().startswith("5 games")
    shot(page, "games")
    page.goto(f"{base_url}/games/{world.done_ids[0]}")
    page.wait_for_selector("#table .seat-box")
    total = int(page.locator("#scrub").get_attribute("max"))
    record = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent).record")
    first_deal = 1 + next(i for i, e in enumerate(record["events"]) if e["kind"] == "dealt")
    assert page.locator("#position").inner_text() == f"event {first_deal} / {total}"  # opens on the first deal
    page.click("#btn-first")
    assert page.locator("#position").inner_text() == f"event 0 / {total}"
    for _ in range(12):
        page.click("#btn-forward")
    page.click("#btn-back")
    assert page.locator("#position").inner_text() == f"event 11 / {total}"
    assert page.locator("#events li.current").count() == 1
    # After a done game every hand is visible: by event 11 cards are on the table.
    assert page.locator("#table .seat-box .card:not(.back)").count() > 0
    assert page.locator(".fault-list .fault-link").count() == 2  # the faults, highlighted
    assert page.locator("#events li.decision-fault").count() == 2
    page.click("#events li[id][value='5']")  # the row numbered 5 is the 5th event: the counter says so too
    assert page.locator("#position").inner_text() == f"event 5 / {total}"
    assert page.locator("#events li.current").get_attribute("value") == "5"
    shot(page, "replay")

    # One seat's view: the views sent to it, its answers and their times; other hands hidden.
    page.select_option("#mode", "1")
    page.click("#btn-last")
    panel = page.locator("#seat-panel")
    assert panel.is_visible()
    text = panel.inner_text().lower()
    assert "view sent" in text and "answer" in text and "answered in" in text
    assert page.locator("#view-json").inner_text().strip().startswith("{")
    record = page.evaluate("JSON.parse(document.getElementById('replay-data').textContent).record")
    hidden = sum(1 for e in record["events"] if e["visible_to"] is not None and 1 not in e["visible_to"])
    assert page.locator("#events li.hidden-event").count() == hidden > 0
    mine = [d for d in record["decisions"] if d["seat"] == 1]
    assert page.locator("ol.decisions li").count() == len(mine)
    for box in page.locator("#table .seat-box:not(.me)").all():
        assert "hidden from" not in box.inner_text()
    shot(page, "replay-seat")

    # The running game: public information only.
    page.goto(f"{base_url}/games/{world.running_id}")
    page.wait_for_selector("#public-only")
    assert page.locator("#mode option").count() == 1
    assert page.locator("#events li.hidden-event").count() == 0
    shot(page, "replay-running")
    assert not errors, errors


def test_the_skip_message_says_how_to_install_chromium() -> None:
    assert "apt-get install -y chromium" in MISSING_CHROMIUM
