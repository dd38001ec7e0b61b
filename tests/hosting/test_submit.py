"""Submitting code: over the Arena's gRPC service, its HTTP API, the upload page and ``cardarena bot submit``;
a Python bot's requirements built with pip from the package index; the author's logs, and nobody else's.
"""

from __future__ import annotations

import gzip
import io
import re
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from fastapi.testclient import TestClient

from arena.http import mount
from arena.registry import Registry, RegistryConfig
from arena.service import start_arena_server
from cardarena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2
from cli.main import main
from fastapi import FastAPI
from hosting import sandbox
from hosting.artifact import pack
from hosting.launch import HostingConfig
from league.competition.ladder import create_ladder
from league.entry.identity import MAX_NEW_VERSIONS
from referee.games import spec
from store import Store
from store.artifacts import hosted_endpoint
from tests.a_game import GAME, SPEC

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "python"
SVARA = spec(GAME).proto_enum


def example(tmp_path: Path, extra: str = "") -> Path:
    """The Python example as a submission (``extra`` appended to its source: another version)."""
    d = tmp_path / f"example{len(list(tmp_path.iterdir()))}"
    shutil.copytree(EXAMPLE, d)
    if extra:
        with (d / "bot.py").open("a") as handle:
            handle.write(extra)
    return d


def archive(path: Path, config: HostingConfig) -> bytes:
    return gzip.compress(pack(path, config.artifact_limits).tar, mtime=0)


@pytest.fixture
def stub(store: Store, config: HostingConfig) -> Iterator[arena_pb2_grpc.ArenaStub]:
    server, port = start_arena_server("unused://", "127.0.0.1", 0,
                                      registry=Registry(store, RegistryConfig.from_settings(), hosting=config))
    with grpc.insecure_channel(f"127.0.0.1:{port}",
                               options=[("grpc.max_send_message_length", 64 << 20)]) as channel:
        yield arena_pb2_grpc.ArenaStub(channel)
    server.stop(0)


def test_submit_a_new_bot_then_new_versions_over_grpc(tmp_path: Path, store: Store, config: HostingConfig,
                                                      stub: arena_pb2_grpc.ArenaStub) -> None:
    first = stub.SubmitBot(arena_pb2.SubmitBotRequest(name="py", games=[SVARA],
                                                      archive=archive(example(tmp_path), config)), timeout=120)
    assert first.token and first.changed and first.report.checks[-1].passed
    assert first.bot.hosted and first.bot.version == first.sha256 and re.fullmatch("[0-9a-f]{64}", first.sha256)
    assert store.bots.get_bot_by_name("py").endpoint == hosted_endpoint(first.bot.id, first.sha256)
    assert [b.hosted for b in stub.ListBots(arena_pb2.ListBotsRequest()).bots] == [True]

    again = stub.SubmitBot(arena_pb2.SubmitBotRequest(name="py", token=first.token,
                                                      archive=archive(example(tmp_path), config)), timeout=120)
    assert not again.changed and again.sha256 == first.sha256 and not again.token

    newer = stub.SubmitBot(arena_pb2.SubmitBotRequest(name="py", token=first.token,
                                                      archive=archive(example(tmp_path, "# v2\n"), config)), timeout=120)
    assert newer.changed and newer.sha256 != first.sha256 and newer.bot.version == newer.sha256
    assert [x.code_sha256 for x in store.artifacts.submissions(newer.bot.id)] == [newer.sha256, first.sha256]

    # a new version is a new ladder entrant: after five entered in a day the next submission is refused, unbuilt
    lid = create_ladder(store, "submitted-versions", spec(GAME), [3], window=8, epoch_games=50)
    for i in range(MAX_NEW_VERSIONS):
        store.bots.update_bot(newer.bot.id, version=f"entered-{i}")
        store.ladders.sync_entrants(lid)
    with pytest.raises(grpc.RpcError) as limited:
        stub.SubmitBot(arena_pb2.SubmitBotRequest(name="py", token=first.token,
                                                  archive=archive(example(tmp_path, "# v4\n"), config)), timeout=60)
    assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "rules §5.2" in limited.value.details()
    store.bots.update_bot(newer.bot.id, version=newer.sha256)

    for token in ("", "wrong"):
        with pytest.raises(grpc.RpcError) as refused:
            stub.SubmitBot(arena_pb2.SubmitBotRequest(name="py", token=token,
                                                      archive=archive(example(tmp_path, "# v3\n"), config)), timeout=60)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    log = stub.GetBotLog(arena_pb2.GetBotLogRequest(name="py", token=first.token), timeout=10)
    assert log.sha256 == newer.sha256 and newer.sha256 in log.build_log and len(log.submissions) == 2
    with pytest.raises(grpc.RpcError) as refused:
        stub.GetBotLog(arena_pb2.GetBotLogRequest(name="py", token="wrong"), timeout=10)
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_submission_that_fails_its_entry_checks_is_not_stored_and_says_why(
        tmp_path: Path, store: Store, config: HostingConfig, stub: arena_pb2_grpc.ArenaStub) -> None:
    d = example(tmp_path, f"\nExampleBot.{SPEC.proto_field} = lambda self, view, ctx: (_ for _ in ()).throw(RuntimeError('oops'))\n")
    with pytest.raises(grpc.RpcError) as refused:
        stub.SubmitBot(arena_pb2.SubmitBotRequest(name="broken", games=[SVARA], archive=archive(d, config)), timeout=120)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "entry checks failed" in refused.value.details()
    trailing = dict(refused.value.trailing_metadata())
    assert "RuntimeError: oops" in trailing["cardarena-build-log-bin"].decode()  # what the bot wrote, for its author
    assert store.bots.get_bot_by_name("broken") is None


