"""`cardarena ladder` end to end on the local pool, with real gRPC bots: create (and its one-line errors),
run bounded by --games, resume after SIGTERM, standings (table and JSON), list, verify (rules §5)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli.main import main
from league.integrity.eprocess import ladder_alpha
from league.policy import POLICY
from referee.bots import load_bot
from store import open_store
from tests.a_game import GAME, SHORT, SPEC, STRONG, param_arg

REPO = Path(__file__).parents[2]


@pytest.fixture
def lite(tmp_path: Path, bot_server) -> str:
    """A SQLite store with three bots of :data:`~tests.a_game.GAME` (its strong reference bot, ``random``, the
    strong one again) served on 127.0.0.1 (real gRPC servers)."""
    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    store = open_store(url, policy=POLICY)
    for i, name in enumerate((STRONG, "random", STRONG)):
        store.bots.register_bot(f"{name}-{i}", bot_server(load_bot(name, i)), "1", "tests", [GAME], capacity=4)
    store.close()
    return url


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_ladder_create_refuses_bad_input_in_one_line(lite: str, capsys: pytest.CaptureFixture[str]) -> None:
    too_many = str(SPEC.max_seats + 1)
    for args, words in [(["--game", "chess"], "unknown game"), (["--game", GAME, "--tables", too_many], "seats"),
                        (["--game", GAME, "--tables", "x"], "whole numbers"),
                        (["--game", GAME, "--suspend-after", "0"], "--suspend-after")]:
        code, out, err = cli(capsys, "ladder", "create", "lad", *args, "--db", lite)
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, (args, err)
    assert cli(capsys, "ladder", "create", "lad", "--game", GAME, "--tables", "3", "--db", lite)[0] == 0
    code, _, err = cli(capsys, "ladder", "create", "lad", "--game", GAME, "--db", lite)
    assert code == 2 and "exists already" in err
    code, _, err = cli(capsys, "ladder", "standings", "nope", "--db", lite)
    assert code == 1 and "no ladder named 'nope'" in err


def test_run_standings_list_verify_and_resume_after_sigterm(lite: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "ladder", "create", "lad", "--game", GAME, "--tables", "3", *param_arg(SHORT),
                       "--epoch-games", "6", "--pending", "3", "--db", lite)
    assert code == 0 and "3 entrant(s)" in out and "commitment" in out
    code, out, _ = cli(capsys, "ladder", "run", "lad", "--workers", "1", "--games", "8", "--db", lite)
    assert code == 0 and "final in this run" in out and "placing: " in out
    store = open_store(lite, policy=POLICY)
    lid = store.ladders.get_ladder_by_name("lad").id
    first = store.ladders.ladder_progress(lid)
    assert first["done"] >= 8 and first["pending"] == first["running"] == 0

    # a long run stopped by SIGTERM: clean, its games released, and a new run goes on
    command = [sys.executable, "-m", "cli.main", "ladder", "run", "lad", "--workers", "1", "--db", lite]
    run = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while store.ladders.ladder_progress(lid)["done"] < first["done"] + 3:
            assert time.monotonic() < deadline and run.poll() is None, run.stderr.read() if run.poll() is not None else ""
            time.sleep(0.1)
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 130 and err.strip() == "", (out, err)  # the clean stop line, no "aborted" after it
    assert "again to resume the ladder" in out and "cardarena ladder run lad" in out
    # an open-ended run counts the games played and those in flight, never a fraction that looks finished
    progress = [line for line in out.splitlines() if line.startswith("ladder lad: ")]
    assert progress and all(re.fullmatch(r"ladder lad: \d+ games played, \d+ in flight \(\d+ s\)", line)
                            for line in progress), out
    assert store.ladders.ladder_progress(lid)["running"] == 0  # released on the way out
    before = store.ladders.ladder_progress(lid)["done"]
    code, out, _ = cli(capsys, "ladder", "run", "lad", "--workers", "1", "--games", "3", "--db", lite)
    assert code == 0 and store.ladders.ladder_progress(lid)["done"] >= before + 3

    code, out, _ = cli(capsys, "ladder", "standings", "lad", "--json", "--db", lite)
    data = json.loads(out)
    assert data["ladder"] == "lad" and len(data["standings"]) == 3
    assert all(row["rating"] is not None and row["low"] < row["rating"] < row["high"] for row in data["standings"])
    assert sum(row["games"] for row in data["standings"]) == 3 * data["progress"]["done"]
    assert any(row["history"] for row in data["standings"])
    if SPEC.luck_terms is not None:  # the luck audit over the ladder's life (league.integrity.eprocess): honest bots
        bars = sorted(row["luck_bar"] for row in data["standings"])
        assert bars == sorted(round(1 / ladder_alpha(k), 1) for k in (1, 2, 3))  # alpha_k by entry order
        assert all(row["audit"] == [] and 0 < row["luck_wealth"] < row["luck_bar"] for row in data["standings"])
        code, out, _ = cli(capsys, "ladder", "standings", "lad", "--db", lite)
        assert "Luck audit: no version's luck test martingale reached its bar" in out, out
        from fastapi.testclient import TestClient

        from config import Settings
        from dashboard.main import create_app
        with TestClient(create_app(Settings(db_url=lite))) as client:  # the ladder page shows each version's wealth
            page = client.get("/ladders/lad").text
            assert 'id="luck-wealth"' in page and 'id="luck-audit"' not in page
            assert all(f"{row['name']}@{row['version']} " in page for row in data["standings"])
    code, out, _ = cli(capsys, "ladder", "list", "--db", lite)
    assert code == 0 and "lad" in out and GAME in out
    code, out, _ = cli(capsys, "ladder", "verify", "lad", "--db", lite)
    assert code == 0 and ": verified" in out and "0 failed" in out, out
    store.close()


def test_ctrl_c_stops_a_ladder_run_with_no_traceback_from_its_processes(lite: str,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # Ctrl-C reaches the whole process group: the pool's processes and the one that fits the ladder ignore it, the
    # runner stops them and says how to resume
    assert cli(capsys, "ladder", "create", "lad", "--game", GAME, "--tables", "3", *param_arg(SHORT),
               "--pending", "3", "--db", lite)[0] == 0
    store = open_store(lite, policy=POLICY)
    lid = store.ladders.get_ladder_by_name("lad").id
    command = [sys.executable, "-m", "cli.main", "ladder", "run", "lad", "--workers", "1", "--db", lite]
    run = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while store.ladders.ladder_progress(lid)["done"] < 3:
            assert time.monotonic() < deadline and run.poll() is None, run.stderr.read() if run.poll() is not None else ""
            time.sleep(0.1)
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130 and err.strip() == "", (out, err)
    assert "again to resume the ladder" in out


def test_a_bot_marked_down_after_the_last_probe_is_said_at_the_end_of_the_run(tmp_path: Path) -> None:
    """``ladder run``'s last look: a bot the ladder marked down after the run's last probe (its games ran out
    first) is still reported down in the run's output, once."""
    from cli.ladder import Feed
    from league.competition.ladder import create_ladder
    from tests.workers.conftest import free_port  # nothing listens on it

    store = open_store(f"sqlite:///{tmp_path / 'feed.db'}", policy=POLICY)
    ids = [store.bots.register_bot(f"b{i}", f"127.0.0.1:{free_port()}", "1", "tests", [GAME], capacity=2)
           for i in range(3)]
    lid = create_ladder(store, "lad", SPEC, [3])
    lines: list[str] = []
    feed = Feed(store, lid, games=None, say=lines.append)
    assert feed.paused() == set() and lines == []  # the probe: nothing marked yet
    store.marks.mark_down(store.ladders.current_epoch(lid).id, {ids[1]: "refused"})
    feed.summary()  # the next probe would come two seconds later: the run ends first
    assert [line for line in lines if "is down" in line] == [lines[0]] and lines[0].startswith("b1 is down"), lines
    store.close()
