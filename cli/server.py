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

from cli.common import DbOption, console, db_url, fail
from league.policy import POLICY

if TYPE_CHECKING:
    from fastapi import FastAPI

    from arena.registry import Registry
    from config import Settings

#: The Arena gRPC service's default port.
DEFAULT_GRPC_PORT = 50050  # not 50051, the default port of `cardarena bot serve`


GrpcPortOption = Annotated[int, typer.Option(
    help="Port of the Arena gRPC service (bot registration).", min=1, max=65535)]


def start_arena(store_url: str, host: str, grpc_port: int) -> tuple[Any, int]:
    """Start the Arena gRPC service on ``host:grpc_port`` (0: a free port); returns ``(server, port)``.
    Raises StoreError if the store cannot be opened, RuntimeError if the port cannot be bound."""
    from arena.service import start_arena_server

    return start_arena_server(store_url, host, grpc_port)


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


def serve(url: str, host: str = "127.0.0.1", port: int = 8000, grpc_port: int = DEFAULT_GRPC_PORT,
          log_level: str = "warning") -> None:
    """Serve the dashboard and the Arena on the store at ``url`` until interrupted (Ctrl-C)."""
    import uvicorn

    from arena.registry import Registry, RegistryConfig
    from arena.service import start_arena_server
    from config import Settings
    from store import StoreError, open_store

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
                      + f"; Arena gRPC on {host}:{arena[1]}. Ctrl-C stops.",
                      highlight=False)
        try:
            uvicorn.run(app, host=host, port=port, log_level=log_level)
        finally:
            arena[0].stop(None)
    finally:
        store.close()


def server(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port of the dashboard.", min=1, max=65535)] = 8000,
    grpc_port: GrpcPortOption = DEFAULT_GRPC_PORT,
    db: DbOption = None,
) -> None:
    """Serve the dashboard (standings, bots, games, replays, JSON API) and the Arena (bot registration) on the store."""
    serve(db_url(db), host, port, grpc_port)
