"""Run a bot that listens on a TCP port, and forward the platform's Unix socket to it (inside the sandbox).

``python3 /opt/cardarena/forward.py SOCKET PORT -- COMMAND...`` starts COMMAND, accepts connections on
the Unix socket SOCKET and joins each to ``127.0.0.1:PORT`` in the sandbox's own network namespace (which
nothing else can reach). It ends when COMMAND ends, with its status. Standard library only: it runs
with the system's Python in every sandbox whose manifest uses ``{port}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(1 << 16):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _serve(socket_path: str, port: int, bot: subprocess.Popen[bytes]) -> int:
    async def join(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))

    # listen only once the bot accepts on its port, so the platform's readiness check means the bot is up
    while bot.poll() is None:
        try:
            _, probe = await asyncio.open_connection("127.0.0.1", port)
            probe.close()
            break
        except OSError:
            await asyncio.sleep(0.02)
    if bot.poll() is not None:
        return bot.returncode
    server = await asyncio.start_unix_server(join, socket_path)
    async with server:
        while bot.poll() is None:
            await asyncio.sleep(0.2)
    return bot.returncode


def main(argv: list[str]) -> int:
    """``SOCKET PORT -- COMMAND...``; returns COMMAND's exit status."""
    if len(argv) < 4 or argv[2] != "--":
        print("usage: forward.py SOCKET PORT -- COMMAND...", file=sys.stderr)
        return 2
    bot = subprocess.Popen(argv[3:])
    return asyncio.run(_serve(argv[0], int(argv[1]), bot))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
