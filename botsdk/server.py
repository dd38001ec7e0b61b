"""Serve a :class:`~botsdk.bot.Bot` over gRPC, with the standard health service.

The bot answers ``Act`` (one call per decision) and ``ActStream`` (bot.proto: the referee's one
stream per worker process, carrying the decisions of all its games, each request with an id),
answered by :mod:`botsdk.stream`. An open stream holds a thread of the gRPC server for its whole
life (one per worker process playing the bot), so the server's own pool has room for
:data:`MAX_STREAMS` of them beside the Act calls.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from cardarena.v1 import bot_pb2, bot_pb2_grpc
from botsdk.bot import Bot
from botsdk.stream import INLINE_S, StreamAnswers

log = logging.getLogger("botsdk")

#: Largest request or answer a bot server accepts, bytes (views are a few KiB).
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
#: ActStreams a bot server serves at once (one per worker process playing the bot; its threads are
#: made as streams open).
MAX_STREAMS = 256


def answer(bot: Bot, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse | tuple[grpc.StatusCode, str]:
    """``bot``'s answer to ``request``, or the error status the referee is to get instead: UNIMPLEMENTED
    for a game the bot does not play, INVALID_ARGUMENT for a ValueError (a request the bot cannot
    read), UNKNOWN with the exception's type and text for any other exception (logged with its
    traceback: the referee records an ERROR fault with the text, the author sees the traceback here)."""
    try:
        return bot.act(request)
    except NotImplementedError as exc:
        return grpc.StatusCode.UNIMPLEMENTED, str(exc)
    except ValueError as exc:
        log.exception("game %s seat %s decision %s", request.game_id, request.seat, request.decision)
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc)
    except Exception as exc:
        log.exception("game %s seat %s decision %s", request.game_id, request.seat, request.decision)
        return grpc.StatusCode.UNKNOWN, f"{type(exc).__name__}: {exc}"


class _Servicer(bot_pb2_grpc.BotServicer):
    """The Bot service over ``bot``: Act calls answered on the server's threads, at most ``threads`` at
    once; ActStream by :class:`botsdk.stream.StreamAnswers`."""

    def __init__(self, bot: Bot, threads: int = 1, inline_s: float = INLINE_S) -> None:
        self.bot = bot
        self.slots = threading.BoundedSemaphore(threads)
        self.streams = StreamAnswers(self.answer, threads, inline_s, bot.name)

    def answer(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse | tuple[grpc.StatusCode, str]:
        """:func:`answer` of this servicer's bot."""
        return answer(self.bot, request)

    def Describe(self, request: bot_pb2.DescribeRequest, context: grpc.ServicerContext) -> bot_pb2.DescribeResponse:
        return self.bot.describe()

    def Act(self, request: bot_pb2.ActRequest, context: grpc.ServicerContext) -> bot_pb2.ActResponse:
        with self.slots:
            answered = answer(self.bot, request)
        if isinstance(answered, tuple):
            context.abort(*answered)
        return answered

    def ActStream(self, request_iterator: Iterator[bot_pb2.ActStreamRequest],
                  context: grpc.ServicerContext) -> Iterator[bytes]:  # type: ignore[override]
        return self.streams.serve(request_iterator, context)


def add_bot_servicer(servicer: _Servicer, server: grpc.Server) -> None:
    """Register the Bot service as ``bot_pb2_grpc.add_BotServicer_to_server`` does, but with ActStream's
    answers sent as the bytes :func:`botsdk.stream.reply` writes (no copy of each answer into a message)."""
    handlers = {
        "Describe": grpc.unary_unary_rpc_method_handler(
            servicer.Describe, request_deserializer=bot_pb2.DescribeRequest.FromString,
            response_serializer=bot_pb2.DescribeResponse.SerializeToString),
        "Act": grpc.unary_unary_rpc_method_handler(
            servicer.Act, request_deserializer=bot_pb2.ActRequest.FromString,
            response_serializer=bot_pb2.ActResponse.SerializeToString),
        "ActStream": grpc.stream_stream_rpc_method_handler(
            servicer.ActStream, request_deserializer=bot_pb2.ActStreamRequest.FromString, response_serializer=None),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("cardarena.v1.Bot", handlers),))
    server.add_registered_method_handlers("cardarena.v1.Bot", handlers)


