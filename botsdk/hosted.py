"""``python -m botsdk.hosted module:Class``: serve a submitted Python bot where the platform says.

The platform runs this in the hosted bot's sandbox when its ``cardarena.toml`` says
``serve = "module:Class"``: it imports ``module`` from the submission (the working directory),
makes ``Class()`` and serves it, with the health service, on the Unix socket named by
``CARDARENA_SOCKET``, with as many server threads as the bot's ``capacity``. It prints one line
when it listens; an import error or a bad class is one line on stderr and exit status 2.
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
import sys

from botsdk.bot import Bot
from botsdk.server import serve


def load(spec: str) -> Bot:
    """``Class()`` of ``module:Class``; raises SystemExit(2) with one line saying what is wrong."""
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise SystemExit(f"error: serve must be module:Class, not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the author's import error, one line (the traceback follows in the log)
        logging.exception("importing %s", module_name)
        raise SystemExit(f"error: cannot import {module_name}: {type(exc).__name__}: {exc}") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type) or not issubclass(cls, Bot):
        raise SystemExit(f"error: {spec} is not a botsdk.Bot subclass")
    return cls()


def main(argv: list[str] | None = None) -> None:
    """Serve the bot of ``argv[0]`` (``module:Class``) on ``$CARDARENA_SOCKET`` until SIGTERM."""
    # SIGTERM is waited for (sigwait, below), blocked first in this thread and so in every thread started after it
    # (gRPC's, the bot's): waiting costs no wake-ups, where gRPC's wait_for_termination() polls ten times a second
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    args = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if len(args) != 1:
        raise SystemExit("usage: python -m botsdk.hosted module:Class (with CARDARENA_SOCKET set)")
    path = os.environ.get("CARDARENA_SOCKET")
    if not path:
        raise SystemExit("error: CARDARENA_SOCKET is not set: the platform says where to listen")
    bot = load(args[0])
    server, _ = serve(bot, host=f"unix:{path}", threads=max(1, bot.capacity))
    print(f"bot {bot.name} ({', '.join(bot.games)}) listening on unix:{path}", flush=True)
    signal.sigwait({signal.SIGTERM})
    server.stop(1).wait()


if __name__ == "__main__":
    main()
