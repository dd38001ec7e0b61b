"""How the referee reaches a bot: over gRPC, or in-process for tests and benchmarks.

A client's :meth:`act` sends one ``ActRequest`` (a message, or its wire bytes as the
referee sends it: each view is encoded once) and returns a
:class:`concurrent.futures.Future`-like object whose ``result()`` is the
``ActResponse`` or raises :class:`BotCallError` with the fault kind. Several
seats can therefore be asked at once under one deadline (rules §3.5).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol

import grpc
from google.protobuf.message import DecodeError

from cardarena.v1 import bot_pb2, bot_pb2_grpc
from referee.record import FaultKind

#: Largest answer the referee reads from a bot, bytes on the wire; larger is a MALFORMED fault.
MAX_ANSWER_BYTES = 64 * 1024
#: Largest answer kept, bytes of known fields (unknown fields are dropped): a legal
#: answer is a few hundred bytes, and every answer is stored in the replay, so a
#: bot cannot inflate a game's record (1,000+ decisions in rummy).
MAX_KEPT_ANSWER_BYTES = 4 * 1024
_ACT_METHOD = "/cardarena.v1.Bot/Act"
#: Deadline of a Describe call, seconds (bot.proto).
DESCRIBE_TIMEOUT_S = 5.0


class BotCallError(Exception):
    """A call that produced no usable answer: ``kind`` is the fault kind, ``detail`` says why,
    ``raw`` the bytes the bot sent when they could not be read as an answer (at most
    MAX_KEPT_ANSWER_BYTES of them)."""

    def __init__(self, kind: FaultKind, detail: str, raw: bytes | None = None) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail
        self.raw = raw[:MAX_KEPT_ANSWER_BYTES] if raw is not None else None


def parse_answer(raw: bytes) -> bot_pb2.ActResponse:
    """Read a bot's answer from its wire bytes, dropping unknown fields.

    Raises BotCallError(MALFORMED) with the bytes when they are not an
    ``ActResponse`` or its known fields exceed MAX_KEPT_ANSWER_BYTES.
    """
    answer = bot_pb2.ActResponse()
    try:
        answer.ParseFromString(raw)
    except DecodeError as exc:
        raise BotCallError(FaultKind.MALFORMED, f"{len(raw)} bytes that are not an ActResponse: {exc}", raw) from None
    answer.DiscardUnknownFields()
    size = answer.ByteSize()
    if size > MAX_KEPT_ANSWER_BYTES:
        raise BotCallError(FaultKind.MALFORMED, f"answer of {size} bytes; an answer may have at most {MAX_KEPT_ANSWER_BYTES}", raw)
    return answer


def serialize_request(request: bot_pb2.ActRequest | bytes) -> bytes:
    """A request's wire bytes: ``request`` itself when it is already bytes."""
    return request if isinstance(request, bytes) else request.SerializeToString()


def request_message(request: bot_pb2.ActRequest | bytes) -> bot_pb2.ActRequest:
    """A request as a message, parsed from its wire bytes when it is bytes."""
    return bot_pb2.ActRequest.FromString(request) if isinstance(request, bytes) else request


class BotClient(Protocol):
    """What the referee needs from a bot."""

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """Send one decision request and wait for the answer; raises BotCallError."""
        ...

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """Send one decision request without waiting (several seats at once); the future raises BotCallError."""
        ...


