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

import time
from collections.abc import Sequence
from typing import Any

from referee.engine import Event
from referee.record import Fault


class LiveView:
    """A window on one game in progress, safe to read from another thread.

    Before :meth:`attach` (the game has not started) :meth:`snapshot` is None.
    """

    def __init__(self) -> None:
        self._header: dict[str, Any] | None = None
        self._events: Sequence[Event] = ()
        self._faults: Sequence[Fault] = ()

    def attach(self, header: dict[str, Any], events: Sequence[Event], faults: Sequence[Fault]) -> None:
        """Called by the referee when the game starts: ``header`` (game, params, num_seats,
        game_id) and the lists the game appends its events and faults to."""
        self._events, self._faults = events, faults
        self._header = {**header, "started_at": time.time()}

    def snapshot(self) -> dict[str, Any] | None:
        """The public part of the game so far, JSON-ready: the header, ``events`` (public ones,
        in order), ``faults`` (seat, decision, kind; no detail or answer, which may show a
        card) and ``event_count`` (all events so far, public or not). None before the game starts."""
        if self._header is None:
            return None
        events = list(self._events)  # a copy first: the game thread keeps appending
        faults = list(self._faults)
        return {
            **self._header,
            "event_count": len(events),
            "events": [{"kind": e.kind, "data": e.data, "visible_to": None} for e in events if e.visible_to is None],
            "faults": [{"seat": f.seat, "decision": f.decision, "kind": f.kind.value, "detail": "", "answer": None}
                       for f in faults],
        }