@pytest.mark.package_index
def test_requirements_are_built_with_pip_and_their_hashes_recorded(tmp_path: Path, store: Store,
                                                                   config: HostingConfig) -> None:
    d = example(tmp_path, "\nimport six  # a requirement of this bot, not of the SDK\nassert six.PY3\n")
    (d / "requirements.txt").write_text("six==1.17.0\n")
    (d / "cardarena.toml").write_text('[bot]\nserve = "bot:ExampleBot"\nrequirements = "requirements.txt"\n')
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    done = registry.submit("with-six", [GAME], d)
    assert [(p["name"], p["version"]) for p in done.installed] == [("six", "1.17.0")]
    assert re.fullmatch("[0-9a-f]{64}", done.installed[0]["sha256"])
    build = store.artifacts.build(done.sha256)
    assert build is not None and build.env_sha256 and "six" in build.log
    (d / "requirements.txt").write_text("this-package-does-not-exist-cardarena==0.0.1\n")
    with pytest.raises(Exception) as refused:
        registry.submit("with-nothing", [GAME], d)
    assert "could not be built" in str(refused.value) and refused.value.log  # type: ignore[attr-defined]


def test_submit_over_http_and_read_the_logs_as_the_author_only(tmp_path: Path, store: Store,
                                                               config: HostingConfig) -> None:
    app = FastAPI()
    mount(app, Registry(store, RegistryConfig.from_settings(), hosting=config))
    with TestClient(app) as client:
        r = client.put(f"/api/v1/arena/bots/web-py/code?game={GAME}", content=archive(example(tmp_path), config),
                       headers={"Content-Type": "application/octet-stream"})
        assert r.status_code == 201, r.text
        body = r.json()
        token = body["token"]
        assert body["bot"]["hosted"] and body["sha256"] == body["bot"]["version"] and body["report"]["passed"]
        assert client.get("/api/v1/arena/bots/web-py/log").status_code == 401
        log = client.get("/api/v1/arena/bots/web-py/log", headers={"Authorization": f"Bearer {token}"})
        assert log.status_code == 200 and log.json()["sha256"] == body["sha256"]
        big = client.put("/api/v1/arena/bots/web-py/code", content=b"\0" * ((8 << 20) + 1),
                         headers={"Authorization": f"Bearer {token}"})
        assert big.status_code == 413
        assert "Submit your bot" in client.get("/arena/submit").text
        assert "logs-form" in client.get("/arena/logs").text


def test_cardarena_bot_submit(tmp_path: Path, store: Store, config: HostingConfig, capsys: pytest.CaptureFixture[str]) -> None:
    server, port = start_arena_server("unused://", "127.0.0.1", 0,
                                      registry=Registry(store, RegistryConfig.from_settings(), hosting=config))
    try:
        code = main(["bot", "submit", "cli-py", str(example(tmp_path)), "--game", GAME, "--server", f"127.0.0.1:{port}"])
        out = capsys.readouterr().out
        assert code == 0, out
        assert "submitted bot cli-py" in out and "token: " in out
        bot = store.bots.get_bot_by_name("cli-py")
        assert bot is not None and bot.endpoint.startswith("hosted:")
        bad = tmp_path / "nothing"
        bad.mkdir()
        (bad / "bot.py").write_text("x = 1\n")
        assert main(["bot", "submit", "nope", str(bad), "--game", GAME, "--server", f"127.0.0.1:{port}"]) == 2
        assert "no cardarena.toml" in capsys.readouterr().err
    finally:
        server.stop(0)


def test_a_platform_without_bubblewrap_says_so_in_one_line_and_runs_nothing(
        tmp_path: Path, store: Store, config: HostingConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a machine without bwrap on its PATH
    sandbox.recheck()
    try:
        registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
        with pytest.raises(Exception) as refused:
            registry.submit("nowhere", [GAME], example(tmp_path))
        message = str(refused.value)
        assert message == "this platform cannot run hosted bots: bubblewrap is not installed (apt-get install bubblewrap)"
        from workers.hosted import warning

        assert warning() is not None and "\n" not in warning()
        assert store.bots.get_bot_by_name("nowhere") is None
    finally:
        monkeypatch.undo()
        sandbox.recheck()


def test_a_tar_with_the_manifest_in_a_folder_is_refused_with_what_to_write(tmp_path: Path, store: Store,
                                                                            config: HostingConfig) -> None:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        tar.add(EXAMPLE, arcname="python")
    with pytest.raises(Exception, match="no cardarena.toml at the root"):
        Registry(store, RegistryConfig.from_settings(), hosting=config).submit("nested", [GAME], out.getvalue())


def test_describe_of_a_hosted_bot_is_its_own(tmp_path: Path, store: Store, config: HostingConfig) -> None:
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    done = registry.submit("me", [GAME], example(tmp_path))
    assert done.bot.described_name == "python-example" and done.bot.capacity == 4
    assert done.report is not None and done.report.describe == bot_pb2.DescribeResponse(
        name="python-example", version="1.0.0", author="cardarena examples",
        games=list(done.report.describe.games), capacity=4)
