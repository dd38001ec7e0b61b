"""The example bots of examples/: the Node.js bot (installed with `npm ci`, run with node, the
protos loaded at run time), the Go bot (its protocol code generated with protoc, built with Debian's
Go packages) and the Python SDK bot each declare (``Describe``) at least one game, only registered
games, and pass the entry checks of every game they declare, called on their ActStream; the Node and
Go bots play a short season of each game they declare against the reference bots without a fault.

A registered game an example does not declare is skipped, saying so: teaching the examples a new game
is optional (docs/adding-a-game.md). The Node tests are skipped, saying so, only when ``node`` or
``npm`` is not installed (`apt-get install nodejs npm`); the Go tests only when Go, protoc, its Go
plugins or Debian's Go packages of gRPC are not installed (the skip names the packages).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.demo import register_or_update
from cli.main import main
from league.competition.seasons import create_season
from league.entry.checks import TRANSPORTS as ENTRY_TRANSPORTS
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.clients import GrpcBotClient
from referee.games import game_for_enum, games, spec
from referee.games.conformance import conformance
from store import open_store
from workers.local import run_local

ROOT = Path(__file__).resolve().parents[1]
NODE_EXAMPLE = ROOT / "examples" / "node"
GO_EXAMPLE = ROOT / "examples" / "go"
#: Debian's packages the Go example is built with here: Go, protoc and its Go plugins, and the Go sources of
#: gRPC and protobuf, built in GOPATH mode (no Go module proxy needed; examples/go/README.md)
GO_PACKAGES = ("golang protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev "
               "golang-github-golang-protobuf-1-5-dev")
GOCODE = Path("/usr/share/gocode")
PYTHON_EXAMPLE = ROOT / "examples" / "python" / "bot.py"
#: Seconds an example bot has to stop once told (SIGTERM): its second of grace and its exit.
STOP_S = 5.0
GAMES = games()


def declared(endpoint: str) -> list[int]:
    """The ``cardarena.v1.Game`` numbers the bot at ``endpoint`` declares in ``Describe``."""
    return list(GrpcBotClient(endpoint).describe().games)


def played_or_skipped(endpoint: str, example: str, game: str) -> None:
    """Skip the test, saying so, when the example at ``endpoint`` does not declare ``game``."""
    if spec(game).proto_enum not in declared(endpoint):
        pytest.skip(f"{example} does not declare {game} (teaching the examples a game is optional)")


@pytest.fixture(scope="module")
def node_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Node example installed by `npm ci` in a copy of examples/node and serving on a free port."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip(f"{'node' if node is None else 'npm'} is not installed (apt-get install nodejs npm)")
    work = tmp_path_factory.mktemp("node-example")
    for name in ("package.json", "package-lock.json", "bot.js"):
        shutil.copy(NODE_EXAMPLE / name, work / name)
    installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=work, capture_output=True, text=True,
                               timeout=600)
    assert installed.returncode == 0, f"npm ci failed:\n{installed.stdout}\n{installed.stderr}"
    yield from serve_example([node, "bot.js", "--port", "0", "--proto", str(ROOT / "proto")], work, work / "bot.log",
                             "Node bot")


def serve_example(command: list[str], cwd: Path, log_path: Path, name: str) -> Iterator[str]:
    """Run an example bot that prints ``listening on HOST:PORT`` first; yields ``HOST:PORT``, stops it after."""
    log = log_path.open("w")
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # blocks until the server listens (or the process ends)
        assert line.startswith("listening on "), f"the {name} did not start: {line!r}, {log_path.read_text()}"
        yield line.split()[-1]
    finally:
        # told to stop while the referee's stream to it is open (a referee keeps it between games), it stops after
        # its second of grace: one that waited for the stream to end would never stop
        process.terminate()
        try:
            process.wait(STOP_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
            raise AssertionError(f"the {name} did not stop within {STOP_S} s of SIGTERM") from None
        finally:
            log.close()


def build_go_example(gopath: Path) -> Path:
    """The Go example copied under ``gopath``, its protocol code generated by its generate.sh and built with
    Debian's Go packages (GOPATH mode) into ``gobot`` beside its sources; the example's folder. Skips, naming the
    packages, where they are missing."""
    missing = [tool for tool in ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc") if shutil.which(tool) is None]
    missing += [] if (GOCODE / "src" / "google.golang.org" / "grpc").is_dir() else ["Go's gRPC sources"]
    if missing:
        pytest.skip(f"{', '.join(missing)}: not installed (apt-get install {GO_PACKAGES})")
    work = gopath / "src" / "cardarena.example" / "gobot"  # the example's import path (its go.mod's module)
    shutil.copytree(GO_EXAMPLE, work)
    generated = subprocess.run(["sh", "generate.sh", str(ROOT / "proto")], cwd=work, capture_output=True, text=True,
                               timeout=120)
    assert generated.returncode == 0, f"generate.sh failed:\n{generated.stdout}\n{generated.stderr}"
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": f"{gopath}{os.pathsep}{GOCODE}", "GOFLAGS": ""}
    built = subprocess.run(["go", "build", "-o", str(work / "gobot"), "."], cwd=work, env=env, capture_output=True,
                           text=True, timeout=900)
    assert built.returncode == 0, f"go build failed:\n{built.stdout}\n{built.stderr}"
    return work


@pytest.fixture(scope="module")
def go_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Go example, built (:func:`build_go_example`), serving on a free port."""
    gopath = tmp_path_factory.mktemp("go-example")
    work = build_go_example(gopath)
    yield from serve_example([str(work / "gobot"), "--port", "0"], work, gopath / "bot.log", "Go bot")


