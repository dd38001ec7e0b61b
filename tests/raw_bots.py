"""Bots that speak raw gRPC, so they can send what no SDK would: bytes that are not an answer, oversized
answers, error statuses of their own choosing, on ``Act`` and, with ``stream``, on ``ActStream`` too.

An answer function ``answer(request, context) -> bytes`` gives the bytes sent as the answer to one
``ActRequest`` (on the stream: as the ``response`` of its ``ActStreamResponse``, unread, whatever they
are); ``context.abort(code, details)`` fails it with a status instead (on the stream: an
``ActStreamResponse.error`` for that request, the stream going on).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import Any

import grpc

from cardarena.v1 import bot_pb2
from referee.wire import frame, varint

Answer = Callable[[bot_pb2.ActRequest, Any], bytes]


class _Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class RequestContext:
    """What an answer function gets on the stream in place of gRPC's context: ``abort`` fails the one request."""

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise _Aborted(code, details)


def stream_reply(request_id: int, data: bytes) -> bytes:
    """The wire bytes of ``ActStreamResponse(id=request_id)`` with ``data`` as its ``response``, unread."""
    return b"\x08" + varint(request_id) + frame(2, data)


@dataclass
class RawBot:
    """A raw bot's server, its endpoint, and what it was asked: ``act_calls`` (Act calls) and
    ``stream_requests`` (requests on ActStream)."""

    server: grpc.Server
    endpoint: str
    act_calls: int = 0
    stream_requests: int = 0


def stream_handler(answer: Answer, counted: Callable[[], None] = lambda: None,
                   ) -> Callable[[Iterator[bot_pb2.ActStreamRequest], Any], Iterator[bytes]]:
    """An ActStream handler answering each request with ``answer`` on a thread of its own (concurrently);
    ``counted`` is called for each request."""

    def handle(requests: Iterator[bot_pb2.ActStreamRequest], context: Any) -> Iterator[bytes]:
        out: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

        def run(item: bot_pb2.ActStreamRequest) -> None:
            counted()
            try:
                out.put(stream_reply(item.id, answer(item.request, RequestContext())))
            except _Aborted as exc:
                error = bot_pb2.ActStreamError(code=exc.code.value[0], message=exc.details)
                out.put(bot_pb2.ActStreamResponse(id=item.id, error=error).SerializeToString())

        def read() -> None:
            try:
                for item in requests:
                    threading.Thread(target=run, args=(item,), daemon=True).start()
            except grpc.RpcError:
                pass
            out.put(None)

        threading.Thread(target=read, daemon=True).start()
        while (data := out.get()) is not None:
            yield data

    return handle


StreamHandler = Callable[[Iterator[bot_pb2.ActStreamRequest], Any], Iterator[bytes]]


def serve_raw(answer: Answer, stream: bool | StreamHandler = True, threads: int = 8,
              address: str = "127.0.0.1:0") -> RawBot:
    """Serve ``answer`` as ``Act`` and, with ``stream``, as ``ActStream`` (``stream`` may be a handler of
    its own, yielding each message's bytes), on ``address`` (an ephemeral port of 127.0.0.1, or a
    ``unix:PATH``). Stop it with ``bot.server.stop(0)``."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads))
    lock = threading.Lock()
    bot = RawBot(server, "")

    def count(field: str) -> None:
        with lock:
            setattr(bot, field, getattr(bot, field) + 1)

    def act(request: bot_pb2.ActRequest, context: Any) -> bytes:
        count("act_calls")
        return answer(request, context)

    handlers = {"Act": grpc.unary_unary_rpc_method_handler(act, request_deserializer=bot_pb2.ActRequest.FromString,
                                                           response_serializer=None)}
    if stream:
        handler = stream_handler(answer, lambda: count("stream_requests")) if stream is True else stream
        handlers["ActStream"] = grpc.stream_stream_rpc_method_handler(
            handler, request_deserializer=bot_pb2.ActStreamRequest.FromString, response_serializer=None)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("cardarena.v1.Bot", handlers),))
    port = server.add_insecure_port(address)
    server.start()
    bot.endpoint = address if address.startswith("unix:") else f"127.0.0.1:{port}"
    return bot
