"""``cardarena server``: bad options fail in one line; the Arena gRPC service starts beside the dashboard."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cli.main import main
from cli.server import start_arena


def test_server_with_a_bad_database_url_fails_in_one_line(capsys) -> None:
    assert main(["server", "--db", "nosuchdb://x"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("cardarena: error:") and "\n" not in err


def test_server_rejects_a_bad_port(capsys) -> None:
    assert main(["server", "--port", "70000"]) == 2
    assert "port" in capsys.readouterr().err


def test_the_arena_service_starts_serves_health_and_stops(tmp_path) -> None:
    server, port = start_arena(f"sqlite:///{tmp_path / 'a.db'}", "127.0.0.1", 0)
    try:
        assert port > 0
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="cardarena.v1.Arena"), timeout=10)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        server.stop(None)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel, pytest.raises(grpc.RpcError):
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=2)


def test_a_server_off_the_address_season_list_links_to_says_what_to_set(tmp_path) -> None:
    """`season list` links to CARDARENA_DASHBOARD_URL (http://127.0.0.1:8000 unless set): a server started on
    another port says so, and how to make the links reach it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.test_match import _free_port

    port, grpc_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if k != "CARDARENA_DASHBOARD_URL"}
    process = subprocess.Popen([sys.executable, "-m", "cli.main", "server", "--port", str(port), "--grpc-port",
                                str(grpc_port), "--db", f"sqlite:///{tmp_path / 's.db'}"], cwd=Path(__file__).parents[2],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**env, "COLUMNS": "400"})
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
    finally:
        process.terminate()
        process.wait(30)
    assert f"dashboard: http://127.0.0.1:{port}/" in line, line
    assert (f"season list links to http://127.0.0.1:8000: set CARDARENA_DASHBOARD_URL=http://127.0.0.1:{port} "
            "for its links to reach this server") in line, line
