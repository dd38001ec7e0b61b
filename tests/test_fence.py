"""The clients' fence: a request goes out only while the attempt's lease surely holds.

The referee's check before each decision cannot see a stall of its process between that check and the
send; the fence is asked the moment before the send itself (on Act, on the stream, and for a request
that waited behind another's send), a withheld request never reaches the bot, and the referee stops
the game without charging the bot anything."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any

import grpc
import pytest

from referee.bots import load_bot
from referee import stream as stream_module
from referee.clients import BotCallError, BotClient, CallWithheld, GrpcBotClient, InProcessBotClient
from referee.games import games, make_params, spec
from referee.referee import GameCancelled, play
from referee.stream import StreamTimeout, stream_for
from tests.a_game import first_request
from tests.raw_bots import RawBot, serve_raw
from tests.test_stream import legal, request_of
from workers.hosted import HostedClient
from workers.service import SEND_FENCE, Heartbeat

REQUEST = first_request()


class Gate:
    """A fence that says yes until it is closed."""

    def __init__(self) -> None:
        self.open = True
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.open


@pytest.mark.parametrize("transport", ["stream", "unary"])
def test_a_closed_fence_sends_nothing_and_is_no_fault_of_the_bot(raw: list[RawBot], transport: str) -> None:
    raw.append(serve_raw(lambda request, context: legal(request)))
    gate = Gate()
    client = GrpcBotClient(raw[0].endpoint, transport, gate)
    client.call_bytes(REQUEST, 2.0)
    sent = (raw[0].act_calls, raw[0].stream_requests)
    assert sum(sent) == 1 and gate.asked == 1
    gate.open = False
    with pytest.raises(CallWithheld):
        client.call_bytes(REQUEST, 2.0)
    with pytest.raises(CallWithheld):
        client.act(REQUEST, 2.0).result(5)
    time.sleep(0.2)  # a request sent after all would have arrived by now
    assert (raw[0].act_calls, raw[0].stream_requests) == sent
    gate.open = True
    client.act(REQUEST, 2.0).result(5)  # the fence is asked anew each time
    assert raw[0].act_calls + raw[0].stream_requests == 2


def test_requests_waiting_behind_another_send_are_fenced_when_their_turn_comes(raw: list[RawBot]) -> None:
    """gRPC has one send in flight per stream; the others wait and go out as each send completes, from whichever
    thread reads the stream, perhaps after a stall: their fence is asked then, not when they were queued. Queued
    behind a send in flight (its completion then handled as the stream's reader handles it): a blocking request
    that timed out meanwhile (dropped, never sent), a blocking one and a submitted one whose fences closed
    (withheld: each caller gets CallWithheld), and a submitted one whose fence stays open (sent, answered)."""
    seen: list[str] = []
    raw.append(serve_raw(lambda request, context: seen.append(request.game_id) or legal(request)))
    client = GrpcBotClient(raw[0].endpoint)
    client.call_bytes(REQUEST, 2.0)  # the stream is open
    stream = stream_for(client._channel)
    assert stream is not None
    reading = stream_module._Waiter(float("inf"))  # another thread reads: blocking callers wait on their gates
    with stream._lock:
        stream._sending, stream._reader = True, reading  # another request's send is in flight: these queue
    outcomes: dict[str, object] = {}

    def blocking(game_id: str, timeout_s: float, fence: Gate | None) -> None:
        try:
            outcomes[game_id] = stream.call(request_of(game_id), timeout_s, fence)
        except Exception as exc:  # noqa: BLE001 - the outcome is what is checked
            outcomes[game_id] = exc

    expired = threading.Thread(target=blocking, args=("expired", 0.05, None))
    expired.start()
    expired.join(5)
    closes_blocking, closes_submitted, stays = Gate(), Gate(), Gate()
    blocked = threading.Thread(target=blocking, args=("blocked", 30.0, closes_blocking))
    blocked.start()
    withheld = stream.submit(request_of("withheld"), 5.0, closes_submitted)
    sent = stream.submit(request_of("sent"), 5.0, stays)
    deadline = time.monotonic() + 5
    while len(stream._backlog) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [w.done for _, w in stream._backlog] == [True, False, False, False]
    closes_blocking.open = closes_submitted.open = False  # the process stalled past its lease meanwhile
    with stream._lock:
        stream._reader = None
        stream._ops += 1  # the send in flight, whose completion the reader now handles
    stream._handle(SimpleNamespace(tag=stream_module._SENT))
    blocked.join(5)  # woken when withheld, long before its own deadline
    assert not blocked.is_alive()
    assert isinstance(outcomes["expired"], StreamTimeout) and isinstance(outcomes["blocked"], CallWithheld)
    with pytest.raises(CallWithheld):
        withheld.result(1)
    assert client.call_bytes(request_of("after"), 2.0)  # a reader again: it reads "sent"'s answer too
    assert sent.result(5)
    assert sorted(seen[1:]) == ["after", "sent"], seen  # the first call, then neither "expired" nor the withheld
    assert not stream._backlog and not stream._pending and stream._submitted == 0
    assert (closes_blocking.asked, closes_submitted.asked, stays.asked) == (2, 2, 2)


def test_a_resend_after_the_bots_own_unavailable_is_fenced_too(raw: list[RawBot]) -> None:
    """The bot's own UNAVAILABLE on its stream is answered by sending the request once more: the fence is asked
    again then, and a fence closed meanwhile withholds it."""
    def unavailable(request: Any, context: Any) -> bytes:
        context.abort(grpc.StatusCode.UNAVAILABLE, "busy")
        return b""

    raw.append(serve_raw(unavailable))
    gate = Gate()
    client = GrpcBotClient(raw[0].endpoint, "stream", lambda: gate() and gate.asked < 4)
    with pytest.raises(BotCallError):  # asked twice: UNAVAILABLE twice is the bot's error
        client.call_bytes(REQUEST, 2.0)
    assert (gate.asked, raw[0].stream_requests) == (2, 2)
    with pytest.raises(CallWithheld):  # asked for the first request (open), withheld at its resend
        client.call_bytes(REQUEST, 2.0)
    # the open request reached the bot (3), or went out on the stream the bot had just ended, before the client saw
    # it end (2, under load): either way UNAVAILABLE came back, and the resend was asked for and never sent
    assert gate.asked == 4 and raw[0].stream_requests in (2, 3)


def test_a_hosted_bots_client_carries_the_fence(raw: list[RawBot]) -> None:
    raw.append(serve_raw(lambda request, context: legal(request)))
    gate = Gate()
    gate.open = False
    with pytest.raises(CallWithheld):
        HostedClient(raw[0].endpoint, "stream", lambda: None, gate).call_bytes(REQUEST, 2.0)
    assert (gate.asked, raw[0].stream_requests + raw[0].act_calls) == (1, 0)


class Fenced:
    """An in-process client behind a fence that closes after ``open_for`` requests (all seats together)."""

    def __init__(self, inner: BotClient, sent: list[str], open_for: int) -> None:
        self.inner, self.sent, self.open_for = inner, sent, open_for

    def _open(self, how: str) -> bool:
        if len(self.sent) >= self.open_for:
            return False
        self.sent.append(how)
        return True

    def call_bytes(self, request: Any, timeout_s: float) -> bytes:
        if not self._open("call"):
            raise CallWithheld()
        return self.inner.call_bytes(request, timeout_s)

    def call(self, request: Any, timeout_s: float) -> Any:
        return self.inner.call(request, timeout_s)

    def act(self, request: Any, timeout_s: float) -> Future[Any]:
        if self._open("act"):
            return self.inner.act(request, timeout_s)
        out: Future[Any] = Future()
        out.set_exception(CallWithheld())
        return out


def fenced_game(game: str, open_for: int, sent: list[str]) -> Any:
    clients = [Fenced(InProcessBotClient(load_bot("random", s).act), sent, open_for) for s in range(3)]
    return play(spec(game), make_params(game), 3, 7, clients)  # type: ignore[arg-type]


def test_a_withheld_request_stops_the_game_with_no_result() -> None:
    """One seat asked (a blocking call), and several at once (futures: a game with such decisions)."""
    played = 0
    for game in games():
        sent: list[str] = []
        fenced_game(game, 10**9, sent)  # the whole game, to find the requests made each way
        for how in {"call", "act"} & set(sent[3:]):
            with pytest.raises(GameCancelled, match="call not sent: the attempt's fence closed"):
                fenced_game(game, sent.index(how, 3), [])
            played += how == "act"
    assert played, "no game asks several seats at once: the futures' path is not covered here"


def test_the_heartbeats_fence_closes_when_the_lease_may_have_run_out() -> None:
    """Open while the last accepted renewal is less than SEND_FENCE of the lease old and the lease is
    not lost; its check is only the clock (the store is never asked)."""
    lease_s = 30.0
    now = time.monotonic()
    claim = SimpleNamespace(game_id=1)  # the heartbeat is not started: neither store nor claim is used
    fresh = Heartbeat(None, claim, lease_s, since=now)  # type: ignore[arg-type]
    stale = Heartbeat(None, claim, lease_s, since=now - lease_s * SEND_FENCE)  # type: ignore[arg-type]
    between = Heartbeat(None, claim, lease_s, since=now - lease_s * 0.8)  # type: ignore[arg-type]
    assert fresh.may_send() and between.may_send() and not stale.may_send()
    fresh.lost.set()
    assert not fresh.may_send()
    assert 2 / 3 < SEND_FENCE < 1  # past the point where the referee's check confirms the lease, short of its end


class ClosesOnce(Fenced):
    """As :class:`Fenced`, but the fence closes for request ``at`` alone (a store slow for a moment)."""

    def _open(self, how: str) -> bool:
        self.sent.append(how)
        return len(self.sent) != self.open_for


def test_a_withheld_call_is_sent_again_once_the_lease_is_confirmed() -> None:
    """The fence closed while the lease still held (the store slow to renew it): the referee asks its ``cancelled``
    hook, which confirms the lease with the store, and sends the call once more; the game is the same game."""
    game = games()[0]
    whole = play(spec(game), make_params(game), 3, 7, [InProcessBotClient(load_bot("random", s).act) for s in range(3)])
    sent: list[str] = []
    asked = []
    clients = [ClosesOnce(InProcessBotClient(load_bot("random", s).act), sent, 5) for s in range(3)]
    record = play(spec(game), make_params(game), 3, 7, clients, cancelled=lambda: asked.append(1) and False)  # type: ignore[arg-type]
    assert record.events == whole.events and len(sent) == len(whole.decisions) + 1
    assert len(asked) == 2 * len(whole.decisions) + 1  # before each decision, before each call, and to confirm


@pytest.mark.parametrize("transport", ["stream", "unary"])
def test_a_call_cancelled_by_the_referee_drops_its_late_outcome_quietly(
        raw: list[RawBot], transport: str, caplog: pytest.LogCaptureFixture) -> None:
    """The referee cancels the futures of the seats still asked when it stops a game: their answers, and a
    resend's outcome, arrive later and are dropped, with no error in the thread that delivers them."""
    def slow(request: Any, context: Any) -> bytes:
        time.sleep(0.2)
        if request.game_id == "again":
            context.abort(grpc.StatusCode.UNAVAILABLE, "busy")  # a resend follows, from a thread of its own
        return legal(request)

    raw.append(serve_raw(slow))
    client = GrpcBotClient(raw[0].endpoint, transport)
    client.call_bytes(REQUEST, 2.0)
    died: list[BaseException] = []
    hook, threading.excepthook = threading.excepthook, lambda args: died.append(args.exc_value)  # type: ignore[assignment]
    try:
        futures = [client.act(request_of(game_id), 2.0) for game_id in ("late", "again")]
        assert all(f.cancel() for f in futures)
        time.sleep(1.0)  # both answers, and the resend's, come in
    finally:
        threading.excepthook = hook
    assert not died and "xception" not in caplog.text, (died, caplog.text)  # concurrent.futures' or gRPC's callback
