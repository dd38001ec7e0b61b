"""ActStream: one bidirectional stream per bot per process, carrying the Act requests of all its games.

The referee's threads of a process (a worker referees two games at once) share the process's one
channel to a bot (:func:`referee.clients.channel_for`) and, on it, one ``ActStream``
(bot.proto): each request goes out wrapped with an id (``ActStreamRequest``), and each answer comes
back with its id (``ActStreamResponse``), in any order. A request is timed by the referee alone:
it has a deadline of its own, and an answer after it is thrown away. What this module does is
mechanics: send, receive, match by id, time out, and say when the stream broke. What an outcome
means (a fault, an Act call sent instead) is decided by :class:`referee.clients.GrpcBotClient`.

How the stream is driven, and why. grpcio's public API runs a stream on two threads of its own
(one feeding requests, one delivering answers), and hands every message between them and the
caller: measured, that cost more CPU per decision than a unary call. So the stream is one call
object of gRPC's core with its own completion queue (grpcio's ``SegregatedCall``, the object its
blocking unary calls use), driven by the waiting threads themselves, one of them reading for all:

- a thread sends its request itself (one send in flight at a time: gRPC allows no more; the
  others queue and go out as each send completes);
- one waiting thread at a time, the reader, reads the completion queue: answers, completed sends,
  the end of the stream; it hands each answer to the thread that waits for it and keeps going
  until its own answer comes or its deadline passes, then makes a waiting thread the reader. In
  the common case (one request in flight) the caller reads its own answer: no hand-off at all;
- a request sent without waiting (:meth:`ActStream.submit`, several seats asked at once) is
  answered through a :class:`concurrent.futures.Future`; while only such requests wait, a spare
  thread of the stream reads;
- a request may carry a fence (a callable the worker gives, :class:`CallWithheld`): asked under the
  lock the moment before its send starts, here or after the sends queued before it, so a request
  that waited through a stall of its process goes out only if the fence still says yes (a fence
  must answer at once and not raise: it runs under the stream's lock, perhaps on another game's
  thread); a queued request whose deadline passed before its turn is dropped, never sent;
- gRPC's wait for the next event has no timeout, so a process-wide :class:`Watchdog` wakes a reader
  whose deadline (or a submitted request's) has passed, with an empty batch of operations, which
  gRPC's core completes at once.

The stream breaks when its call ends: the bot's process died, the connection was lost, the bot
ended or failed the stream, sent a message larger than the channel takes (64 KiB) or one that is
not an ``ActStreamResponse`` (the stream is then cancelled). Every request waiting on it then
fails with :class:`StreamBroken` (``refused`` when the bot does not serve ActStream at all:
UNIMPLEMENTED before any answer), and the next request opens a new stream
(:func:`stream_for`).

``grpc._cython.cygrpc`` is grpcio's own, not its public API: this module is written against
grpcio 1.85, whose blocking calls and single-threaded streams use these objects the same way;
``tests/test_stream.py`` checks each behaviour relied on.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future

import logging

import grpc

try:  # grpcio's own internals (module docstring): a grpcio without them is called on Act alone
    from grpc._cython import cygrpc
except ImportError:  # pragma: no cover - only with a grpcio unlike 1.85's
    cygrpc = None  # type: ignore[assignment]

from cardarena.v1 import bot_pb2
from referee.wire import frame, varint

#: The method's path on the wire.
METHOD = b"/cardarena.v1.Bot/ActStream"
#: Seconds a channel whose bot refused the stream (UNIMPLEMENTED) is called on Act alone before the
#: stream is tried again (the bot at the endpoint may have been replaced by one that serves it).
REFUSED_RETRY_S = 60.0

#: The grpcio releases (major, minor) whose internals this module was written against and tested on.
TESTED_GRPCIO = ((1, 85),)
_NEEDED = ("SegregatedCall", "SendInitialMetadataOperation", "ReceiveInitialMetadataOperation",
           "ReceiveMessageOperation", "ReceiveStatusOnClientOperation", "SendMessageOperation", "StatusCode")
_log = logging.getLogger(__name__)
_FLAGS = 0
_STATUS_CODES = {code.value[0]: code for code in grpc.StatusCode}
# completion queue tags: the kind of each completed batch of operations
_INIT, _RECV, _SENT, _STATUS, _WAKE = "init", "recv", "sent", "status", "wake"


class BotStatus(Exception):
    """The bot's own error for one request (``ActStreamResponse.error``): a gRPC status code and its message."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class StreamTimeout(Exception):
    """No answer to a request before its deadline."""


