"""The luck-adjusted column of a Slippery Sam season: store, JSON API, season page and `cardarena standings`,
from real games played by the referee with in-process reference bots."""

from __future__ import annotations

import json
import sys
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from referee.bots import load_bot
from config import Settings
from dashboard.main import create_app
from league.luck import adjusted_changes, mean_interval
from league.policy import POLICY
from league.standings import standings_of
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.referee import play
from store import open_store

GAME = "slippery-sam"


def test_a_slippery_sam_season_shows_luck_adjusted_changes_with_intervals(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sam.db'}"
    store = open_store(url, policy=POLICY)
    ids = {name: store.register_bot(name, f"127.0.0.1:{6000 + i}", "1.0", "tests", [GAME])
           for i, name in enumerate(("odds", "random", "other"))}
    o, r, x = ids["odds"], ids["random"], ids["other"]
    schedule = [(21, [o, r, x]), (22, [r, x, o]), (23, [x, o, r]), (24, [o, x, r])]
    sid = store.create_season("sam-season", GAME, {"orbits": 1}, {}, 7, {"table_sizes": [3]}, schedule)
    names = {v: k for k, v in ids.items()}
    expected: dict[int, list[float]] = {}
    for game in store.list_games(sid)[:3]:  # the fourth stays pending: it does not count
        claim = store.claim_game(game.id, "test", 60)
        assert claim is not None
        bots = [s.bot_id for s in claim.seats]
        clients = [InProcessBotClient(load_bot("odds" if names[b] == "odds" else "random", claim.seed + k).act)
                   for k, b in enumerate(bots)]
        record = play(spec(GAME), make_params(GAME, {"orbits": 1}), 3, claim.seed, clients)
        assert store.finish_game(game.id, claim.attempt, record)
        for b, change in zip(bots, adjusted_changes(record)):
            expected.setdefault(b, []).append(change)

    rows = {row.bot_id: row for row in standings_of(store, sid)}
    for bot, values in expected.items():
        want = mean_interval(values)
        assert rows[bot].luck_change == pytest.approx(want.mean)
        assert (rows[bot].luck_low, rows[bot].luck_high) == (pytest.approx(want.low), pytest.approx(want.high))

    with TestClient(create_app(Settings(db_url=url, latency_games=50))) as client:
        api = {row["bot_id"]: row for row in client.get(f"/api/v1/seasons/{sid}/standings").json()}
        assert api[o]["luck_change"] == pytest.approx(rows[o].luck_change, abs=0.01)
        assert api[o]["luck_low"] < api[o]["luck_change"] < api[o]["luck_high"]
        page = client.get(f"/seasons/{sid}").text
        assert "Luck-adjusted" in page and f"{rows[o].luck_change:+.1f}" in page

    cli = [sys.executable, "-m", "cli.main", "standings", "--season", "sam-season", "--db", url]
    root = Path(__file__).parents[2]
    out = subprocess.run([*cli, "--json"], capture_output=True, text=True, timeout=300, cwd=root, check=True).stdout
    by_bot = {row["bot_id"]: row for row in json.loads(out)["standings"]}
    assert by_bot[r]["luck_change"] == pytest.approx(rows[r].luck_change, abs=0.01)
    table = subprocess.run(cli, capture_output=True, text=True, timeout=300, cwd=root, check=True,
                           env={"COLUMNS": "250", "PATH": ""}).stdout
    assert "luck-adjusted [95%]" in table and f"{rows[o].luck_change:+.1f} [{rows[o].luck_low:+.1f}," in table
    store.close()


def test_other_games_have_no_luck_column(client: TestClient, world) -> None:
    rows = client.get(f"/api/v1/seasons/{world.season_id}/standings").json()
    assert rows and all(row["luck_change"] is None for row in rows)
    assert "Luck-adjusted" not in client.get(f"/seasons/{world.season_id}").text