def _fault_of(error: grpc.RpcError, timeout_s: float, elapsed_s: float) -> BotCallError:
    """Map a failed call's gRPC status to the referee's fault kinds (STYLE 14).

    DEADLINE_EXCEEDED is a timeout only when the deadline really passed; a bot
    that answers that status early is an ERROR. RESOURCE_EXHAUSTED from an
    answer over MAX_ANSWER_BYTES is MALFORMED. UNAVAILABLE (no connection, or
    the bot saying it is unavailable) is UNREACHABLE: the seat is retired.
    """
    code = error.code() if hasattr(error, "code") else None
    details = (error.details() if hasattr(error, "details") else None) or str(error)
    if code == grpc.StatusCode.DEADLINE_EXCEEDED and elapsed_s >= 0.9 * timeout_s:
        return BotCallError(FaultKind.TIMEOUT, "no answer before the deadline")
    if code == grpc.StatusCode.UNAVAILABLE:
        return BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: {details}")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in details:
        return BotCallError(FaultKind.MALFORMED, f"answer larger than {MAX_ANSWER_BYTES} bytes")
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
        channel = channel_for(endpoint)
        self._stub = bot_pb2_grpc.BotStub(channel)
        # Act answers arrive as raw bytes and are parsed by parse_answer, so an
        # undecodable answer is the bot's MALFORMED fault, recorded with its bytes.
        self._act = channel.unary_unary(_ACT_METHOD, request_serializer=serialize_request,
                                        response_deserializer=None)

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """Blocking Act with a gRPC deadline of ``timeout_s`` seconds; raises BotCallError with the fault kind."""
        timeout_s = max(timeout_s, 0.001)
        t0 = time.perf_counter()
        try:
            raw = self._act(request, timeout=timeout_s)
        except grpc.RpcError as exc:
            raise _fault_of(exc, timeout_s, time.perf_counter() - t0) from None
        return parse_answer(raw)

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """Non-blocking Act (several seats at once); the future raises BotCallError with the fault kind."""
        timeout_s = max(timeout_s, 0.001)
        out: Future[bot_pb2.ActResponse] = Future()
        t0 = time.perf_counter()
        call = self._act.future(request, timeout=timeout_s)

        def done(f: grpc.Future) -> None:
            try:
                out.set_result(parse_answer(f.result()))
            except grpc.RpcError as exc:
                out.set_exception(_fault_of(exc, timeout_s, time.perf_counter() - t0))
            except BotCallError as exc:
                out.set_exception(exc)
            except Exception as exc:  # cancelled or transport-level surprises
                out.set_exception(BotCallError(FaultKind.ERROR, f"call failed: {exc!r}"))

        call.add_done_callback(done)
        return out

    def describe(self, timeout_s: float = DESCRIBE_TIMEOUT_S) -> bot_pb2.DescribeResponse:
        """Call Describe; raises BotCallError."""
        try:
            return self._stub.Describe(bot_pb2.DescribeRequest(), timeout=timeout_s)
        except grpc.RpcError as exc:
            raise _fault_of(exc, timeout_s, timeout_s) from None


class InProcessBotClient:
    """A bot called directly in this process (tests, benchmarks): ``handler(request) -> response``.

    Exceptions from the handler become ERROR faults; there is no timeout.
    """

    def __init__(self, handler: Callable[[bot_pb2.ActRequest], bot_pb2.ActResponse]) -> None:
        self.handler = handler

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """Call the handler in this thread (no timeout); an exception becomes an ERROR BotCallError."""
        try:
            response = self.handler(request_message(request))
        except Exception as exc:
            raise BotCallError(FaultKind.ERROR, f"bot raised {exc!r}") from None
        return parse_answer(response.SerializeToString())

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """As :meth:`call`, as an already completed future."""
        out: Future[bot_pb2.ActResponse] = Future()
        try:
            out.set_result(self.call(request, timeout_s))
        except BotCallError as exc:
            out.set_exception(exc)
        return out


class UnreachableBotClient:
    """A seat whose endpoint may not be dialled (refused by the network policy, or not
    resolvable): every call fails as UNREACHABLE with ``reason``, so the seat is
    retired at its first decision (rules §4.2) and the game goes on."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """Raise BotCallError(UNREACHABLE)."""
        raise BotCallError(FaultKind.UNREACHABLE, self.reason)

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """A future that raises BotCallError(UNREACHABLE)."""
        out: Future[bot_pb2.ActResponse] = Future()
        out.set_exception(BotCallError(FaultKind.UNREACHABLE, self.reason))
        return out
