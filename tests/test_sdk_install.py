"""The bot SDK installs on its own: `pip install ./botsdk` in a fresh venv, without the platform.

The venv gets the SDK and the protocol stubs only (grpcio, grpcio-health-checking, protobuf):
SQLAlchemy, FastAPI, Celery and the platform's packages are not importable there. A bot
served from that venv on 127.0.0.1 answers Describe and Act, called from here.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import venv
from pathlib import Path

import grpc
import pytest

from cardarena.v1 import bot_pb2, bot_pb2_grpc
from referee.games import spec
from tests.a_game import GAME, SPEC, action_class, first_request, other_game, view_class

pytestmark = pytest.mark.sdk_install

ROOT = Path(__file__).resolve().parents[1]
#: Seconds allowed for `pip install` (pip's cache makes later runs quick).
PIP_TIMEOUT_S = 600

#: A real view of GAME and a legal answer to it, as bytes: the bot checks it receives the view and answers that.
REQUEST = first_request()
VIEW = getattr(REQUEST, SPEC.proto_field)
ANSWER = SPEC.random_action(VIEW, random.Random(0))

BOT = f'''
import sys

from botsdk import Bot, serve
from cardarena.v1 import {view_class().__module__.rsplit(".", 1)[1]} as game_pb2


class Minimal(Bot):
    name = "minimal"
    version = "1.2.3"
    games = ({GAME!r},)

    def {SPEC.proto_field}(self, view, ctx):
        if view != game_pb2.{view_class().__name__}.FromString({VIEW.SerializeToString()!r}):
            raise ValueError("not the view sent")
        return game_pb2.{action_class().__name__}.FromString({ANSWER.SerializeToString()!r})


server, port = serve(Minimal(), port=0)
print(port, flush=True)
sys.stdin.read()  # serve until the test closes our stdin
server.stop(0)
'''


@pytest.fixture(scope="module")
def sdk_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with only ``pip install ./botsdk`` (from a copy of the repository's
    ``botsdk`` and ``proto``, so the build leaves nothing in the working tree)."""
    base = tmp_path_factory.mktemp("sdk")
    shutil.copytree(ROOT / "botsdk", base / "src" / "botsdk", ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    shutil.copytree(ROOT / "proto", base / "src" / "proto", ignore=shutil.ignore_patterns("__pycache__"))
    venv.create(base / "venv", with_pip=True)
    python = base / "venv" / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "./botsdk"], cwd=base / "src", env=env,
                          capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    assert done.returncode == 0, done.stderr
    return python


def _run(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def test_the_sdk_venv_holds_the_sdk_and_the_protocol_but_not_the_platform(sdk_python: Path, tmp_path: Path) -> None:
    probe = ("import importlib.util as u; "
             "print(' '.join(m for m in ('botsdk', 'cardarena.v1.bot_pb2', 'grpc', 'sqlalchemy', 'fastapi', 'celery',"
             " 'referee', 'league', 'store', 'dashboard', 'workers', 'cli') if u.find_spec(m)))")
    found = _run(sdk_python, probe, tmp_path)
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == ["botsdk", "cardarena.v1.bot_pb2", "grpc"]


def test_a_bot_served_from_the_sdk_venv_answers_describe_and_act(sdk_python: Path, tmp_path: Path) -> None:
    script = tmp_path / "minimal_bot.py"
    script.write_text(BOT)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    bot = subprocess.Popen([str(sdk_python), str(script)], cwd=tmp_path, env=env, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None
        line = bot.stdout.readline()
        assert line.strip().isdigit(), bot.stderr.read() if bot.stderr else line
        with grpc.insecure_channel(f"127.0.0.1:{int(line)}") as channel:
            stub = bot_pb2_grpc.BotStub(channel)
            described = stub.Describe(bot_pb2.DescribeRequest(), timeout=10)
            assert (described.name, described.version, list(described.games)) == ("minimal", "1.2.3", [SPEC.proto_enum])
            answer = stub.Act(bot_pb2.ActRequest(game_id="g", seat=1, decision=4, **{SPEC.proto_field: VIEW}), timeout=10)
            assert answer.WhichOneof("action") == SPEC.proto_field and getattr(answer, SPEC.proto_field) == ANSWER
            other = other_game()
            with pytest.raises(grpc.RpcError) as refused:
                stub.Act(bot_pb2.ActRequest(game_id="g", seat=1, decision=5, **{spec(other).proto_field: view_class(other)()}),
                         timeout=10)
            assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED and other in (refused.value.details() or "")
    finally:
        if bot.stdin:
            bot.stdin.close()
        try:
            bot.wait(10)
        except subprocess.TimeoutExpired:
            bot.kill()
            bot.wait(10)
