"""The replay page in a real browser (Debian's chromium through Playwright), one real game of each
registered game (its first ``Conformance.replay_cases`` game): the table drawn at every event, read from
the page as a person sees it.

- Every replay opens after its first deal (``Conformance.replay_opening``) with cards on the table, and
  ``#event-N`` opens it after N events; the event list reads as words and cards, not raw structures; a
  fault link opens the decision it names.
- Each game's drawing (what its table must show at every event, by its rules) is checked in the game's
  folder (``referee/games/<game>/tests/test_replay_page.py``), with the helpers here:
  :func:`served_game`, :func:`walk`, :func:`figure`, :func:`pot`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from league.policy import POLICY
from referee.games import games
from referee.games.conformance import conformance
from referee.record import GameRecord
from store import Store, open_store
from tests.dashboard.conftest import World
from tests.dashboard.test_browser import page, serve  # noqa: F401  (the page fixture)
from tests.dashboard.test_replay_state import play_with

#: Reads the drawn table at every event, stepping with the page's own Forward button.
WALK = """(n) => {
  const out = [];
  document.getElementById("btn-first").click();
  for (let i = 0; i <= n; i++) {
    const seats = [...document.querySelectorAll("#table .seat-box")].map((b) => {
      const hand = b.querySelector(".hand");
      const more = /×(\\d+)/.exec(hand.textContent);
      return {
        dealer: b.classList.contains("dealer") || /\\bdealer\\b/.test(b.querySelector(".seat-head").textContent),
        up: [...hand.querySelectorAll(".card:not(.back)")].map((c) => c.title),
        down: more ? Number(more[1]) : hand.querySelectorAll(".card.back").length,
        melds: b.querySelectorAll(".melds .card").length,
        score: (b.querySelector(".score") || { textContent: "" }).textContent,
        head: b.querySelector(".seat-head").textContent,
      };
    });
    const pot = document.querySelector("#table .pot");
    out.push({ position: document.getElementById("position").textContent, seats,
               pot: pot ? pot.textContent : "", center: document.querySelector("#table .center").textContent });
    document.getElementById("btn-forward").click();
  }
  return out;
}"""


@dataclass(frozen=True)
class Played:
    game_id: int
    record: GameRecord


@dataclass(frozen=True)
class Replays:
    url: str
    games: dict[str, Played]
    nameless_bot: int


def store_game(store: Store, bot_ids: list[int], game: str, params: dict[str, Any], seed: int,
               bots: list[str]) -> Played:
    """A season of one game, played here by the reference bots and stored as a worker stores it."""
    season = store.seasons.create_season(f"{game}-season", game, params, {}, seed, {"table_sizes": [len(bots)]},
                                 [(seed, bot_ids[:len(bots)])])
    [row] = store.game_reads.list_games(season)
    claim = store.games.claim_game(row.id, "test", 60)
    assert claim is not None
    record = play_with(game, bots, params, claim.seed)
    assert store.games.finish_game(row.id, claim.attempt, record)
    return Played(row.id, record)


def register_bots(store: Store, seats: int) -> list[int]:
    """``seats`` bots for every game (``bot0`` with no author, the others by ``tests``); their ids."""
    return [store.bots.register_bot(f"bot{i}", f"127.0.0.1:{6000 + i}", "0.1.0", "" if i == 0 else "tests", games())
            for i in range(seats)]


@contextmanager
def served_game(folder: Path, game: str, bots: list[str], params: dict[str, Any], seed: int) -> Iterator[
        tuple[str, Played]]:
    """One game of ``game`` between the reference ``bots`` (seat order), stored in a fresh SQLite store in
    ``folder`` and served by the dashboard; yields the site's base URL and the stored game."""
    store = open_store(f"sqlite:///{folder / 'dash.db'}", policy=POLICY)
    try:
        played = store_game(store, register_bots(store, len(bots)), game, params, seed, bots)
        with serve(f"sqlite:///{folder / 'dash.db'}") as site:
            yield site, played
    finally:
        store.close()


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replays]:
    url = f"sqlite:///{tmp_path_factory.mktemp('replays') / 'dash.db'}"
    store = open_store(url, policy=POLICY)
    cases = {game: conformance(game).replay_cases[0] for game in games()}
    ids = register_bots(store, max(len(case.bots) for case in cases.values()))
    played = {game: store_game(store, ids, game, dict(case.params), case.seeds[0], list(case.bots))
              for game, case in cases.items()}
    yield Replays(url, played, ids[0])
    store.close()


