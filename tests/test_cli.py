"""The ``cardarena`` command as a user runs it: help, one-line errors, the demo season end to end."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from league.policy import POLICY
from referee.games import names_text
from referee.record import GameRecord
from referee.replay import verify
from store import open_store
from tests.a_game import GAME, SPEC

CLI = [sys.executable, "-m", "cli.main"]


def run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, cwd=Path(__file__).parents[1])


@pytest.mark.parametrize(
    "command",
    [[], ["demo"], ["standings"], ["bot"], ["bot", "serve"], ["season"], ["season", "create"], ["season", "run"], ["season", "list"],
     ["season", "verify"], ["season", "cancel"], ["season", "delete"], ["bot", "list"], ["wait"], ["match"]],
)
def test_every_command_explains_itself(command: list[str]) -> None:
    result = run(*command, "--help")
    assert result.returncode == 0, result.stderr
    assert "Usage:" in result.stdout and len(result.stdout.split()) > 12


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bogus"], "No such command 'bogus'"),
        (["season", "create", "s1", "--bots", "a"], "Missing option '--game'"),
        (["demo", "--game", "chess"], f"unknown game 'chess'; choose from {names_text()}, all"),
        (["demo", "--games", "zero"], "Invalid value for '--games'"),
        (["bot", "serve", "nosuchbot"], "unknown bot 'nosuchbot'"),
    ],
)
def test_bad_arguments_get_one_clear_line_and_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    result = run(*args, "--db", f"sqlite:///{tmp_path / 'x.db'}") if args[0] in ("demo",) else run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: error:") and message in lines[0], result.stderr


def test_an_unreachable_database_is_one_line_and_writes_nothing(dead_endpoint: str, tmp_path: Path) -> None:
    host, port = dead_endpoint.split(":")
    result = run("standings", "--season", "x", "--db", f"postgresql+psycopg://nobody@{host}:{port}/nowhere")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot open database" in lines[0] and "Traceback" not in result.stderr


def test_an_unknown_season_is_one_line(tmp_path: Path) -> None:
    open_store(f"sqlite:///{tmp_path / 's.db'}", policy=POLICY).close()
    result = run("standings", "--season", "nope", "--db", f"sqlite:///{tmp_path / 's.db'}")
    assert result.returncode == 1 and result.stderr.strip().startswith("cardarena: error: no season named 'nope' in sqlite:///")


@pytest.mark.parametrize("command", [["standings", "--season", "x"], ["season", "list"], ["season", "run", "x"],
                                     ["season", "create", "x", "--game", GAME, "--bots", "a,b,c"]])
def test_reading_a_store_that_does_not_exist_names_it_and_creates_nothing(command: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "arena.db"
    result = run(*command, "--db", f"sqlite:///{missing}")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cardarena: error: no store at {missing}"), result.stderr
    assert not missing.exists() and not missing.parent.exists()


def test_the_demo_runs_a_season_end_to_end(tmp_path: Path) -> None:
    """The main job, small: real bot processes over gRPC, local worker processes, SQLite, standings. The
    default game's demo lineup (``GameSpec.demo``), one table of each of its sizes in all its rotations."""
    bots = [f"{name}-{seed}" for name, seed in SPEC.demo.bots]
    n = sum(SPEC.demo.tables)  # games: one table of each size, in each of its rotations
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    from tests.test_match import free_ports_in_a_row

    first = free_ports_in_a_row(len(bots))  # the bots' ports chosen (--bot-ports), not the kernel's
    result = run("demo", "--games", str(n), "--workers", "2", "--db", db, "--bot-ports", str(first))
    assert result.returncode == 0, result.stderr
    assert "Elo" in result.stdout and bots[0] in result.stdout
    assert re.search(rf"^demo-{GAME}-[\d-]+: {n} done, 0 failed, 0 not played, 0 cancelled, 0 pending, 0 running in ",
                     result.stdout, re.M), result.stdout
    # piped, it says what it is doing as it goes: the bots, then the games, before the standings
    lines = result.stdout.splitlines()
    assert lines[0] == f"starting {len(bots)} bot servers for {GAME} and running their entry checks..."
    assert [line.split()[0] for line in lines[1:len(bots) + 1]] == bots
    assert all("entry checks passed" in line for line in lines[1:len(bots) + 1])
    assert [line.split()[3] for line in lines[1:len(bots) + 1]] == [
        f"127.0.0.1:{first + i}:" for i in range(len(bots))], lines
    progress = [line for line in lines if re.fullmatch(rf"demo-{GAME}-[\d-]+: \d+/{n} games \(\d+ s\)", line)]
    assert progress[0].split()[1] == f"0/{n}" and progress[-1].split()[1] == f"{n}/{n}" and len(progress) >= 3
    store = open_store(db, policy=POLICY)
    (season,) = store.seasons.list_seasons()
    assert store.seasons.season_progress(season.id).get("done") == n
    # every game stored exactly once, every replay re-runs to the same result
    games = store.game_reads.list_games(season.id, limit=100)
    games = games.items if hasattr(games, "items") else games
    assert len(games) == n and len({g.id for g in games}) == n
    for game in games[:6]:
        record = store.replays.get_replay(game.id)
        assert isinstance(record, GameRecord) and record.faults == []
        verify(record)
    # the machine-readable standings agree with the table
    out = run("standings", "--season", season.name, "--json", "--db", db)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    rows = data["standings"]
    assert {r["name"] for r in rows} == set(bots)
    # one table of each size, every table in all its rotations: a table of k seats holds k seats k times, shared fairly
    counts = [r["games"] for r in rows]
    assert sum(counts) == sum(k * k for k in SPEC.demo.tables) and max(counts) - min(counts) <= 2, rows
    # ranked by the season's ML rating, and each row is more likely than not better than the next
    assert [r["rank"] for r in rows] == list(range(1, len(bots) + 1))
    assert [r["ml_rating"] for r in rows] == sorted((r["ml_rating"] for r in rows), reverse=True)
    assert all(r["p_better"] >= 0.5 for r in rows[:-1]) and rows[-1]["p_better"] is None
    again = run("season", "run", season.name, "--db", db)
    assert again.returncode == 0 and f"nothing to run: season {season.name} is finished ({n} done)" in again.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["season", "create", "[/]", "--game", GAME, "--bots", "a,b,c"], "bad season name '[/]'"),
        (["season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--games", "2000000"], "1 to 1,000,000 games"),
        (["season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--seed", "99999999999999999999999"], "Invalid value for '--seed'"),
        (["season", "list", "--db", "postgresql+psycopg://u@127.0.0.1:abc/db"], "bad database URL"),
        (["season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--max-games", "50"], "--max-games goes with --until-settled"),
        (["season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--until-settled"], "--until-settled needs --max-games"),
        (["season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--until-settled", "--max-games", "50",
          "--top", "1"], "--top must be a whole number of at least 2"),
        (["season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--until-settled", "--max-games", "50",
          "--confidence", "1.5"], "--confidence must be above 0.5 and below 1"),
        (["season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--until-settled", "--max-games", "50",
          "--batch", "0"], "--batch must be a whole number of at least 1"),
        (["season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--until-settled", "--max-games", "50",
          "--indifference", "0"], "--indifference must be above 0 and at most 1000 Elo points"),
    ],
)
def test_hostile_values_get_one_line_errors(args: list[str], message: str, tmp_path: Path) -> None:
    if "--db" not in args:
        open_store(f"sqlite:///{tmp_path / 'h.db'}", policy=POLICY).close()
        args = [*args, "--db", f"sqlite:///{tmp_path / 'h.db'}"]
    result = run(*args)
    assert result.returncode in (1, 2), result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr, result.stderr


