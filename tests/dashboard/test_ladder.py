"""The ladder's page and JSON API over a real ladder (SQLite; rules §5): standings with intervals
from the stored snapshot, placing, history, games, epochs, 404s, and nothing hidden shown."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from config import Settings
from dashboard.main import create_app
from league.competition.ladder import ladder_standings
from store import GameStatus
from tests.ladder_world import NAME, LadderWorld, build_ladder_world


@pytest.fixture(scope="module")
def lw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LadderWorld]:
    w = build_ladder_world(f"sqlite:///{tmp_path_factory.mktemp('ladder') / 'store.db'}")
    yield w
    w.store.close()


@pytest.fixture(scope="module")
def client(lw: LadderWorld) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(db_url=lw.url))) as c:
        yield c


def test_ladders_list_and_detail(client: TestClient, lw: LadderWorld) -> None:
    [lad] = client.get("/api/v1/ladders").json()
    assert lad["name"] == NAME and lad["game"] == lw.game and lad["entrants"] == 4 and lad["rated_games"] > 0
    body = client.get(f"/api/v1/ladders/{NAME}").json()
    rows = body["standings"]
    main = [r for r in rows if r["latest"]]
    assert [r["name"] for r in main[:3]] == ["a", "b", "c"]  # the strengths played
    assert [r["rank"] for r in main if r["rank"] is not None] == list(range(1, 1 + sum(r["rank"] is not None for r in main)))
    for r in rows:
        if r["rating"] is not None:
            assert r["low"] < r["rating"] < r["high"]
    d2 = next(r for r in rows if r["name"] == "d" and r["version"] == "2.0")
    d1 = next(r for r in rows if r["name"] == "d" and r["version"] == "1.0")
    assert d2["latest"] and d2["status"] == "active" and d2["placing"] and d2["games"] < body["placement_games"]
    assert not d1["latest"] and d1["status"] == "superseded" and not d1["placing"]
    assert body["progress"] == lw.store.ladders.ladder_progress(lw.ladder_id)
    assert body["compares"] == []


def test_snapshot_standings_agree_with_a_full_refit(client: TestClient, lw: LadderWorld) -> None:
    """The page reads the runner's stored snapshot; after the last fit it equals the league's own standings."""
    body = client.get(f"/api/v1/ladders/{NAME}").json()
    fitted = {r.entrant_id: r for r in ladder_standings(lw.store, lw.ladder_id, with_luck=False)}
    snap_games = body["rated_games"]
    done = lw.store.ladders.ladder_progress(lw.ladder_id)["done"]
    assert snap_games == done
    for r in body["standings"]:
        want = fitted[r["entrant_id"]]
        assert r["games"] == want.games and r["placing"] == want.placing and r["latest"] == want.latest
        if want.rating is None:
            assert r["rating"] is None
        else:
            assert r["rating"] == pytest.approx(want.rating, abs=0.01)
            assert (r["low"], r["high"]) == (pytest.approx(want.low, abs=0.01), pytest.approx(want.high, abs=0.01))


def test_history_is_sampled_and_per_bot(client: TestClient, lw: LadderWorld) -> None:
    h = client.get(f"/api/v1/ladders/{NAME}/history", params={"points": 3}).json()
    assert h["entrants"] and all(len(e["points"]) <= 3 for e in h["entrants"])
    full = client.get(f"/api/v1/ladders/{NAME}/history", params={"bot": "a", "points": 500}).json()
    [a] = full["entrants"]
    stored = lw.store.ladders.rating_history(lw.ladder_id, a["entrant_id"])
    assert [p["games"] for p in a["points"]] == [p.games for p in stored]
    assert a["points"][-1]["rating"] == pytest.approx(stored[-1].rating, abs=0.05)
    assert client.get(f"/api/v1/ladders/{NAME}/history", params={"bot": "nobody"}).status_code == 404


def test_games_pages_by_keyset_and_by_bot(client: TestClient, lw: LadderWorld) -> None:
    first = client.get(f"/api/v1/ladders/{NAME}/games", params={"limit": 5}).json()
    ids = [g["id"] for g in first["items"]]
    assert ids == sorted(ids, reverse=True) and len(ids) == 5 and first["next_before"] == ids[-1]
    second = client.get(f"/api/v1/ladders/{NAME}/games", params={"limit": 5, "before": ids[-1]}).json()
    assert max(g["id"] for g in second["items"]) < ids[-1]
    all_ids = [g.id for g in lw.store.ladders.ladder_games(lw.ladder_id)]
    assert ids + [g["id"] for g in second["items"]] == sorted(all_ids, reverse=True)[:10]
    mine = client.get(f"/api/v1/ladders/{NAME}/games", params={"bot": "a", "limit": 500}).json()["items"]
    assert mine and all(any(s["bot_name"] == "a" for s in g["seats"]) for g in mine)
    expect = [g.id for g in lw.store.ladders.ladder_games(lw.ladder_id) if any(b == lw.bots["a"] for b, _, _ in g.seats)
              and g.id not in lw.pending_ids]  # its pending tables are not shown (rules §5.3)
    assert [g["id"] for g in mine] == sorted(expect, reverse=True)


def test_bad_requests(client: TestClient) -> None:
    for url in ("/api/v1/ladders/nope", "/api/v1/ladders/nope/history", "/api/v1/ladders/nope/games"):
        r = client.get(url)
        assert r.status_code == 404 and "no ladder named 'nope'" in r.json()["detail"]
    assert client.get(f"/api/v1/ladders/{NAME}/games", params={"bot": "ghost"}).status_code == 404
    assert client.get(f"/api/v1/ladders/{NAME}/games", params={"limit": 0}).status_code == 422
    assert client.get(f"/api/v1/ladders/{NAME}/games", params={"before": "x"}).status_code == 422
    assert client.get(f"/api/v1/ladders/{NAME}/history", params={"points": 0}).status_code == 422
    r = client.get("/ladders/nope")
    assert r.status_code == 404 and "no ladder named" in r.text


def test_pages_show_standings_chart_games_epochs_and_ab(client: TestClient, lw: LadderWorld) -> None:
    page = client.get(f"/ladders/{NAME}")
    assert page.status_code == 200
    html = page.text
    assert 'id="ladder-standings"' in html and "placing: " in html and "<svg" in html and "polyline" in html
    assert "No A/B comparison yet" in html
    assert 'id="luck-wealth"' not in html  # a game without luck terms: no luck audit
    newest = lw.store.ladders.ladder_games(lw.ladder_id)[-1].id
    assert f'href="/games/{newest}"' in html
    home = client.get("/").text
    assert f'href="/ladders/{NAME}"' in home and 'href="/ladders"' in home
    assert f'href="/ladders/{NAME}"' in client.get("/ladders").text
    bot = client.get(f"/bots/{lw.bots['d']}").text
    assert 'id="bot-ladders"' in bot and "2.0" in bot and "superseded" in bot and "placing: " in bot


def test_the_api_reference_lists_the_ladder_endpoints(client: TestClient) -> None:
    import re

    page = client.get("/api").text
    for path in ("/api/v1/ladders", "/api/v1/ladders/{name}", "/api/v1/ladders/{name}/history",
                 "/api/v1/ladders/{name}/games"):
        assert f"<code>{path}</code>" in page
    assert not re.search(r'(?:src|href)="(?:https?:)?//', client.get(f"/ladders/{NAME}").text)  # no CDN


def test_no_key_before_its_epoch_is_done_nor_a_pending_seed(client: TestClient, lw: LadderWorld) -> None:
    store = lw.store
    body = client.get(f"/api/v1/ladders/{NAME}", params={"epochs": 1000}).json()
    epochs = store.ladders.epochs(lw.ladder_id)
    assert len(body["epochs"]) == len(epochs) >= 3
    hidden = []
    shown = 0
    for e in epochs:
        row = next(x for x in body["epochs"] if x["epoch"] == e.epoch)
        assert row["commitment"] == e.commitment
        key = store.seasons.revealed_key(e.id)
        if key is None:
            hidden.append(store.seasons.schedule_key(e.id).hex())
            assert row["key"] is None
        else:
            shown += 1
            assert row["key"] == key.hex() and row["closed"]
    assert hidden and shown  # the open epoch's key is secret; closed, finished epochs publish theirs
    assert lw.pending_ids
    seeds = [str(store.game_reads.get_game(g).seed) for g in lw.pending_ids]
    texts = [client.get(u).text for u in (
        f"/ladders/{NAME}", f"/api/v1/ladders/{NAME}?epochs=1000", f"/api/v1/ladders/{NAME}/games?limit=500",
        f"/api/v1/ladders/{NAME}/history", "/api/v1/ladders", f"/bots/{lw.bots['a']}")]
    for text in texts:
        for secret in hidden + seeds:
            assert secret not in text
    games = client.get(f"/api/v1/ladders/{NAME}/games", params={"limit": 500}).json()["items"]
    for g in games:
        assert (g["seed"] is not None) == (g["status"] == GameStatus.DONE and not g["sealed"])


def test_a_ladder_table_that_has_not_started_shows_no_one_at_it(client: TestClient, lw: LadderWorld) -> None:
    """Rules §5.3: a bot that saw its next ladder table could go down to skip an opponent it fears, so a pending
    ladder game lists no seats anywhere, and a bot's game lists leave its pending ladder games out."""
    assert lw.pending_ids
    names = {bot_id: name for name, bot_id in lw.bots.items()}
    for gid in lw.pending_ids:
        assert client.get(f"/api/v1/games/{gid}").json()["seats"] == []
        at_table = {s.bot_id for s in lw.store.game_reads.get_game(gid).seats}  # the store's own read knows them
        for bot in at_table:
            listed = client.get("/api/v1/games", params={"bot_id": bot, "status": "pending", "limit": 500}).json()
            assert gid not in [g["id"] for g in listed["items"]]
            mine = client.get(f"/api/v1/ladders/{NAME}/games", params={"limit": 500, "bot": names[bot]})
            assert gid not in [g["id"] for g in mine.json()["items"]]
    pending = client.get("/api/v1/games", params={"status": "pending", "limit": 500}).json()["items"]
    assert {g["id"] for g in pending} >= set(lw.pending_ids) and all(g["seats"] == [] for g in pending
                                                                       if g["id"] in lw.pending_ids)
    done = client.get("/api/v1/games", params={"status": "done", "limit": 5}).json()["items"]
    assert done and all(g["seats"] for g in done)  # a game that started shows its table


