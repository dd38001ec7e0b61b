"""Which of gRPC's I/O engines a cardarena process runs: gRPC's classic poller, not its EventEngine.

grpcio (1.85) runs Python's channels and servers on its EventEngine by default: a call's
reads and writes are done on the engine's own threads and handed to the thread that waits
for the call. On the classic poller (what grpcio ran for Python before) the waiting thread
does the I/O itself, with fewer thread wake-ups per call. Measured on a 2-core machine,
gRPC's defaults against this setting, alternated runs: a reference bot's server process
used 0.33-0.50 ms of CPU per Act call against 0.23-0.36 ms (``python -m bench.bench_bots``);
the caller's CPU per bare Act call fell from 0.20-0.22 to 0.15-0.16 ms and the round trip
from 0.72 to 0.56 ms (``python -m bench.bench_referee``). The referee makes one such call
per decision (botsdk/README.md, *The gRPC runtime*).

gRPC reads its experiments from the environment once, when ``grpc`` is first imported, so
:func:`configure_grpc` must run before that: ``botsdk``, ``referee``, ``arena`` and ``cli``
call it first thing in their ``__init__``, and it puts the setting in ``os.environ``, which
the processes they start inherit. An operator's own ``GRPC_EXPERIMENTS`` is kept as it is
(set it to an empty string for gRPC's defaults).

It also sets ``GRPC_VERBOSITY=ERROR`` unless the variable is set: gRPC's C core otherwise
writes its own INFO lines to stderr (``chttp2_transport.cc ... Got goaway`` when a peer closes
a connection), which leak into ``season run``'s output and a bot's; gRPC reads the variable when
it initialises, so the processes started from here inherit it too. Set ``GRPC_VERBOSITY=INFO``
(or ``DEBUG``) to see them.
"""

from __future__ import annotations

import os

#: The EventEngine experiments turned off: the client's and the listener's endpoints, every
#: other endpoint, and the callback completion queue built on them (grpcio >= 1.85 knows them all).
GRPC_EXPERIMENTS = "-event_engine_client,-event_engine_listener,-event_engine_for_all_other_endpoints,-event_engine_callback_cq"


#: gRPC's C-core log level: errors only (not its INFO lines such as a connection's goaway).
GRPC_VERBOSITY = "ERROR"


def configure_grpc() -> None:
    """Put :data:`GRPC_EXPERIMENTS` in ``os.environ["GRPC_EXPERIMENTS"]`` and :data:`GRPC_VERBOSITY`
    in ``os.environ["GRPC_VERBOSITY"]``, each unless the variable is set.

    Takes effect in this process only if ``grpc`` is not imported yet (gRPC reads its
    experiments at import); the processes this one starts get it either way. Never raises.
    """
    os.environ.setdefault("GRPC_EXPERIMENTS", GRPC_EXPERIMENTS)
    os.environ.setdefault("GRPC_VERBOSITY", GRPC_VERBOSITY)
