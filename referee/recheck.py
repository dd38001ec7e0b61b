"""Every field of a stored record recomputed from its seed and the bots' answers (``season verify``).

:func:`referee.replay.verify` re-runs a record's actions and compares its chance
outcomes, events and scores. A record holds more, and the standings read more:
what each seat was shown, what it answered, the faults charged, the places.
:func:`recheck` re-runs the record once and checks each of them against what the
rules and the referee's policy (rules §4) make of the seed, the attempt and the
answers:

- the chance outcomes, events and final scores (:func:`referee.replay.verify`);
- every decision: it is the seat's next one (rules §4.6), at the right event; the
  view sent equals the rules' view of that seat at that point; a seat retired is
  never called and one neither retired nor out of budget always is (rules §4.2, §4.4);
- every answer received: an answer read with no fault is a legal action of the game
  and is the action applied; an answer charged as *illegal* or *malformed* is one
  (rules §4.7); an answer charged as a *timeout* or *budget* fault came after the
  seat's limit (the deadline plus the bank before the call, or the thinking budget
  left), and one with no fault within it; *error* and *unreachable* faults have no
  answer; every fault's action is the default action (rules §4.2); the bank left
  after each call is what the measured time leaves of it (rules §4.4);
- the fault list equals the faults of the decisions, and each seat's result (place,
  score, change, fault count, retired) equals what the rules make of the final state
  and the faults (rules §0.3, §4.2); the end reason's detail is the rules' own.

What a replay cannot prove: a measured time (``latency_ms``) is the referee's
measurement, and a bot that sent nothing readable (a timeout with no answer, an
error status, no connection) left nothing to check. Those are checked for
consistency only (a timeout's time is past the limit, the banks follow from the
times); that they were not rewritten after the game was shown is the store's
chain's job (``store.chain``). Times are compared within :data:`TOLERANCE_MS`, the
record's rounding (a latency to the microsecond, a bank to 0.1 ms) and more.
"""

from __future__ import annotations

import base64
from typing import Any

from google.protobuf import json_format

from cardarena.v1 import bot_pb2
from referee.engine import IllegalAction, Rules, places
from referee.games import MalformedAction, spec
from referee.record import DecisionLog, EndReason, FaultKind, GameRecord
from referee.replay import ReplayMismatch, rerun
from referee.timecontrol import TimeControl

#: Milliseconds within which a recorded time counts as at a limit.
TOLERANCE_MS = 1.0
#: Problems listed per record (the rest are counted).
MAX_PROBLEMS = 5
#: Faults a bot that sent a readable answer can be charged (rules §4.7); the others have no answer.
_WITH_ANSWER = (FaultKind.TIMEOUT, FaultKind.BUDGET, FaultKind.ILLEGAL, FaultKind.MALFORMED)


