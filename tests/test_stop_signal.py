"""A command's Ctrl-C or SIGTERM is not lost where Python drops the KeyboardInterrupt it raises: in a garbage
collector's callback (``Exception ignored in``), as SQLAlchemy's are. The run loops ask
:func:`cli.common.raise_if_stopped` between games (``tests/ladder/test_cli_ladder.py`` stops a real ladder run)."""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
import weakref

import pytest

from cli.common import raise_if_stopped, sigterm_as_interrupt


class _Object:
    pass


def _signal_inside_a_gc_callback(signum: int) -> None:
    """Deliver ``signum`` to this process while a weakref callback runs: the KeyboardInterrupt its handler raises
    there is printed as ignored and dropped, as Python does for any exception in such a callback."""
    def callback(_ref: object) -> None:
        os.kill(os.getpid(), signum)
        time.sleep(0.5)  # the handler runs here, between two bytecodes of this callback

    obj = _Object()
    ref = weakref.ref(obj, callback)
    del obj
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_dropped_in_a_gc_callback_still_stops_the_run(signum: int, monkeypatch: pytest.MonkeyPatch) -> None:
    dropped: list[type[BaseException] | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: dropped.append(unraisable.exc_type))
    with sigterm_as_interrupt():
        raise_if_stopped()  # nothing yet
        _signal_inside_a_gc_callback(signum)  # returns: the KeyboardInterrupt was dropped
        assert dropped == [KeyboardInterrupt]
        with pytest.raises(KeyboardInterrupt):
            raise_if_stopped()


def test_a_new_command_starts_unstopped_and_ctrl_c_is_given_back() -> None:
    before = signal.getsignal(signal.SIGINT)
    with sigterm_as_interrupt():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        with pytest.raises(KeyboardInterrupt):
            raise_if_stopped()
    assert signal.getsignal(signal.SIGINT) is before
    with sigterm_as_interrupt():
        raise_if_stopped()  # the stop of the command before is not this one's