class CallWithheld(Exception):
    """A request not sent: its fence (a callable the caller gave, asked the moment before the request
    goes out) said no. The worker's fence closes when its lease may have run out (the process stalled
    between its check before the decision and the send), so a game given to another attempt meanwhile
    never has this one's request reach its bots; the bot is not at fault (the referee confirms the lease
    and asks again, or stops the game: ``referee.referee``)."""

    def __init__(self) -> None:
        super().__init__("not sent: the attempt's fence closed (its lease may have run out)")


class StreamBroken(Exception):
    """The stream ended with a request still waiting (or before one could be sent): ``code`` and
    ``details`` are the call's status (or the referee's reason, when it cancelled the stream for a
    message it could not read); ``refused``: UNIMPLEMENTED before any answer came, the bot does not
    serve ActStream."""

    def __init__(self, code: grpc.StatusCode, details: str, refused: bool = False) -> None:
        super().__init__(f"stream ended: {code.name}: {details}")
        self.code = code
        self.details = details
        self.refused = refused


def request_envelope(request_id: int, request: bytes) -> bytes:
    """The wire bytes of ``ActStreamRequest(id=request_id, request=<request's bytes>)``."""
    return b"\x08" + varint(request_id) + frame(2, request)


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    """The varint at ``data[i:]`` and the index after it; raises ValueError when it is cut or too long."""
    result = shift = 0
    try:
        while shift < 64:
            byte = data[i]
            i += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result, i
            shift += 7
    except IndexError:
        raise ValueError("a varint is cut short") from None
    raise ValueError("a varint is longer than 10 bytes")


def read_reply(data: bytes) -> tuple[int, bytes, BotStatus | None]:
    """An ``ActStreamResponse``'s wire bytes read: ``(id, the answer's bytes unread, the bot's error or
    None)``; the answer's bytes are those of ``response`` (empty when it is absent: an answer with no
    action), kept as sent so that an answer that cannot be read is the bot's MALFORMED fault with them.
    Unknown fields are skipped. Raises ValueError when the bytes are not an ActStreamResponse."""
    n = len(data)
    if n > 2 and data[0] == 0x08:  # the usual reply, exactly an id then an answer: read without a loop
        request_id, i = _read_varint(data, 1)
        if i < n and data[i] == 0x12:
            length, i = _read_varint(data, i + 1)
            if i + length == n:
                return request_id, data[i:], None
    i = 0
    request_id = 0
    answer: list[bytes] = []
    error: list[bytes] = []
    while i < n:
        key, i = _read_varint(data, i)
        number, kind = key >> 3, key & 7
        if kind == 0:
            value, i = _read_varint(data, i)
            if number == 1:
                request_id = value
            elif number in (2, 3):
                raise ValueError(f"field {number} is not a varint")
        elif kind == 2:
            length, i = _read_varint(data, i)
            end = i + length
            if end > n:
                raise ValueError("a field runs past the message")
            if number == 1:
                raise ValueError("field 1 (id) is not a varint")
            if number == 2:
                answer.append(data[i:end])
            elif number == 3:
                error.append(data[i:end])
            i = end
        elif kind == 1:
            i += 8
        elif kind == 5:
            i += 4
        else:
            raise ValueError(f"wire type {kind} is not allowed")
        if i > n:
            raise ValueError("a field runs past the message")
    if error:
        status = bot_pb2.ActStreamError.FromString(b"".join(error))  # DecodeError is a ValueError
        code = _STATUS_CODES.get(status.code, grpc.StatusCode.UNKNOWN)
        return request_id, b"".join(answer), BotStatus(code, status.message)
    return request_id, answer[0] if len(answer) == 1 else b"".join(answer), None


class _Waiter:
    """One request on the stream: its deadline (monotonic seconds), and its outcome once it is done.
    A blocking caller that does not read at once waits on ``gate`` (a lock held until it is released
    once: the answer came, or the caller is made the reader); a submitted request has a ``future``."""

    __slots__ = ("id", "deadline", "fence", "gate", "future", "answer", "failure", "done", "reads")

    def __init__(self, deadline: float, future: Future[bytes] | None = None,
                 fence: Callable[[], bool] | None = None) -> None:
        self.id = 0
        self.deadline = deadline
        self.fence = fence
        self.future = future
        self.gate: threading.Lock | None = None
        self.answer: bytes | None = None
        self.failure: Exception | None = None
        self.done = False
        self.reads = False

    def result(self) -> bytes:
        """The answer's bytes; raises the failure."""
        if self.failure is not None:
            raise self.failure
        assert self.answer is not None
        return self.answer


