"""A TCP proxy that delays every byte by a fixed time each way: a bot far away, for the cluster and its bench.

``DelayProxy(listen, target, delay_ms)`` forwards each connection accepted on ``listen`` (host, port)
to ``target``, holding each chunk read ``delay_ms / 2`` milliseconds before writing it on, in order,
in each direction: a round trip through it takes ``delay_ms`` more (bandwidth is not limited).
``delay_ms`` may be changed while it runs (new chunks take the new delay). It runs an asyncio loop in
a thread of its own: ``start()`` returns once it listens (its port in ``port``), ``stop()`` closes it.
"""

from __future__ import annotations

import asyncio
import threading
import time


class DelayProxy:
    """See the module docstring."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int], delay_ms: float = 0.0) -> None:
        self.listen, self.target, self.delay_ms = listen, target, delay_ms
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="delay-proxy", daemon=True)
        self._server: asyncio.base_events.Server | None = None

    def start(self) -> DelayProxy:
        """Listen and serve in a thread; returns self once listening. Raises RuntimeError if it cannot bind."""
        self._thread.start()
        if not self._ready.wait(10) or not self.port:
            raise RuntimeError(f"the delay proxy could not listen on {self.listen}")
        return self

    def stop(self) -> None:
        """Stop listening and drop every connection."""
        if self._loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(5)
            except Exception:  # noqa: BLE001 - stopping anyway
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._server = self._loop.run_until_complete(asyncio.start_server(self._accept, *self.listen))
            self.port = self._server.sockets[0].getsockname()[1]
        finally:
            self._ready.set()
        self._loop.run_forever()

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(*self.target)
        except OSError:
            client_w.close()
            return
        try:
            await asyncio.gather(self._pipe(client_r, server_w), self._pipe(server_r, client_w), return_exceptions=True)
        except asyncio.CancelledError:  # stop(): the connection is dropped
            client_w.close()
            server_w.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy ``reader`` to ``writer``, each chunk written delay_ms/2 after it was read, in order."""
        chunks: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def send() -> None:
            while True:
                due, data = await chunks.get()
                if not data:
                    break
                if (wait := due - time.monotonic()) > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()

        sender = asyncio.ensure_future(send())
        try:
            while data := await reader.read(65536):
                chunks.put_nowait((time.monotonic() + self.delay_ms / 2000.0, data))
        except OSError:
            pass
        chunks.put_nowait((0.0, b""))
        try:
            await sender
        finally:
            writer.close()
