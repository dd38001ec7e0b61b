"""Seasons and bots by name in the dashboard's URLs (an all-digit path is an id), "did you mean" in the
404 detail, and the one count vocabulary on the home page, the season page and the API, with a season
that has games not played (a bot suspended, rules §4.9) and games cancelled (rules §4.11)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from referee.games import spec
from tests.dashboard.conftest import World


def suspend_and_cancel(world: World) -> int:
    """A second season ``second-season`` of 6 games: alpha suspended from it (its pending games not played),
    then the season cancelled (the rest cancelled). Returns its id."""
    store = world.store
    world_season = store.seasons.get_season(world.season_id)  # the same game and parameters as the world's season
    a, b, c = (world.bot_ids[n] for n in ("alpha", "bravo", "charlie"))
    d = store.bots.register_bot("delta", "127.0.0.1:5009", "1.0", "tests", [world_season.game])
    sid = store.seasons.create_season("second-season", world_season.game, world_season.params, {}, 8, {"table_sizes": [3]},
                              [(21, [a, b, c]), (22, [b, c, d]), (23, [c, a, d]), (24, [b, c, d]), (25, [a, c, d]),
                               (26, [c, b, d])])
    first = store.seasons.next_pending(sid, limit=1)[0]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    store.games.defer_game(first, {a: "connection refused"}, now=start)
    store.games.defer_game(first, {a: "connection refused"}, now=start + timedelta(seconds=601))  # past suspend_after
    progress = store.seasons.season_progress(sid)
    assert progress["not_played"] == 3 and progress["pending"] == 3
    store.games.cancel_season(sid, "the organiser gave up")
    return sid


def test_a_season_by_name_and_by_id_and_a_typo_answers_404_with_close_names(client: TestClient, world: World) -> None:
    by_name = client.get(f"/api/v1/seasons/{world.season_name}")
    assert by_name.status_code == 200 and by_name.json()["id"] == world.season_id
    assert client.get(f"/api/v1/seasons/{world.season_id}").json()["name"] == world.season_name
    assert client.get(f"/api/v1/seasons/{world.season_name}/standings").status_code == 200
    page = client.get(f"/seasons/{world.season_name}")
    assert page.status_code == 200 and "<h1>test-season</h1>" in page.text
    assert client.get(f"/seasons/{world.season_name}/fairness").status_code == 200
    typo = client.get("/api/v1/seasons/test-seasn")
    assert typo.status_code == 404 and typo.json()["detail"] == "no season named 'test-seasn'; did you mean 'test-season'?"
    assert "did you mean" in client.get("/seasons/test-seasn").text
    assert client.get("/api/v1/seasons/999999").status_code == 404  # all digits: an id


def test_a_bot_by_name_and_a_misspelt_one(client: TestClient, world: World) -> None:
    r = client.get("/api/v1/bots/alpha")
    assert r.status_code == 200 and r.json()["id"] == world.bot_ids["alpha"]
    assert client.get("/bots/bravo").status_code == 200
    typo = client.get("/api/v1/bots/alpah")
    assert typo.status_code == 404 and "did you mean 'alpha'?" in typo.json()["detail"]


def test_an_all_digit_season_name_is_refused_with_one_line(world: World) -> None:
    from league.competition.seasons import SeasonError, create_season

    try:
        create_season(world.store, "2026", spec(world.store.seasons.get_season(world.season_id).game), ["alpha", "bravo", "charlie"],
                      [3], 3, 1)
    except SeasonError as exc:
        assert "not all digits" in str(exc)
    else:
        raise AssertionError("an all-digit season name was accepted")


def test_counts_agree_on_the_home_page_the_season_page_and_the_api(client: TestClient, world: World) -> None:
    sid = suspend_and_cancel(world)
    api = client.get("/api/v1/seasons/second-season").json()
    assert api["status"] == "cancelled"
    assert api["progress"] == {"pending": 0, "running": 0, "done": 0, "failed": 0, "total": 6, "not_played": 3,
                               "cancelled": 3}
    home = client.get("/").text
    row = home[home.index(f'<tr data-season="{sid}">'):]
    row = row[:row.index("</tr>")]
    cells = dict(re.findall(r'class="num c-(\w+)">(\d+)<', row))
    assert cells == {"done": "0", "failed": "0", "not_played": "3", "cancelled": "3", "pending": "0", "running": "0"}
    assert '<b class="n-done">0</b> done of <span class="n-total">6</span>' in row
    assert " · 3 not played · 3 cancelled" in row
    assert '<span class="status cancelled">cancelled</span>' in row
    for label in ("Done", "Failed", "Not played", "Cancelled", "Pending", "Running"):
        assert f'<th class="num">{label}</th>' in home
    season = client.get("/seasons/second-season").text
    assert 'id="cancelled"' in season and "the organiser gave up" in season
    assert " · 3 not played · 3 cancelled" in season


def test_live_js_stops_polling_for_cancelled_and_paused_seasons() -> None:
    from pathlib import Path

    js = (Path(__file__).parents[2] / "dashboard" / "static" / "live.js").read_text()
    assert 'const STILL = ["done", "cancelled", "paused"];' in js
    assert "!STILL.includes(s.status)" in js and "!STILL.includes(el.textContent.trim())" in js
