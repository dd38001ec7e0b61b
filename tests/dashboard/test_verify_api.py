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
    assert lines[0] == (f"from {base}: the season, its key, every game's stored fields, every replay as stored and "
                        "the chain")
    seeds = next(line for line in lines if "game seeds derive from the key" in line)
    games = int(re.match(r"(\d+) of (\d+) game seeds", seeds).group(2))  # type: ignore[union-attr]
    assert games >= 6 and seeds.startswith(f"{games} of {games} game seeds")
    assert f"{games} replays re-run and every stored field matches; {games} of {games} statuses proven" in seeds
    assert "the SHA-256 matches" in result.stdout and "not checked" not in result.stdout
    assert re.search(r"chain head [0-9a-f]{64} after \d+ entries", result.stdout)
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
    assert with_db.returncode == 2 and "--api verifies from the public API alone, without --db" in with_db.stderr
    dead = cli("season", "verify", "later", "--api", "http://127.0.0.1:9")
    assert dead.returncode == 1 and dead.stderr.startswith("cardarena: error: cannot read http://127.0.0.1:9/api/v1/")


def _swap_two_names(db: sqlite3.Connection) -> tuple[str, str]:
    """Swap the names of the season's first two bots (the organiser moves a win); returns the two names."""
    (a, a_name), (b, b_name) = db.execute("SELECT id, name FROM bots ORDER BY id LIMIT 2").fetchall()
    db.execute("UPDATE bots SET name = 'swap' WHERE id = ?", (a,))
    db.execute("UPDATE bots SET name = ? WHERE id = ?", (a_name, b))
    db.execute("UPDATE bots SET name = ? WHERE id = ?", (b_name, a))
    return a_name, b_name


def test_two_bots_names_swapped_fail_from_the_api(played: tuple[Path, str], tmp_path: Path) -> None:
    path, name = played
    copy = tmp_path / "swapped.db"
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as db:
        a_name, b_name = _swap_two_names(db)
    with serve(f"sqlite:///{copy}") as base:
        result = cli("season", "verify", name, "--api", base)
    assert result.returncode == 1, result.stdout + result.stderr
    mismatch = [line for line in result.stdout.splitlines() if line.startswith("MISMATCH")]
    assert mismatch and all("bots is now" in m for m in mismatch), mismatch
    assert f'"{b_name}"' in mismatch[0] and f'"{a_name}"' in mismatch[0]


def test_a_chain_rewritten_to_match_swapped_names_fails_from_the_api_with_a_head_seen_before(
        played: tuple[Path, str], tmp_path: Path) -> None:
    from league.integrity.chain import GENESIS, link
    from store.chain import entry_text

    path, name = played
    copy = tmp_path / "rewritten.db"
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as db:
        (season_id, seen), = db.execute("SELECT id, chain_head FROM seasons WHERE name = ?", (name,)).fetchall()
        a_name, b_name = _swap_two_names(db)
        rows = db.execute("SELECT seq, entry FROM chain_entries WHERE season_id = ? ORDER BY seq", (season_id,)).fetchall()
        previous = GENESIS
        for seq, entry in rows:  # the organiser rebuilds the whole chain with the names swapped
            data = json.loads(entry)
            if data["kind"] == "game":
                data["bots"] = [[{a_name: b_name, b_name: a_name}.get(n, n), v] for n, v in data["bots"]]
            text = entry_text(data)
            previous = link(previous, text)
            db.execute("UPDATE chain_entries SET entry = ?, hash = ? WHERE season_id = ? AND seq = ?",
                       (text, previous, season_id, seq))
        db.execute("UPDATE seasons SET chain_head = ? WHERE id = ?", (previous, season_id))
    with serve(f"sqlite:///{copy}") as base:
        alone = cli("season", "verify", name, "--api", base)
        with_head = cli("season", "verify", name, "--api", base, "--head", seen)
    assert alone.returncode == 0, alone.stdout  # consistent with itself: only a head seen before can tell
    assert with_head.returncode == 1, with_head.stdout + with_head.stderr
    assert f"MISMATCH chain: the head {seen} seen before is not in the season's chain" in with_head.stdout


def test_the_chain_served_shows_no_endpoint(played: tuple[Path, str]) -> None:
    """Endpoints are not public: the chain's entries served for verifying hold their SHA-256 only."""
    path, name = played
    with sqlite3.connect(path) as db:
        endpoints = [e for (e,) in db.execute("SELECT endpoint FROM bots")]
    with serve(f"sqlite:///{path}") as base:
        (season_id,) = [s["id"] for s in json.load(urlopen(f"{base}/api/v1/seasons")) if s["name"] == name]
        text = urlopen(f"{base}/api/v1/seasons/{season_id}/verification").read().decode()
    served = [json.loads(e["entry"])["served"] for e in json.loads(text)["chain"] if e["kind"] == "game"]
    assert endpoints and served and all(len(digest) == 64 for seats in served for digest, _ in seats)
    assert not any(e in text for e in endpoints)
