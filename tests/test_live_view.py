"""The live view translates only what is new at each snapshot, and shows exactly what a full
translation of the game so far would: the public events in order and the faults' seat,
decision and kind, never a hidden event or a fault's detail."""

from __future__ import annotations

from referee.engine import Event
from referee.live import LiveView
from referee.record import Fault, FaultKind
from tests.a_game import GAME


def _full(events: list[Event], faults: list[Fault]) -> tuple[list[dict], list[dict]]:
    public = [{"kind": e.kind, "data": e.data, "visible_to": None} for e in events if e.visible_to is None]
    rows = [{"seat": f.seat, "decision": f.decision, "kind": f.kind.value, "detail": "", "answer": None} for f in faults]
    return public, rows


def test_snapshots_along_a_game_equal_a_full_translation() -> None:
    live = LiveView()
    assert live.snapshot() is None
    events: list[Event] = []
    faults: list[Fault] = []
    live.attach({"game": GAME, "params": {}, "num_seats": 3, "game_id": "g"}, events, faults)
    earlier = []
    for i in range(60):
        hidden = (i % 3,) if i % 4 == 0 else None
        events.append(Event("deal" if hidden else "bet", {"i": i, "cards": ["Ah"] if hidden else []}, hidden))
        if i % 9 == 0:
            faults.append(Fault(i % 3, i, FaultKind.ILLEGAL, "bet Ah", {"amount": 1}))
        if i % 5 == 0 or i == 59:
            snap = live.snapshot()
            assert snap is not None
            public, rows = _full(events, faults)
            assert (snap["events"], snap["faults"], snap["event_count"]) == (public, rows, len(events))
            assert all(e["data"]["cards"] == [] for e in snap["events"]), "no hidden event leaves"
            earlier.append(snap)
    assert len(earlier[0]["events"]) < len(earlier[-1]["events"]), "a snapshot is not changed by later events"
    assert earlier[0]["events"] == _full(events[:1], faults[:1])[0]


def test_attaching_again_starts_afresh() -> None:
    live = LiveView()
    first: list[Event] = [Event("bet", {"n": 1})]
    live.attach({"game_id": "a"}, first, [])
    assert live.snapshot()["event_count"] == 1
    live.attach({"game_id": "b"}, [], [])
    snap = live.snapshot()
    assert snap is not None and snap["events"] == [] and snap["event_count"] == 0 and snap["game_id"] == "b"
