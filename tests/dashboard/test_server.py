"""``cardarena server``: bad options fail in one line; the optional Arena pieces plug in when present."""

from __future__ import annotations

from cli.main import main
from cli.server import start_arena
from dashboard.main import _optional_router


def test_server_with_a_bad_database_url_fails_in_one_line(capsys) -> None:
    assert main(["server", "--db", "nosuchdb://x"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("cardarena: error:") and "\n" not in err


def test_server_rejects_a_bad_port(capsys) -> None:
    assert main(["server", "--port", "70000"]) == 2
    assert "port" in capsys.readouterr().err


def test_a_missing_optional_router_is_skipped() -> None:
    assert _optional_router("dashboard.routers.no_such_area") is None


def test_arena_hook_starts_and_stops_the_service_when_installed(tmp_path) -> None:
    try:
        started = start_arena(f"sqlite:///{tmp_path / 'a.db'}", "127.0.0.1", 0)
    except ImportError:  # the Arena's own dependencies are missing: nothing to check here
        return
    if started is None:  # the Arena service is not installed
        return
    server, port = started
    try:
        assert port > 0
    finally:
        server.stop(None)
