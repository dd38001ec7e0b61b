"""The clients' fence: a request goes out only while the attempt's lease surely holds.

The referee's check before each decision cannot see a stall of its process between that check and the
send; the fence is asked the moment before the send itself (on Act, on the stream, and for a request
that waited behind another's send), a withheld request never reaches the bot, and the referee stops
the game without charging the bot anything."""

from __future__ import annotations

import time
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any

import pytest

from referee.bots import load_bot
from referee.clients import BotClient, CallWithheld, GrpcBotClient, InProcessBotClient
from referee.games import games, make_params, spec
from referee.referee import GameCancelled, play
from referee.stream import stream_for
from tests.a_game import first_request
from tests.raw_bots import RawBot, serve_raw
from tests.test_stream import legal, request_of
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


def test_a_request_waiting_behind_another_send_is_withheld_if_its_fence_closed_meanwhile(raw: list[RawBot]) -> None:
    """gRPC has one send in flight per stream; the others wait and go out as each completes, from the
    reader's thread, perhaps after a stall: their fence is asked then, not when they were queued."""
    raw.append(serve_raw(lambda request, context: legal(request)))
    client = GrpcBotClient(raw[0].endpoint)
    client.call_bytes(REQUEST, 2.0)  # the stream is open
    stream = stream_for(client._channel)
    assert stream is not None
    closes, stays = Gate(), Gate()
    with stream._lock:
        stream._sending = True  # as while another request's send is in flight: these two wait behind it
    withheld = stream.submit(request_of("withheld"), 5.0, closes)
    sent = stream.submit(request_of("sent"), 5.0, stays)
    assert (closes.asked, stays.asked) == (1, 1)
    closes.open = False  # the process stalled past its lease before the send in flight completed
    with stream._lock:
        stream._sending = False
        failed = stream._send_next()
    for future in failed:
        future.set_exception(CallWithheld())
    assert failed == [withheld]
    with pytest.raises(CallWithheld):
        withheld.result(1)
    assert sent.result(5)
    assert raw[0].stream_requests == 2  # the first call and "sent"


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
    assert fresh.may_send() and not stale.may_send()
    fresh.lost.set()
    assert not fresh.may_send()
    assert 2 / 3 < SEND_FENCE < 1  # past the point where the referee's check confirms the lease, short of its end
