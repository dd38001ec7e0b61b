"""The example bots of every language in ``examples/``, submitted as their authors would: each passes the
entry checks of every game it declares, in its sandbox. The Node bot ships its ``node_modules`` (``npm ci``)
and runs on the worker's ``node``; it is also submitted listening on a TCP port of its own network namespace
(``{port}``), which the platform reaches through its forwarder, as the Go bot (a binary run as built) is. Skipped,
saying so, without node and npm, or without Go's Debian packages.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.registry import Registry, RegistryConfig
from hosting.launch import HostingConfig
from referee.games import game_for_enum
from store import Store
from tests.a_game import GAME
from tests.test_examples import build_go_example

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def node_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/node with its node_modules installed by `npm ci`."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip(f"{'node' if node is None else 'npm'} is not installed (apt-get install nodejs npm)")
    work = tmp_path_factory.mktemp("node-example") / "node"
    shutil.copytree(ROOT / "examples" / "node", work, ignore=shutil.ignore_patterns("node_modules"))
    installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=work, capture_output=True, text=True,
                               timeout=600)
    assert installed.returncode == 0, f"npm ci failed:\n{installed.stdout}\n{installed.stderr}"
    return work


def submit_all_games(store: Store, config: HostingConfig, name: str, path: Path) -> None:
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    done = registry.submit(name, [GAME], path)
    declared = [game_for_enum(g) for g in done.report.describe.games]  # type: ignore[union-attr]
    assert declared, f"{name} declares no game"
    more = [g for g in declared if g != GAME]
    if more:  # the same files again, for the rest of its games: the entry checks of those
        again = registry.submit(name, more, path, token=done.token)
        assert again.changed and again.report is not None and again.report.passed
    bot = store.bots.get_bot_by_name(name)
    assert bot is not None and sorted(bot.games) == sorted(declared) and bot.version == done.sha256


def test_the_python_example_is_submitted(store: Store, config: HostingConfig) -> None:
    submit_all_games(store, config, "python-example", ROOT / "examples" / "python")


def test_the_node_example_is_submitted_with_its_node_modules(store: Store, config: HostingConfig,
                                                            node_example: Path) -> None:
    submit_all_games(store, config, "node-example", node_example)


def test_a_bot_listening_on_a_port_of_its_own_is_reached_through_the_forwarder(
        store: Store, config: HostingConfig, node_example: Path, tmp_path: Path) -> None:
    on_port = tmp_path / "node-port"
    shutil.copytree(node_example, on_port, symlinks=True)
    (on_port / "cardarena.toml").write_text(
        '[bot]\ncommand = ["node", "bot.js", "--port", "{port}", "--proto", "/opt/cardarena/proto"]\n')
    done = Registry(store, RegistryConfig.from_settings(), hosting=config).submit("node-port", [GAME], on_port)
    assert done.report is not None and done.report.passed


def test_the_go_example_is_submitted_as_built(store: Store, config: HostingConfig,
                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    work = build_go_example(tmp_path_factory.mktemp("go-submitted"))
    submit_all_games(store, config, "go-example", work)
