"""What spectators may see of a game while it is being played: its public events and faults so far.

The referee attaches the game's event and fault lists to a :class:`LiveView`
(``play(..., live=view)``); another thread (the worker's lease heartbeat) takes a
:meth:`LiveView.snapshot` now and then and stores it, so the dashboard can show
a running game. Only events every seat saw (``visible_to is None``) and the
seats, decisions and kinds of faults leave this module: hands, views, answers,
chance outcomes and results are never in a snapshot (the dashboard shows them
once the game is over).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from referee.engine import Event
from referee.record import Fault


class LiveView:
    """A window on one game in progress, safe to read from another thread.

    Before :meth:`attach` (the game has not started) :meth:`snapshot` is None.
    Each snapshot translates only the events and faults added since the previous one.
    """

    def __init__(self) -> None:
        self._header: dict[str, Any] | None = None
        self._events: Sequence[Event] = ()
        self._faults: Sequence[Fault] = ()
        self._lock = threading.Lock()
        self._events_read = 0                  # events of the game translated so far
        self._public: list[dict[str, Any]] = []
        self._fault_rows: list[dict[str, Any]] = []

    def attach(self, header: dict[str, Any], events: Sequence[Event], faults: Sequence[Fault]) -> None:
        """Called by the referee when the game starts: ``header`` (game, params, num_seats; not the game
        id its bots are sent, which would tie a public page of a running game to the bots' own requests)
        and the lists the game appends its events and faults to."""
        with self._lock:
            self._events, self._faults = events, faults
            self._events_read, self._public, self._fault_rows = 0, [], []
            self._header = {**header, "started_at": time.time()}

    def snapshot(self) -> dict[str, Any] | None:
        """The public part of the game so far, JSON-ready: the header, ``events`` (public ones,
        in order), ``faults`` (seat, decision, kind; no detail or answer, which may show a
        card) and ``event_count`` (all events so far, public or not). None before the game starts."""
        with self._lock:
            if self._header is None:
                return None
            count = len(self._events)  # the game thread only appends: read up to here
            for e in self._events[self._events_read:count]:
                if e.visible_to is None:
                    self._public.append({"kind": e.kind, "data": e.data, "visible_to": None})
            self._events_read = count
            for f in self._faults[len(self._fault_rows):len(self._faults)]:
                self._fault_rows.append({"seat": f.seat, "decision": f.decision, "kind": f.kind.value, "detail": "",
                                         "answer": None})
            return {
                **self._header,
                "event_count": count,
                "events": list(self._public),
                "faults": list(self._fault_rows),
            }
