"""The CLI around seasons at scale: impossible season parameters, a season with no worker, a worker with no broker."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from league.policy import POLICY
from referee.bots import load_bot
from store import open_store
from tests.a_game import GAME, other_game
from tests.workers.conftest import REPO

#: Stands for a registered game the bots are not registered for (:func:`tests.a_game.other_game`).
OTHER = "<another game>"


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def db_with_bots(tmp_path: Path, bot_server) -> str:  # type: ignore[no-untyped-def]
    """A store with bots a, b, c registered for GAME, each a real gRPC server (they answer their health checks)."""
    url = f"sqlite:///{tmp_path / 'bad.db'}"
    store = open_store(url, policy=POLICY)
    for i, name in enumerate(("a", "b", "c")):
        store.bots.register_bot(name, bot_server(load_bot("random", i)), "1", "tests", [GAME])
    store.close()
    return url


@pytest.mark.parametrize(("args", "message"), [
    (["--game", GAME, "--bots", "a,b,c", "--tables", "4"], r"a table of 4 seats needs at least 4 bots, got 3$"),
    (["--game", "chess", "--bots", "a,b,c"], r"unknown game 'chess'"),
    (["--game", GAME, "--bots", "a,b,c", "--tables", "3", "--games", "0"], r"(at least 1 game, got|1 to [\d,]+ games, not) 0$"),
    (["--game", GAME, "--bots", "a,b,zed", "--tables", "3"], r"no bot named 'zed' is registered"),
    (["--game", GAME, "--bots", "a,yod,b,zed", "--tables", "3"], r"no bot named 'yod', 'zed' is registered in this store"),
    (["--game", GAME, "--bots", "a,b,a,c,b", "--tables", "3"], r"listed more than once: a, b "),
    (["--game", OTHER, "--bots", "a,b,c", "--tables", "3"], rf"not registered for {OTHER}: a, b, c \(a registration covers the games "
                                                            rf"it names; `cardarena bot update NAME --game {OTHER}` adds one\)$"),
    (["--game", GAME, "--bots", "a,b,c", "--tables", "3,x"], r"--tables must be whole numbers"),
])
def test_impossible_seasons_get_one_clear_line_and_nothing_is_stored(args: list[str], message: str,
                                                                     db_with_bots: str) -> None:
    if OTHER in args:  # a game the bots are not registered for
        other = other_game()
        args, message = [other if a == OTHER else a for a in args], message.replace(OTHER, re.escape(other))
    result = cli("season", "create", "bad", *args, "--db", db_with_bots)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: error:") and re.search(message, lines[0]), result.stderr
    assert open_store(db_with_bots, policy=POLICY).seasons.list_seasons() == []


def test_a_season_with_no_worker_says_which_games_are_stuck_and_why(db_with_bots: str, broker: str) -> None:
    created = cli("season", "create", "lonely", "--game", GAME, "--bots", "a,b,c", "--tables", "3", "--games", "3",
                  "--db", db_with_bots)
    assert created.returncode == 0, created.stderr
    result = cli("season", "run", "lonely", "--broker", broker, "--stall-timeout", "2", "--db", db_with_bots)
    assert result.returncode == 1
    err = result.stderr
    assert "season stuck: no progress for 2 s with 3 pending and 0 running game(s)" in err
    assert f"no worker answers on the broker {broker}" in err
    for number in range(3):  # each game named, with its table, and why it waits
        assert re.search(rf"^game {number} \(id {number + 1}, [abc], [abc], [abc]\): pending after 0 attempt\(s\)$",
                         err, re.MULTILINE), err
    assert err.strip().splitlines()[-1] == "cardarena: error: season 'lonely' is stuck (see above)"


def test_a_worker_needs_a_broker(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "cli.main", "worker", "--db", f"sqlite:///{tmp_path / 'w.db'}"],
                            cwd=REPO, capture_output=True, text=True, timeout=60,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.returncode == 2
    assert result.stderr.strip() == "cardarena: error: no broker: pass --broker redis://host:6379/0 or set CARDARENA_BROKER_URL"


def test_a_broker_that_does_not_answer_is_one_line_at_once(db_with_bots: str, dead_endpoint: str) -> None:
    created = cli("season", "create", "nobroker", "--game", GAME, "--bots", "a,b,c", "--tables", "3", "--games", "3",
                  "--db", db_with_bots)
    assert created.returncode == 0, created.stderr
    # the stall timeout (its message says "is stuck") would take 120 s; this is the check at the start
    result = cli("season", "run", "nobroker", "--broker", f"redis://{dead_endpoint}/0", "--db", db_with_bots)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cardarena: error: cannot reach the broker redis://{dead_endpoint}/0"), \
        result.stderr
    assert open_store(db_with_bots, policy=POLICY).seasons.season_progress(open_store(db_with_bots, policy=POLICY).seasons.get_season_by_name("nobroker").id)["pending"] == 3


def test_season_run_exits_1_naming_the_games_that_failed(db_with_bots: str) -> None:
    created = cli("season", "create", "unlucky", "--game", GAME, "--bots", "a,b,c", "--tables", "3", "--games", "3",
                  "--db", db_with_bots)
    assert created.returncode == 0, created.stderr
    store = open_store(db_with_bots, policy=POLICY)
    game = store.game_reads.list_games(store.seasons.get_season_by_name("unlucky").id)[1]  # type: ignore[union-attr]
    for _ in range(3):  # three attempts lost with their workers (rules §4.3)
        claim = store.games.claim_game(game.id, "lost:1", 5)
        assert claim is not None
        assert store.games.void_game(game.id, claim.attempt, "lease expired") in ("pending", "failed")
    result = cli("season", "run", "unlucky", "--workers", "1", "--db", db_with_bots)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "failed: game 1 (id 2): voided 3 times; last: lease expired" in result.stdout
    assert result.stderr.strip().splitlines()[-1] == "cardarena: error: season 'unlucky': 1 game(s) failed (not rated): 1"
    assert store.seasons.season_progress(store.seasons.get_season_by_name("unlucky").id)["done"] == 2  # type: ignore[union-attr]
