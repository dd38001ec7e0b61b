"""A bot's log names a game by the id it was sent (the ``game_id`` of its requests: opaque, keyed from the season's
key): once the game is over, the dashboard's page and the JSON API find it by that id; before, and while a rotation
of its deal is still to be played, they answer 404 exactly as for an id that names no game."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from config import Settings
from dashboard.main import create_app
from league.integrity import fairness
from league.policy import POLICY
from store import open_store
from tests.a_game import GAME
from tests.store.conftest import finish


def test_a_final_game_is_found_by_the_id_its_bots_received(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url, policy=POLICY)
    bots = [store.bots.register_bot(n, f"127.0.0.1:{7100 + i}", "1", "t", [GAME]) for i, n in enumerate("abc")]
    sid = store.seasons.create_season("received", GAME, {}, {}, 1, {}, [(s, bots) for s in (11, 12, 13)])
    first, second, third = store.seasons.next_pending(sid, 3)
    claim = finish(store, first, [1, 2, 3])
    running = store.games.claim_game(second, "w", 60)  # running: not over
    assert running is not None
    pending = fairness.game_token(POLICY.season_key(1), sid, 2)  # the third game's id: still to be played
    assert claim.token == fairness.game_token(POLICY.season_key(1), sid, 0) and fairness.is_game_token(claim.token)
    with TestClient(create_app(Settings(db_url=url)), follow_redirects=False) as client:
        page = client.get(f"/games/{claim.token}")
        assert page.status_code == 307 and page.headers["location"] == f"/games/{first}"
        detail = client.get(f"/api/v1/games/{claim.token}")
        assert detail.status_code == 200 and detail.json()["id"] == first
        assert client.get(f"/api/v1/games/{first}").json()["id"] == first  # the store's id still finds it
        unknown = "g-" + "0" * fairness.GAME_ID_HEX
        answers = {}
        for received in (running.token, pending, unknown, f"{sid}/1"):
            assert client.get(f"/games/{received}").status_code == 404
            answer = client.get(f"/api/v1/games/{received}")
            answers[received] = (answer.status_code, answer.text)
        # running, pending and unknown answer alike, and the answer does not repeat the id
        assert {a for r, a in answers.items() if r != f"{sid}/1"} == {answers[unknown]}
        assert answers[unknown][0] == 404 and "once it is over" in answers[unknown][1]
        assert running.token not in answers[running.token][1] and pending not in answers[pending][1]
        assert client.get("/api/v1/games/1.5").status_code == client.get("/games/g-XYZ").status_code == 422
    store.close()


def test_a_done_rotation_is_not_found_while_its_deal_is_still_played(tmp_path: Path) -> None:
    """A duplicate group's done rotation is sealed while another rotation is to be played: its id finds
    nothing until the group's last game is stored (it would tell a bot which game of the schedule it played)."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url, policy=POLICY)
    bots = [store.bots.register_bot(n, f"127.0.0.1:{7100 + i}", "1", "t", [GAME]) for i, n in enumerate("abc")]
    sid = store.seasons.create_season("dup", GAME, {}, {}, 1, {}, [(7, bots), (7, bots[1:] + bots[:1])],
                                      deal_groups=[0, 0])
    first, second = store.seasons.next_pending(sid, 2)
    claim = finish(store, first, [1, 2, 3])
    with TestClient(create_app(Settings(db_url=url)), follow_redirects=False) as client:
        assert client.get(f"/api/v1/games/{claim.token}").status_code == 404
        finish(store, second, [3, 2, 1])
        assert client.get(f"/api/v1/games/{claim.token}").json()["id"] == first
    store.close()
