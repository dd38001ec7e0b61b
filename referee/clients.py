"""How the referee reaches a bot: over gRPC, or in-process for tests and benchmarks.

Over gRPC a bot is called on its ``ActStream`` where it serves it (one stream per bot per process
carrying every decision of the process's games, :mod:`referee.stream`), else with one ``Act`` call
per decision (``transport="unary"`` always calls ``Act``). Both are timed alike and their faults are
classified alike: a request on the stream that fails with the bot's own error status is read as an
``Act`` call failing with it, and a request whose stream breaks under it (the bot died, the
connection was lost, an answer over the size limit, a message that is not an
``ActStreamResponse``) is sent again as an ``Act`` call within what is left of its deadline, whose
outcome decides as below. So one game's request never fails another's on the stream.

A client's :meth:`call_bytes` sends one ``ActRequest`` (a message, or its wire bytes as the
referee sends it: each view is encoded once) and returns the answer's wire bytes unread
(the referee reads them with :func:`parse_answer`, once per distinct answer of a game);
:meth:`call` returns the answer read. Its :meth:`act` sends one request and returns a
:class:`concurrent.futures.Future`-like object whose ``result()`` is the
``ActResponse`` or raises :class:`BotCallError` with the fault kind. Several
seats can therefore be asked at once under one deadline (rules §4.5).

How a failed call is classified (rules §4.7), the same way every time for the
same behaviour of the bot:

- **unreachable**: no connection can be made within the call's deadline (the
  connection is refused, there is no route, or it is not accepted in time).
  gRPC reports this as UNAVAILABLE; the client then dials the port itself
  (:func:`tcp_probe`) to tell a bot that is down from a channel that is only
  still backing off from an earlier outage.
- **timeout**: a connection is made but no answer comes before the deadline:
  a bot that is busy, a stopped process that still holds its port, an endpoint
  that accepts TCP but never speaks gRPC.

An UNAVAILABLE status, whether the connection failed or the bot answered it,
is followed by a TCP connection to the port (:func:`tcp_probe`): refused, the
seat is **unreachable**; accepted, the request is sent once more on a fresh
channel within what is left of the deadline (a channel still waiting out gRPC's
reconnect backoff from an earlier outage never makes a working bot
unreachable). If that resend fails as UNAVAILABLE too, the port is tried again:
refused now (the process died during the call: the port was still open for a
moment while its connections were reset), **unreachable**; accepted, an
**error** (the bot returned UNAVAILABLE itself on a working connection). A bot that
answers UNAVAILABLE itself therefore sees the same request twice, and the
second answer decides; a crash inside a call is unreachable every time.

A bot answering UNAVAILABLE itself on the stream is sent the request once more on the stream,
and the second UNAVAILABLE is an **error** too.

One game's replaced channel is never closed under another game: a channel
dropped from the cache (:func:`reset_channel`) is closed by gRPC when its last
client lets go of it. A call on a channel closed all the same (only
:func:`close_channels`, at shutdown) is sent again on the current channel, and
is the seat's fault (unreachable) if that fails too: never an exception out of
the client, so never a void of the game (rules §4.3).

A gRPC client may carry a **fence** (``fence``, a callable the worker gives: its lease still
holds), asked the moment before each request goes out, on the stream or as an ``Act`` call, a
request sent again included. When it says no, the request is not sent and the client raises
:class:`CallWithheld`: not a fault of the bot. The referee then confirms its lease and sends a seat's call once
more, or stops the game there (GameCancelled; always, for seats asked at once).
The referee's own check before each decision cannot see a stall of its process that falls
between that check and the send; the fence narrows that window to gRPC's own code.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from typing import Protocol

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cardarena.v1 import bot_pb2, bot_pb2_grpc
from referee.record import FaultKind
from referee.stream import (ActStream, BotStatus, CallWithheld, StreamBroken, StreamTimeout, close_streams, refused,
                            stream_for)

#: Largest answer the referee reads from a bot, bytes on the wire; larger is a MALFORMED fault.
MAX_ANSWER_BYTES = 64 * 1024
#: Largest answer kept, bytes of known fields (unknown fields are dropped): a legal
#: answer is a few hundred bytes, and every answer is stored in the replay, so a
#: bot cannot inflate a game's record (the longest games take 1,000+ decisions).
MAX_KEPT_ANSWER_BYTES = 4 * 1024
_ACT_METHOD = "/cardarena.v1.Bot/Act"
#: Deadline of a Describe call, seconds (bot.proto).
DESCRIBE_TIMEOUT_S = 5.0
#: Least time given to the TCP connection that classifies a resent call's UNAVAILABLE, seconds
#: (a refused connection answers at once; the deadline may be nearly spent by then).
RESEND_PROBE_MIN_S = 0.05
#: How a GrpcBotClient calls its bot: ``stream`` (ActStream where the bot serves it, else Act) or
#: ``unary`` (Act alone).
TRANSPORTS = ("stream", "unary")


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

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        """Send one decision request and wait for the answer's wire bytes, not read (``parse_answer``
        reads them); raises BotCallError for a call that brought no answer."""
        ...

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """Send one decision request and wait for the answer; raises BotCallError."""
        ...

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """Send one decision request without waiting (several seats at once); the future raises BotCallError."""
        ...


def _fault_of(error: grpc.RpcError, timeout_s: float, elapsed_s: float, connected: bool = False) -> BotCallError:
    """Map a failed call's gRPC status to the referee's fault kinds (:func:`status_fault`)."""
    code = error.code() if hasattr(error, "code") else None
    details = (error.details() if hasattr(error, "details") else None) or str(error)
    return status_fault(code, details, timeout_s, elapsed_s, connected)


def status_fault(code: grpc.StatusCode | None, details: str, timeout_s: float, elapsed_s: float,
                 connected: bool = False) -> BotCallError:
    """Map a failed call's gRPC status (or a bot's error for one request on its stream) to the
    referee's fault kinds (STYLE 14); ``timeout_s`` and ``elapsed_s`` in seconds.

    DEADLINE_EXCEEDED is a timeout only when the deadline really passed; a bot
    that answers that status early is an ERROR. RESOURCE_EXHAUSTED from an
    answer over MAX_ANSWER_BYTES is MALFORMED. UNAVAILABLE is UNREACHABLE (the
    seat is retired), unless ``connected``: the call was sent again on a fresh
    channel after the port accepted a connection (or again on a working stream),
    and a bot that still answers UNAVAILABLE then is an ERROR.
    """
    if code == grpc.StatusCode.DEADLINE_EXCEEDED and elapsed_s >= 0.9 * timeout_s:
        return BotCallError(FaultKind.TIMEOUT, "no answer before the deadline")
    if code == grpc.StatusCode.UNAVAILABLE and connected:
        return BotCallError(FaultKind.ERROR, f"the bot returned an error of its own, status UNAVAILABLE, on a working connection: {details}")
    if code == grpc.StatusCode.UNAVAILABLE:
        return BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: {details}")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in details:
        return BotCallError(FaultKind.MALFORMED, f"answer larger than {MAX_ANSWER_BYTES} bytes")
    name = code.name if code is not None else "UNKNOWN"
    return BotCallError(FaultKind.ERROR, f"the bot returned an error of its own, status {name}: {details}")


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
                    # its own subchannels: a channel made after an outage (reset_channel) must not
                    # share a subchannel that is still waiting out its reconnect backoff
                    ("grpc.use_local_subchannel_pool", 1),
                ],
            )
            _channels[endpoint] = channel
        return channel


def reset_channel(endpoint: str, failed: grpc.Channel) -> grpc.Channel:
    """Drop the cached channel to ``endpoint`` if it is still ``failed``, and return the channel
    to use now (a fresh one; another thread that already replaced it keeps its new one).

    The dropped channel is not closed here: other games of this process may still have calls
    on it, and closing it would fail them (``ValueError: Cannot invoke RPC on closed channel``)
    as the platform's error, not the bot's. gRPC closes it when its last client lets go of it."""
    with _channels_lock:
        current = _channels.get(endpoint)
        if current is not None and current is not failed:
            return current
        _channels.pop(endpoint, None)
    return channel_for(endpoint)


def tcp_probe(endpoint: str, timeout_s: float) -> str | None:
    """Try one TCP connection to ``endpoint`` ("host:port" or "[v6]:port"; "unix:PATH" a Unix socket
    connection, as to a hosted bot) within ``timeout_s`` seconds: None if it was accepted, else why
    not (one line: refused, no route, timed out)."""
    if endpoint.startswith("unix:"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
            unix.settimeout(max(timeout_s, 0.001))
            try:
                unix.connect(endpoint.removeprefix("unix:"))
                return None
            except TimeoutError:
                return f"no connection within {timeout_s:.3f} s"
            except OSError as exc:
                return f"cannot connect: {exc.strerror or exc}"
    host, _, port = endpoint.rpartition(":")
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=max(timeout_s, 0.001)):
            return None
    except TimeoutError:
        return f"no connection within {timeout_s:.3f} s"
    except (OSError, ValueError) as exc:
        return f"cannot connect: {getattr(exc, 'strerror', None) or exc}"


def close_channels() -> None:
    """Close every cached channel and its stream (at worker shutdown and in tests); returns once all are closed.

    The channels are closed at the same time, each in a thread of its own: gRPC's close of a channel whose
    connectivity is watched (``workers.identity``) waits for the watch's current poll, up to 0.2 s, so closing
    them one after another took 0.2 s a channel."""
    close_streams()
    with _channels_lock:
        channels = list(_channels.values())
        _channels.clear()
    closing = [threading.Thread(target=channel.close, name="close-channel", daemon=True) for channel in channels]
    for thread in closing:
        thread.start()
    for thread in closing:
        thread.join()


class CallFuture(Future):  # type: ignore[type-arg]
    """A call's future (:meth:`GrpcBotClient.act`) that the referee may cancel (it stopped the game while the call was
    out): the call's outcome arriving after that is dropped, not raised in the thread that delivers it."""

    def set_result(self, result: object) -> None:
        try:
            super().set_result(result)
        except InvalidStateError:
            if not self.cancelled():
                raise

    def set_exception(self, exception: BaseException | None) -> None:
        try:
            super().set_exception(exception)
        except InvalidStateError:
            if not self.cancelled():
                raise