#: The reader while only submitted requests wait: the stream's spare reader thread.
_SPARE = _Waiter(float("inf"), Future())


class Watchdog:
    """Wakes each stream's reader at the time it asks (:meth:`watch`): gRPC's wait for the next event
    of a call has no timeout. One thread for every stream of the process, asleep until the earliest
    time asked; it wakes a reader with an empty batch of operations on its call (completed at once)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._streams: weakref.WeakSet[ActStream] = weakref.WeakSet()
        self._next = float("inf")
        self._thread: threading.Thread | None = None

    def add(self, stream: ActStream) -> None:
        """Watch ``stream`` (its ``wake_at``) from now on."""
        with self._cond:
            self._streams.add(stream)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="act-stream-watchdog", daemon=True)
                self._thread.start()

    def watch(self, stream: ActStream, at: float | None) -> None:
        """Wake ``stream``'s reader at ``at`` (monotonic seconds; None: never)."""
        stream.wake_at = at
        if at is not None and at < self._next:
            with self._cond:
                if at < self._next:
                    self._next = at
                    self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                due, next_at = [], float("inf")
                for stream in list(self._streams):
                    at = stream.wake_at
                    if at is None:
                        continue
                    if at <= now:
                        stream.wake_at = None
                        due.append(stream)
                    elif at < next_at:
                        next_at = at
                self._next = next_at
                if due:
                    self._cond.release()
                    try:
                        for stream in due:
                            stream.interrupt()
                    finally:
                        self._cond.acquire()
                    continue
                self._cond.wait(None if next_at == float("inf") else next_at - now)


#: The process's watchdog.
WATCHDOG = Watchdog()