@pytest.fixture(scope="module")
def site(replays: Replays) -> Iterator[str]:
    with serve(replays.url) as url:
        yield url


def walk(page: Any, site: str, played: Played) -> list[dict[str, Any]]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{site}/games/{played.game_id}")
    page.wait_for_selector("#table .seat-box")
    tables = page.evaluate(WALK, len(played.record.events))
    assert not errors, errors
    assert len(tables) == len(played.record.events) + 1
    return tables  # type: ignore[no-any-return]


def figure(text: str, unit: str) -> int:
    """A seat's figure as drawn, which must say what it counts."""
    assert unit in text, f"the seat figure {text!r} does not say it is {unit}"
    return int(re.search(r"-?\d+", text.replace(",", "")).group())  # type: ignore[union-attr]


def pot(text: str) -> int:
    match = re.search(r"(kitty|bank)\D*(\d+)", text)
    return int(match.group(2)) if match else 0


def assert_opens_after(page: Any, site: str, played: Played, first: str, skip: str | None = None) -> None:
    """The replay opens at its first deal, with cards on the table: after the first event of kind ``first``
    and the events of kind ``skip`` that follow it (the game's rules say which)."""
    events = played.record.events
    opening = 1 + next(i for i, e in enumerate(events) if e["kind"] == first)
    while skip is not None and events[opening]["kind"] == skip:
        opening += 1
    page.goto(f"{site}/games/{played.game_id}")
    page.wait_for_selector("#table .seat-box")
    assert page.locator("#position").inner_text() == f"event {opening} / {len(events)}"
    assert page.locator("#table .seat-box .card").count() > 0  # cards on the table


@pytest.mark.parametrize("game", games())
def test_a_replay_opens_after_its_first_deal(page: Any, site: str, replays: Replays, game: str) -> None:
    played = replays.games[game]
    assert_opens_after(page, site, played, *conformance(game).replay_opening)


@pytest.mark.parametrize("game", games())
def test_a_replay_opens_with_cards_on_the_table_or_at_the_event_linked(page: Any, site: str,
                                                                       replays: Replays, game: str) -> None:
    played = replays.games[game]
    events = played.record.events
    page.goto(f"{site}/games/{played.game_id}")
    page.wait_for_selector("#table .seat-box")
    assert page.locator("#table .seat-box .card").count() > 0, game  # cards on the table
    page.goto(f"{site}/games/{played.game_id}#event-7")
    page.reload()
    page.wait_for_selector("#table .seat-box")
    assert page.locator("#position").inner_text() == f"event 7 / {len(events)}", game
    page.click("#btn-forward")
    page.wait_for_url(re.compile(r"#event-8$"))  # the address links to what is shown (from the next frame on)


@pytest.mark.parametrize("game", games())
def test_the_event_list_reads_as_words_and_cards(page: Any, site: str, replays: Replays, game: str) -> None:
    played = replays.games[game]
    page.goto(f"{site}/games/{played.game_id}")
    page.wait_for_selector("#events li")
    texts = page.locator("#events li").all_inner_texts()
    assert len(texts) >= len(played.record.events)
    for i, text in enumerate(texts):
        assert not re.search(r"[\[\]{}]|\bid:", text), f"{game}, event {i}: raw structure in {text!r}"
        empty = re.search(r"(?:·|^\S+)\s(?:callers|hands|melds|seats|voters)\s*(?:·|$)", text.strip())
        assert not empty, f"{game}, event {i}: a field with nothing after it in {text!r}"


def test_a_fault_link_opens_the_decision_and_the_address_follows(page: Any, world: World) -> None:
    with serve(world.url) as url:
        page.goto(f"{url}/bots/{world.bot_ids[world.faulty_bot]}")
        page.click("#faults tr.fault a")
        page.wait_for_selector("#current-decision")
        assert page.locator("#mode").input_value() == "1"  # bravo's seat in the first game
        assert "fault: error" in page.locator("#current-decision .meta").inner_text()
        page.wait_for_url(re.compile(r"#decision-1-1$"))
        page.click("#btn-forward")
        page.wait_for_url(re.compile(r"#event-\d+$"))
