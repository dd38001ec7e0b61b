"""Fixtures of the hosted-bot tests: a real sandbox (bubblewrap, cgroups), a real store, hostile bots.

Every test here runs submitted code for real in the sandbox the workers use. They are skipped, saying
why, only on a machine that cannot run sandboxes (no bubblewrap, no cgroups; ``.ci/run`` installs
bubblewrap). A hostile bot is a Python SDK bot whose ``describe()`` runs its attack when called and
returns what it found as JSON in Describe's ``author`` field, which the test reads over the bot's own
socket: the same channel a real bot has to whoever calls it.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from cardarena.v1 import bot_pb2, bot_pb2_grpc
from config import get_settings
from hosting.artifact import Limits, pack, stored_bytes
from hosting.cgroups import ResourceLimits
from hosting.launch import HostingConfig
from hosting.manifest import of
from hosting.sandbox import unavailable
from hosting.supervisor import Supervisor
from league.policy import POLICY
from store import Store, open_store
from store.artifacts import Blob, BuildInfo, Hosted, HostedBotFields, now
from tests.a_game import GAME

#: Every test's sandbox limits: small, so that the attacks meet them fast.
LIMITS = ResourceLimits(memory_bytes=256 << 20, cpus=1.0, pids=64)
TMP_BYTES = 16 << 20

#: The head of every hostile bot: an SDK bot whose describe() runs ``attack()`` and reports it.
HOSTILE = '''
import json, os, sys
from botsdk import Bot

{attack}

class Hostile(Bot):
    name = "hostile"
    version = "1"
    games = ({game!r},)
    capacity = 2

    def describe(self):
        answer = super().describe()
        answer.author = json.dumps(attack(), default=str)
        return answer
'''


@pytest.fixture(scope="session")
def hosting_root() -> Iterator[Path]:
    """The machine's hosting directory for the whole run: under /tmp, 0711 (the sandbox's user passes through)."""
    why = unavailable()
    if why is not None:
        pytest.skip(why)
    root = Path(tempfile.mkdtemp(prefix="cardarena-hosting-", dir="/tmp"))
    os.chmod(root, 0o711)
    yield root


@pytest.fixture
def config(hosting_root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HostingConfig]:
    """The tests' hosting config (also in the settings, for the code that reads them)."""
    monkeypatch.setenv("CARDARENA_HOSTING_DIR", str(hosting_root))
    monkeypatch.setenv("CARDARENA_HOSTED_MEMORY_MB", str(LIMITS.memory_bytes >> 20))
    monkeypatch.setenv("CARDARENA_HOSTED_PIDS", str(LIMITS.pids))
    monkeypatch.setenv("CARDARENA_HOSTED_TMP_MB", str(TMP_BYTES >> 20))
    monkeypatch.setenv("CARDARENA_HOSTED_MAX_MB", "8")
    monkeypatch.setenv("CARDARENA_HOSTED_MAX_UNPACKED_MB", "64")
    get_settings.cache_clear()
    yield HostingConfig(hosting_root, LIMITS, TMP_BYTES, Limits(8 << 20, 64 << 20), start_timeout_s=20.0,
                        idle_s=60.0, copies=2, output_bytes=64 << 10)
    get_settings.cache_clear()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh SQLite store."""
    s = open_store(f"sqlite:///{tmp_path / 'store.db'}", policy=POLICY)
    yield s
    s.close()


@pytest.fixture
def supervisor(store: Store, config: HostingConfig) -> Iterator[Supervisor]:
    """A supervisor over the store, as a worker process has; every copy stopped at teardown."""
    sup = Supervisor(store.artifacts, config)
    yield sup
    sup.close()


def bot_dir(tmp_path: Path, source: str, manifest: str = '[bot]\nserve = "bot:Hostile"\n',
            files: dict[str, str] | None = None) -> Path:
    """A submission directory: ``bot.py`` (``source``), ``cardarena.toml`` and ``files``; a random comment
    makes its hash its own."""
    d = Path(tempfile.mkdtemp(prefix="bot-", dir=tmp_path))
    (d / "bot.py").write_text(f"# {secrets.token_hex(8)}\n{source}")
    (d / "cardarena.toml").write_text(manifest)
    for name, text in (files or {}).items():
        (d / name).write_text(text)
    return d


def hostile_dir(tmp_path: Path, attack: str) -> Path:
    """A hostile bot whose ``describe()`` reports ``attack()`` (the source of a function named ``attack``)."""
    return bot_dir(tmp_path, HOSTILE.format(attack=textwrap.dedent(attack), game=GAME))


def store_bot(store: Store, path: Path, config: HostingConfig, name: str | None = None,
              games: tuple[str, ...] = (GAME,)) -> Hosted:
    """Store the submission at ``path`` as a hosted bot (no entry checks: a hostile bot need not pass them);
    the bot and its code's SHA-256."""
    artifact = pack(path, config.artifact_limits)
    manifest = of(artifact)
    bot_id = store.artifacts.submit(None, HostedBotFields(name or f"bot-{artifact.sha256[:8]}", games, "", 2, "hostile", "1",
                                                 None),
                           Blob(artifact.sha256, "code", stored_bytes(artifact), artifact.unpacked_bytes), None,
                           BuildInfo(artifact.sha256, None, manifest.to_json(), [], "", now()))
    return Hosted(bot_id, artifact.sha256)


def report(supervisor: Supervisor, sha: Hosted, timeout_s: float = 60.0) -> Any:
    """Start hosted bot ``sha`` and run its attack: what its ``describe()`` reported (JSON; a channel of its own,
    whose answers may be larger than the referee's 64 KiB)."""
    with grpc.insecure_channel(supervisor.endpoint(sha), options=[("grpc.max_receive_message_length", 64 << 20)]) as ch:
        return json.loads(bot_pb2_grpc.BotStub(ch).Describe(bot_pb2.DescribeRequest(), timeout=timeout_s).author)
