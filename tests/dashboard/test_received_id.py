"""A bot's log names a game by the id it was sent (``<season id>/<number>``, the ``game_id`` of its requests): once
the game is over, the dashboard's page and the JSON API find it by that id; before, they answer 404."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from config import Settings
from dashboard.main import create_app
from league.policy import POLICY
from store import open_store
from tests.a_game import GAME
from tests.store.conftest import finish


def test_a_final_game_is_found_by_the_id_its_bots_received(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url, policy=POLICY)
    bots = [store.bots.register_bot(n, f"127.0.0.1:{7100 + i}", "1", "t", [GAME]) for i, n in enumerate("abc")]
    sid = store.seasons.create_season("received", GAME, {}, {}, 1, {}, [(s, bots) for s in (11, 12, 13)])
    first, second, _ = store.seasons.next_pending(sid, 3)
    claim = finish(store, first, [1, 2, 3])
    store.games.claim_game(second, "w", 60)  # running: not over
    with TestClient(create_app(Settings(db_url=url)), follow_redirects=False) as client:
        page = client.get(f"/games/{sid}/{claim.number}")
        assert page.status_code == 307 and page.headers["location"] == f"/games/{first}"
        detail = client.get(f"/api/v1/games/{sid}/{claim.number}")
        assert detail.status_code == 200 and detail.json()["id"] == first
        for number in (1, 2, 99):  # running, pending, no such game: nothing says which game it is
            assert client.get(f"/games/{sid}/{number}").status_code == 404
            answer = client.get(f"/api/v1/games/{sid}/{number}")
            assert answer.status_code == 404 and "once it is over" in answer.json()["detail"]
    store.close()