class GrpcBotClient:
    """A bot served over gRPC at ``endpoint`` ("host:port"), on this process's cached channel:
    on the channel's ActStream where the bot serves it, else on Act (``transport``, one of
    TRANSPORTS; ``unary``: Act alone). ``used`` is the transport the last request went on
    (``stream`` or ``unary``; None before the first). ``fence``: asked the moment before each
    request goes out; False withholds it (:class:`CallWithheld`, module docstring). Raises
    ValueError for an unknown transport."""

    def __init__(self, endpoint: str, transport: str = "stream", fence: Callable[[], bool] | None = None) -> None:
        if transport not in TRANSPORTS:
            raise ValueError(f"unknown transport {transport!r}: use one of {', '.join(TRANSPORTS)}")
        self.endpoint = endpoint
        self.transport = transport
        self.fence = fence
        self.used: str | None = None
        self._kept_stream: ActStream | None = None
        self._bind(channel_for(endpoint))

    def _bind(self, channel: grpc.Channel) -> None:
        self._channel = channel
        self._stub = bot_pb2_grpc.BotStub(channel)
        # Act answers arrive as raw bytes and are parsed by parse_answer, so an
        # undecodable answer is the bot's MALFORMED fault, recorded with its bytes.
        # Requests go as bytes too (serialize_request before the call): no serializer
        # callback from gRPC's C core on the referee's path.
        self._act = channel.unary_unary(_ACT_METHOD, request_serializer=None, response_deserializer=None)

    def _fenced(self) -> None:
        """Raise CallWithheld if the fence says no (asked the moment before a request goes out)."""
        if self.fence is not None and not self.fence():
            raise CallWithheld()

    def _invoke(self, request: bytes, timeout_s: float) -> bytes:
        """One blocking Act on the bound channel, on this process's current channel if the bound one
        was closed; raises grpc.RpcError, ValueError when no open channel can be had, or CallWithheld."""
        self._fenced()
        try:
            raw: bytes = self._act(request, timeout=timeout_s)
            return raw
        except ValueError:  # the channel was closed under this client (only at shutdown)
            self._open()
        self._fenced()
        raw = self._act(request, timeout=timeout_s)
        return raw

    def _invoke_future(self, request: bytes, timeout_s: float) -> grpc.Future:
        """As :meth:`_invoke`, not waiting for the answer."""
        self._fenced()
        try:
            return self._act.future(request, timeout=timeout_s)
        except ValueError:
            self._open()
        self._fenced()
        return self._act.future(request, timeout=timeout_s)

    def _open(self) -> None:
        """Bind to this process's current channel after the bound one was found closed (a channel
        closed again meanwhile raises ValueError at the next call: the caller's UNREACHABLE)."""
        self._bind(channel_for(self.endpoint))

    def _reconnect(self, error: grpc.RpcError, timeout_s: float, t0: float) -> BotCallError | None:
        """After a failed call: None if the call should be sent again on a fresh channel (the
        port accepts connections, so the old channel was stale); else the fault to report."""
        elapsed = time.perf_counter() - t0
        if not hasattr(error, "code") or error.code() != grpc.StatusCode.UNAVAILABLE:
            return _fault_of(error, timeout_s, elapsed)
        refused = tcp_probe(self.endpoint, timeout_s - elapsed)
        if refused is not None:
            return BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: {refused}")
        self._bind(reset_channel(self.endpoint, self._channel))
        return None

    def _resend_fault(self, error: grpc.RpcError, timeout_s: float, t0: float) -> BotCallError:
        """The fault of a call sent again on a fresh channel that failed too. UNAVAILABLE again:
        the port is tried once more, and a refused connection now is UNREACHABLE (the bot died
        during the call while its port was still open for a moment), an accepted one an ERROR
        (the bot itself answers UNAVAILABLE). Any other status as :func:`_fault_of`."""
        elapsed = time.perf_counter() - t0
        if hasattr(error, "code") and error.code() == grpc.StatusCode.UNAVAILABLE:
            refused = tcp_probe(self.endpoint, max(timeout_s - elapsed, RESEND_PROBE_MIN_S))
            if refused is not None:
                return BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: {refused}")
        return _fault_of(error, timeout_s, elapsed, connected=True)

    def _stream(self) -> ActStream | None:
        """The bound channel's ActStream (opened now if it has none), on this process's current
        channel if the bound one was closed; None when the bot does not serve it (or no channel is open)."""
        kept = self._kept_stream
        if kept is not None and kept.open and kept.channel is self._channel:
            return kept
        self._kept_stream = self._find_stream()
        return self._kept_stream

    def _find_stream(self) -> ActStream | None:
        try:
            return stream_for(self._channel)
        except ValueError:  # the bound channel was closed under this client (only at shutdown)
            self._open()
        try:
            return stream_for(self._channel)
        except ValueError:
            return None

    def _after_stream(self, failed: BotStatus | StreamTimeout | StreamBroken, stream: ActStream, request: bytes,
                      timeout_s: float, t0: float) -> bytes:
        """What a request that failed on the stream comes to, as an Act call would (module docstring):
        the answer's bytes of a request sent again (once more on the stream after the bot's own
        UNAVAILABLE, or as an Act call after the stream broke, within what is left of ``timeout_s``);
        else raises BotCallError with the fault kind."""
        if isinstance(failed, StreamTimeout):
            raise BotCallError(FaultKind.TIMEOUT, "no answer before the deadline")
        if isinstance(failed, BotStatus):
            if failed.code != grpc.StatusCode.UNAVAILABLE:
                raise status_fault(failed.code, failed.details, timeout_s, time.perf_counter() - t0)
            try:  # the bot's own UNAVAILABLE on a working stream: sent once more (rules §4.7)
                return stream.call(request, max(timeout_s - (time.perf_counter() - t0), 0.001), self.fence)
            except StreamTimeout:
                raise BotCallError(FaultKind.TIMEOUT, "no answer before the deadline") from None
            except BotStatus as again:
                raise status_fault(again.code, again.details, timeout_s, time.perf_counter() - t0,
                                   connected=True) from None
            except StreamBroken as broken:
                failed = broken
        if failed.refused:
            refused(self._channel)
        self.used = "unary"
        return self._unary_bytes(request, max(timeout_s - (time.perf_counter() - t0), 0.001))

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        """One decision asked with a deadline of ``timeout_s`` seconds, on the stream or as an Act call:
        the answer's wire bytes, not read; raises BotCallError with the fault kind (never another
        exception for the bot's behaviour or a channel replaced meanwhile), or CallWithheld when the
        fence said no before the request (or its resend) went out."""
        request = serialize_request(request)
        timeout_s = max(timeout_s, 0.001)
        if self.transport == "stream":
            stream = self._stream()
            if stream is not None:
                t0 = time.perf_counter()
                self.used = "stream"
                try:
                    return stream.call(request, timeout_s, self.fence)
                except (BotStatus, StreamTimeout, StreamBroken) as failed:
                    return self._after_stream(failed, stream, request, timeout_s, t0)
        self.used = "unary"
        return self._unary_bytes(request, timeout_s)

    def _unary_bytes(self, request: bytes, timeout_s: float) -> bytes:
        """Blocking Act with a gRPC deadline of ``timeout_s`` seconds: the answer's wire bytes, not read;
        raises BotCallError with the fault kind."""
        t0 = time.perf_counter()
        try:
            return self._invoke(request, timeout_s)
        except grpc.RpcError as exc:
            fault = self._reconnect(exc, timeout_s, t0)
            if fault is not None:
                raise fault from None
        except ValueError as exc:
            raise BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: no open channel: {exc}") from None
        left = timeout_s - (time.perf_counter() - t0)
        try:
            return self._invoke(request, max(left, 0.001))
        except grpc.RpcError as again:
            raise self._resend_fault(again, timeout_s, t0) from None
        except ValueError as exc:
            raise BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: no open channel: {exc}") from None

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """:meth:`call_bytes`, the answer read (:func:`parse_answer`); raises BotCallError with the fault kind."""
        return parse_answer(self.call_bytes(request, timeout_s))

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """One decision asked without waiting (several seats at once), on the stream or as an Act call;
        the future raises BotCallError with the fault kind, or CallWithheld (the fence said no).

        A request that must be sent again (see the module docstring) is sent from a short-lived
        thread, never from gRPC's or the stream's thread. The future always completes."""
        request = serialize_request(request)
        timeout_s = max(timeout_s, 0.001)
        if self.transport == "stream":
            stream = self._stream()
            if stream is not None:
                return self._act_stream(stream, request, timeout_s)
        self.used = "unary"
        return self._act_unary(request, timeout_s)

    def _act_stream(self, stream: ActStream, request: bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """:meth:`act` on the stream."""
        out: Future[bot_pb2.ActResponse] = CallFuture()
        t0 = time.perf_counter()
        self.used = "stream"

        def again(failed: BotStatus | StreamBroken) -> None:
            try:
                out.set_result(parse_answer(self._after_stream(failed, stream, request, timeout_s, t0)))
            except (BotCallError, CallWithheld) as exc:
                out.set_exception(exc)
            except Exception as exc:  # a surprise of the transport: the bot's error, never the platform's
                out.set_exception(BotCallError(FaultKind.ERROR, f"call failed: {exc!r}"))

        def done(f: Future[bytes]) -> None:
            try:
                out.set_result(parse_answer(f.result()))
            except (BotCallError, CallWithheld) as exc:
                out.set_exception(exc)
            except StreamTimeout:
                out.set_exception(BotCallError(FaultKind.TIMEOUT, "no answer before the deadline"))
            except BotStatus as exc:
                if exc.code == grpc.StatusCode.UNAVAILABLE:
                    threading.Thread(target=again, args=(exc,), daemon=True).start()
                else:
                    out.set_exception(status_fault(exc.code, exc.details, timeout_s, time.perf_counter() - t0))
            except StreamBroken as exc:
                threading.Thread(target=again, args=(exc,), daemon=True).start()

        stream.submit(request, timeout_s, self.fence).add_done_callback(done)
        return out

    def _act_unary(self, request: bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """:meth:`act` as an Act call."""
        out: Future[bot_pb2.ActResponse] = CallFuture()
        t0 = time.perf_counter()
        try:
            call = self._invoke_future(request, timeout_s)
        except ValueError as exc:
            out.set_exception(BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: no open channel: {exc}"))
            return out
        except CallWithheld as exc:
            out.set_exception(exc)
            return out

        def again() -> None:
            try:
                left = timeout_s - (time.perf_counter() - t0)
                out.set_result(parse_answer(self._invoke(request, max(left, 0.001))))
            except grpc.RpcError as exc:
                out.set_exception(self._resend_fault(exc, timeout_s, t0))
            except (BotCallError, CallWithheld) as exc:
                out.set_exception(exc)
            except ValueError as exc:
                out.set_exception(BotCallError(FaultKind.UNREACHABLE, f"bot unreachable: no open channel: {exc}"))

        def retry_or_fail(error: grpc.RpcError) -> None:
            fault = self._reconnect(error, timeout_s, t0)
            if fault is not None:
                out.set_exception(fault)
            else:
                again()

        def done(f: grpc.Future) -> None:
            try:
                out.set_result(parse_answer(f.result()))
            except grpc.RpcError as exc:
                if exc.code() == grpc.StatusCode.UNAVAILABLE:
                    threading.Thread(target=retry_or_fail, args=(exc,), daemon=True).start()
                else:
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

    def health(self, timeout_s: float) -> str | None:
        """Ask the standard gRPC health service (service ``""``, then ``cardarena.v1.Bot``) within
        ``timeout_s`` seconds, on a fresh channel if the cached one is stale: None if SERVING,
        else why not (one line). See :func:`health_problem`."""
        t0 = time.perf_counter()
        problem = health_problem(self._channel, timeout_s)
        if problem is None or not problem.startswith(UNREACHABLE_PREFIX):
            return problem
        refused = tcp_probe(self.endpoint, timeout_s - (time.perf_counter() - t0))
        if refused is not None:
            return f"{UNREACHABLE_PREFIX}{refused}"
        self._bind(reset_channel(self.endpoint, self._channel))
        return health_problem(self._channel, max(timeout_s - (time.perf_counter() - t0), 0.001))


#: How :func:`health_problem` starts its answer for an endpoint it cannot connect to.
UNREACHABLE_PREFIX = "endpoint unreachable: "


def health_problem(channel: grpc.Channel, timeout_s: float) -> str | None:
    """Check ``grpc.health.v1.Health/Check`` on ``channel`` for service ``""`` (the whole server),
    then ``cardarena.v1.Bot`` if the first is unknown: None if SERVING within ``timeout_s``
    seconds, else one line saying why not (unreachable, no health service, no answer in time,
    another status). Never raises."""
    stub = health_pb2_grpc.HealthStub(channel)
    last = ""
    for service in ("", "cardarena.v1.Bot"):
        try:
            answer = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout_s)
        except ValueError as exc:  # a channel closed under its caller (shutdown): as unreachable
            return f"{UNREACHABLE_PREFIX}{exc}"
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            details = exc.details() if hasattr(exc, "details") else str(exc)
            if code == grpc.StatusCode.NOT_FOUND:
                last = f"the health service does not know service {service!r}"
                continue
            if code == grpc.StatusCode.UNIMPLEMENTED:
                return ("no grpc.health.v1.Health service: serve it beside cardarena.v1.Bot "
                        "(the Python SDK's serve() does)")
            if code == grpc.StatusCode.UNAVAILABLE:
                return f"{UNREACHABLE_PREFIX}{details}"
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                return f"no health answer within {timeout_s:g} s"
            return f"health check answered {code.name if code is not None else 'UNKNOWN'}: {details}"
        if answer.status != health_pb2.HealthCheckResponse.SERVING:
            return f"health status is {health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)}, not SERVING"
        return None
    return last


class InProcessBotClient:
    """A bot called directly in this process (tests, benchmarks): ``handler(request) -> response``.

    Exceptions from the handler become ERROR faults; there is no timeout.
    """

    def __init__(self, handler: Callable[[bot_pb2.ActRequest], bot_pb2.ActResponse]) -> None:
        self.handler = handler

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        """Call the handler in this thread (no timeout): its answer's wire bytes; an exception becomes an
        ERROR BotCallError."""
        try:
            response = self.handler(request_message(request))
        except Exception as exc:
            raise BotCallError(FaultKind.ERROR, f"bot raised {exc!r}") from None
        return response.SerializeToString()

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """Call the handler in this thread (no timeout), the answer read; an exception becomes an ERROR
        BotCallError."""
        return parse_answer(self.call_bytes(request, timeout_s))

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

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        """Raise BotCallError(UNREACHABLE)."""
        raise BotCallError(FaultKind.UNREACHABLE, self.reason)

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """Raise BotCallError(UNREACHABLE)."""
        raise BotCallError(FaultKind.UNREACHABLE, self.reason)

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """A future that raises BotCallError(UNREACHABLE)."""
        out: Future[bot_pb2.ActResponse] = Future()
        out.set_exception(BotCallError(FaultKind.UNREACHABLE, self.reason))
        return out
