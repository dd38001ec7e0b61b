"""Answering the referee's ActStream (bot.proto): each request answered with its id as soon as it is ready.

One stream carries the decisions of every game of one worker process. While each of the bot's
decisions took less than ``inline_s`` seconds (:data:`INLINE_S` by default), a stream's requests are
answered on the stream's own thread, one after the other: no hand-off between threads, which in
Python costs more than a quick bot's own work (``bench_bots`` in ``docs/measurements.md``).
From the first decision that took longer, the requests of every stream of the server are handed to a
pool of ``threads`` threads as they come, and each answer is sent as soon as it is ready, so that one
game's long think never holds up another game's answer (requests must be answered concurrently,
bot.proto). Until then, a request that comes while a decision is being computed waits for it: at
most ``inline_s``, and once for the one decision that took longer. ``inline_s=0`` hands every request
to the pool from the start.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures

import grpc

from cardarena.v1 import bot_pb2

#: Decisions shorter than this (seconds, wall time) are answered on the stream's own thread: far above a
#: quick bot's decision (the reference bots take 0.03 ms, under 1 ms at worst) even on a busy machine,
#: far below a deadline (1 s by default).
INLINE_S = 0.02

#: The end of a stream's answers (its requests are over and every one is answered).
_END = b""

Answer = Callable[[bot_pb2.ActRequest], "bot_pb2.ActResponse | tuple[grpc.StatusCode, str]"]


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if not value:
            out.append(low)
            return bytes(out)
        out.append(low | 0x80)


def reply(request_id: int, answered: bot_pb2.ActResponse | tuple[grpc.StatusCode, str]) -> bytes:
    """The wire bytes of the ``ActStreamResponse`` of request ``request_id``: the answer, or the error
    (a status code and its message). The answer's bytes are written in place, not copied into a message."""
    if isinstance(answered, tuple):
        code, message = answered
        error = bot_pb2.ActStreamError(code=code.value[0], message=message)
        return bot_pb2.ActStreamResponse(id=request_id, error=error).SerializeToString()
    data = answered.SerializeToString()
    head = b"\x08" + _varint(request_id) if request_id else b""
    return head + b"\x12" + _varint(len(data)) + data


class StreamAnswers:
    """Answers the ActStreams of one server with ``answer`` (a request to its answer or error status):
    on each stream's own thread while every decision took less than ``inline_s`` seconds, then on a
    pool of ``threads`` threads (module docstring)."""

    def __init__(self, answer: Answer, threads: int, inline_s: float = INLINE_S, name: str = "bot") -> None:
        self._answer = answer
        self._threads = threads
        self._name = name
        self.inline_s = inline_s
        #: set once a decision took ``inline_s`` or longer: every stream hands its requests to the pool
        self.pooled = inline_s <= 0
        self._pool: futures.ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def serve(self, requests: Iterator[bot_pb2.ActStreamRequest], context: grpc.ServicerContext) -> Iterator[bytes]:
        """The ActStream handler: the answers' wire bytes, as they are ready."""
        answer, limit = self._answer, self.inline_s
        while not self.pooled:
            try:
                item = next(requests)
            except StopIteration:
                return
            except grpc.RpcError:  # the referee cancelled the stream, or its connection is gone
                return
            t0 = time.perf_counter()
            answered = answer(item.request)
            if time.perf_counter() - t0 >= limit:
                self.pooled = True
            yield reply(item.id, answered)
        yield from self._on_pool(requests)

    def _pool_of(self) -> futures.ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = futures.ThreadPoolExecutor(max_workers=self._threads,
                                                        thread_name_prefix=f"bot-{self._name}-stream")
            return self._pool

    def _on_pool(self, requests: Iterator[bot_pb2.ActStreamRequest]) -> Iterator[bytes]:
        """A reader thread hands each request to the pool as it comes; the answers are sent as they are ready."""
        answers: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        pool = self._pool_of()
        left = [1]  # the reader's own share, and one per request not answered yet
        lock = threading.Lock()

        def finish() -> None:
            with lock:
                left[0] -= 1
                over = left[0] == 0
            if over:
                answers.put(_END)

        def run(item: bot_pb2.ActStreamRequest) -> None:
            try:
                answers.put(reply(item.id, self._answer(item.request)))
            finally:
                finish()

        def read() -> None:
            try:
                for item in requests:
                    with lock:
                        left[0] += 1
                    try:
                        pool.submit(run, item)
                    except RuntimeError:  # the server is stopping
                        finish()
                        return
            except grpc.RpcError:
                pass  # the referee cancelled the stream, or its connection is gone
            finally:
                finish()

        threading.Thread(target=read, daemon=True, name=f"bot-{self._name}-stream-reader").start()
        while (data := answers.get()) is not _END:
            yield data
