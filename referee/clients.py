"""How the referee reaches a bot: over gRPC, or in-process for tests and benchmarks.

A client's :meth:`act` sends one ``ActRequest`` and returns a
:class:`concurrent.futures.Future`-like object whose ``result()`` is the
``ActResponse`` or raises :class:`BotCallError` with the fault kind. Several
seats can therefore be asked at once under one deadline (RULINGS 3.5).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol

import grpc

from cardarena.v1 import bot_pb2, bot_pb2_grpc
from referee.record import FaultKind

#: Largest answer the referee accepts from a bot, bytes; larger is a fault.
MAX_ANSWER_BYTES = 1024 * 1024
#: Deadline of a Describe call, seconds (bot.proto).
DESCRIBE_TIMEOUT_S = 5.0


class BotCallError(Exception):
    """A call that produced no usable answer: ``kind`` is the fault kind, ``detail`` says why."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail


class BotClient(Protocol):
    """What the referee needs from a bot."""

    def call(self, request: bot_pb2.ActRequest, timeout_s: float) -> bot_pb2.ActResponse:
        """Send one decision request and wait for the answer; raises BotCallError."""
        ...

    def act(self, request: bot_pb2.ActRequest, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """Send one decision request without waiting (several seats at once); the future raises BotCallError."""
        ...


def _fault_of(error: grpc.RpcError) -> BotCallError:
    """Map a gRPC status to the referee's fault kinds (STYLE 14)."""
    code = error.code() if hasattr(error, "code") else None
    details = error.details() if hasattr(error, "details") else str(error)
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return BotCallError(FaultKind.TIMEOUT, "no answer before the deadline")
    if code == grpc.StatusCode.UNAVAILABLE:
        return BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: {details}")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return BotCallError(FaultKind.MALFORMED, f"answer too large: {details}")
    name = code.name if code is not None else "UNKNOWN"
    return BotCallError(FaultKind.ERROR, f"bot answered {name}: {details}")


_channels: dict[str, grpc.Channel] = {}
_channels_lock = threading.Lock()


def channel_for(endpoint: str) -> grpc.Channel:
    """The one reused channel to ``endpoint`` ("host:port") in this process (DESIGN: a new channel costs ~1 ms)."""
    with _channels_lock:
        channel = _channels.get(endpoint)
        if channel is None:
            channel = grpc.insecure_channel(
                endpoint,
                options=[
                    ("grpc.max_receive_message_length", MAX_ANSWER_BYTES),
                    ("grpc.enable_retries", 0),
                ],
            )
            _channels[endpoint] = channel
        return channel


def close_channels() -> None:
    """Close every cached channel (at worker shutdown and in tests)."""
    with _channels_lock:
        for channel in _channels.values():
            channel.close()
        _channels.clear()


class GrpcBotClient:
    """A bot served over gRPC at ``endpoint`` ("host:port")."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self._stub = bot_pb2_grpc.BotStub(channel_for(endpoint))

    def call(self, request: bot_pb2.ActRequest, timeout_s: float) -> bot_pb2.ActResponse:
        """Blocking Act with a gRPC deadline of ``timeout_s`` seconds; raises BotCallError with the fault kind."""
        try:
            return self._stub.Act(request, timeout=max(timeout_s, 0.001))
        except grpc.RpcError as exc:
            raise _fault_of(exc) from None

    def act(self, request: bot_pb2.ActRequest, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """Non-blocking Act (several seats at once); the future raises BotCallError with the fault kind."""
        out: Future[bot_pb2.ActResponse] = Future()
        call = self._stub.Act.future(request, timeout=max(timeout_s, 0.001))

        def done(f: grpc.Future) -> None:
            try:
                out.set_result(f.result())
            except grpc.RpcError as exc:
                out.set_exception(_fault_of(exc))
            except Exception as exc:  # cancelled or transport-level surprises
                out.set_exception(BotCallError(FaultKind.ERROR, f"call failed: {exc!r}"))

        call.add_done_callback(done)
        return out

    def describe(self, timeout_s: float = DESCRIBE_TIMEOUT_S) -> bot_pb2.DescribeResponse:
        """Call Describe; raises BotCallError."""
        try:
            return self._stub.Describe(bot_pb2.DescribeRequest(), timeout=timeout_s)
        except grpc.RpcError as exc:
            raise _fault_of(exc) from None


class InProcessBotClient:
    """A bot called directly in this process (tests, benchmarks): ``handler(request) -> response``.

    Exceptions from the handler become ERROR faults; there is no timeout.
    """

    def __init__(self, handler: Callable[[bot_pb2.ActRequest], bot_pb2.ActResponse]) -> None:
        self.handler = handler

    def call(self, request: bot_pb2.ActRequest, timeout_s: float) -> bot_pb2.ActResponse:
        """Call the handler in this thread (no timeout); an exception becomes an ERROR BotCallError."""
        try:
            return self.handler(request)
        except Exception as exc:
            raise BotCallError(FaultKind.ERROR, f"bot raised {exc!r}") from None

    def act(self, request: bot_pb2.ActRequest, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """As :meth:`call`, as an already completed future."""
        out: Future[bot_pb2.ActResponse] = Future()
        try:
            out.set_result(self.call(request, timeout_s))
        except BotCallError as exc:
            out.set_exception(exc)
        return out
