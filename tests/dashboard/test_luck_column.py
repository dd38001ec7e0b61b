"""The luck-adjusted column of a season of a game with a luck estimator (``GameSpec.luck``): store, JSON API,
season page and `cardarena standings`, from real games played by the referee with in-process reference bots;
and no such column for a game without one."""

from __future__ import annotations

import json
import sys
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from config import Settings
from dashboard.main import create_app
from league.competition.standings import standings_of
from league.policy import POLICY
from league.ratings.luck import adjusted_changes, mean_interval
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.games.conformance import conformance
from referee.record import GameRecord
from referee.referee import play
from store import Store, open_store
from tests.a_game import game_with, game_without_luck


Played = list[tuple[list[int], GameRecord]]


def play_season(store: Store, name: str, game: str, plays: dict[str, str], played: int) -> tuple[int, dict[str, int],
                                                                                                  Played]:
    """A season ``name`` of ``game`` (its short parameters, ``Conformance.short_params``) of four games at
    tables of 3 between the bots ``plays`` (bot name -> reference bot it plays), the first ``played`` of them
    played here by the referee and stored; the rest stay pending. Returns the season's id, the bots' ids and
    each played game's bots (in seat order) and record."""
    params = dict(conformance(game).short_params)
    ids = {n: store.bots.register_bot(n, f"127.0.0.1:{6000 + i}", "1.0", "tests", [game]) for i, n in enumerate(plays)}
    o, r, x = ids.values()
    schedule = [(21, [o, r, x]), (22, [r, x, o]), (23, [x, o, r]), (24, [o, x, r])]
    sid = store.seasons.create_season(name, game, params, {}, 7, {"table_sizes": [3]}, schedule)
    names = {v: k for k, v in ids.items()}
    records = []
    for row in store.game_reads.list_games(sid)[:played]:
        claim = store.games.claim_game(row.id, "test", 60)
        assert claim is not None
        clients = [InProcessBotClient(load_bot(plays[names[s.bot_id]], claim.seed + k).act)
                   for k, s in enumerate(claim.seats)]
        record = play(spec(game), make_params(game, params), 3, claim.seed, clients)
        assert store.games.finish_game(row.id, claim.attempt, record)
        records.append(([s.bot_id for s in claim.seats], record))
    return sid, ids, records


def test_a_season_of_a_game_with_luck_shows_luck_adjusted_changes_with_intervals(tmp_path: Path) -> None:
    game = game_with(lambda s: s.luck is not None, "with a luck estimator")
    url = f"sqlite:///{tmp_path / 'luck.db'}"
    store = open_store(url, policy=POLICY)
    plays = {"strong": conformance(game).strong_bot, "random": "random", "other": "random"}
    sid, ids, records = play_season(store, "luck-season", game, plays, 3)  # the fourth stays pending: it does not count
    o, r = ids["strong"], ids["random"]
    expected: dict[int, list[float]] = {}
    for bots, record in records:
        for b, change in zip(bots, adjusted_changes(spec(game), record)):
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

    cli = [sys.executable, "-m", "cli.main", "standings", "--season", "luck-season", "--db", url]
    root = Path(__file__).parents[2]
    out = subprocess.run([*cli, "--json"], capture_output=True, text=True, timeout=300, cwd=root, check=True).stdout
    by_bot = {row["bot_id"]: row for row in json.loads(out)["standings"]}
    assert by_bot[r]["luck_change"] == pytest.approx(rows[r].luck_change, abs=0.01)
    table = subprocess.run(cli, capture_output=True, text=True, timeout=300, cwd=root, check=True,
                           env={"COLUMNS": "250", "PATH": ""}).stdout
    assert "luck-adjusted [95%]" in table and f"{rows[o].luck_change:+.1f} [{rows[o].luck_low:+.1f}," in table
    store.close()


def test_other_games_have_no_luck_column(tmp_path: Path) -> None:
    game = game_without_luck()
    url = f"sqlite:///{tmp_path / 'plain.db'}"
    store = open_store(url, policy=POLICY)
    sid, _, _ = play_season(store, "plain-season", game, {"alpha": "random", "bravo": "random", "charlie": "random"}, 3)
    with TestClient(create_app(Settings(db_url=url, latency_games=50))) as client:
        rows = client.get(f"/api/v1/seasons/{sid}/standings").json()
        assert rows and all(row["luck_change"] is None for row in rows)
        assert "Luck-adjusted" not in client.get(f"/seasons/{sid}").text
    store.close()
