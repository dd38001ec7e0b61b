"""The Python bot SDK: subclass :class:`Bot`, implement one method per game, call :func:`serve`.

A game's method is named after its member of the ``view`` oneof of ``cardarena.v1.ActRequest``
(:func:`cardarena.games.fields`); it takes that game's protocol view and a :class:`Context`
and returns the game's protocol action. :func:`serve_forever` serves a bot until Ctrl-C, saying
where it listens (``python mybot.py``). ``examples/`` holds example bots, each playing the games
it declares; docs/writing-a-bot.md shows one. The SDK needs only the protocol stubs (``cardarena.v1``) and gRPC.
"""

from botsdk.runtime import configure_grpc

configure_grpc()  # before anything imports grpc: gRPC reads its experiments once, at import

from typing import TYPE_CHECKING, Any  # noqa: E402

if TYPE_CHECKING:
    from botsdk.bot import Bot, Context
    from botsdk.server import serve, serve_forever

__all__ = ["Bot", "Context", "serve", "serve_forever"]


def __getattr__(name: str) -> Any:
    """``Bot``, ``Context``, ``serve`` and ``serve_forever``, imported on first use (PEP 562), so that a process
    needing only :mod:`botsdk.runtime` (the platform's command line, before it knows whether it serves a bot)
    does not import gRPC and the protocol stubs. Raises AttributeError for any other name."""
    if name in ("Bot", "Context"):
        from botsdk import bot

        return getattr(bot, name)
    if name in ("serve", "serve_forever"):
        from botsdk import server

        return getattr(server, name)
    raise AttributeError(f"module 'botsdk' has no attribute {name!r}")