def port_busy(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (e.g. "Address already in use"), or None if it can.

    A probe bind with SO_REUSEADDR, as servers bind, so a port in TIME_WAIT counts as free.
    Lets a server fail in one line before its framework logs a bind error of its own; the
    real bind can still lose a race, and callers handle that too. None for ``port=0`` and for
    a host that does not resolve (the real bind reports those).
    """
    if port == 0:
        return None
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return None
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                return exc.strerror or str(exc)
    return None


def start_grpc_server(add_servicers: Callable[[grpc.Server], None], service: str, host: str, port: int,
                      threads: int, max_message_bytes: int, name: str) -> tuple[grpc.Server, int]:
    """Start a gRPC server with ``add_servicers``' services and grpc.health.v1 reporting ``service`` as SERVING.

    Returns ``(server, port)`` (``port=0`` picks a free one). No SO_REUSEPORT
    (gRPC turns it on by default, letting a second server bind the same port
    and silently share its traffic): a busy port raises RuntimeError. A ``host`` of
    ``unix:PATH`` listens on that Unix socket instead (``port`` is ignored; 0 is returned):
    a hosted bot, which the platform dials through its sandbox (``botsdk.hosted``).
    """
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name),
        options=[
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes),
        ],
    )
    unix = host.startswith("unix:")
    address = host if unix else f"{host}:{port}"
    busy = None if unix else port_busy(host, port)
    if busy:
        raise RuntimeError(f"cannot bind {address}: {busy}")
    add_servicers(server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    try:
        bound = server.add_insecure_port(address)
    except RuntimeError:  # grpcio raises on a failed bind (older releases returned 0)
        bound = 0
    if bound == 0:
        raise RuntimeError(f"cannot bind {address}: the port is in use or the address is not this machine's")
    server.start()
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    return server, 0 if unix else bound


def serve(bot: Bot, port: int = 0, host: str = "127.0.0.1", threads: int | None = None,
          inline_s: float = INLINE_S) -> tuple[grpc.Server, int]:
    """Start serving ``bot`` and return ``(server, port)``.

    ``port=0`` picks a free port. ``threads`` is how many decisions the bot
    computes at once (default: the bot's ``capacity``), on Act calls and on
    the streams' pool: requests beyond it wait inside the server and spend the
    caller's time. Serves ``Act`` and ``ActStream``; a stream's requests are
    answered on its own thread while each decision takes less than ``inline_s``
    seconds, then concurrently on the pool (:mod:`botsdk.stream`; 0: on the pool
    from the start). Raises RuntimeError when the address cannot be bound. Stop
    with ``server.stop(grace)``.
    """
    size = threads or max(1, bot.capacity)
    return start_grpc_server(lambda server: add_bot_servicer(_Servicer(bot, size, inline_s), server),
                             "cardarena.v1.Bot", host, port, size + MAX_STREAMS, MAX_MESSAGE_BYTES, f"bot-{bot.name}")


def serve_forever(bot: Bot, port: int = 50051, host: str = "127.0.0.1", threads: int | None = None) -> None:
    """Serve ``bot`` until Ctrl-C or SIGTERM, as ``cardarena bot serve`` does: the first line on
    stdout says where it listens (``bot NAME (GAMES) listening on HOST:PORT``; ``port=0`` picks a free
    port), the bot's own exceptions are logged with their tracebacks, and an address that cannot be
    bound (a busy port) is one line on stderr and exit status 1 (``SystemExit``), nothing else."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        server, bound = serve(bot, port=port, host=host, threads=threads)
    except RuntimeError as exc:
        print(f"{bot.name}: error: cannot serve on {host}:{port}: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    print(f"bot {bot.name} ({', '.join(bot.games)}) listening on {host}:{bound}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(1))
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(1)
