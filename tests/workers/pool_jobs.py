"""Jobs for the pool tests: module-level, so spawned pool processes can import them."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

@dataclass(frozen=True)
class Answer:
    """What a job answers: its game id, the pid and thread that ran it, and when it ran (monotonic s)."""

    game_id: int
    pid: int
    thread: str
    began: float
    ended: float


def setup(tag: str) -> None:
    """The pool's initializer: nothing to prepare (``tag`` checks that its arguments arrive)."""
    assert tag == "x"


def nap(game_id: int) -> Answer:
    """Sleeps 0.3 s (game ids ≥ 1000: for ever, as a game that never ends), then answers."""
    began = time.monotonic()
    time.sleep(0.3 if game_id < 1000 else 3600)
    return Answer(game_id, os.getpid(), threading.current_thread().name, began, time.monotonic())


def fails(game_id: int) -> Answer:
    raise ValueError(f"no game {game_id}")
