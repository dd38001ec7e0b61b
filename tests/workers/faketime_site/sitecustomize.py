"""Loaded (as ``sitecustomize``) by the processes that tests/workers/test_clocks.py runs under
libfaketime with ``FAKETIME_DONT_FAKE_MONOTONIC=1``: there libfaketime 0.9.10 refuses the absolute
monotonic ``clock_nanosleep`` that ``time.sleep`` makes (EINVAL), so ``time.sleep`` waits with
``select`` on the monotonic clock instead. Only the sleeping changes; the wall clock stays shifted."""

import select
import time


def _sleep(seconds: float) -> None:
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        select.select([], [], [], left)


time.sleep = _sleep
