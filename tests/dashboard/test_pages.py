"""The HTML pages through TestClient: each renders with its data; unknown ids 404, bad filters 422."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from dashboard.game_assets import replay_module
from referee.games import games, spec
from tests.a_game import GAME
from tests.dashboard.conftest import World

MISSING = 999_999


def test_home_lists_the_season_with_progress(client: TestClient, world: World) -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert world.season_name in r.text
    assert "<b class=\"n-done\">3</b> done of <span class=\"n-total\">5</span>" in r.text
    assert "/static/live.js" in r.text


def test_season_page_has_standings_and_crosstable(client: TestClient, world: World) -> None:
    r = client.get(f"/seasons/{world.season_id}")
    assert r.status_code == 200
    for name in ("alpha", "bravo", "charlie"):
        assert f">{name}</a>" in r.text
    assert r.text.count('class="h2h"') == 6
    unit = spec(world.store.seasons.get_season(world.season_id).game).score_unit
    assert f"Avg {unit} change" in r.text


def test_bot_page(client: TestClient, world: World) -> None:
    bot_id = world.bot_ids[world.faulty_bot]
    r = client.get(f"/bots/{bot_id}")
    assert r.status_code == 200
    assert "<polyline" in r.text and 'class="bar"' in r.text
    assert r.text.count('<tr class="fault">') == 1
    assert client.get(f"/bots/{bot_id}", params={"season_id": world.season_id}).status_code == 200
    assert client.get(f"/bots/{bot_id}", params={"season_id": ""}).status_code == 200
    assert client.get("/bots").status_code == 200


def test_games_page_filters_and_pages(client: TestClient, world: World) -> None:
    r = client.get("/games", params={"season_id": world.season_id, "status": "", "fault": "yes"})
    assert r.status_code == 200
    assert "1 games" in r.text and r.text.count('<tr class="fault">') == 1
    r = client.get("/games", params={"bot_id": world.bot_ids["alpha"], "result": "win"})
    assert r.status_code == 200
    assert client.get("/games", params={"page": 2}).status_code == 200


def test_replay_page_embeds_the_full_record_after_the_game(client: TestClient, world: World) -> None:
    r = client.get(f"/games/{world.done_ids[0]}")
    assert r.status_code == 200
    assert "seat 1: what bravo saw" in r.text and "/static/replay.js" in r.text
    game = re.search(r'<script src="/static/games/([a-z-]+)\.js"', r.text)
    assert game is not None  # the game's own replay module, loaded before the page's script
    assert r.text.index(game.group(0)) < r.text.index("/static/replay.js")
    assert client.get(f"/static/games/{game.group(1)}.js").status_code == 200
    assert '"visible_to":[' in r.text  # private events are shown once the game is over
    r = client.get(f"/games/{world.pending_id}")
    assert r.status_code == 200 and "no replay yet" in r.text


@pytest.mark.parametrize("url", [f"/seasons/{MISSING}", f"/bots/{MISSING}", f"/games/{MISSING}",
                                 f"/bots/1?season_id={MISSING}", "/nowhere", "/seasons/x", "/bots/nobody"])
def test_unknown_pages_are_404(client: TestClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 404
    assert 'id="error-detail"' in r.text


@pytest.mark.parametrize("url", ["/games?season_id=abc", "/games?status=finished", "/games?fault=maybe",
                                 "/games?result=win", "/games?page=0", "/bots/1?season_id=-4", "/games/0"])
def test_bad_page_parameters_are_422(client: TestClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 422
    assert 'id="error-detail"' in r.text


def test_everything_is_served_locally(client: TestClient, world: World) -> None:
    for name in ("style.css", "replay.js", "live.js"):
        assert client.get(f"/static/{name}").status_code == 200
    for url in ("/", f"/seasons/{world.season_id}", f"/games/{world.done_ids[0]}", "/games", "/api"):
        assert not re.search(r'(?:src|href)="(?:https?:)?//', client.get(url).text), url  # no CDN


@pytest.mark.parametrize("game", games())
def test_each_game_s_replay_module_is_served_from_its_package(client: TestClient, game: str) -> None:
    r = client.get(f"/static/games/{game}.js")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    assert f'ReplayState.define("{game}",' in r.text
    assert r.content == replay_module(game).read_bytes()


@pytest.mark.parametrize("name", ["nowhere", "..%2Fmain", GAME.upper()])
def test_an_unknown_game_has_no_replay_module(client: TestClient, name: str) -> None:
    assert client.get(f"/static/games/{name}.js").status_code == 404


def test_the_api_reference_is_a_local_page(client: TestClient) -> None:
    r = client.get("/api")
    assert r.status_code == 200
    for path in ("/api/v1/seasons/{season}/standings", "/api/v1/games", "/api/v1/replays/{game_id}"):
        assert f"<code>{path}</code>" in r.text
    assert client.get("/docs").status_code == 404  # FastAPI's page loads scripts from a CDN: off
    assert client.get("/openapi.json").status_code == 200


def test_bot_page_header_and_latency_tail(client: TestClient, world: World) -> None:
    game = world.store.seasons.get_season(world.season_id).game
    nameless = world.store.bots.register_bot("nameless", "127.0.0.1:5999", "0.1.0", "", [game])
    h1 = re.search(r"<h1>(.*?)</h1>", client.get(f"/bots/{nameless}").text, re.S).group(1)  # type: ignore[union-attr]
    assert "v0.1.0" in h1 and " by" not in h1  # no author, no "by"
    page = client.get(f"/bots/{world.bot_ids['alpha']}").text
    titles = re.findall(r'<rect class="bar"[^>]*><title>([^<]*)</title>', page)
    assert titles and "\u2265" in titles[-1] and "tail" in titles[-1]  # the last bin holds the tail
    assert all("\u2013" in t for t in titles[:-1])
    assert re.search(r'class="tick overflow"[^>]*>last bar: \u2265 [\d.]+ ms<', page)