def test_progress_keeps_finished_epochs_and_counts_the_open_one(lw: LadderWorld) -> None:
    """Last in the module: it finishes a pending game."""
    from dashboard.ladders import FinalCounts
    from tests.store.conftest import finish

    counts = FinalCounts()
    assert counts.progress(lw.store, lw.ladder_id) == lw.store.ladders.ladder_progress(lw.ladder_id)
    game = lw.store.game_reads.get_game(lw.pending_ids[0])
    finish(lw.store, game.id, list(range(1, len(game.seats) + 1)))
    after = counts.progress(lw.store, lw.ladder_id)
    assert after == lw.store.ladders.ladder_progress(lw.ladder_id) and after["pending"] == len(lw.pending_ids) - 1


def test_a_stored_compare_is_shown_on_the_page_and_in_the_api(lw: LadderWorld) -> None:
    """The A/B section reads the store's compares (rules §5.5): a finished one with its answer and estimate."""
    entrants = {(e.name, e.version): e.id for e in lw.store.ladders.entrants(lw.ladder_id)}
    cid = lw.store.compares.create_compare(lw.ladder_id, entrants[("b", "1.0")], entrants[("a", "1.0")],
                                           delta=50, confidence=0.975, max_games=400)
    assert cid is not None and lw.store.compares.save_look(
        cid, 0, status="better", games=37, difference=120.4, low=40.2, high=200.6, state={})
    with TestClient(create_app(Settings(db_url=lw.url))) as c:
        [shown] = c.get(f"/api/v1/ladders/{NAME}").json()["compares"]
        page = c.get(f"/ladders/{NAME}").text
    assert (shown["candidate"], shown["base"], shown["status"], shown["games"]) == ("a@1.0", "b@1.0", "better", 37)
    assert (shown["difference"], shown["low"], shown["high"]) == (120.4, 40.2, 200.6)
    section = page.split('id="ab-results"')[1].split("</div>")[0]
    assert "a@1.0" in section and "b@1.0" in section and "better" in section and "+120 [+40, +201]" in section
    assert "No A/B comparison yet" not in section


