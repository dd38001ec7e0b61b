"""The JSON API (``/api/v1``): every endpoint, its 404 and 422 paths, and no leak of a running game."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from league.competition.standings import standings_json, standings_of
from referee.games import spec
from tests.a_game import action_class, view_class
from tests.dashboard.conftest import World

MISSING = 999_999


def test_seasons_list_and_detail(client: TestClient, world: World) -> None:
    r = client.get("/api/v1/seasons")
    assert r.status_code == 200
    [season] = r.json()
    assert season["name"] == world.season_name
    assert season["progress"] == {"pending": 1, "running": 1, "done": 3, "failed": 0, "not_played": 0, "cancelled": 0,
                                   "total": 5}
    assert season["status"] == "running"
    r = client.get(f"/api/v1/seasons/{world.season_id}")
    assert r.status_code == 200
    body = r.json()
    gs = spec(world.game)
    assert body["game"] == world.game and body["score_unit"] == gs.score_unit and gs.quick_params
    assert all(body["params"][name] == value for name, value in gs.quick_params.items())  # the season's short game


def test_standings_match_the_store(client: TestClient, world: World) -> None:
    r = client.get(f"/api/v1/seasons/{world.season_id}/standings")
    assert r.status_code == 200
    rows = r.json()
    expected = standings_json(standings_of(world.store, world.season_id))
    assert [x["name"] for x in rows] == [x["name"] for x in expected]
    for got, want in zip(rows, expected, strict=True):
        for key in ("rank", "bot_id", "games", "faults", "elo"):
            assert got[key] == want[key]
        assert got["avg_place"] == pytest.approx(want["avg_place"])
    assert sum(x["games"] for x in rows) == 9  # three done games of three seats
    assert next(x for x in rows if x["name"] == world.faulty_bot)["faults"] == 1


def test_crosstable_is_consistent(client: TestClient, world: World) -> None:
    r = client.get(f"/api/v1/seasons/{world.season_id}/crosstable")
    assert r.status_code == 200
    body = r.json()
    assert {b["name"] for b in body["bots"]} == {"alpha", "bravo", "charlie"}
    cells = {(c["bot_id"], c["opponent_id"]): c for c in body["cells"]}
    assert len(cells) == 6
    for (a, b), c in cells.items():
        mirror = cells[(b, a)]
        assert c["games"] == mirror["games"] == 3
        assert c["wins"] == mirror["losses"] and c["draws"] == mirror["draws"]


def test_bots_list_hides_endpoint_and_token(client: TestClient, world: World) -> None:
    r = client.get("/api/v1/bots", params={"limit": 2})
    assert r.status_code == 200
    bots = r.json()
    assert [b["name"] for b in bots] == ["alpha", "bravo"]
    assert "endpoint" not in bots[0] and "token_hash" not in bots[0]
    assert client.get("/api/v1/bots", params={"offset": 2}).json()[0]["name"] == "charlie"


def test_bot_detail(client: TestClient, world: World) -> None:
    bot_id = world.bot_ids[world.faulty_bot]
    r = client.get(f"/api/v1/bots/{bot_id}")
    assert r.status_code == 200
    body = r.json()
    assert body["name"] == "bravo"
    assert sum(s["games"] for s in body["seats"]) == 3
    assert {o["name"] for o in body["opponents"]} == {"alpha", "charlie"}
    assert body["latency"]["count"] > 0 and body["latency"]["median_ms"] is not None
    assert sum(body["latency"]["bins"]) == body["latency"]["count"]
    [fault] = body["faults"]
    assert fault["kind"] == "error" and fault["decision"] == 1 and "boom" in fault["detail"]
    r = client.get(f"/api/v1/bots/{bot_id}", params={"season_id": world.season_id})
    assert r.status_code == 200 and r.json()["season_id"] == world.season_id
    [illegal] = client.get(f"/api/v1/bots/{world.bot_ids['charlie']}").json()["faults"]
    assert illegal["kind"] == "illegal"
    # the answer as sent, of the world's game (which answer it was is checked in the game's folder)
    assert list(illegal["answer"]) == [spec(world.game).proto_field]


def test_rating_history_ends_at_the_stored_elo(client: TestClient, world: World) -> None:
    bot_id = world.bot_ids["alpha"]
    r = client.get(f"/api/v1/bots/{bot_id}/ratings", params={"season_id": world.season_id})
    assert r.status_code == 200
    points = r.json()["points"]
    assert len(points) == 3
    assert points[-1]["elo"] == pytest.approx(world.store.season_reads.ratings(world.season_id)[bot_id], abs=0.06)


def test_games_list_filters_and_pages(client: TestClient, world: World) -> None:
    r = client.get("/api/v1/games")
    assert r.status_code == 200
    page = r.json()
    assert page["total"] == 5 and [g["id"] for g in page["items"]] == sorted(
        world.done_ids + [world.running_id, world.pending_id], reverse=True)
    assert client.get("/api/v1/games", params={"status": "done"}).json()["total"] == 3
    assert client.get("/api/v1/games", params={"status": "running"}).json()["items"][0]["id"] == world.running_id
    assert client.get("/api/v1/games", params={"fault": True}).json()["total"] == 1
    assert client.get("/api/v1/games", params={"fault": False}).json()["total"] == 4
    assert client.get("/api/v1/games", params={"season_id": world.season_id, "limit": 2, "offset": 4}).json()["items"][0]["id"] == min(world.done_ids)
    bot_id = world.bot_ids["alpha"]
    wins = client.get("/api/v1/games", params={"bot_id": bot_id, "result": "win"}).json()["total"]
    losses = client.get("/api/v1/games", params={"bot_id": bot_id, "result": "loss"}).json()["total"]
    assert wins + losses == 3
    assert client.get("/api/v1/games", params={"season_id": MISSING}).json()["total"] == 0


def test_game_detail_has_attempts(client: TestClient, world: World) -> None:
    r = client.get(f"/api/v1/games/{world.done_ids[0]}")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "done" and len(body["seats"]) == 3
    assert [a["outcome"] for a in body["attempts"]] == ["done"]


def test_replay_of_a_done_game_has_everything(client: TestClient, world: World) -> None:
    r = client.get(f"/api/v1/replays/{world.done_ids[0]}")
    assert r.status_code == 200
    body = r.json()
    assert body["public_only"] is False
    record = body["record"]
    assert any(e["visible_to"] is not None for e in record["events"])
    assert record["decisions"] and isinstance(record["decisions"][0]["view"], dict)
    r = client.get(f"/api/v1/replays/{world.done_ids[0]}/download")
    assert r.status_code == 200
    assert "attachment" in r.headers["content-disposition"]
    assert json.loads(r.content)["record"]["game"] == world.game


def test_running_game_replay_shows_public_information_only(client: TestClient, world: World) -> None:
    public = [e for e in world.running_record.events if e["visible_to"] is None]
    assert len(public) < len(world.running_record.events)  # the record does hold private events
    for url in (f"/api/v1/replays/{world.running_id}", f"/api/v1/replays/{world.running_id}/download"):
        r = client.get(url)
        assert r.status_code == 200
        body = r.json()
        assert body["public_only"] is True
        record = body["record"]
        assert record["events"] == public
        assert record["decisions"] == [] and record["chance"] == [] and record["results"] == []
        assert all(f["answer"] is None for f in record["faults"])
        text = r.text
        assert '"view"' not in text and '"answer": {' not in text
    page = client.get(f"/games/{world.running_id}")
    assert page.status_code == 200
    data = page.text.split('<script id="replay-data" type="application/json">')[1].split("</script>")[0]
    embedded = json.loads(data)
    assert embedded["record"]["events"] == public and embedded["record"]["decisions"] == []
    assert "seat 0: what" not in page.text  # no per-seat mode while running


@pytest.mark.parametrize("url", [
    f"/api/v1/seasons/{MISSING}",
    f"/api/v1/seasons/{MISSING}/standings",
    f"/api/v1/seasons/{MISSING}/crosstable",
    f"/api/v1/bots/{MISSING}",
    f"/api/v1/games/{MISSING}",
    f"/api/v1/replays/{MISSING}",
    f"/api/v1/replays/{MISSING}/download",
])
def test_unknown_ids_are_404_with_a_message(client: TestClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 404
    assert str(MISSING) in r.json()["detail"]


@pytest.mark.parametrize("url", ["/api/v1/seasons/0/standings", "/api/v1/seasons/99999999999999999999999/crosstable",
                                 "/api/v1/bots/0"])
def test_ids_out_of_range_are_404(client: TestClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 404 and "ids are 1 to" in r.json()["detail"]


def test_404s_that_depend_on_the_data(client: TestClient, world: World) -> None:
    r = client.get(f"/api/v1/bots/{world.bot_ids['alpha']}/ratings", params={"season_id": MISSING})
    assert r.status_code == 404 and "season" in r.json()["detail"]
    r = client.get(f"/api/v1/bots/{MISSING}/ratings", params={"season_id": world.season_id})
    assert r.status_code == 404 and "bot" in r.json()["detail"]
    r = client.get(f"/api/v1/bots/{world.bot_ids['alpha']}", params={"season_id": MISSING})
    assert r.status_code == 404
    r = client.get(f"/api/v1/replays/{world.pending_id}")
    assert r.status_code == 404 and "no replay yet" in r.json()["detail"]


@pytest.mark.parametrize("url", [
    "/api/v1/bots?limit=0",
    "/api/v1/bots?limit=100000",
    "/api/v1/bots?offset=-1",
    "/api/v1/bots/1/ratings",
    "/api/v1/bots/1?season_id=x",
    "/api/v1/games?limit=501",
    "/api/v1/games?status=finished",
    "/api/v1/games?fault=perhaps",
    "/api/v1/games?result=win",
    "/api/v1/games?bot_id=-3",
    "/api/v1/games/1.5",
    "/api/v1/replays/-1",
])
def test_bad_parameters_are_422(client: TestClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 422, r.text
    assert r.json()["detail"]


def test_openapi_documents_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert {"/api/v1/seasons", "/api/v1/seasons/{season}/standings", "/api/v1/seasons/{season}/crosstable",
            "/api/v1/bots", "/api/v1/bots/{bot}", "/api/v1/bots/{bot}/ratings", "/api/v1/games",
            "/api/v1/games/{game_id}", "/api/v1/replays/{game_id}", "/api/v1/replays/{game_id}/download"} <= paths
    assert not any(p.startswith("/seasons") or p == "/" for p in paths)  # pages stay out of the API schema


def test_large_seasons_fit_ratings_in_the_background(world: World) -> None:
    """Above ``sync_limit`` final games the request does not wait for the season ratings or the
    crosstable: it answers at once, and the next request has them."""
    from config import Settings
    from dashboard.main import create_app

    app = create_app(Settings(db_url=world.url, sync_limit=0))
    with TestClient(app) as client:
        first = client.get(f"/api/v1/seasons/{world.season_id}/standings").json()
        assert {r["name"] for r in first} == {r["name"] for r in standings_json(standings_of(world.store, world.season_id))}
        if all(r["ml_rating"] is None for r in first):  # not fitted yet: ranked by Elo meanwhile
            assert [r["elo"] for r in first] == sorted((r["elo"] for r in first), reverse=True)
        cross = client.get(f"/api/v1/seasons/{world.season_id}/crosstable").json()
        assert app.state.refresher.wait_idle()
        later = client.get(f"/api/v1/seasons/{world.season_id}/standings").json()
        expected = {r["bot_id"]: r for r in standings_json(standings_of(world.store, world.season_id))}
        # once fitted, ranked as the store ranks them (by the ML rating)
        assert [(r["rank"], r["bot_id"]) for r in later] == [(r["rank"], r["bot_id"]) for r in expected.values()]
        for row in later:
            assert row["ml_rating"] == expected[row["bot_id"]]["ml_rating"]
            assert row["ml_games"] == (3 if row["ml_rating"] is not None else None)
        assert cross["computing"] or cross["cells"]
        cross = client.get(f"/api/v1/seasons/{world.season_id}/crosstable").json()
        assert cross["computing"] is False and cross["games"] == 3 and len(cross["cells"]) == 6
        page = client.get(f"/seasons/{world.season_id}")
        assert page.status_code == 200 and page.text.count('class="h2h"') == 6


def test_refresher_serves_the_last_value_while_recomputing() -> None:
    from dashboard.deps import Refresher

    r = Refresher()
    assert r.get("x", 1, lambda: "one", wait=True) == ("one", 1)
    assert r.get("x", 1, lambda: "unused", wait=False) == ("one", 1)
    value, version = r.get("x", 2, lambda: "two", wait=False)
    assert (value, version) in {("one", 1), ("two", 2)}
    assert r.wait_idle()
    assert r.get("x", 2, lambda: "unused", wait=False) == ("two", 2)


def test_an_undecodable_stored_record_is_shown_as_stored_not_a_500(client: TestClient, world: World) -> None:
    import base64
    import zlib

    from sqlalchemy import update

    from store.models import Replay

    game_id = world.done_ids[0]
    data = world.store.replays.get_replay(game_id).to_json()  # type: ignore[union-attr]
    data["decisions"][0]["view"] = base64.b64encode(b"\xff\xff\xff\xff").decode()
    with world.store.engine.begin() as conn:
        conn.execute(update(Replay).where(Replay.game_id == game_id)
                     .values(record=zlib.compress(json.dumps(data).encode())))
    r = client.get(f"/api/v1/replays/{game_id}")
    assert r.status_code == 200
    assert "could not be decoded" in r.json()["record"]["decode_error"]
    assert client.get(f"/games/{game_id}").status_code == 200


def test_replay_views_show_every_field_as_the_bot_received_it(client: TestClient, world: World) -> None:
    """A zero, false or empty field is shown (issue: a first view without some of its fields): every field of the
    game's view and action without presence is in every view, action and illegal answer shown."""
    record = client.get(f"/api/v1/replays/{world.done_ids[0]}").json()["record"]
    always = {f.name for f in view_class(world.game).DESCRIPTOR.fields if not f.has_presence}
    for d in record["decisions"]:
        assert always <= d["view"].keys(), sorted(always - d["view"].keys())
    acted = {f.name for f in action_class(world.game).DESCRIPTOR.fields if not f.has_presence}
    assert all(acted <= d["action"].keys() for d in record["decisions"]), acted  # a field of value 0 too
    illegal = [f for f in record["faults"] if f["kind"] == "illegal"]
    field_ = spec(world.game).proto_field
    assert illegal and all(f["answer"][field_].keys() >= acted for f in illegal), illegal
