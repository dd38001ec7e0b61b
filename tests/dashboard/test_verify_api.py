"""``cardarena season verify NAME --api URL``: anyone checks a finished season from the public JSON API alone.

A season is played by ``cardarena demo`` (reference bots over gRPC, local workers, SQLite); the
dashboard serves it with uvicorn on a free port; the command, in its own process and with no
database, reads only the API and must verify it, and must not verify a copy whose stored result
was changed afterwards (league.integrity.verify; rules §4.3).
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.request import urlopen

import pytest

from tests.a_game import GAME, SPEC
from tests.dashboard.test_browser import serve

ROOT = Path(__file__).parents[2]
CLI = [sys.executable, "-m", "cli.main"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A finished demo season's SQLite file and the season's name."""
    path = tmp_path_factory.mktemp("verify-api") / "season.db"
    result = cli("demo", "--games", "6", "--workers", "1", "--db", f"sqlite:///{path}")
    assert result.returncode == 0, result.stderr
    name = re.search(r"cardarena standings --season (\S+)", result.stdout)
    assert name is not None, result.stdout
    return path, name.group(1)


def test_a_finished_season_verifies_from_the_api_alone(played: tuple[Path, str]) -> None:
    path, name = played
    with serve(f"sqlite:///{path}") as base:
        result = cli("season", "verify", name, "--api", base)
        (season_id,) = [s["id"] for s in json.load(urlopen(f"{base}/api/v1/seasons")) if s["name"] == name]
        fairness = urlopen(f"{base}/seasons/{season_id}/fairness").read().decode()
    assert f"cardarena season verify {name} --api" in fairness  # the fairness page says how
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"from {base}: the season, its key, every game's stored fields and every replay as stored"
    seeds = next(line for line in lines if "game seeds derive from the key" in line)
    games = int(re.match(r"(\d+) of (\d+) game seeds", seeds).group(2))  # type: ignore[union-attr]
    assert games >= 6 and seeds.startswith(f"{games} of {games} game seeds")
    assert f"{games} replays re-run and every stored field matches; {games} of {games} statuses proven" in seeds
    assert "the SHA-256 matches" in result.stdout and "not checked from the API" in result.stdout
    assert lines[-1].startswith("verified:")


def test_a_result_changed_after_the_season_fails_from_the_api(played: tuple[Path, str], tmp_path: Path) -> None:
    path, name = played
    copy = tmp_path / "tampered.db"
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as db:
        game_id, seat, score = db.execute("SELECT game_id, seat, score FROM game_seats ORDER BY game_id, seat "
                                          "LIMIT 1").fetchone()
        db.execute("UPDATE game_seats SET score = ? WHERE game_id = ? AND seat = ?", (score + 50, game_id, seat))
    with serve(f"sqlite:///{copy}") as base:
        result = cli("season", "verify", name, "--api", base)
    assert result.returncode == 1, result.stdout + result.stderr
    mismatch = [line for line in result.stdout.splitlines() if line.startswith("MISMATCH")]
    assert mismatch and f"(id {game_id})" in mismatch[0] and f"seat {seat}'s stored result" in mismatch[0], mismatch
    assert result.stdout.splitlines()[-1].startswith("NOT verified")


def test_a_season_not_over_or_unknown_is_one_line(played: tuple[Path, str], tmp_path: Path) -> None:
    path, _ = played
    copy = tmp_path / "more.db"
    shutil.copy(path, copy)
    url = f"sqlite:///{copy}"
    # the demo's game (its first, the default) and three of the bots the demo registered for it
    demo_bots = ",".join(f"{name}-{seed}" for name, seed in SPEC.demo.bots[:3])
    created = cli("season", "create", "later", "--game", GAME, "--bots", demo_bots,
                  "--tables", "3", "--games", "3", "--db", url)
    assert created.returncode == 0, created.stderr
    with serve(url) as base:
        pending = cli("season", "verify", "later", "--api", base)
        unknown = cli("season", "verify", "nope", "--api", base)
        with_db = cli("season", "verify", "later", "--api", base, "--db", url)
    assert pending.returncode == 1 and pending.stderr.count("\n") == 1, pending.stderr
    assert "is not over" in pending.stderr
    assert unknown.returncode == 1 and unknown.stderr.strip() == (
        f"cardarena: error: no season named 'nope' at {base} (see: {base}/api/v1/seasons)")
    assert with_db.returncode == 2 and "--api verifies from the public API alone" in with_db.stderr
    dead = cli("season", "verify", "later", "--api", "http://127.0.0.1:9")
    assert dead.returncode == 1 and dead.stderr.startswith("cardarena: error: cannot read http://127.0.0.1:9/api/v1/")
