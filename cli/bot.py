"""``cardarena bot``: serve a bot."""

from __future__ import annotations

import signal
from typing import Annotated

import typer

from cli.common import console, fail

app = typer.Typer(help="Serve bots over gRPC (the reference bots, or your own module:Class).", no_args_is_help=True)


@app.command("serve")
def serve_bot(
    bot: Annotated[str, typer.Argument(help="A reference bot (random, odds, points, greedy) or module:Class of your own Bot subclass.")],
    port: Annotated[int, typer.Option(help="TCP port to listen on; 0 picks a free one.", min=0, max=65535)] = 50051,
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    seed: Annotated[int, typer.Option(help="Seed of the bot's own random choices.")] = 0,
    threads: Annotated[int | None, typer.Option(help="Server threads (default: the bot's capacity).", min=1)] = None,
) -> None:
    """Serve BOT over gRPC (the cardarena.v1.Bot service plus grpc.health.v1) until Ctrl-C."""
    from botsdk.bots import BotLoadError, load_bot
    from botsdk.server import serve

    try:
        instance = load_bot(bot, seed)
    except BotLoadError as exc:
        fail(str(exc), 2)
    try:
        server, bound = serve(instance, port=port, host=host, threads=threads)
    except RuntimeError as exc:
        fail(f"cannot serve on {host}:{port}: {exc}")
    console.print(f"serving bot [bold]{instance.name}[/] ({', '.join(instance.games)}) on {host}:{bound}", highlight=False)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(1))
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(1)
