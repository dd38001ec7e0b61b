"""The Python bot SDK: subclass :class:`Bot`, implement one method per game, call :func:`serve`.

A game's method is named after its member of the ``view`` oneof of ``cardarena.v1.ActRequest``
(:func:`cardarena.games.fields`); it takes that game's protocol view and a :class:`Context`
and returns the game's protocol action. :func:`serve_forever` serves a bot until Ctrl-C, saying
where it listens (``python mybot.py``). ``examples/`` holds example bots, each playing the games
it declares; docs/writing-a-bot.md shows one. The SDK needs only the protocol stubs (``cardarena.v1``) and gRPC.
"""

from botsdk.runtime import configure_grpc

configure_grpc()  # before anything imports grpc: gRPC reads its experiments once, at import

from botsdk.bot import Bot, Context  # noqa: E402
from botsdk.server import serve, serve_forever  # noqa: E402

__all__ = ["Bot", "Context", "serve", "serve_forever"]