@pytest.fixture(scope="module")
def python_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Python example serving on a free port."""
    log_path = tmp_path_factory.mktemp("python-example") / "bot.log"
    log = log_path.open("w")
    process = subprocess.Popen([sys.executable, str(PYTHON_EXAMPLE), "--port", "0"], stdout=subprocess.PIPE, stderr=log,
                               text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert " listening on 127.0.0.1:" in line, f"the Python example did not start: {line!r}, {log_path.read_text()}"
        yield line.split()[-1]
    finally:
        process.terminate()
        process.wait(10)
        log.close()


@pytest.fixture(scope="module")
def reference_bots() -> Iterator[dict[str, BotProcess]]:
    """The validation opponents of every game, as gRPC servers in their own processes."""
    names = sorted({name for game in GAMES for name in spec(game).opponents})
    processes = {name: start_bot_process(name, seed=k) for k, name in enumerate(names)}
    yield processes
    for process in processes.values():
        process.stop()


@pytest.mark.parametrize("example", ["node_bot", "go_bot", "python_bot"])
def test_each_example_declares_registered_games(example: str, request: pytest.FixtureRequest) -> None:
    numbers = declared(request.getfixturevalue(example))
    assert numbers, f"{example}: the example declares no game"
    registered = {spec(game).proto_enum: game for game in GAMES}
    assert [n for n in numbers if n not in registered] == [], f"{example}: declares games that are not registered"
    assert [game_for_enum(n) for n in numbers] == [registered[n] for n in numbers]


@pytest.mark.parametrize("game", GAMES)
def test_the_node_example_passes_the_entry_checks(node_bot: str, game: str, capsys: pytest.CaptureFixture[str]) -> None:
    played_or_skipped(node_bot, "examples/node/bot.js", game)
    assert main(["bot", "check", node_bot, "--game", game]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert f"ok    game:{game}" in out and out.rstrip().endswith("PASSED: the bot may enter seasons")
    assert f"transport: {ENTRY_TRANSPORTS['stream']}" in out  # called on its ActStream


@pytest.mark.parametrize("game", GAMES)
def test_the_go_example_passes_the_entry_checks(go_bot: str, game: str, capsys: pytest.CaptureFixture[str]) -> None:
    played_or_skipped(go_bot, "examples/go/main.go", game)
    assert main(["bot", "check", go_bot, "--game", game]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert f"ok    game:{game}" in out and out.rstrip().endswith("PASSED: the bot may enter seasons")
    assert f"transport: {ENTRY_TRANSPORTS['stream']}" in out  # called on its ActStream


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("example", ["node_bot", "go_bot"])
def test_the_example_plays_a_season_without_a_fault(example: str, reference_bots: dict[str, BotProcess], game: str,
                                                     tmp_path: Path, request: pytest.FixtureRequest) -> None:
    endpoint = request.getfixturevalue(example)
    played_or_skipped(endpoint, {"node_bot": "examples/node/bot.js", "go_bot": "examples/go/main.go"}[example], game)
    db_url = f"sqlite:///{tmp_path / 'season.db'}"
    store = open_store(db_url, policy=POLICY)
    names = [register_or_update(store, "example", endpoint, GrpcBotClient(endpoint).describe())]
    for ref in spec(game).opponents:  # the game's validation opponents
        endpoint = reference_bots[ref].endpoint
        names.append(register_or_update(store, ref, endpoint, GrpcBotClient(endpoint).describe()))
    season = create_season(store, f"example-{game}", spec(game), names, [3], 3, seed=11, params=conformance(game).season_params)  # one short game each
    ids = store.seasons.next_pending(season, 100)
    assert len(ids) == 3
    run_local(db_url, ids, processes=1)
    example_id = store.bots.get_bot_by_name("example").id  # type: ignore[union-attr]
    for game_id in ids:
        info = store.game_reads.get_game(game_id)
        assert info is not None and info.status == "done", f"game {game_id}: {info and info.status} {info and info.detail}"
        record = store.replays.get_replay(game_id)
        assert record is not None and record.faults == [], f"game {game_id}: faults {record and record.faults}"
        seat = next(s.seat for s in info.seats if s.bot_id == example_id)
        assert any(d.seat == seat and d.called for d in record.decisions), f"the {example} was never asked"


@pytest.mark.parametrize("game", GAMES)
def test_the_python_example_passes_the_entry_checks(python_bot: str, game: str, capsys: pytest.CaptureFixture[str]) -> None:
    played_or_skipped(python_bot, "examples/python/bot.py", game)
    assert main(["bot", "check", python_bot, "--game", game]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert f"ok    game:{game}" in out and out.rstrip().endswith("PASSED: the bot may enter seasons")
    assert f"transport: {ENTRY_TRANSPORTS['stream']}" in out  # the SDK serves ActStream