def _a(kind: FaultKind) -> str:
    """``kind`` with its article: "an illegal fault", "a timeout fault"."""
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} fault"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class _Checker:
    """The per-decision checks of one record's re-run (:func:`recheck`)."""

    def __init__(self, record: GameRecord, tc: TimeControl) -> None:
        self.record = record
        self.gs = spec(record.game)
        self.tc = tc
        self.encoder = self.gs.view_codec.encoder()
        self.view_cls = self.gs.view_codec.message_type
        seats = record.num_seats
        self.decisions = [0] * seats
        self.faults = [0] * seats
        self.retired = [False] * seats
        self.bank_ms = [tc.time_bank_s * 1000.0] * seats
        self.used_ms = [0.0] * seats
        self.fault_log: list[tuple[int, int, FaultKind, dict[str, Any] | None]] = []
        self.index = 0
        self.problems: list[str] = []

    def problem(self, logged: DecisionLog, what: str) -> None:
        self.problems.append(f"decision {self.index} (seat {logged.seat}'s decision {logged.decision}): {what}")

    def __call__(self, rules: Rules[Any, Any, Any], state: Any, logged: DecisionLog) -> None:
        seat = logged.seat
        if logged.decision != self.decisions[seat]:
            self.problem(logged, f"numbered {logged.decision}, the seat's decision {self.decisions[seat]} is next")
        if logged.event_index != len(state.events):
            self.problem(logged, f"recorded at event {logged.event_index}, asked at event {len(state.events)}")
        self.decisions[seat] += 1
        self._view(rules, state, logged)
        default = _b64(self.gs.encode_action(rules.default_action(state, seat)).SerializeToString())
        answer = None
        if logged.answer is not None:
            try:
                answer = bot_pb2.ActResponse.FromString(base64.b64decode(logged.answer))
            except Exception:  # noqa: BLE001  (any bytes that are not an answer)
                self.problem(logged, "the recorded answer is not an answer message")
        self._fault(logged, answer)
        self._time(logged, answer)
        self._action(rules, state, logged, answer, default)
        self.index += 1

    def _view(self, rules: Rules[Any, Any, Any], state: Any, logged: DecisionLog) -> None:
        expected = self.encoder.encode(rules.view(state, logged.seat))
        if _b64(expected) == logged.view:
            return
        try:  # the same message encoded otherwise is the same view
            same = self.view_cls.FromString(base64.b64decode(logged.view)) == self.view_cls.FromString(expected)
        except Exception:  # noqa: BLE001
            same = False
        if not same:
            self.problem(logged, "the view recorded as sent is not the rules' view of the seat at that point")

    def _fault(self, logged: DecisionLog, answer: bot_pb2.ActResponse | None) -> None:
        seat, fault = logged.seat, logged.fault
        if fault is None:
            return
        if answer is not None and fault not in _WITH_ANSWER:
            self.problem(logged, f"{_a(fault)} is charged for an answer the bot sent")
        sent = json_format.MessageToDict(answer, preserving_proto_field_name=True) if answer is not None else None
        self.fault_log.append((seat, logged.decision, fault, sent))
        self.faults[seat] += 1

    def _time(self, logged: DecisionLog, answer: bot_pb2.ActResponse | None) -> None:
        """The call against the seat's limits (rules §4.4), and the bank it left."""
        seat, fault, tc = logged.seat, logged.fault, self.tc
        budget_left = tc.budget_s * 1000.0 - self.used_ms[seat]
        if not logged.called:
            if self.retired[seat]:
                if fault is not None:
                    self.problem(logged, f"{_a(fault)} is charged to a seat already retired")
            elif budget_left > TOLERANCE_MS:
                self.problem(logged, f"not called, though not retired and {budget_left:.1f} ms of its budget left")
            elif fault is not FaultKind.BUDGET:
                self.problem(logged, "not called for its spent budget, yet not charged a budget fault")
            if logged.answer is not None:
                self.problem(logged, "an answer is recorded for a call never made")
            self._retire(seat, fault)
            return
        if self.retired[seat]:
            self.problem(logged, "called after the seat was retired")
        if fault is None and answer is None:
            self.problem(logged, "called, no answer recorded and no fault charged")
        latency, bank = logged.latency_ms, self.bank_ms[seat]
        limit = tc.deadline_s * 1000.0 + bank
        over = latency - tc.deadline_s * 1000.0
        expect_bank = bank - over if over > 0 else bank
        if fault is None and latency > min(limit, budget_left) + TOLERANCE_MS:
            self.problem(logged, f"no fault charged for an answer after {latency:.3f} ms, past its limit")
        if fault is FaultKind.TIMEOUT:
            if latency < limit - TOLERANCE_MS:
                self.problem(logged, f"a timeout is charged for a call of {latency:.3f} ms, within the deadline "
                                     f"and the bank ({limit:.1f} ms)")
            expect_bank = 0.0
        elif fault is FaultKind.BUDGET and latency < budget_left - TOLERANCE_MS:
            self.problem(logged, f"a budget fault is charged for a call of {latency:.3f} ms with "
                                 f"{budget_left:.1f} ms of the budget left")
        elif fault is FaultKind.BUDGET:
            expect_bank = max(expect_bank, 0.0)
        if abs(max(expect_bank, 0.0) - logged.time_bank_ms) > TOLERANCE_MS:
            self.problem(logged, f"the bank left is recorded as {logged.time_bank_ms} ms, the measured time "
                                 f"leaves {max(expect_bank, 0.0):.1f} ms")
        self.bank_ms[seat] = logged.time_bank_ms
        self.used_ms[seat] += latency
        self._retire(seat, fault)

    def _retire(self, seat: int, fault: FaultKind | None) -> None:
        if fault is FaultKind.UNREACHABLE or (fault is not None and self.faults[seat] >= self.tc.max_faults):
            self.retired[seat] = True

    def _action(self, rules: Rules[Any, Any, Any], state: Any, logged: DecisionLog,
                answer: bot_pb2.ActResponse | None, default: str) -> None:
        """The action applied against the answer and the fault (rules §4.2, §4.7)."""
        fault = logged.fault
        if fault is not None or not logged.called:
            if logged.action != default:
                self.problem(logged, "the action applied is not the default action" +
                             (f" of {_a(fault)}" if fault else " of a seat not called"))
        readable = None
        if answer is not None:
            readable = self._legal(rules, state, logged.seat, answer)
        if fault is None and logged.called and answer is not None:
            if readable is None:
                self.problem(logged, "no fault is charged for an answer that is not a legal action")
            elif readable != logged.action:
                self.problem(logged, "the action applied is not the bot's answer")
        if fault in (FaultKind.ILLEGAL, FaultKind.MALFORMED) and readable is not None:
            self.problem(logged, f"{_a(fault)} is charged for a legal answer")

    def _legal(self, rules: Rules[Any, Any, Any], state: Any, seat: int, answer: bot_pb2.ActResponse) -> str | None:
        """The action message (base64) of an answer that is a legal action now, else None."""
        if answer.WhichOneof("action") != self.gs.proto_field:
            return None
        try:
            action = self.gs.decode_action(getattr(answer, self.gs.proto_field))
            rules.check(state, seat, action)
        except (MalformedAction, IllegalAction):
            return None
        return _b64(self.gs.encode_action(action).SerializeToString())


