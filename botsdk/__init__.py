"""The Python bot SDK: subclass :class:`Bot`, implement one method per game, call :func:`serve`.

    from botsdk import Bot, serve
    from cardarena.v1 import slippery_sam_pb2 as ss

    class Cautious(Bot):
        name = "cautious"
        games = ("slippery-sam",)

        def slippery_sam(self, view, ctx):
            return ss.SlipperySamAction(amount=view.min_amount)

    server, port = serve(Cautious(), port=50051)
    server.wait_for_termination()
"""

from botsdk.bot import Bot, Context
from botsdk.server import serve

__all__ = ["Bot", "Context", "serve"]
