"""The replay page's marks in a real browser (chromium through Playwright), one real game of each game:

- all seats: the seats asked a decision after the events shown are marked "to act", and no other;
- the event counter ("event k / N") and the highlighted row of the event list (numbered k) agree; after a
  run of steps, the list is scrolled to that row and the address names the position;
- the results table says its score change is lower-is-better exactly for a game that counts penalty
  points (``GameSpec.higher_score_is_better`` False);
- one seat: the panel shows the view of its last decision only within the same deal: after a new
  deal, until the seat is asked again, it says so instead of showing the last deal's view. The events
  that start a deal are each game's (its rules), declared in its conformance module
  (``Conformance.replay_new_deal``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import pytest

from referee.games import games, spec
from referee.games.conformance import conformance
from tests.dashboard.test_browser import page, serve  # noqa: F401  (the page fixture)
from tests.dashboard.test_browser_replay import Played, Replays, replays, site  # noqa: F401  (fixtures)

#: Steps through every position with the page's own buttons and reads the marks at each.
READ = """() => {
  const out = [];
  document.getElementById("btn-first").click();
  const n = Number(document.getElementById("scrub").max);
  for (let i = 0; i <= n; i++) {
    const cur = document.querySelector("#events li.current");
    const shown = document.getElementById("current-decision");
    out.push({
      position: document.getElementById("position").textContent,
      row: cur ? Number(cur.value) : null,
      toAct: [...document.querySelectorAll("#table .seat-box.to-act")].map((b) => Number(b.dataset.seat)),
      badges: document.querySelectorAll("#table .to-act-badge").length,
      decision: shown ? Number(/Decision (\\d+)/.exec(shown.textContent)[1]) : null,
      notThisDeal: !!document.getElementById("no-decision-this-deal"),
    });
    document.getElementById("btn-forward").click();
  }
  return out;
}"""


def open_replay(page: Any, site: str, game_id: int) -> list[str]:
    """Opens the replay of game ``game_id``; the page's errors (a list that grows)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{site}/games/{game_id}")
    page.wait_for_selector("#table .seat-box")
    return errors


@pytest.mark.parametrize("game", games())
def test_whose_turn_is_marked_and_the_counter_matches_the_row(page: Any, site: str,
                                                              replays: Replays, game: str) -> None:
    played = replays.games[game]
    errors = open_replay(page, site, played.game_id)
    seen = page.evaluate(READ)
    record, n = played.record, len(played.record.events)
    assert len(seen) == n + 1 and not errors, errors
    marked = 0
    for pos, at in enumerate(seen):
        assert at["position"] == f"event {pos} / {n}", (game, pos, at)
        assert at["row"] == (pos if pos else None), f"{game}: counter {at['position']}, row {at['row']} highlighted"
        asked = sorted({d.seat for d in record.decisions if d.event_index == pos})
        assert at["toAct"] == asked and at["badges"] == len(asked), f"{game} after event {pos}: marked " \
            f"{at['toAct']}, asked {asked}"
        marked += bool(asked)
    assert marked > 5, game
    # the walk's steps ran in one task; once a frame is drawn, the event list is scrolled to the last row and the
    # address names the position (replay.js follows both once a frame)
    page.wait_for_url(re.compile(rf"#event-{n}$"))
    inside = page.evaluate("""() => new Promise((done) => requestAnimationFrame(() => {
      const box = document.getElementById("events").getBoundingClientRect();
      const row = document.querySelector("#events li.current").getBoundingClientRect();
      done(row.top >= box.top - 1 && row.bottom <= box.bottom + 1);
    }))""")
    assert inside, game
    # where the list is longer than its box, it was scrolled to get there
    scrolled = page.evaluate('(l => l.scrollHeight <= l.clientHeight || l.scrollTop > 0)(document.getElementById("events"))')
    assert scrolled, game


def assert_no_view_of_an_earlier_deal(page: Any, site: str, played: Played, new_deal: Collection[str]) -> None:
    """For each seat: the panel shows the view of its last decision only if no event of a kind in
    ``new_deal`` (after which every seat's cards went in, as the game's rules log it) that the seat saw
    came after it; else it says there is no decision this deal."""
    game, record = played.record.game, played.record
    for seat in range(record.num_seats):
        open_replay(page, site, played.game_id)
        page.select_option("#mode", str(seat))
        seen = page.evaluate(READ)
        mine = [d for d in record.decisions if d.seat == seat]
        hidden_after_new_deal = 0
        for pos, at in enumerate(seen):
            last = next((d for d in reversed(mine) if d.event_index <= pos), None)
            if last is None:
                assert at["decision"] is None and not at["notThisDeal"], (game, seat, pos)
                continue
            between = [e for e in record.events[last.event_index:pos]
                       if e["kind"] in new_deal and (e["visible_to"] is None or seat in e["visible_to"])]
            if between:
                assert at["decision"] is None and at["notThisDeal"], \
                    f"{game} seat {seat} after event {pos}: decision {at['decision']} of an earlier deal shown"
                hidden_after_new_deal += 1
            else:
                assert at["decision"] == last.decision, (game, seat, pos, at)
        assert hidden_after_new_deal > 0 or len(mine) <= 1, (game, seat)


@pytest.mark.parametrize("game", games())
def test_the_seat_panel_shows_no_view_of_an_earlier_deal(page: Any, site: str, replays: Replays, game: str) -> None:
    played = replays.games[game]
    assert_no_view_of_an_earlier_deal(page, site, played, conformance(game).replay_new_deal)


@pytest.mark.parametrize("game", games())
def test_the_change_column_says_lower_is_better_for_penalty_points(page: Any, site: str,
                                                                   replays: Replays, game: str) -> None:
    played = replays.games[game]
    open_replay(page, site, played.game_id)
    head = page.locator("#change-head").inner_text()
    if spec(game).higher_score_is_better:
        assert "lower is better" not in head, (game, head)
    else:
        assert head == "Change (lower is better)", (game, head)