def recheck(record: GameRecord, time_control: TimeControl) -> list[str]:
    """The problems of a completed game's record (module docstring), each naming the decision, the
    seat or the field and what does not match; empty when every field is what the seed, the attempt
    and the answers make. ``time_control``: the season's (rules §4.1). At most :data:`MAX_PROBLEMS`
    are listed, then a count of the rest. Never raises for a bad record: a re-run that leaves the
    record is one problem."""
    checker = _Checker(record, time_control)
    problems = checker.problems
    try:
        if record.reason != EndReason.COMPLETED:
            raise ReplayMismatch(f"the record's end reason is {record.reason!s}, not completed")
        last = None
        for last in rerun(record, checker):
            pass
        if last is not None:
            _final(record, *last, checker)
    except ReplayMismatch as exc:
        problems.append(f"the replay does not re-run: {exc}")
    except (IllegalAction, MalformedAction, ValueError, KeyError, TypeError) as exc:
        problems.append(f"the replay does not re-run: {type(exc).__name__}: {exc}")
    if len(problems) > MAX_PROBLEMS:
        return problems[:MAX_PROBLEMS] + [f"and {len(problems) - MAX_PROBLEMS} more"]
    return problems


def _final(record: GameRecord, rules: Rules[Any, Any, Any], state: Any, checker: _Checker) -> None:
    """Events, scores, the fault list, the results and the end detail against the final state."""
    problems = checker.problems
    events = [{"kind": e.kind, "data": e.data, "visible_to": list(e.visible_to) if e.visible_to is not None else None}
              for e in state.events]
    if events != record.events:
        first = next(i for i, (a, b) in enumerate(zip(events + [None], record.events + [None])) if a != b)
        problems.append(f"events differ from event {first} on")
    if record.detail != state.end_reason:
        problems.append(f"the end detail is {record.detail!r}, the rules end the game with {state.end_reason!r}")
    logged = [(f.seat, f.decision, FaultKind(f.kind), f.answer) for f in record.faults]
    derived = checker.fault_log
    if [x[:3] for x in logged] != [x[:3] for x in derived]:
        extra = [x[:3] for x in logged if x[:3] not in [d[:3] for d in derived]]
        missing = [x[:3] for x in derived if x[:3] not in [lg[:3] for lg in logged]]
        problems.append("the fault list does not match the decisions: "
                        + "; ".join([*(f"seat {s}'s decision {d}: {k} listed, not charged there" for s, d, k in extra),
                                     *(f"seat {s}'s decision {d}: {k} charged, not listed" for s, d, k in missing)]
                                    or ["in another order"]))
    else:
        for (seat, decision, kind, sent), (_, _, _, answer) in zip(logged, derived, strict=True):
            if answer is not None and sent != answer:
                problems.append(f"seat {seat}'s {kind} fault at its decision {decision}: the answer listed is not "
                                "the one recorded")
    n = rules.num_seats
    scores, changes = rules.scores(state), rules.score_changes(state)
    place = places([rules.rank_key(state, s) for s in range(n)], checker.retired)
    results = sorted(record.results, key=lambda r: r.seat)
    if [r.seat for r in results] != list(range(n)):
        problems.append(f"results for seats {[r.seat for r in results]}, the game has {n}")
        return
    for r in results:
        s = r.seat
        expected = {"place": place[s], "score": scores[s], "change": changes[s], "faults": checker.faults[s],
                    "retired": checker.retired[s]}
        for name, value in expected.items():
            if getattr(r, name) != value:
                problems.append(f"seat {s}'s {name} is {getattr(r, name)!r}, the replay gives {value!r}")
