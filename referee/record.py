"""What the referee produces for one game: results, faults and the replay.

A :class:`GameRecord` is plain data (dataclasses of JSON-ready values) so the
store can keep it as JSON and the dashboard can show it without importing
protobuf. ``GameRecord.to_json()`` / ``GameRecord.from_json()`` round-trip.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class FaultKind(enum.StrEnum):
    """Why a bot's decision was replaced by the default action (rules §4.2)."""

    TIMEOUT = "timeout"          # no answer before the deadline plus the time bank
    BUDGET = "budget"            # the seat's total thinking budget was spent: not called
    ILLEGAL = "illegal"          # a well-formed action the rules do not allow now
    MALFORMED = "malformed"      # an answer that is not an action of this game
    ERROR = "error"              # the bot answered with an error status (it raised)
    UNREACHABLE = "unreachable"  # the bot's endpoint could not be reached: retired at once


class EndReason(enum.StrEnum):
    """How a game ended."""

    COMPLETED = "completed"      # played to the rules' end
    VOIDED = "voided"            # a platform failure: to be run again (rules §4.3)
    FAILED = "failed"            # voided 3 times: stored, shown, not rated


@dataclass
class Fault:
    """One fault: which seat, at which of its decisions, what kind, why, and what it sent.

    ``answer`` is the bot's answer as protobuf JSON (``None`` if it sent none).
    """

    seat: int
    decision: int
    kind: FaultKind
    detail: str
    answer: dict[str, Any] | None = None


@dataclass
class DecisionLog:
    """One question to one seat and what came of it.

    ``view`` is the view sent (the game's view message), ``answer`` the
    answer received (an ``ActResponse``; ``None`` on timeout/error/not
    called), ``action`` the action applied (the game's action message: the
    answer's, or the default). All three are stored as base64 of the
    protobuf wire bytes, which costs microseconds per decision where JSON
    would cost more than the RPC itself; ``referee.replay.expand`` turns a
    record into readable JSON. ``latency_ms`` is measured by the referee; ``sent_at`` is
    the wall-clock time the request was sent (seconds since the epoch);
    ``event_index`` is the number of game events before this decision.
    ``time_bank_ms`` is what was left of the bank after the decision.
    """

    seat: int
    decision: int
    event_index: int
    view: str
    answer: str | None
    action: str
    latency_ms: float
    sent_at: float
    time_bank_ms: float
    fault: FaultKind | None = None
    called: bool = True


@dataclass
class SeatResult:
    """One seat's result. ``place`` is 1 for the best; ``score`` is final tokens or points;
    ``change`` is the score change over the game; ``retired`` per rules §4.2."""

    seat: int
    place: int
    score: int
    change: int
    faults: int
    retired: bool


@dataclass
class GameRecord:
    """The complete outcome of one refereed game.

    ``events`` are the engine's events as dicts ``{"kind", "data", "visible_to"}``;
    ``chance`` are the referee's chance outcomes in order (a shuffled pack as a
    list of cards, or a seat drawn by lot), drawn by ``chance_scheme``
    (``referee.chance``: ``"per-deal-aside"``, one stream per deal with the deals
    only some plays of a seed have (``Shuffle.aside``) in their own; ``"per-deal"``, the same with them numbered among the
    deals, in records made before; ``"single"``, one generator for the game, in
    records made before per-deal streams);
    ``decisions`` every question asked.
    ``attempt`` is the attempt at the game this record is of (1-based, rules §4.3): its chance
    was drawn from ``referee.chance.attempt_seed(seed, attempt)`` (the seed itself for attempt 1,
    and in records made before attempts had seeds of their own).
    A game is a pure function of (game, params, num_seats, seed, attempt, answers):
    ``referee.replay.verify`` re-runs it from this record.
    """

    game: str
    params: dict[str, Any]
    num_seats: int
    seed: int
    game_id: str
    reason: EndReason
    detail: str
    results: list[SeatResult]
    faults: list[Fault] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    chance: list[Any] = field(default_factory=list)
    decisions: list[DecisionLog] = field(default_factory=list)
    started_at: float = 0.0
    finished_at: float = 0.0
    chance_scheme: str = "single"
    attempt: int = 1

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole record, equal to ``dataclasses.asdict(record)``.

        Built directly (``asdict`` deep-copies every value, the larger part of
        storing a game): the dict, its lists and the dict of each result,
        fault, event and decision are new; the values inside them (an event's
        data, a chance outcome, a fault's answer) are the record's own.
        """
        data = dict(vars(self))
        data["params"] = dict(self.params)
        data["results"] = [dict(vars(r)) for r in self.results]
        data["faults"] = [dict(vars(f)) for f in self.faults]
        data["events"] = [dict(e) for e in self.events]
        data["chance"] = list(self.chance)
        data["decisions"] = [dict(vars(d)) for d in self.decisions]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        """Rebuild a record from :meth:`to_json` output; raises KeyError/TypeError on a bad dict."""
        d = dict(data)
        d["reason"] = EndReason(d["reason"])
        d["results"] = [SeatResult(**r) for r in d["results"]]
        d["faults"] = [Fault(**{**f, "kind": FaultKind(f["kind"])}) for f in d.get("faults", [])]
        d["decisions"] = [
            DecisionLog(**{**x, "fault": FaultKind(x["fault"]) if x.get("fault") else None}) for x in d.get("decisions", [])
        ]
        return cls(**d)
