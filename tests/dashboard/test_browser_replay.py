"""The replay page in a real browser (Debian's chromium through Playwright), one real game of
each of the three games: the table drawn at every event, read from the page as a person sees it.

- Slippery Sam: a dealer holds no cards and is marked; nobody holds cards between turns or at
  the end; a kitty returned to the dealer is no longer shown; every card drawn in a hand was
  dealt to that seat in this deal; seats plus kitty always hold every token (rules §1.3-1.9).
- Svara: seats plus bank always hold every token, and every ante, stake, see and join is
  taken from its seat at that event (rules §2.4-2.8); seat figures say they are tokens; a seat
  dealt in is marked until it looks at its cards (rules §2.5).
- Rummy: hands, melds, discard pile and stock always hold the whole deck (rules §3); the
  round and its contract are shown; the figures say they are points.
- Every replay opens at its first deal, and ``#event-N`` opens it after N events; the event
  list reads as words and cards, not raw structures.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from league.policy import POLICY
from referee.record import GameRecord
from store import Store, open_store
from tests.dashboard.conftest import World
from tests.dashboard.test_browser import page, serve, shot  # noqa: F401  (the page fixture)
from tests.dashboard.test_replay_state import play_with

#: game -> (bots, parameters, seed): one short game of each.
GAMES: dict[str, tuple[list[str], dict[str, Any], int]] = {
    "slippery-sam": (["random", "odds", "random", "odds"], {"orbits": 1, "starting_tokens": 100}, 7),
    "svara": (["random", "points", "random"], {"hands": 8, "starting_tokens": 200}, 3),
    "rummy": (["greedy", "random", "greedy"], {"turn_limit": 12}, 5),
}

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
    season = store.create_season(f"{game}-season", game, params, {}, seed, {"table_sizes": [len(bots)]},
                                 [(seed, bot_ids[:len(bots)])])
    [row] = store.list_games(season)
    claim = store.claim_game(row.id, "test", 60)
    assert claim is not None
    record = play_with(game, bots, params, claim.seed)
    assert store.finish_game(row.id, claim.attempt, record)
    return Played(row.id, record)


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replays]:
    url = f"sqlite:///{tmp_path_factory.mktemp('replays') / 'dash.db'}"
    store = open_store(url, policy=POLICY)
    games = ["slippery-sam", "svara", "rummy"]
    ids = [store.register_bot(f"bot{i}", f"127.0.0.1:{6000 + i}", "0.1.0", "" if i == 0 else "tests", games)
           for i in range(4)]
    played = {game: store_game(store, ids, game, params, seed, bots) for game, (bots, params, seed) in GAMES.items()}
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


def test_slippery_sam_dealer_hands_and_kitty(page: Any, site: str, replays: Replays) -> None:
    played = replays.games["slippery-sam"]
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


def test_svara_tokens_follow_every_event(page: Any, site: str, replays: Replays) -> None:
    played = replays.games["svara"]
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


def test_rummy_cards_round_and_contract(page: Any, site: str, replays: Replays) -> None:
    played = replays.games["rummy"]
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


def test_a_replay_opens_on_the_first_deal_or_at_the_event_linked(page: Any, site: str, replays: Replays) -> None:
    for game, played in replays.games.items():
        events = played.record.events
        first = {"slippery-sam": "deal", "svara": "dealt", "rummy": "upcard"}[game]
        opening = 1 + next(i for i, e in enumerate(events) if e["kind"] == first)
        while game == "slippery-sam" and events[opening]["kind"] == "hand":
            opening += 1
        page.goto(f"{site}/games/{played.game_id}")
        page.wait_for_selector("#table .seat-box")
        assert page.locator("#position").inner_text() == f"event {opening} / {len(events)}", game
        assert page.locator("#table .seat-box .card").count() > 0, game  # cards on the table
        page.goto(f"{site}/games/{played.game_id}#event-7")
        page.reload()
        page.wait_for_selector("#table .seat-box")
        assert page.locator("#position").inner_text() == f"event 7 / {len(events)}", game
        page.click("#btn-forward")
        assert page.url.endswith("#event-8"), page.url  # the address links to what is shown


def test_the_event_list_reads_as_words_and_cards(page: Any, site: str, replays: Replays) -> None:
    for game, played in replays.games.items():
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
        assert re.search(r"#decision-1-1$", page.url), page.url
        page.click("#btn-forward")
        assert re.search(r"#event-\d+$", page.url), page.url
