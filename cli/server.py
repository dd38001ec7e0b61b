"""``cardarena server``: the dashboard and the Arena (bot registration) on one host.

The dashboard (``dashboard``, read-only) and the Arena (``arena``: the gRPC service
``arena.service`` and its HTTP twin ``arena.http``, both over one
``arena.registry.Registry``) are separate packages; :func:`server_app` puts the
Arena's HTTP routes on the dashboard's app, and :func:`serve` starts the gRPC service
beside the web server and stops it when the web server exits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from rich.markup import escape

from cli.common import DbOption, console, db_url, fail
from league.policy import POLICY

if TYPE_CHECKING:
    from fastapi import FastAPI

    from arena.registry import Registry
    from config import Settings

#: The Arena gRPC service's default port.
DEFAULT_GRPC_PORT = 50050  # not 50051, the default port of `cardarena bot serve`


DashboardPortOption = Annotated[int | None, typer.Option(
    help="HTTP port of the dashboard (default: the port of CARDARENA_DASHBOARD_URL, 8000 unless set).",
    min=1, max=65535, show_default=False)]
GrpcPortOption = Annotated[int, typer.Option(
    help="Port of the Arena gRPC service (bot registration).", min=1, max=65535)]


def start_arena(store_url: str, host: str, grpc_port: int) -> tuple[Any, int]:
    """Start the Arena gRPC service on ``host:grpc_port`` (0: a free port); returns ``(server, port)``.
    Raises StoreError if the store cannot be opened, RuntimeError if the port cannot be bound."""
    from arena.service import start_arena_server

    return start_arena_server(store_url, host, grpc_port)


def dashboard_port(port: int | None) -> int:
    """The dashboard's port: ``port`` if given, else the port of the setting ``dashboard_url`` (8000 by default),
    so that the pages ``season list`` prints link to the server the commands start."""
    from urllib.parse import urlsplit

    from config import get_settings

    if port is not None:
        return port
    try:
        return urlsplit(get_settings().dashboard_url).port or 80
    except ValueError:
        return 8000


def links_note(host: str, port: int) -> str:
    """What to set when the dashboard is served elsewhere than the setting ``dashboard_url`` says (the address
    ``season list`` links to); empty when they agree."""
    from urllib.parse import urlsplit

    from config import get_settings

    url = get_settings().dashboard_url
    try:
        at = urlsplit(url).port or 80
    except ValueError:
        at = None
    if at == port:
        return ""
    return (f"; season list links to {url}: set CARDARENA_DASHBOARD_URL=http://{host}:{port} for its links "
            "to reach this server")


def check_ports_free(host: str, port: int, grpc_port: int) -> None:
    """One-line error now, rather than a server's log lines later, when the dashboard's or the
    Arena's port is taken (``demo --serve`` checks before it plays its seasons)."""
    from botsdk.server import port_busy

    for what, number, option in (("the dashboard", port, "--port"), ("the Arena gRPC service", grpc_port, "--grpc-port")):
        busy = port_busy(host, number)
        if busy:
            fail(f"cannot serve {what} on {host}:{number}: {busy} (choose another {option})")


def server_app(settings: Settings, registry: Registry) -> FastAPI:
    """The dashboard's app for ``settings`` with the Arena's HTTP routes (``/api/v1/arena``) over ``registry``."""
    from arena.http import mount
    from dashboard.main import create_app

    app = create_app(settings)
    mount(app, registry)
    return app


def serve(url: str, host: str = "127.0.0.1", port: int | None = None, grpc_port: int = DEFAULT_GRPC_PORT,
          log_level: str = "warning") -> None:
    """Serve the dashboard and the Arena on the store at ``url`` until interrupted (Ctrl-C); ``port``:
    the dashboard's (None: :func:`dashboard_port`)."""
    import uvicorn

    from arena.registry import Registry, RegistryConfig
    from arena.service import start_arena_server
    from config import Settings
    from store import StoreError, open_store

    port = dashboard_port(port)
    try:
        store = open_store(url, policy=POLICY)  # fail now, in one line, rather than on the first request
    except StoreError as exc:
        fail(str(exc))
    try:
        check_ports_free(host, port, grpc_port)
        try:
            registry = Registry(store, RegistryConfig.from_settings())
        except ValueError as exc:
            fail(f"bad network policy in the settings: {exc}")
        app = server_app(Settings(db_url=url), registry)
        try:
            arena = start_arena_server(url, host, grpc_port, registry=registry)
        except RuntimeError as exc:
            fail(f"cannot start the Arena gRPC service: {exc} (choose another --grpc-port)")
        shown = "localhost" if host in ("0.0.0.0", "::") else host
        console.print(f"dashboard: [bold]http://{shown}:{port}/[/]  (JSON API: http://{shown}:{port}/api)"
                      + f"; Arena gRPC on {host}:{arena[1]}{escape(links_note(shown, port))}. Ctrl-C stops.",
                      highlight=False)
        try:
            uvicorn.run(app, host=host, port=port, log_level=log_level)
        finally:
            arena[0].stop(None)
    finally:
        store.close()


def server(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: DashboardPortOption = None,
    grpc_port: GrpcPortOption = DEFAULT_GRPC_PORT,
    db: DbOption = None,
) -> None:
    """Serve the dashboard (standings, bots, games, replays, JSON API) and the Arena (bot registration) on the store."""
    serve(db_url(db), host, port, grpc_port)
