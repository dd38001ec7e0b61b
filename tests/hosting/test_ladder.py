"""Hosted bots on a ladder that runs: a newcomer's Python bot (with a requirements file) submitted while
``ladder run`` plays goes on to play there; its next submission is a new entrant; a version A/B compare
between two submissions is fed the games that seat both (rules §5.2, §5.5).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.registry import Registry, RegistryConfig
from cli.main import main
from hosting.launch import HostingConfig
from referee.botprocess import BotProcess, start_bot_process
from store import Store
from tests.a_game import GAME, STRONG

ROOT = Path(__file__).resolve().parents[2]


def example(tmp_path: Path, name: str, extra: str = "", requirements: str = "") -> Path:
    d = tmp_path / name
    shutil.copytree(ROOT / "examples" / "python", d)
    with (d / "bot.py").open("a") as handle:
        handle.write(extra)
    if requirements:
        (d / "requirements.txt").write_text(requirements)
        (d / "cardarena.toml").write_text('[bot]\nserve = "bot:ExampleBot"\nrequirements = "requirements.txt"\n')
    return d


@pytest.fixture
def remotes() -> Iterator[list[BotProcess]]:
    processes = [start_bot_process(STRONG, seed=k) for k in range(3)]
    yield processes
    for process in processes:
        process.stop()




def ladder_games(store: Store, name: str) -> list:
    seasons = [s for s in store.seasons.list_seasons() if s.name.startswith(f"{name}:epoch-")]
    return [g for s in seasons for g in store.game_reads.list_games(s.id, limit=10**5)]


def wait_for(condition, what: str, timeout_s: float, runner: subprocess.Popen[str]) -> float:
    start = time.monotonic()
    while not condition():
        assert runner.poll() is None, f"the ladder runner stopped: {runner.stderr.read() if runner.stderr else ''}"
        assert time.monotonic() - start < timeout_s, f"{what}: not within {timeout_s:g} s"
        time.sleep(0.2)
    return time.monotonic() - start


@pytest.mark.package_index
def test_a_newcomer_submitted_while_the_ladder_runs_plays_there_and_each_submission_is_an_entrant(
        tmp_path: Path, store: Store, config: HostingConfig, remotes: list[BotProcess]) -> None:
    url = str(store.engine.url)
    for k, process in enumerate(remotes):
        store.bots.register_bot(f"remote-{k}", process.endpoint, "1", "tests", [GAME], capacity=8)
    assert main(["ladder", "create", "lad", "--game", GAME, "--tables", "3", "--pending", "4", "--db", url]) == 0
    runner = subprocess.Popen([sys.executable, "-m", "cli.main", "ladder", "run", "lad", "--workers", "2", "--db", url],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        wait_for(lambda: sum(g.status == "done" for g in ladder_games(store, "lad")) >= 2, "remote games", 120, runner)
        registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
        first = registry.submit("newcomer", [GAME], example(tmp_path, "v1", "import six\n", "six==1.17.0\n"))

        def seated(version: str) -> bool:
            return any(g.status == "done" and any(s.bot_id == first.bot.id and s.version == version for s in g.seats)
                       for g in ladder_games(store, "lad"))

        wait_for(lambda: seated(first.sha256), "the newcomer's first game", 120, runner)
        second = registry.submit("newcomer", [], example(tmp_path, "v2", "import six\n# v2\n", "six==1.17.0\n"),
                                 token=first.token)
        assert second.sha256 != first.sha256
        wait_for(lambda: seated(second.sha256), "the new version's first game", 120, runner)
        lad = store.ladders.get_ladder_by_name("lad")

        def versions() -> list[str]:
            return [e.version for e in store.ladders.entrants(lad.id) if e.bot_id == first.bot.id]

        # a game may be played by the new version before the runner's next refill enters it (rules §5.2)
        wait_for(lambda: len(versions()) == 2, "the new version's entrant", 60, runner)
        assert versions() == [first.sha256, second.sha256]
    finally:
        runner.send_signal(signal.SIGTERM)
        try:
            runner.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            runner.kill()


def test_a_compare_between_two_submissions(tmp_path: Path, store: Store, config: HostingConfig,
                                           remotes: list[BotProcess], capsys: pytest.CaptureFixture[str]) -> None:
    url = str(store.engine.url)
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    base = registry.submit("mine", [GAME], example(tmp_path, "base"))
    candidate = registry.submit("mine-next", [GAME], example(tmp_path, "next", "# tuned\n"))
    store.bots.register_bot("remote-0", remotes[0].endpoint, "1", "tests", [GAME], capacity=8)  # a table of 3
    assert main(["ladder", "create", "ab", "--game", GAME, "--tables", "3", "--db", url]) == 0
    assert main(["ladder", "run", "ab", "--workers", "1", "--games", "3", "--db", url]) == 0  # entrants join
    assert main(["ladder", "compare", "ab", f"mine@{base.sha256}", f"mine-next@{candidate.sha256}",
                 "--db", url]) == 0
    assert main(["ladder", "run", "ab", "--workers", "2", "--games", "12", "--db", url]) == 0
    capsys.readouterr()
    assert main(["ladder", "compares", "ab", "--json", "--db", url]) == 0
    compares = json.loads(capsys.readouterr().out)["compares"]
    assert len(compares) == 1 and compares[0]["games"] > 0, compares