class ActStream:
    """One open ActStream on ``channel``: :meth:`call` and :meth:`submit` send a request (its
    ``ActRequest`` wire bytes) and give its answer's wire bytes. Raises ValueError when the channel
    is closed. ``on_end`` is called once when the stream has ended (no request is accepted after)."""

    def __init__(self, channel: grpc.Channel, on_end: Callable[[ActStream], None] | None = None,
                 watchdog: Watchdog = WATCHDOG) -> None:
        self._lock = threading.Lock()
        self._spare_cond = threading.Condition(self._lock)
        self._pending: dict[int, _Waiter] = {}
        self._submitted = 0  # submitted requests waiting (their futures)
        self._next_id = 0
        self._reader: _Waiter | None = None
        self._sending = False
        self._backlog: deque[tuple[bytes, _Waiter]] = deque()  # waiting for the send in flight
        self._ops = 0  # batches started and not yet read from the completion queue
        self._answered = False
        self._cancelled: tuple[grpc.StatusCode, str] | None = None
        self._ended: StreamBroken | None = None
        self._spare_thread: threading.Thread | None = None
        self._on_end = on_end
        self._channel = weakref.ref(channel)  # not a strong reference: the registry's key is the channel
        self._watchdog = watchdog
        self.wake_at: float | None = None
        cy_channel = channel._channel  # type: ignore[attr-defined]  # grpcio's core channel (module docstring)
        self._call = cy_channel.segregated_call(
            _FLAGS, METHOD, None, None, None, None,
            (((cygrpc.SendInitialMetadataOperation(None, _FLAGS),), _INIT),
             ((cygrpc.ReceiveInitialMetadataOperation(_FLAGS),), _INIT),
             ((cygrpc.ReceiveMessageOperation(_FLAGS),), _RECV),
             ((cygrpc.ReceiveStatusOnClientOperation(_FLAGS),), _STATUS)),
            None)
        self._ops = 4
        watchdog.add(self)

    @property
    def open(self) -> bool:
        """False once the stream has ended."""
        return self._ended is None

    @property
    def channel(self) -> grpc.Channel | None:
        """The channel the stream is on (None once it is gone)."""
        return self._channel()

    # sending

    def _operate(self, operations: tuple[object, ...], tag: str) -> bool:
        """Start a batch (under the lock); False when the call is over (gRPC refuses it)."""
        try:
            started = bool(self._call.operate(operations, tag))
        except ValueError:  # a call error: as a call that is over
            return False
        if started:
            self._ops += 1
        return started

    def _send(self, data: bytes, waiter: _Waiter) -> None:
        """Send ``waiter``'s message now, or after the sends before it (under the lock)."""
        if self._sending:
            self._backlog.append((data, waiter))
        else:
            self._sending = self._operate((cygrpc.SendMessageOperation(data, _FLAGS),), _SENT)

    def _send_next(self) -> list[Future[bytes]]:
        """A send completed (under the lock): the backlog's next message goes out, after those already done (their
        deadline passed while they waited: never sent) and those whose fence closed meanwhile, failed with
        CallWithheld (their futures returned, to fail outside the lock)."""
        withheld = []
        while self._backlog:
            data, waiter = self._backlog.popleft()
            if waiter.done:  # timed out in the backlog: its caller has its outcome, the bot need not see it
                continue
            if waiter.fence is None or waiter.fence():
                self._send(data, waiter)
                break
            self._pending.pop(waiter.id, None)
            waiter.done = True
            waiter.failure = CallWithheld()
            if waiter.future is not None:
                self._submitted -= 1
                withheld.append(waiter.future)
            elif waiter is not self._reader:
                assert waiter.gate is not None
                waiter.gate.release()
        return withheld

    def _start(self, waiter: _Waiter, request: bytes) -> bool:
        """Register and send ``waiter``'s request; True if the caller is to read now. Raises StreamBroken,
        or CallWithheld (nothing registered) when its fence is closed."""
        with self._lock:
            if self._ended is not None:
                raise StreamBroken(self._ended.code, self._ended.details, self._ended.refused)
            if waiter.fence is not None and not waiter.fence():
                raise CallWithheld()
            self._next_id += 1
            waiter.id = self._next_id
            self._pending[waiter.id] = waiter
            self._send(request_envelope(waiter.id, request), waiter)
            if self._reader is not None:
                if waiter.future is not None:
                    self._submitted += 1
                else:  # another thread reads: it waits on its gate
                    waiter.gate = threading.Lock()
                    waiter.gate.acquire()
                return False
            if waiter.future is None:
                self._reader = waiter
                return True
            self._submitted += 1
            self._reader = _SPARE
            self._wake_spare()
            return False

    def call(self, request: bytes, timeout_s: float, fence: Callable[[], bool] | None = None) -> bytes:
        """Send ``request`` (an ActRequest's wire bytes) and wait for its answer, at most ``timeout_s``
        seconds: the answer's bytes, unread. ``fence``: asked the moment before the request goes out
        (after the sends queued before it, if any); False withholds it. Raises BotStatus (the bot's
        error for it), StreamTimeout, StreamBroken (the stream ended first) or CallWithheld."""
        waiter = _Waiter(time.monotonic() + timeout_s, fence=fence)
        reading = self._start(waiter, request)
        while not reading:
            left = waiter.deadline - time.monotonic()
            assert waiter.gate is not None
            waiter.gate.acquire(timeout=left if left > 0 else 0)
            with self._lock:
                if waiter.done:
                    return waiter.result()
                if waiter.reads:  # made the reader (or made it as the deadline passed: it times out there)
                    waiter.reads = False
                    reading = True
                    break
                self._pending.pop(waiter.id, None)  # the deadline passed
                return self._timed_out(waiter)
        self._read_events(waiter)
        return waiter.result()

    def submit(self, request: bytes, timeout_s: float, fence: Callable[[], bool] | None = None) -> Future[bytes]:
        """Send ``request`` without waiting: a future of its answer's bytes, unread, that fails as
        :meth:`call` does, at the latest at the deadline (the stream's reader, or its spare reader thread, completes it)."""
        waiter = _Waiter(time.monotonic() + timeout_s, Future(), fence)
        assert waiter.future is not None
        try:
            self._start(waiter, request)
        except (StreamBroken, CallWithheld) as exc:
            waiter.future.set_exception(exc)
        return waiter.future

    def _timed_out(self, waiter: _Waiter) -> bytes:
        """Record ``waiter``'s timeout (under the lock, it is out of the pending) and raise it."""
        waiter.done = True
        waiter.failure = StreamTimeout()
        raise waiter.failure

    # reading the stream's events

    def _wake_spare(self) -> None:
        """Start or wake the spare reader thread to read (under the lock)."""
        if self._spare_thread is None:
            self._spare_thread = threading.Thread(target=self._spare, name="act-stream-spare-reader", daemon=True)
            self._spare_thread.start()
        else:
            self._spare_cond.notify()

    def _spare(self) -> None:
        """The spare reader thread: reads while only submitted requests wait."""
        while True:
            with self._lock:
                while self._reader is not _SPARE:
                    if self._ended is not None:
                        self._spare_thread = None
                        return
                    self._spare_cond.wait()
            self._read_events(None)

    def _pass_reading(self) -> None:
        """The reader stops (under the lock): a waiting caller reads next, else the spare reader thread if
        submitted requests wait, else nobody (the next caller will)."""
        self._reader = None
        self.wake_at = None
        if self._ended is not None:
            return
        for waiter in self._pending.values():
            if waiter.gate is not None and not waiter.done:  # a caller waiting on its gate
                self._reader = waiter
                waiter.reads = True
                waiter.gate.release()
                return
        if self._submitted:
            self._reader = _SPARE
            self._wake_spare()

    def _read_events(self, me: _Waiter | None) -> None:
        """Read the stream's events until ``me`` is answered or its deadline passes (``me`` None: the
        spare reader thread, until no submitted request waits), then pass the reading on. Submitted
        requests whose deadline passed meanwhile are failed with StreamTimeout."""
        while True:
            expired: list[_Waiter] = []
            with self._lock:
                now = time.monotonic()
                wake_at = me.deadline if me is not None else float("inf")
                if self._submitted:
                    for waiter in list(self._pending.values()):
                        if waiter.future is None:
                            continue
                        if now >= waiter.deadline:
                            del self._pending[waiter.id]
                            self._submitted -= 1
                            waiter.done = True
                            waiter.failure = StreamTimeout()
                            expired.append(waiter)
                        elif waiter.deadline < wake_at:
                            wake_at = waiter.deadline
                if me is None:
                    stop = not self._submitted
                elif me.done:
                    stop = True
                elif now >= me.deadline:
                    self._pending.pop(me.id, None)
                    me.done = True
                    me.failure = StreamTimeout()
                    stop = True
                else:
                    stop = False
                if not stop and self._ops == 0:  # nothing more can come (the end was read): never happens
                    stop = True
                if stop:
                    self._pass_reading()
            for waiter in expired:
                assert waiter.future is not None
                waiter.future.set_exception(StreamTimeout())
            if stop:
                return
            wake = None if wake_at == float("inf") else wake_at
            if self.wake_at != wake:  # asked for anew after the watchdog woke this reader (it clears it)
                self._watchdog.watch(self, wake)
            try:
                event = self._call.next_event()
            except BaseException:  # a signal's exception (the main thread): gRPC has dropped the call
                self._end(grpc.StatusCode.CANCELLED, "interrupted", read_all=True)
                raise
            self._handle(event)

    def interrupt(self) -> None:
        """Wake the reader now (the watchdog, at the time it asked)."""
        with self._lock:
            if self._reader is not None and self._ended is None:
                self._operate((), _WAKE)

    # events

    def _handle(self, event: object) -> None:
        """One event of the completion queue (the reader's thread)."""
        tag = event.tag  # type: ignore[attr-defined]
        if tag is _RECV:
            data = event.batch_operations[0].message()  # type: ignore[attr-defined]
            if data is None:  # the stream is ending: its status follows
                with self._lock:
                    self._ops -= 1
                return
            self._reply(data)
        elif tag is _SENT:
            with self._lock:
                self._ops -= 1
                self._sending = False
                withheld = self._send_next() if self._backlog else []
            for future in withheld:
                future.set_exception(CallWithheld())
        elif tag is _STATUS:
            operation = event.batch_operations[0]  # type: ignore[attr-defined]
            code = _STATUS_CODES.get(operation.code(), grpc.StatusCode.UNKNOWN)
            details = operation.details()
            self._end(code, details.decode("utf-8", "replace") if isinstance(details, bytes) else str(details))
        else:  # _INIT, _WAKE
            with self._lock:
                self._ops -= 1

    def _reply(self, data: bytes) -> None:
        """One message from the bot (the receive is started again for the next one): its request's
        outcome, or the stream cancelled when it cannot be read."""
        try:
            request_id, answer, error = read_reply(data)
        except ValueError as exc:
            with self._lock:
                self._ops -= 1
                if self._cancelled is None:
                    self._cancelled = (grpc.StatusCode.INTERNAL,
                                       f"the bot sent {len(data)} bytes that are not an ActStreamResponse: {exc}")
            self._call.cancel(cygrpc.StatusCode.cancelled, "unreadable message")
            return
        with self._lock:
            self._ops -= 1
            self._answered = True
            self._operate((cygrpc.ReceiveMessageOperation(_FLAGS),), _RECV)
            waiter = self._pending.pop(request_id, None)
            if waiter is None:  # late (its deadline passed), or an id never sent: thrown away
                return
            waiter.done = True
            if error is None:
                waiter.answer = answer
            else:
                waiter.failure = error
            if waiter.future is not None:
                self._submitted -= 1
            elif waiter is not self._reader:
                assert waiter.gate is not None
                waiter.gate.release()
        if waiter.future is not None:
            if error is None:
                waiter.future.set_result(answer)
            else:
                waiter.future.set_exception(error)

    def _end(self, code: grpc.StatusCode, details: str, read_all: bool = False) -> None:
        """The stream is over: every request waiting fails with StreamBroken (the reader's own is left
        to the reader), and no request is accepted after. ``read_all``: gRPC has dropped the call, no
        event is left to read."""
        with self._lock:
            self._ops = 0 if read_all else self._ops - 1
            if self._cancelled is not None:
                code, details = self._cancelled
            broken = StreamBroken(code, details, refused=code is grpc.StatusCode.UNIMPLEMENTED and not self._answered)
            self._ended = broken
            failed = list(self._pending.values())
            self._pending.clear()
            self._submitted = 0
            for waiter in failed:
                waiter.done = True
                waiter.failure = StreamBroken(code, details, broken.refused)
                if waiter.future is None and waiter is not self._reader:
                    assert waiter.gate is not None
                    waiter.gate.release()
            self._spare_cond.notify_all()
        for waiter in failed:
            if waiter.future is not None:
                waiter.future.set_exception(StreamBroken(code, details, broken.refused))
        if self._on_end is not None:
            self._on_end(self)

    def close(self) -> None:
        """End the stream (its requests waiting fail with StreamBroken, CANCELLED)."""
        with self._lock:
            if self._ended is not None:
                return
        self._call.cancel(cygrpc.StatusCode.cancelled, "closed by the referee")


