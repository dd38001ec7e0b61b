"""How a bot that is down, stopped or silent is classified, and a bot that comes back is
reached at once (rules §4.7): real gRPC servers in their own processes on 127.0.0.1, each case on
both transports (the bot's ActStream, and Act calls), classified alike."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path
from collections.abc import Iterator

import pytest

from referee.botprocess import BotProcess, start_bot_process
from cardarena.v1 import bot_pb2, bot_pb2_grpc
from referee.clients import BotCallError, GrpcBotClient, tcp_probe
from referee.record import FaultKind
from tests.a_game import SPEC, first_request
from tests.workers.conftest import free_port_outside_the_ephemeral_range

#: A real first decision of GAME, which every bot here (``random``, ``Stalls``) answers.
_REQUEST = first_request()


def request() -> bot_pb2.ActRequest:
    return _REQUEST


def fault_of(endpoint: str, timeout_s: float = 0.5, concurrent: bool = False,
             transport: str = "stream") -> FaultKind | None:
    """The fault kind of one decision asked on a client made now (as every game makes its own), or None."""
    client = GrpcBotClient(endpoint, transport)
    try:
        if concurrent:
            client.act(request(), timeout_s).result(timeout_s + 5)
        else:
            client.call(request(), timeout_s)
    except BotCallError as exc:
        return exc.kind
    return None


@pytest.fixture
def fixed_port() -> int:
    return free_port_outside_the_ephemeral_range()


@pytest.fixture
def bot_on_port(fixed_port: int) -> Iterator[list[BotProcess]]:
    started: list[BotProcess] = []
    yield started
    for process in started:
        process.stop()


@pytest.mark.parametrize("concurrent", [False, True], ids=["call", "act"])
def test_a_bot_killed_and_restarted_on_its_port_is_reached_on_the_next_call(
        fixed_port: int, bot_on_port: list[BotProcess], concurrent: bool, transport: str) -> None:
    endpoint = f"127.0.0.1:{fixed_port}"
    bot_on_port.append(start_bot_process("random", 1, port=fixed_port))
    assert fault_of(endpoint, concurrent=concurrent, transport=transport) is None
    bot_on_port[0].process.kill()
    bot_on_port[0].process.join(5)
    # while it is down: refused connections, every time (and gRPC's reconnect backoff grows)
    for _ in range(4):
        assert fault_of(endpoint, concurrent=concurrent, transport=transport) is FaultKind.UNREACHABLE
        time.sleep(0.3)
    bot_on_port.append(start_bot_process("random", 1, port=fixed_port))
    # back: the very next call reaches it, though the cached channel is still backing off
    assert fault_of(endpoint, concurrent=concurrent, transport=transport) is None
    client = GrpcBotClient(endpoint, transport)
    client.call(request(), 2.0)
    assert client.used == transport  # on a stream of its own again
    assert GrpcBotClient(endpoint).health(2.0) is None


def _wait_stopped(pid: int, limit_s: float = 30.0) -> None:
    """Wait until every thread of ``pid`` is stopped (state ``T`` in /proc); a bound, not a timing margin."""
    end = time.monotonic() + limit_s
    while True:
        states = []
        for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
            try:
                states.append(stat.read_text().rsplit(")", 1)[1].split()[0])
            except (OSError, IndexError):
                continue
        if states and all(state in ("T", "t") for state in states):
            return
        assert time.monotonic() < end, f"process {pid} did not stop: thread states {states}"
        time.sleep(0.01)


def test_a_stopped_bot_times_out_the_same_way_every_time(bot_on_port: list[BotProcess], fixed_port: int,
                                                         transport: str) -> None:
    bot = start_bot_process("random", 1, port=fixed_port)
    bot_on_port.append(bot)
    assert fault_of(bot.endpoint, transport=transport) is None
    os.kill(bot.process.pid, signal.SIGSTOP)
    _wait_stopped(bot.process.pid)  # kill() returns before every thread has stopped: one may still answer
    try:
        kinds = [fault_of(bot.endpoint, 0.3, concurrent=i % 2 == 1, transport=transport) for i in range(8)]
        assert GrpcBotClient(bot.endpoint).health(0.5) is not None  # no health answer either
    finally:
        os.kill(bot.process.pid, signal.SIGCONT)
    assert kinds == [FaultKind.TIMEOUT] * 8
    assert fault_of(bot.endpoint, 2.0, transport=transport) is None  # answering again


def test_an_endpoint_that_accepts_tcp_but_never_speaks_grpc_is_a_timeout(transport: str) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])  # accepted, never read or answered
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    endpoint = f"127.0.0.1:{listener.getsockname()[1]}"
    try:
        kinds = [fault_of(endpoint, 0.3, concurrent=i % 2 == 1, transport=transport) for i in range(6)]
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        listener.close()
    assert kinds == [FaultKind.TIMEOUT] * 6


def test_a_refused_connection_is_unreachable_and_says_so(dead_endpoint: str, transport: str) -> None:
    client = GrpcBotClient(dead_endpoint, transport)
    with pytest.raises(BotCallError) as caught:
        client.call(request(), 1.0)
    assert caught.value.kind is FaultKind.UNREACHABLE and "refused" in caught.value.detail.lower()
    assert tcp_probe(dead_endpoint, 1.0) is not None
    assert (client.health(1.0) or "").startswith("endpoint unreachable")


def test_one_games_channel_reset_never_fails_another_games_call(bot_on_port: list[BotProcess], fixed_port: int,
                                                                transport: str) -> None:
    """Two games of one process share the cached channel; one replaces it (as after an outage it
    saw): the other's call in progress on it is answered, and its next call on it too (item:
    a killed bot must never void another game, rules §4.3)."""
    from referee.clients import channel_for, reset_channel

    bot = start_bot_process("tests.workers.slowbots:Stalls", 0, port=fixed_port)
    bot_on_port.append(bot)
    other, resetting = GrpcBotClient(bot.endpoint, transport), GrpcBotClient(bot.endpoint, transport)
    shared = channel_for(bot.endpoint)
    in_progress = other.act(request(), 10.0)
    time.sleep(0.3)  # the call is in the bot (2 s per decision)
    fresh = reset_channel(bot.endpoint, shared)
    assert fresh is not shared and channel_for(bot.endpoint) is fresh
    assert in_progress.result(15).WhichOneof("action") == SPEC.proto_field
    assert other.call(request(), 10.0).WhichOneof("action") == SPEC.proto_field  # still on the old channel
    assert resetting.call(request(), 10.0).WhichOneof("action") == SPEC.proto_field
    assert other.used == resetting.used == transport


def test_a_call_on_a_channel_closed_under_it_is_sent_on_the_current_one(bot_on_port: list[BotProcess],
                                                                       fixed_port: int, transport: str) -> None:
    """Even a channel closed under a client (only at shutdown) never raises out of a call: the
    call goes out on this process's current channel."""
    from referee.clients import close_channels

    bot = start_bot_process("random", 1, port=fixed_port)
    bot_on_port.append(bot)
    blocking, concurrent = GrpcBotClient(bot.endpoint, transport), GrpcBotClient(bot.endpoint, transport)
    close_channels()
    assert blocking.call(request(), 5.0).WhichOneof("action") == SPEC.proto_field
    assert concurrent.act(request(), 5.0).result(10).WhichOneof("action") == SPEC.proto_field
    assert concurrent.health(2.0) is None
    assert blocking.used == concurrent.used == transport