def test_a_compare_against_a_record_is_marked_on_the_page_and_in_the_api(lw: LadderWorld) -> None:
    """A compare whose base is a version no longer played (rules §5.5, item 7) says so: its base is shown as a record."""
    entrants = {(e.name, e.version): e.id for e in lw.store.ladders.entrants(lw.ladder_id)}
    cid = lw.store.compares.create_compare(lw.ladder_id, entrants[("d", "1.0")], entrants[("d", "2.0")], delta=50,
                                           confidence=0.975, max_games=400, state={"against": "record"})
    assert cid is not None
    with TestClient(create_app(Settings(db_url=lw.url))) as c:
        shown = next(x for x in c.get(f"/api/v1/ladders/{NAME}").json()["compares"] if x["id"] == cid)
        page = c.get(f"/ladders/{NAME}").text
    assert (shown["base"], shown["candidate"], shown["against"]) == ("d@1.0", "d@2.0", "record")
    section = page.split('id="ab-results"')[1].split("</div>")[0]
    assert "d@1.0 (its record)" in section


def test_a_paused_bot_is_marked_on_the_page_and_in_the_api(lw: LadderWorld) -> None:
    """A bot the open epoch marks as not answering is paused in the ladder (rules §5.3), and shown so."""
    epoch = lw.store.ladders.current_epoch(lw.ladder_id)
    c_bot = lw.store.bots.get_bot_by_name("c")
    lw.store.marks.mark_down(epoch.id, {c_bot.id: "connection refused"})
    with TestClient(create_app(Settings(db_url=lw.url))) as client:
        rows = client.get(f"/api/v1/ladders/{NAME}").json()["standings"]
        page = client.get(f"/ladders/{NAME}").text
    paused = {(r["name"], r["version"]): r["paused"] for r in rows if r["latest"]}
    assert paused[("c", "1.0")] == "connection refused"
    assert all(why is None for (name, _), why in paused.items() if name != "c")
    assert page.count("paused: not answering") == 1