def _whole_number_params() -> list[str]:
    """The parameters of GAME whose default is a whole number (not a boolean)."""
    return [f.name for f in dataclasses.fields(SPEC.params_type)
            if isinstance(f.default, int) and not isinstance(f.default, bool)]


@pytest.mark.parametrize("name", _whole_number_params())
def test_hostile_parameter_values_get_one_line_errors_naming_the_parameter(name: str, tmp_path: Path) -> None:
    """A whole-number parameter given a boolean is refused as "NAME must be ..."; given a value beyond
    uint32, the one line names the parameter and what it must be (the game's params dataclass checks)."""
    open_store(f"sqlite:///{tmp_path / 'h.db'}", policy=POLICY).close()
    for value in ("true", "4294967296"):
        result = run("season", "create", "s", "--game", GAME, "--bots", "a,b,c", "--param", f"{name}={value}",
                     "--db", f"sqlite:///{tmp_path / 'h.db'}")
        assert result.returncode in (1, 2), result
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and name in lines[0] and "must be" in lines[0] and "Traceback" not in result.stderr, \
            result.stderr
        if value == "true":
            assert f"{name} must be" in lines[0], lines


def test_ctrl_c_exits_130_and_says_so(tmp_path: Path) -> None:
    # a season far longer than the seconds before the signal, however short the registry's first game is
    import signal
    import time

    process = subprocess.Popen([*CLI, "demo", "--game", GAME, "--games", "5000", "--db", f"sqlite:///{tmp_path / 'c.db'}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parents[1])
    # its first line comes from the command itself, so its Ctrl-C handling is in place (a fixed wait alone could
    # land in the interpreter's start-up on a loaded machine); then the season runs a while
    assert process.stdout is not None and process.stdout.readline()
    time.sleep(5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "cardarena: aborted" in err


@pytest.fixture
def busy_port():
    """A port held by a listening socket for the test."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("which", ["--port", "--grpc-port"])
def test_a_busy_server_port_is_one_line_before_anything_starts(which: str, busy_port: int, tmp_path: Path) -> None:
    other = "--grpc-port" if which == "--port" else "--port"
    result = run("server", which, str(busy_port), other, str(_free_port()), "--db", f"sqlite:///{tmp_path / 's.db'}",
                 timeout=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"127.0.0.1:{busy_port}" in lines[0] and f"choose another {which}" in lines[0], result.stderr


def test_demo_serve_checks_its_ports_before_playing(busy_port: int, tmp_path: Path) -> None:
    result = run("demo", "--serve", "--port", str(busy_port), "--games", "3", "--db", f"sqlite:///{tmp_path / 'd.db'}",
                 timeout=60)
    assert result.returncode == 1 and "choose another --port" in result.stderr, result.stderr
    assert open_store(f"sqlite:///{tmp_path / 'd.db'}", policy=POLICY).seasons.list_seasons() == []  # nothing was played


def test_bot_serve_on_a_busy_port_is_one_line(busy_port: int) -> None:
    result = run("bot", "serve", "random", "--port", str(busy_port), timeout=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"cannot bind 127.0.0.1:{busy_port}" in lines[0], result.stderr


def test_a_sqlite_url_with_two_slashes_is_explained(tmp_path: Path) -> None:
    result = run("season", "list", "--db", "sqlite://var/my-league.db")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad SQLite URL 'sqlite://var/my-league.db'" in lines[0] and "three slashes" in lines[0]


@pytest.mark.parametrize("command", [["bot", "update", "x", "--version", "2"], ["bot", "retire", "x"]])
def test_a_missing_token_without_a_terminal_is_one_line(command: list[str]) -> None:
    result = subprocess.run([*CLI, *command], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                            cwd=Path(__file__).parents[1], env={k: v for k, v in __import__("os").environ.items()
                                                               if k != "CARDARENA_BOT_TOKEN"})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no token: pass --token or set CARDARENA_BOT_TOKEN" in lines[0], result.stderr


@pytest.mark.parametrize("command", [["season", "list"], ["standings", "--season", "x"], ["season", "run", "x"]])
def test_a_file_that_is_not_a_store_is_one_line_and_left_alone(command: list[str], tmp_path: Path) -> None:
    other = tmp_path / "notes.db"
    other.write_bytes(b"my own notes, not a database\n")
    result = run(*command, "--db", f"sqlite:///{other}")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"cardarena: error: sqlite:///{other} is not a cardarena store: file is not a database"]
    assert other.read_bytes() == b"my own notes, not a database\n"


def test_reading_commands_never_migrate_an_older_store(tmp_path: Path) -> None:
    from sqlalchemy import text

    from store.db import create_store_engine, migrate

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_store_engine(url)
    migrate(engine, "0003")
    for command in (["season", "list"], ["standings", "--season", "x"]):
        result = run(*command, "--db", url)
        assert result.returncode == 1
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "has an older schema (revision 0003" in lines[0] and "upgrade it" in lines[0], lines
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == "0003"
    engine.dispose()
    assert run("season", "run", "x", "--db", url).stderr.startswith("cardarena: error: no season named 'x'")  # migrates
    assert run("season", "list", "--db", url).returncode == 0


def test_wait_returns_once_a_bot_serves_and_names_what_never_did(dead_endpoint: str) -> None:
    """`cardarena wait` against a bot process started just before it (as a script does), then against nothing."""
    port = _free_port()
    bot = subprocess.Popen([*CLI, "bot", "serve", "random", "--port", str(port)], cwd=Path(__file__).parents[1],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        result = run("wait", f"127.0.0.1:{port}", "--timeout", "120")
        assert result.returncode == 0 and result.stdout.strip() == f"serving: 127.0.0.1:{port}", result.stderr
    finally:
        bot.terminate()
        bot.wait(30)
    result = run("wait", dead_endpoint, "--timeout", "1")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cardarena: error: not serving after 1 s: {dead_endpoint} ("), lines
