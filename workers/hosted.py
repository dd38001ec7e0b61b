"""Hosted bots in a worker process: the referee's client for a ``hosted:`` endpoint, and each game's output.

A process that plays games (a local pool process, a Celery pool process, anything calling
``workers.service.run_game``) hosts the bots its games need: :func:`attach` gives it a
:class:`hosting.supervisor.Supervisor` over its store, and :func:`client` turns a hosted bot's endpoint
(``hosted:<bot id>/<sha256>``) into the referee's ordinary gRPC client on the bot's Unix socket (:class:`HostedClient`,
which also marks the copy used at each decision), so the health check, the identity check and the game itself reach
a hosted bot exactly as they reach a remote one. A
bot that cannot be started is a client that is unreachable with the reason (its table is deferred,
rules §4.9). A process that plays no game (``season run``'s checks before it starts, a ladder's runner)
starts no bot: it reports a hosted bot as answering (:class:`NotHere`); the worker that plays the game
checks it.

:func:`marks` and :func:`keep_outputs` keep, for each hosted seat of a game, what its bot wrote while
the game was played (at most ``hosted_output_kb``), for the bot's author.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from functools import partial

from cardarena.v1 import bot_pb2
from config import get_settings
from hosting.launch import HostingConfig
from hosting.sandbox import unavailable
from hosting.supervisor import HostingError, Mark, Supervisor
from referee.clients import BotCallError, BotClient, GrpcBotClient, UnreachableBotClient
from referee.record import FaultKind
from store import SeatBot, Store, StoreError
from store.artifacts import OutputInfo, hosted_of

log = logging.getLogger(__name__)

_lock = threading.Lock()
_supervisor: tuple[int, Supervisor] | None = None


def attach(store: Store) -> Supervisor:
    """This process's supervisor, made over ``store`` on first use (once per process; a forked child makes its own)."""
    global _supervisor
    with _lock:
        if _supervisor is None or _supervisor[0] != os.getpid():
            supervisor = Supervisor(store.artifacts, HostingConfig.from_settings())
            _supervisor = (os.getpid(), supervisor)
            atexit.register(supervisor.close)
        return _supervisor[1]


def detach() -> None:
    """Stop this process's supervisor and its copies, if it has one; the next :func:`attach` makes a new one. For a
    process that played one store's games in-process and goes on to another store (the tests)."""
    global _supervisor
    with _lock:
        current, _supervisor = _supervisor, None
    if current is not None and current[0] == os.getpid():
        current[1].close()


def supervisor() -> Supervisor | None:
    """This process's supervisor, if it plays games."""
    current = _supervisor
    return current[1] if current is not None and current[0] == os.getpid() else None


class NotHere:
    """A hosted bot seen from a process that plays no game: it is started by the worker that plays its game,
    which checks it then; here it counts as answering and cannot be called."""

    def __init__(self, sha: str) -> None:
        self.sha = sha

    def _fail(self) -> BotCallError:
        return BotCallError(FaultKind.UNREACHABLE, f"hosted bot {self.sha[:12]} runs only in a worker process")

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        """Raise BotCallError(UNREACHABLE)."""
        raise self._fail()

    def call(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bot_pb2.ActResponse:
        """Raise BotCallError(UNREACHABLE)."""
        raise self._fail()

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """A future that raises BotCallError(UNREACHABLE)."""
        out: Future[bot_pb2.ActResponse] = Future()
        out.set_exception(self._fail())
        return out


class HostedClient(GrpcBotClient):
    """The client of a hosted bot's copy: each decision asked marks the copy used (``touch``), so a game in flight
    never loses its bot to the idle stop, however long its other seats think."""

    def __init__(self, endpoint: str, transport: str, touch: Callable[[], None],
                 fence: Callable[[], bool] | None = None) -> None:
        super().__init__(endpoint, transport, fence)
        self._touch = touch

    def call_bytes(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> bytes:
        """:meth:`GrpcBotClient.call_bytes`, the copy marked used first."""
        self._touch()
        return super().call_bytes(request, timeout_s)

    def act(self, request: bot_pb2.ActRequest | bytes, timeout_s: float) -> Future[bot_pb2.ActResponse]:
        """:meth:`GrpcBotClient.act`, the copy marked used first."""
        self._touch()
        return super().act(request, timeout_s)


def client(endpoint: str, fence: Callable[[], bool] | None = None) -> BotClient | NotHere:
    """The referee's client for the hosted bot at ``endpoint`` (``hosted:<bot id>/<sha256>``): its running copy's
    Unix socket, started now if needed; unreachable, with the reason, if it cannot run here. ``fence``: as
    :class:`referee.clients.GrpcBotClient`'s."""
    hosted = hosted_of(endpoint)
    if hosted is None:
        return UnreachableBotClient(f"malformed hosted endpoint {endpoint[:80]!r}")
    current = supervisor()
    if current is None:
        return NotHere(hosted.sha256)
    why = unavailable()
    if why is not None:
        return UnreachableBotClient(why)
    try:
        return HostedClient(current.endpoint(hosted), get_settings().bot_transport, partial(current.touch, hosted), fence)
    except HostingError as exc:
        log.warning("%s", exc)
        return UnreachableBotClient(str(exc))


def marks(seats: Sequence[SeatBot]) -> dict[int, tuple[int, Mark]]:
    """``{seat: (bot id, where its copy's output stands)}`` for the hosted seats whose bot this process runs."""
    current = supervisor()
    if current is None:
        return {}
    out = {}
    for seat in seats:
        hosted = hosted_of(seat.endpoint)
        mark = current.mark(hosted) if hosted is not None else None
        if mark is not None:
            out[seat.seat] = (seat.bot_id, mark)
    return out


def keep_outputs(store: Store, game_id: int, marked: Mapping[int, tuple[int, Mark]]) -> None:
    """Store what each marked seat's bot wrote since its mark (at most ``hosted_output_kb``); a store error is
    logged, not raised (the game's result is stored already)."""
    if not marked:
        return
    limit = HostingConfig.from_settings().output_bytes
    outputs = []
    for seat, (bot_id, mark) in sorted(marked.items()):
        text, cut = mark.log.since(mark.offset, limit)
        outputs.append(OutputInfo(seat, bot_id, text, cut))
    try:
        store.artifacts.put_outputs(game_id, outputs)
    except StoreError as exc:
        log.warning("game %s: the hosted bots' output was not stored: %s", game_id, exc)


def warning() -> str | None:
    """One line for a worker that cannot run hosted bots (None when it can)."""
    why = unavailable()
    return None if why is None else f"this worker {why}; their games are put off until a worker that can claims them"
