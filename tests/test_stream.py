"""The ActStream transport (``referee.stream``): one stream per bot per process, carrying the requests of
many games by id, each timed on its own, one game's fault never failing another's (bot.proto, ActStream).
Real gRPC servers on 127.0.0.1 (and a Unix socket); the faults of each kind, classified as on Act, are in
the tests run on both transports (``test_referee_hostile``, ``test_reconnect``, ``test_referee_grpc``)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import given, strategies as st

from botsdk.bot import Context
from cardarena.v1 import bot_pb2
from referee import stream as stream_module
from referee.clients import BotCallError, GrpcBotClient, channel_for, parse_answer
from referee.record import FaultKind
from referee.stream import read_reply, request_envelope, stream_for
from tests.a_game import SPEC, GameBot, first_request
from tests.raw_bots import RawBot, serve_raw, stream_reply

REQUEST = first_request()


def request_of(game_id: str) -> bytes:
    """The first request of a game, as one of game ``game_id``."""
    request = bot_pb2.ActRequest()
    request.CopyFrom(REQUEST)
    request.game_id = game_id
    return request.SerializeToString()


def legal(request: bot_pb2.ActRequest) -> bytes:
    """A legal answer to ``request`` (a random legal action, seeded by the decision)."""
    action = SPEC.random_action(getattr(request, SPEC.proto_field), random.Random(request.decision))
    return bot_pb2.ActResponse(**{SPEC.proto_field: action}).SerializeToString()


# the envelopes


@given(st.integers(min_value=1, max_value=2**64 - 1), st.binary(max_size=300))
def test_the_request_envelope_is_protobufs_own(request_id: int, request: bytes) -> None:
    try:
        parsed = bot_pb2.ActRequest.FromString(request)
    except Exception:
        parsed = None
    data = request_envelope(request_id, request)
    if parsed is not None and parsed.SerializeToString() == request:
        assert data == bot_pb2.ActStreamRequest(id=request_id, request=parsed).SerializeToString()
    assert data.startswith(b"\x08") and data.endswith(request)


@given(st.integers(min_value=0, max_value=2**64 - 1), st.sampled_from(["answer", "error", "both", "empty"]),
       st.booleans())
def test_a_reply_reads_as_protobuf_reads_it_with_the_answers_bytes_as_sent(request_id: int, kind: str,
                                                                           unknown: bool) -> None:
    answer = bot_pb2.ActResponse.FromString(legal(REQUEST))
    error = bot_pb2.ActStreamError(code=3, message="bad view")
    message = bot_pb2.ActStreamResponse(id=request_id)
    if kind in ("answer", "both"):
        message.response.CopyFrom(answer)
    if kind in ("error", "both"):
        message.error.CopyFrom(error)
    data = message.SerializeToString() + (b"\xa2\x06\x03abc" if unknown else b"")  # field 100, unknown
    got_id, got_answer, got_error = read_reply(data)
    assert got_id == request_id
    assert got_answer == (answer.SerializeToString() if kind in ("answer", "both") else b"")
    if kind in ("error", "both"):
        assert got_error is not None and (got_error.code, got_error.details) == (grpc.StatusCode.INVALID_ARGUMENT, "bad view")
    else:
        assert got_error is None


def test_an_answer_that_cannot_be_read_is_kept_unread_and_bytes_that_are_no_reply_are_refused() -> None:
    assert read_reply(stream_reply(7, b"\xff\xff")) == (7, b"\xff\xff", None)  # the answer's fault, with its bytes
    for bad in (b"\x08", b"\x12\x05ab", b"\x0a\x01x", b"\x10\x01\x13", b"\xff" * 11):
        with pytest.raises(ValueError):
            read_reply(bad)


# one stream, many games


class Sleeps(GameBot):
    """Answers legally after ``game_id``'s number of tenths of a second (``"slow-5"``: 0.5 s), noting the
    thread each decision was made on."""

    name = "sleeps"

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def answer(self, view: Any, ctx: Context) -> Any:
        self.threads.append(threading.current_thread().name)
        if ctx.game_id.startswith("slow-"):
            time.sleep(int(ctx.game_id[5:]) / 10)
        return super().answer(view, ctx)


def test_the_games_of_a_process_share_one_stream_and_are_answered_out_of_order(bot_server) -> None:
    endpoint = bot_server(Sleeps(), threads=4, inline_s=0)  # concurrently from the start (botsdk.stream)
    clients = [GrpcBotClient(endpoint) for _ in range(3)]
    took: dict[str, float] = {}

    def ask(client: GrpcBotClient, game_id: str) -> None:
        t0 = time.monotonic()
        assert client.call(request_of(game_id), 5.0).WhichOneof("action") == SPEC.proto_field
        took[game_id] = time.monotonic() - t0

    threads = [threading.Thread(target=ask, args=(c, g)) for c, g in zip(clients, ("slow-8", "fast", "slow-3"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert took["fast"] < 0.25 < took["slow-3"] < 0.7 < took["slow-8"], took  # each answered when ready
    assert all(c.used == "stream" for c in clients)
    assert len({id(stream_for(channel_for(endpoint)))}) == 1 and stream_for(channel_for(endpoint)) is not None


def test_each_request_is_timed_on_its_own_and_a_late_answer_is_thrown_away(bot_server) -> None:
    endpoint = bot_server(Sleeps(), threads=4, inline_s=0)
    results: dict[str, object] = {}

    def ask(game_id: str, timeout_s: float, submit: bool) -> None:
        client, t0 = GrpcBotClient(endpoint), time.monotonic()
        try:
            if submit:
                client.act(request_of(game_id), timeout_s).result(10)
            else:
                client.call(request_of(game_id), timeout_s)
            results[game_id] = time.monotonic() - t0
        except BotCallError as exc:
            results[game_id] = (exc.kind, time.monotonic() - t0)

    # the timeouts 0.25 s apart, and each bot answer later than its timeout with its slack: a request timed by
    # another's timer would end at least 0.25 s off (a timer on a loaded machine fired 0.15 s late once)
    asked = [("slow-7", 0.2, False), ("slow-9", 0.45, True), ("slow-2", 1.0, False), ("slow-12", 0.7, True)]
    threads = [threading.Thread(target=ask, args=a) for a in asked]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    for game_id, timeout_s, _ in asked:
        if game_id == "slow-2":
            assert isinstance(results[game_id], float) and 0.2 <= results[game_id] < 0.6  # type: ignore[operator]
        else:
            kind, after = results[game_id]  # type: ignore[misc]
            assert kind is FaultKind.TIMEOUT and timeout_s <= after < timeout_s + 0.25, (game_id, after)
    time.sleep(0.8)  # the late answers come in, and are thrown away
    assert GrpcBotClient(endpoint).call(request_of("fast"), 2.0).WhichOneof("action") == SPEC.proto_field


def test_the_sdk_answers_on_the_streams_thread_until_a_decision_takes_long(bot_server) -> None:
    """botsdk.stream: quick decisions on the stream's own thread, one after the other; from the first one
    that took longer than inline_s, every request on the pool, concurrently."""
    bot = Sleeps()
    endpoint = bot_server(bot, threads=4)
    client = GrpcBotClient(endpoint)
    for _ in range(3):
        client.call(request_of("fast"), 2.0)
    assert not any("-stream" in name for name in bot.threads)  # the gRPC server's thread of the stream
    client.call(request_of("slow-1"), 2.0)  # 0.1 s: longer than inline_s
    took: dict[str, float] = {}

    def ask(game_id: str) -> None:
        t0 = time.monotonic()
        GrpcBotClient(endpoint).call(request_of(game_id), 5.0)
        took[game_id] = time.monotonic() - t0

    threads = [threading.Thread(target=ask, args=(g,)) for g in ("slow-5", "fast")]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join(10)
    assert took["fast"] < 0.3 < took["slow-5"], took  # answered while the slow one thinks
    assert all("-stream" in name for name in bot.threads[4:])  # on the pool


def test_one_games_oversized_answer_never_fails_another_games_request(raw: list[RawBot]) -> None:
    """The stream breaks at the oversized message (gRPC's limit, 64 KiB); both requests on it go to Act:
    the other game is answered, the oversized one is MALFORMED, as on Act."""

    def answer(request: bot_pb2.ActRequest, context: Any) -> bytes:
        if request.game_id == "big":
            time.sleep(0.2)  # while the other request waits on the stream
            return legal(request) + b"\x9a\x06" + b"\xa0\x8d\x06" + b"x" * 100_000  # field 99, 100,000 bytes
        time.sleep(0.4)
        return legal(request)

    raw.append(serve_raw(answer))
    endpoint = raw[0].endpoint
    outcome: dict[str, object] = {}

    def ask(game_id: str) -> None:
        try:
            outcome[game_id] = GrpcBotClient(endpoint).call(request_of(game_id), 3.0).WhichOneof("action")
        except BotCallError as exc:
            outcome[game_id] = (exc.kind, exc.detail)

    threads = [threading.Thread(target=ask, args=(g,)) for g in ("big", "other")]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join(10)
    assert outcome["other"] == SPEC.proto_field
    assert outcome["big"] == (FaultKind.MALFORMED, "answer larger than 65536 bytes")
    assert raw[0].stream_requests == 2 and raw[0].act_calls == 2


def unreadable_for(game_id: str, answer: Any) -> Any:
    """An ActStream handler that sends bytes that are no ActStreamResponse for ``game_id``'s requests and
    answers the others (after 0.3 s)."""

    def handle(requests: Iterator[bot_pb2.ActStreamRequest], context: Any) -> Iterator[bytes]:
        for item in requests:
            if item.request.game_id == game_id:
                yield b"\x0a\x01x"  # field 1 as a string: not an ActStreamResponse
            else:
                time.sleep(0.3)
                yield stream_reply(item.id, answer(item.request, context))

    return handle


def test_a_message_that_is_not_a_reply_breaks_the_stream_and_each_request_on_it_goes_to_act(raw: list[RawBot]) -> None:
    def answer(request: bot_pb2.ActRequest, context: Any) -> bytes:
        return legal(request)

    raw.append(serve_raw(answer, stream=unreadable_for("bad", answer)))
    endpoint = raw[0].endpoint
    good = GrpcBotClient(endpoint)
    pending = good.act(request_of("good"), 3.0)
    time.sleep(0.05)
    bad = GrpcBotClient(endpoint)
    assert bad.call(request_of("bad"), 3.0).WhichOneof("action") == SPEC.proto_field
    assert pending.result(5).WhichOneof("action") == SPEC.proto_field
    assert bad.used == "unary" and raw[0].act_calls >= 1
    assert good.call(request_of("again"), 3.0).WhichOneof("action") == SPEC.proto_field  # a new stream
    assert good.used == "stream"


def ends_after_one(requests: Iterator[bot_pb2.ActStreamRequest], context: Any) -> Iterator[bytes]:
    """An ActStream handler that ends the stream at its first request, unanswered."""
    next(requests)
    return
    yield b""


def raises_at_once(requests: Iterator[bot_pb2.ActStreamRequest], context: Any) -> Iterator[bytes]:
    """An ActStream handler that fails the stream at its first request."""
    next(requests)
    raise RuntimeError("my stream's bug")
    yield b""


@pytest.mark.parametrize("handler", [ends_after_one, raises_at_once], ids=["ended", "failed"])
def test_a_bot_ending_or_failing_its_stream_faults_no_request(raw: list[RawBot], handler: Any) -> None:
    raw.append(serve_raw(lambda request, context: legal(request), stream=handler))
    client = GrpcBotClient(raw[0].endpoint)
    for _ in range(3):
        assert client.call(REQUEST, 3.0).WhichOneof("action") == SPEC.proto_field
    assert raw[0].act_calls == 3  # each sent again as an Act call


def test_a_bot_without_the_stream_is_called_on_act_and_tried_again_later(raw: list[RawBot],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    raw.append(serve_raw(lambda request, context: legal(request), stream=False))
    client = GrpcBotClient(raw[0].endpoint)
    assert parse_answer(client.call_bytes(REQUEST, 2.0)).WhichOneof("action") == SPEC.proto_field
    assert client.used == "unary" and stream_for(channel_for(raw[0].endpoint)) is None  # not tried again
    client.act(REQUEST, 2.0).result(5)
    assert client.used == "unary" and raw[0].act_calls == 2
    monkeypatch.setattr(stream_module, "REFUSED_RETRY_S", 0.0)
    stream_module.refused(channel_for(raw[0].endpoint))
    assert stream_for(channel_for(raw[0].endpoint)) is not None  # tried again once the time is up


def test_the_unary_transport_never_opens_a_stream(raw: list[RawBot]) -> None:
    raw.append(serve_raw(lambda request, context: legal(request)))
    client = GrpcBotClient(raw[0].endpoint, "unary")
    client.call(REQUEST, 2.0)
    client.act(REQUEST, 2.0).result(5)
    assert (client.used, raw[0].act_calls, raw[0].stream_requests) == ("unary", 2, 0)
    with pytest.raises(ValueError, match="unknown transport"):
        GrpcBotClient(raw[0].endpoint, "carrier-pigeon")


def test_a_grpcio_the_stream_was_not_tested_on_calls_every_bot_on_act(raw: list[RawBot],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    assert stream_module.SUPPORTED  # this environment's grpcio is a tested one
    monkeypatch.setattr(stream_module.grpc, "__version__", "9.99.0")
    assert not stream_module._supported()
    monkeypatch.setattr(stream_module, "SUPPORTED", False)
    raw.append(serve_raw(lambda request, context: legal(request)))
    client = GrpcBotClient(raw[0].endpoint)
    client.call(REQUEST, 2.0)
    assert (client.used, raw[0].act_calls, raw[0].stream_requests) == ("unary", 1, 0)


def test_the_stream_works_over_a_unix_socket(raw: list[RawBot], tmp_path: Path) -> None:
    """Hosted bots are reached on a Unix socket: the same stream there."""
    raw.append(serve_raw(lambda request, context: legal(request), address=f"unix:{tmp_path / 'bot.sock'}"))
    client = GrpcBotClient(raw[0].endpoint)
    for _ in range(3):
        assert client.call(REQUEST, 2.0).WhichOneof("action") == SPEC.proto_field
    assert client.act(REQUEST, 2.0).result(5).WhichOneof("action") == SPEC.proto_field
    assert (client.used, raw[0].stream_requests, raw[0].act_calls) == ("stream", 4, 0)


def test_a_bot_swapped_behind_its_endpoint_is_called_on_the_transport_the_new_one_speaks(
        raw: list[RawBot], monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream bot replaced on its port by one serving Act alone, then by a stream bot again: each next
    decision reaches the bot now there and faults nothing, on the stream again once the refusal's time
    (REFUSED_RETRY_S, shortened here) is up."""
    monkeypatch.setattr(stream_module, "REFUSED_RETRY_S", 1.0)
    from referee.botprocess import start_bot_process
    from tests.workers.conftest import free_port_outside_the_ephemeral_range

    port = free_port_outside_the_ephemeral_range()
    endpoint = f"127.0.0.1:{port}"
    first = start_bot_process("random", 1, port=port)
    try:
        client = GrpcBotClient(endpoint)
        client.call(REQUEST, 2.0)
        assert client.used == "stream"
    finally:
        first.stop()
    raw.append(serve_raw(lambda request, context: legal(request), stream=False, address=endpoint))
    for _ in range(3):  # the stream broke: Act (a fresh channel); then the new bot refuses the stream: Act
        assert GrpcBotClient(endpoint).call(REQUEST, 2.0).WhichOneof("action") == SPEC.proto_field
    assert raw[0].act_calls == 3
    raw[0].server.stop(0)
    back = start_bot_process("random", 2, port=port)
    try:
        assert GrpcBotClient(endpoint).call(REQUEST, 2.0).WhichOneof("action") == SPEC.proto_field
        time.sleep(1.1)
        again = GrpcBotClient(endpoint)
        assert again.call(REQUEST, 2.0).WhichOneof("action") == SPEC.proto_field and again.used == "stream"
    finally:
        back.stop()
