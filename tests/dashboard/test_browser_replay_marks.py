"""The replay page's marks in a real browser (chromium through Playwright), one real game of each game:

- all seats: the seats asked a decision after the events shown are marked "to act", and no other;
- the event counter ("event k / N") and the highlighted row of the event list (numbered k) agree;
- one seat: the panel shows the view of its last decision only within the same deal: after a new
  deal, until the seat is asked again, it says so instead of showing the last deal's view;
- Svara: the szacha (the wild card, rules §2.1) is shown on the table;
- rummy: the results table says its score change is lower-is-better (rules §3.9-3.11).
"""

from __future__ import annotations

from typing import Any

from tests.dashboard.test_browser import page, serve  # noqa: F401  (the page fixture)
from tests.dashboard.test_browser_replay import Replays, replays, site  # noqa: F401  (fixtures)

#: Events after which every seat's cards went in (a new deal): as each game's rules log them
#: (Slippery Sam rules §1.4, 1.9; Svara §2.4, 2.8; rummy §3.3).
NEW_DEAL = {"slippery-sam": {"deal", "turn_end"}, "svara": {"hand", "svara", "out"}, "rummy": {"round"}}

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


def _open(page: Any, site: str, game_id: int) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{site}/games/{game_id}")
    page.wait_for_selector("#table .seat-box")
    return errors


def test_whose_turn_is_marked_and_the_counter_matches_the_row(page: Any, site: str, replays: Replays) -> None:
    for game, played in replays.games.items():
        errors = _open(page, site, played.game_id)
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


def test_the_seat_panel_shows_no_view_of_an_earlier_deal(page: Any, site: str, replays: Replays) -> None:
    for game, played in replays.games.items():
        record = played.record
        for seat in range(record.num_seats):
            _open(page, site, played.game_id)
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
                           if e["kind"] in NEW_DEAL[game] and (e["visible_to"] is None or seat in e["visible_to"])]
                if between:
                    assert at["decision"] is None and at["notThisDeal"], \
                        f"{game} seat {seat} after event {pos}: decision {at['decision']} of an earlier deal shown"
                    hidden_after_new_deal += 1
                else:
                    assert at["decision"] == last.decision, (game, seat, pos, at)
            assert hidden_after_new_deal > 0 or len(mine) <= 1, (game, seat)


def test_svara_shows_its_szacha_and_rummy_its_lower_is_better_change(page: Any, site: str, replays: Replays) -> None:
    svara = replays.games["svara"]
    _open(page, site, svara.game_id)
    szacha = page.locator("#table #szacha")
    assert szacha.count() == 1 and "szacha" in szacha.inner_text()
    assert szacha.locator(".card").get_attribute("title") == svara.record.params["szacha"]
    assert "lower is better" not in page.locator("#change-head").inner_text()
    rummy = replays.games["rummy"]
    _open(page, site, rummy.game_id)
    assert page.locator("#change-head").inner_text() == "Change (lower is better)"
    assert page.locator("#table #szacha").count() == 0