_streams: weakref.WeakKeyDictionary[grpc.Channel, ActStream | float] = weakref.WeakKeyDictionary()
_streams_lock = threading.Lock()


def _supported() -> bool:
    """Whether this grpcio has the internals the stream is driven with (a release of
    :data:`TESTED_GRPCIO` with every name this module uses). Otherwise the referee calls every bot on
    Act (the same outcomes, at unary's cost), and says so once: a grpcio upgrade degrades, never breaks."""
    version = tuple(int(p) for p in grpc.__version__.split(".")[:2] if p.isdigit())
    ok = (cygrpc is not None and version in TESTED_GRPCIO and all(hasattr(cygrpc, n) for n in _NEEDED)
          and hasattr(grpc, "Channel"))
    if not ok:
        _log.warning("grpcio %s is not a release the ActStream client was tested on (%s): bots are called on Act",
                     grpc.__version__, ", ".join(f"{a}.{b}" for a, b in TESTED_GRPCIO))
    return ok


SUPPORTED = _supported()


def stream_for(channel: grpc.Channel) -> ActStream | None:
    """The open ActStream on ``channel``, opened now if it has none; None while the bot at the
    channel is known not to serve it (:func:`refused`), or when this grpcio is not one the stream
    was tested on (:data:`SUPPORTED`: every bot is then called on Act). Raises ValueError when the
    channel is closed."""
    if not SUPPORTED:
        return None
    with _streams_lock:
        found = _streams.get(channel)
        if isinstance(found, ActStream) and found.open:
            return found
        if isinstance(found, float) and time.monotonic() < found:
            return None
        stream = ActStream(channel, _forget)
        _streams[channel] = stream
        return stream


def _forget(stream: ActStream) -> None:
    """Drop an ended stream from the registry (a new one is opened by the next request)."""
    with _streams_lock:
        for channel, found in list(_streams.items()):
            if found is stream:
                del _streams[channel]


def refused(channel: grpc.Channel) -> None:
    """The bot at ``channel`` does not serve ActStream: Act alone for REFUSED_RETRY_S seconds."""
    with _streams_lock:
        _streams[channel] = time.monotonic() + REFUSED_RETRY_S


def close_streams() -> None:
    """End every open stream of this process (at shutdown and in tests, before the channels close)."""
    with _streams_lock:
        streams = [s for s in _streams.values() if isinstance(s, ActStream)]
        _streams.clear()
    for stream in streams:
        stream.close()
