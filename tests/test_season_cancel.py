"""``season cancel`` and ``season delete`` (rules §4.11), one count vocabulary, seasons by name, and
"did you mean": a season of GAME (tests/a_game.py) part played through the worker's own path against reference bots
over gRPC on 127.0.0.1, then cancelled, verified, listed and shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from referee.games import spec
from typing import Any

import pytest

from league.competition.seasons import create_season
from league.policy import POLICY
from referee.bots import RandomBot
from store import CANCELLED, GameStatus, open_store
from tests.a_game import GAME
from tests.store.conftest import db_url, pg_database  # noqa: F401  (fixtures: SQLite and PostgreSQL)
from workers.service import Outcome, run_game

CLI = [sys.executable, "-m", "cli.main"]
ROOT = Path(__file__).parents[1]
BOTS = ("alpha", "bravo", "charlie")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture
def half_played(db_url: str, bot_server: Any):  # noqa: F811
    """A store (SQLite or PostgreSQL) with season ``half``: 6 games, 2 played, the rest pending; and ``typo``:
    3 games, none played."""
    url = db_url
    store = open_store(url, policy=POLICY)
    for i, name in enumerate(BOTS):
        store.bots.register_bot(name, bot_server(RandomBot(seed=i), threads=4), "1", "tests", [GAME], capacity=4)
    sid = create_season(store, "half", spec(GAME), list(BOTS), [3], 6, None, False, {})
    for game in store.game_reads.list_games(sid, limit=2):
        assert run_game(store, game.id, lease_s=30).outcome is Outcome.DONE
    typo = create_season(store, "typo", spec(GAME), list(BOTS), [3], 3, None, False, {})
    yield url, store, sid, typo
    store.close()


def test_cancel_makes_pending_games_cancelled_keeps_what_was_played_rated_and_verifies(half_played) -> None:
    url, store, sid, _ = half_played
    rated = store.season_reads.ratings(sid)
    assert rated  # the two games played are rated
    out = cli("season", "cancel", "half", "--reason", "abandoned by its organiser", "--db", url)
    assert out.returncode == 0, out.stderr
    assert "4 pending game(s) will never be played" in out.stdout
    assert "2 done, 0 failed, 0 not played, 4 cancelled, 0 pending, 0 running" in out.stdout
    games = store.game_reads.list_games(sid, limit=10)
    cancelled = [g for g in games if g.status == GameStatus.NOT_PLAYED]
    assert len(cancelled) == 4 and all(g.reason == CANCELLED for g in cancelled)
    assert all(g.detail == "season cancelled: abandoned by its organiser" for g in cancelled)
    season = store.seasons.get_season(sid)
    assert season.state == "cancelled" and season.status == "done"
    assert store.season_reads.ratings(sid) == rated  # what was played stays rated
    progress = store.seasons.season_progress(sid)
    assert progress["cancelled"] == 4 and progress["not_played"] == 0 and progress["done"] == 2
    verify = cli("season", "verify", "half", "--db", url)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "6 of 6 statuses proven" in verify.stdout
    again = cli("season", "cancel", "half", "--db", url)
    assert again.returncode == 0 and "cancelled already" in again.stdout
    run = cli("season", "run", "half", "--db", url)
    assert run.returncode == 1 and "was cancelled" in run.stderr


def test_verify_rejects_a_cancelled_game_without_the_seasons_cancellation(half_played) -> None:
    url, store, sid, _ = half_played
    assert cli("season", "cancel", "half", "--db", url).returncode == 0
    from sqlalchemy import text

    with store.engine.begin() as conn:  # the organiser rewrites the reason a game was not played
        conn.execute(text("UPDATE games SET detail = 'season cancelled: something else' WHERE season_id = :s "
                          "AND status = 'not_played' AND number = 5"), {"s": sid})
    verify = cli("season", "verify", "half", "--db", url)
    assert verify.returncode == 1
    assert any(line.startswith("MISMATCH game 5") and "records no cancellation" in line
               for line in verify.stdout.splitlines()), verify.stdout


def test_a_running_game_voided_after_the_cancel_is_cancelled_not_pending(half_played) -> None:
    url, store, sid, _ = half_played
    pending = store.seasons.next_pending(sid, limit=10)
    claim = store.games.claim_game(pending[0], "host:1", 60)
    assert claim is not None
    result = store.games.cancel_season(sid, "stop")
    assert result.cancelled == 3 and result.running == 1
    assert store.seasons.get_season(sid).status == "running"  # a game still runs
    store.games.void_game(claim.game_id, claim.attempt, "worker lost")
    game = store.game_reads.get_game(claim.game_id)
    assert game.status == GameStatus.NOT_PLAYED and game.reason == CANCELLED
    assert store.seasons.get_season(sid).status == "done"
    assert cli("season", "verify", "half", "--db", url).returncode == 0


def test_delete_only_a_season_with_no_final_game(half_played) -> None:
    url, store, sid, typo = half_played
    refused = cli("season", "delete", "half", "--db", url)
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [refused.stderr.strip()]
    assert "2 done" in refused.stderr and "cardarena season cancel half" in refused.stderr
    assert store.seasons.get_season(sid) is not None
    done = cli("season", "delete", "typo", "--db", url)
    assert done.returncode == 0, done.stderr
    assert "deleted with its 3 pending game(s)" in done.stdout
    assert store.seasons.get_season(typo) is None and store.seasons.get_season_by_name("typo") is None
    assert [s.name for s in store.seasons.list_seasons()] == ["half"]


def test_season_list_json_has_ids_urls_and_the_one_vocabulary(half_played) -> None:
    url, store, sid, typo = half_played
    store.games.cancel_season(typo, "a typo")
    out = cli("season", "list", "--json", "--url", "http://arena.example:8000", "--db", url)
    assert out.returncode == 0, out.stderr
    seasons = {s["name"]: s for s in json.loads(out.stdout)}
    assert seasons["half"]["id"] == sid and seasons["half"]["url"] == "http://arena.example:8000/seasons/half"
    assert seasons["half"]["api"] == "http://arena.example:8000/api/v1/seasons/half"
    assert seasons["half"]["progress"] == {"done": 2, "failed": 0, "not_played": 0, "cancelled": 0, "pending": 4,
                                           "running": 0, "total": 6}
    assert seasons["typo"]["status"] == "cancelled" and seasons["typo"]["cancelled"]["reason"] == "a typo"
    table = subprocess.run([*CLI, "season", "list", "--db", url], capture_output=True, text=True, timeout=300,
                           cwd=ROOT, env={**os.environ, "COLUMNS": "250"})
    assert table.returncode == 0
    header = table.stdout.splitlines()[1]
    assert [c.strip() for c in header.strip("┃").split("┃")][:11] == [
        "id", "season", "game", "status", "done", "failed", "not played", "cancelled", "pending", "running", "total"]
    assert "http://127.0.0.1:8000/seasons/half" in table.stdout
    # the pages link to the dashboard's address the setting names (`cardarena server` listens on its port)
    env = {**os.environ, "COLUMNS": "250", "CARDARENA_DASHBOARD_URL": "http://127.0.0.1:8123"}
    table = subprocess.run([*CLI, "season", "list", "--db", url], capture_output=True, text=True, timeout=300,
                           cwd=ROOT, env=env)
    assert table.returncode == 0 and "http://127.0.0.1:8123/seasons/half" in table.stdout, table.stdout


def test_a_misspelt_season_is_one_line_with_did_you_mean(half_played) -> None:
    url, *_ = half_played
    for command in (["season", "run", "hallf"], ["season", "cancel", "hallf"], ["standings", "--season", "hallf"]):
        out = cli(*command, "--db", url)
        assert out.returncode == 1
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "no season named 'hallf'" in lines[0] and "did you mean 'half'?" in lines[0], out.stderr


def test_a_misspelt_bot_or_game_in_season_create_is_one_line_with_did_you_mean(half_played) -> None:
    url, *_ = half_played
    out = cli("season", "create", "new", "--game", GAME, "--bots", "alpha,bravoo,charlie", "--db", url)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "no bot named 'bravoo'" in lines[0] and "did you mean 'bravo'?" in lines[0], out.stderr
    misspelt = GAME[:3] + GAME[4:]  # a letter left out
    out = cli("season", "create", "new", "--game", misspelt, "--bots", "alpha,bravo,charlie", "--db", url)
    assert out.returncode == 2 and f"did you mean '{GAME}'?" in out.stderr
