"""``cardarena match``: games between bots on demand, without registration (real gRPC bots:
one served here on an ephemeral port, reference bots started by the command), on a throwaway store."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.request import urlopen

from google.protobuf.message import Message

from botsdk.bot import Context
from tests.a_game import GAME, SPEC, STRONG, GameBot

ROOT = Path(__file__).parents[1]
CLI = [sys.executable, "-m", "cli.main"]


class Cautious(GameBot):
    """Plays GAME at random (seeded by the decision); its first answer in each game is an error of its own
    (an ERROR fault, rules §4.7). Per game, not per process: which game a pool claims first is a race, and
    the same seed with the same answers must give the same games."""

    name, version = "cautious", "1.2"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.games_seen: set[str] = set()

    def answer(self, view: Message, ctx: Context) -> Message:
        if ctx.game_id not in self.games_seen:
            self.games_seen.add(ctx.game_id)
            raise RuntimeError("first call fails")
        return super().answer(view, ctx)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_a_match_between_an_endpoint_and_reference_bots(bot_server: Any) -> None:
    endpoint = bot_server(Cautious(), threads=4)
    result = run("match", endpoint, "random", STRONG, "--game", GAME, "--games", "3", "--seed", "5",
                 "--workers", "1")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert re.search(rf"match of {GAME}: 3 games between cautious \({endpoint}\), random \(127\.0\.0\.1:\d+\), "
                     rf"{STRONG} \(127\.0\.0\.1:\d+\)", out), out
    games = [line for line in out.splitlines() if line.startswith("game ")]
    assert len(games) == 3, out
    for line in games:  # every seat's place and score in every game
        assert sorted(re.findall(r"(\w+) (\d)(?:st|nd|rd|th) \(", line)) == sorted(
            [(n, p) for n, p in re.findall(r"(\w+) (\d)(?:st|nd|rd|th) \(", line)]) and len(
            re.findall(rf"(?:st|nd|rd|th) \(\d+ {SPEC.score_unit}, [+-]\d+\)", line)) == 3, line
    # the referee's faults, as in a season: the endpoint's own error, once in each game
    assert all("[1 fault]" in line for line in games), out
    rows = {m.group(1): m.group(2) for m in re.finditer(r"│ (\w+)\s+│ (\S+)\s+│\s+3 │", out)}
    assert rows == {"cautious": endpoint, "random": "random", STRONG: STRONG}, out
    # the same seed, the same bots (a fresh one, whose first answer in each game fails again): the same games
    again = run("match", bot_server(Cautious(), threads=4), "random", STRONG, "--game", GAME, "--games", "3",
                "--seed", "5", "--workers", "1")
    assert again.returncode == 0, again.stderr

    def results(lines: list[str]) -> list[str]:
        return [line.split(": ", 1)[1] for line in lines if line.startswith("game ")]

    assert results(again.stdout.splitlines()) == results(games)


def test_bad_targets_are_one_line() -> None:
    too_few = ["random"] * (SPEC.min_seats - 2) + [STRONG]
    for args, message in [(["nobody", "random", STRONG], "target 'nobody' is neither host:port nor a reference bot"),
                          (too_few, f"{GAME} is played by {SPEC.min_seats} to {SPEC.max_seats} seats"),
                          (["127.0.0.1:9", "random", STRONG], "target 127.0.0.1:9 (127.0.0.1:9) does not answer Describe")]:
        result = run("match", *args, "--game", GAME)
        assert result.returncode in (1, 2) and result.stderr.count("\n") == 1, result.stderr
        assert message in result.stderr, result.stderr


def test_bot_ports_taken_or_past_the_last_port_are_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("match", "random", "random", STRONG, "--game", GAME, "--bot-ports", str(port))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"cannot start a bot on 127.0.0.1:{port}" in result.stderr and "--bot-ports" in result.stderr
    result = run("match", "random", "random", STRONG, "--game", GAME, "--bot-ports", "65534")
    assert result.returncode == 2 and "past 65535" in result.stderr, result.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_ports_in_a_row(n: int) -> int:
    """The first of ``n`` consecutive free ports of 127.0.0.1, below the kernel's ephemeral range."""
    from botsdk.server import port_busy
    from tests.workers.conftest import free_port_outside_the_ephemeral_range

    for _ in range(100):
        first = free_port_outside_the_ephemeral_range()
        if not any(port_busy("127.0.0.1", first + i) for i in range(n)):
            return first
    raise RuntimeError(f"no {n} free ports in a row")


def test_match_serve_opens_the_dashboard_on_its_replays() -> None:
    """On the dashboard port the setting names (CARDARENA_DASHBOARD_URL, no --port), with the reference bots on
    the ports chosen (--bot-ports)."""
    port, grpc_port, bots = _free_port(), _free_port(), free_ports_in_a_row(3)
    env = {**os.environ, "CARDARENA_DASHBOARD_URL": f"http://127.0.0.1:{port}"}
    process = subprocess.Popen([*CLI, "match", "random", "random", STRONG, "--game", GAME, "--seed", "1",
                                "--workers", "1", "--serve", "--grpc-port", str(grpc_port), "--bot-ports", str(bots)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        deadline, line, said = time.monotonic() + 240, "", []
        while not line.startswith("replays: ") and time.monotonic() < deadline:
            line = process.stdout.readline()
            said.append(line)
            assert line or process.poll() is None, process.stderr.read() if process.stderr else ""
        assert (f"random (127.0.0.1:{bots}), random-2 (127.0.0.1:{bots + 1}), {STRONG} (127.0.0.1:{bots + 2})"
                in "".join(said)), said
        url = line.split()[1]
        assert url == f"http://127.0.0.1:{port}/games?season_id=1"
        for _ in range(100):
            try:
                page = json.load(urlopen(f"http://127.0.0.1:{port}/api/v1/games?season_id=1"))
                break
            except OSError:
                time.sleep(0.1)
        assert page["total"] == 3 and {g["status"] for g in page["items"]} == {"done"}
        names = {s["bot_name"] for g in page["items"] for s in g["seats"]}
        assert names == {"random", "random-2", STRONG}
        replay = json.load(urlopen(f"http://127.0.0.1:{port}/api/v1/replays/{page['items'][0]['id']}"))
        assert replay["record"]["decisions"]
        assert urlopen(url).status == 200
    finally:
        process.terminate()
        process.wait(30)