@pytest.mark.parametrize("concurrent", [False, True], ids=["call", "act"])
def test_calls_in_progress_when_their_bot_is_killed_are_unreachable_every_time(
        bot_on_port: list[BotProcess], concurrent: bool, transport: str) -> None:
    """SIGKILL of a bot with 6 calls in it, 3 times: every call is `unreachable`, never `error`
    (the port may accept a connection for a moment while the dying process's connections are
    reset; the call sent again then finds it refused), rules §4.7."""
    kinds: list[FaultKind | None] = []
    for _ in range(3):
        bot = start_bot_process("tests.workers.slowbots:Stalls", 0, port=free_port_outside_the_ephemeral_range())
        bot_on_port.append(bot)
        got: list[FaultKind | None] = []
        threads = [threading.Thread(target=lambda: got.append(fault_of(bot.endpoint, 8.0, concurrent, transport)))
                   for _ in range(6)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # every call is in the bot's 2 s sleep
        bot.process.kill()
        for thread in threads:
            thread.join(30)
        kinds += got
    assert kinds == [FaultKind.UNREACHABLE] * 18


class AnswersUnavailable(bot_pb2_grpc.BotServicer):
    """A bot servicer that answers every Act, and every request on its ActStream, with the UNAVAILABLE
    status itself, counting them."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.lock = threading.Lock()

    def _count(self) -> None:
        with self.lock:
            self.calls += 1

    def Act(self, request, context):  # noqa: N802, ANN001, ANN201 (the generated servicer's names)
        import grpc

        self._count()
        context.abort(grpc.StatusCode.UNAVAILABLE, "busy, try later")

    def ActStream(self, requests, context):  # noqa: N802, ANN001, ANN201
        import grpc

        for item in requests:
            self._count()
            error = bot_pb2.ActStreamError(code=grpc.StatusCode.UNAVAILABLE.value[0], message="busy, try later")
            yield bot_pb2.ActStreamResponse(id=item.id, error=error)


@pytest.mark.parametrize("concurrent", [False, True], ids=["call", "act"])
def test_a_bot_answering_unavailable_itself_is_sent_the_request_once_more_then_charged_an_error(
        concurrent: bool, transport: str) -> None:
    """rules §4.7: the referee cannot tell the bot's own UNAVAILABLE from a failed connection; the
    port accepts, so the request goes once more on a fresh connection (the bot sees it twice), and
    the second UNAVAILABLE is an error fault, the same every time. On the stream, which works, the
    request goes once more on it, and the second UNAVAILABLE is the same error."""
    from concurrent import futures

    import grpc


    servicer = AnswersUnavailable()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    bot_pb2_grpc.add_BotServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        kinds = [fault_of(f"127.0.0.1:{port}", 2.0, concurrent, transport) for _ in range(3)]
    finally:
        server.stop(0)
    assert kinds == [FaultKind.ERROR] * 3
    assert servicer.calls == 6
