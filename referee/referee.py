"""The referee: plays one game between bots, enforcing rules and time (rules §4).

:func:`play` owns the game's chance (one stream per deal from the game's
seed, :mod:`referee.chance`), the clocks and the faults; the game's rules (a
:class:`~referee.engine.Rules`) own everything else. The result is a
:class:`~referee.record.GameRecord` holding the ranking, the scores, every
event, every view sent, every answer with its latency and every fault.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from cardarena.v1 import bot_pb2
from referee.chance import PER_DEAL, Chance
from referee.clients import MAX_KEPT_ANSWER_BYTES, BotCallError, BotClient, CallWithheld, parse_answer
from referee.driver import BadStep, Driver
from referee.engine import DrawLot, IllegalAction, Shuffle, places
from referee.games import GameSpec, MalformedAction
from referee.live import LiveView
from referee.record import DecisionLog, EndReason, Fault, FaultKind, GameRecord, SeatResult
from referee.timecontrol import SeatClock, TimeControl
from referee.wire import act_header, act_request

#: Steps (chance events plus decisions) after which a game is declared broken: a
#: guard against a rules bug looping, far above any legal game (the longest, a
#: seven-round game at its largest turn limit, takes about 7 x 10,000 turns x 3 steps).
MAX_STEPS = 5_000_000
#: Extra seconds to wait for a call's own deadline to fire before giving up on it.
STUCK_CALL_GRACE_S = 5.0


@dataclass(slots=True)
class _Answer:
    """One call's outcome: the response or the fault, when it was sent and how long it took (seconds)."""

    response: bot_pb2.ActResponse | None
    fault: FaultKind | None
    detail: str
    sent_at: float
    elapsed_s: float
    budget_limited: bool = False     # the call's timeout was the seat's remaining thinking budget
    raw: bytes | None = None         # what the bot sent when it could not be read as an answer
    data: bytes | None = None        # what the bot sent when it was an answer (a blocking call)
    read: _ReadAnswer | None = None  # what ``data`` came to when the game has read them before (``response`` None)


@dataclass(frozen=True, slots=True)
class _ReadAnswer:
    """What the bytes of a well-formed answer with a legal action came to when first read: the
    engine action they decode to and the record's base64 of the answer (re-serialised, unknown
    fields dropped); the action's own base64 is kept by action (``_action_record``). Kept by the
    bytes the bot sent: reading is a pure function of them."""

    action: Any
    answer_b64: str


#: Distinct answers whose reading is kept (:class:`_ReadAnswer`), for each game kind across its
#: games, before starting afresh, and the largest answer kept, bytes as sent (the readings of a
#: game kind take at most their product).
MAX_READ_ANSWERS = 1024
MAX_READ_ANSWER_BYTES = MAX_KEPT_ANSWER_BYTES
#: Distinct actions whose record bytes (base64) are kept, for each game kind across its games.
MAX_KEPT_ACTIONS = 1024

#: By game name: what the bytes of each answer read (well-formed, legal when read) came to, and
#: each hashable action's record base64. Both are pure functions of their key for a game kind, so
#: every game of that kind in the process shares them (answers repeat from game to game: bet 1
#: token); each dict operation is atomic, so games on several threads may share them too.
_READ: dict[str, dict[bytes, _ReadAnswer]] = {}
_ACTION_B64: dict[str, dict[Any, str]] = {}


class RefereeError(RuntimeError):
    """The platform failed (a rules error, a broken game): the game is voided (rules §4.3)."""


class GameCancelled(RuntimeError):
    """The caller's ``cancelled`` hook said stop before a call (its worker lost the game's lease), or a
    client's fence withheld a call (:class:`referee.clients.CallWithheld`): the game has no result.
    ``str(e)`` says where, and whether any seat of that decision was asked."""


def _to_json(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def _raw_json(raw: bytes | None) -> dict[str, Any] | None:
    """Bytes a bot sent that are not an answer, for the fault log (already capped by the client)."""
    return None if raw is None else {"raw_base64": base64.b64encode(raw).decode("ascii"), "bytes": len(raw)}


def _to_b64(message: Message) -> str:
    return _bytes_b64(message.SerializeToString())


def _bytes_b64(data: bytes) -> str:
    """``base64.b64encode(data)`` as text, without its Python wrapper (once or twice per decision)."""
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def _round3(value: float) -> float:
    """``round(value, 3)``, by the same correctly rounded decimal conversion (CPython's ``round``
    with digits and the ``"f"`` format both take ``_Py_dg_dtoa`` mode 3), at half its cost."""
    return float(format(value, ".3f"))


class _Game:
    """One game in progress; :func:`play` is the public entry point."""

    def __init__(self, spec: GameSpec, params: Any, num_seats: int, seed: int, clients: Sequence[BotClient],
                 time_control: TimeControl, game_id: str, live: LiveView | None = None,
                 cancelled: Callable[[], bool] | None = None, attempt: int = 1) -> None:
        if len(clients) != num_seats:
            raise ValueError(f"{num_seats} seats need {num_seats} bots, got {len(clients)}")
        self.spec = spec
        self.rules = spec.make_rules(params, num_seats)
        self.params = params
        self.seed = seed
        self.clients = list(clients)
        self.tc = time_control
        self.game_id = game_id
        self.attempt = attempt
        self.chance_source = Chance(seed, PER_DEAL, attempt)
        self.clocks = [SeatClock(time_control.time_bank_s, time_control.budget_s) for _ in range(num_seats)]
        self.faults: list[Fault] = []
        self.decisions: list[DecisionLog] = []
        self.chance: list[Any] = []
        self.live = live
        self.cancelled = cancelled
        self.views = spec.view_codec.encoder()
        self._encode_view = self.views.encode
        self._deadline_s = time_control.deadline_s
        self._view_field = bot_pb2.ActRequest.DESCRIPTOR.fields_by_name[spec.proto_field].number
        self._deadline_ms = round(time_control.deadline_s * 1000)
        self._action_b64 = _ACTION_B64.setdefault(spec.name, {})
        self._read = _READ.setdefault(spec.name, {})
        self._field = spec.proto_field
        #: per seat: the bank (seconds) last sent or logged, and it in whole ms (the request) and
        #: in ms to one decimal (the record): the bank only changes on a late answer
        self._bank_ms = [(-1.0, 0, 0.0)] * num_seats
        #: the wall clock less the performance counter, at the game's start: a call's ``sent_at``
        #: is its start on the performance counter plus this (one clock read per call)
        self._epoch = time.time() - time.perf_counter()

    def run(self) -> GameRecord:
        started = time.time()
        state = self.rules.new_state()
        params = asdict(self.params)
        if self.live is not None:
            # not the game id: a spectator's page of a running game must not tie it to the id its bots are sent
            self.live.attach({"game": self.spec.name, "params": dict(params), "num_seats": self.rules.num_seats},
                             state.events, self.faults)
        try:
            if not Driver(self.rules, self._answer_chance, self._ask).run(state, MAX_STEPS):
                raise RefereeError(f"game did not end within {MAX_STEPS} steps")
        except (IllegalAction, MalformedAction) as exc:
            raise RefereeError(f"rules rejected the referee's own move: {exc}") from exc
        except BadStep as exc:
            raise RefereeError(str(exc)) from exc
        retired = [c.retired for c in self.clocks]
        keys = [self.rules.rank_key(state, s) for s in range(self.rules.num_seats)]
        place = places(keys, retired)
        scores, changes = self.rules.scores(state), self.rules.score_changes(state)
        faults_per_seat = [c.faults for c in self.clocks]
        return GameRecord(
            game=self.spec.name,
            params=params,
            num_seats=self.rules.num_seats,
            seed=self.seed,
            game_id=self.game_id,
            reason=EndReason.COMPLETED,
            detail=state.end_reason,
            results=[SeatResult(s, place[s], scores[s], changes[s], faults_per_seat[s], retired[s]) for s in range(self.rules.num_seats)],
            faults=self.faults,
            events=[{"kind": e.kind, "data": e.data, "visible_to": None if (seen := e.visible_to) is None else list(seen)}
                    for e in state.events],
            chance=self.chance,
            chance_scheme=PER_DEAL,
            attempt=self.attempt,
            decisions=self.decisions,
            started_at=started,
            finished_at=time.time(),
        )

    def _answer_chance(self, request: Shuffle | DrawLot) -> Any:
        """The chance source of the game's driver: the seed's per-deal streams, each outcome recorded."""
        outcome = self.chance_source.answer(request)
        self.chance.append(outcome)
        return outcome

    def _ask(self, state: Any, seats: Sequence[int]) -> dict[int, Any]:
        """Ask every seat at once under one deadline; answers are taken in seat order (DESIGN).

        One seat is asked with a blocking call (no thread hand-off: the
        cheapest path); several seats with concurrent calls. Raises
        GameCancelled, before any bot is asked, when the ``cancelled`` hook says stop.
        """
        self._stop_if_cancelled()
        if len(seats) == 1:  # most decisions: no dicts of requests, no futures
            seat = seats[0]
            view, request, timeout, limited = self._request(state, seat)
            if request is None:
                return {seat: self._settle(state, seat, view, None)}
            self._stop_if_cancelled()  # again, the moment before the call goes out
            return {seat: self._settle(state, seat, view, self._call(seat, request, timeout, limited))}
        views: dict[int, bytes] = {}
        requests: dict[int, tuple[bytes, float, bool]] = {}
        for seat in seats:
            view, request, timeout, limited = self._request(state, seat)
            views[seat] = view
            if request is not None:
                requests[seat] = (request, timeout, limited)
        answers = self._call_all(requests) if requests else {}
        return {seat: self._settle(state, seat, views[seat], answers.get(seat)) for seat in seats}

    def _stop_if_cancelled(self) -> None:
        """Raise GameCancelled if the ``cancelled`` hook says stop: asked before a decision's views
        are made and again the moment before each call goes out, so that a process stalled in
        between (past its lease) calls no bot when it resumes."""
        cancelled = self.cancelled
        if cancelled is not None and cancelled():
            raise GameCancelled(f"game {self.game_id} stopped before decision {len(self.decisions) + 1}"
                                " (cancelled): no bot was asked")

    def _request(self, state: Any, seat: int) -> tuple[bytes, bytes | None, float, bool]:
        """Seat ``seat``'s view bytes (encoded once: the call and the record), its Act request's
        bytes (None when the seat is not called: retired, or its thinking budget spent), the
        call's timeout in seconds, and whether that timeout is the seat's remaining budget."""
        clock = self.clocks[seat]
        view = self._encode_view(self.rules.view(state, seat))
        budget_s = clock.budget_s
        if clock.retired or budget_s <= 0:
            return view, None, 0.0, False
        bank_s = clock.bank_s
        header = act_header(self.game_id, seat, clock.decisions, self._deadline_ms, self._bank(seat, bank_s)[1],
                            round(budget_s * 1000))
        allowed_s = self._deadline_s + bank_s
        if budget_s < allowed_s:
            return view, act_request(header, self._view_field, view), budget_s, True
        return view, act_request(header, self._view_field, view), allowed_s, False

    def _call(self, seat: int, request: bytes, timeout: float, budget_limited: bool) -> _Answer:
        """One seat's blocking call; the answer read from its bytes, or taken from what the game
        has read of the same bytes before (answers repeat).

        A call its client's fence withheld (CallWithheld: nothing was sent) is sent once more if the
        ``cancelled`` hook, asked again, confirms the lease (a slow store, not a lost lease, had closed
        the fence); else, or if it is withheld again, the game stops (GameCancelled)."""
        for tries_left in (1, 0):
            t0 = time.perf_counter()
            try:
                data = self.clients[seat].call_bytes(request, timeout)
                break
            except BotCallError as exc:
                return _Answer(None, exc.kind, exc.detail, self._epoch + t0, time.perf_counter() - t0, budget_limited,
                               exc.raw)
            except CallWithheld as exc:
                if not tries_left or self.cancelled is None or self.cancelled():
                    raise GameCancelled(f"game {self.game_id} stopped in decision {len(self.decisions) + 1}: seat"
                                        f" {seat}'s call {exc}") from None
        elapsed = time.perf_counter() - t0
        sent_at = self._epoch + t0
        read = self._read.get(data)
        if read is not None:
            return _Answer(None, None, "", sent_at, elapsed, budget_limited, data=data, read=read)
        try:
            return _Answer(parse_answer(data), None, "", sent_at, elapsed, budget_limited, data=data)
        except BotCallError as exc:
            return _Answer(None, exc.kind, exc.detail, sent_at, elapsed, budget_limited, exc.raw)

    def _call_all(self, requests: dict[int, tuple[bytes, float, bool]]) -> dict[int, _Answer]:
        started: dict[int, tuple[Future[bot_pb2.ActResponse], float, float, list[float]]] = {}
        for seat, (request, timeout, _) in requests.items():
            if started and self.cancelled is not None and self.cancelled():
                for future, *_ in started.values():
                    future.cancel()
                raise GameCancelled(f"game {self.game_id} stopped in decision {len(self.decisions) + 1} (cancelled) "
                                    f"after asking seats {sorted(started)}, before seat {seat}: no result")
            if not started:
                self._stop_if_cancelled()  # the moment before the first call goes out
            ended: list[float] = []
            t0 = time.perf_counter()
            sent_at = self._epoch + t0
            future = self.clients[seat].act(request, timeout)
            future.add_done_callback(lambda _f, ended=ended: ended.append(time.perf_counter()))
            started[seat] = (future, sent_at, t0, ended)
        answers = {}
        for seat, (future, sent_at, t0, ended) in started.items():
            _, timeout, limited = requests[seat]
            raw = None
            try:
                response, kind, detail = future.result(timeout=timeout + STUCK_CALL_GRACE_S), None, ""
            except CallWithheld as exc:
                for other, *_ in started.values():
                    other.cancel()
                raise GameCancelled(f"game {self.game_id} stopped in decision {len(self.decisions) + 1}: seat {seat}'s"
                                    f" call {exc}: no result") from None
            except BotCallError as exc:
                response, kind, detail, raw = None, exc.kind, exc.detail, exc.raw
            except TimeoutError:
                response, kind, detail = None, FaultKind.TIMEOUT, "the call never completed"
            elapsed = (ended[0] if ended else time.perf_counter()) - t0
            answers[seat] = _Answer(response, kind, detail, sent_at, elapsed, limited, raw)
        return answers

    def _settle(self, state: Any, seat: int, view: bytes, call: _Answer | None) -> Any:
        """Turn one seat's answer (or its absence) into an action, recording any fault."""
        clock = self.clocks[seat]
        decision = clock.decisions
        clock.decisions += 1
        event_index = len(state.events)
        if call is None:
            action = self.rules.default_action(state, seat)
            fault = None if clock.retired else FaultKind.BUDGET
            if fault:
                self._fault(seat, decision, fault, "thinking budget spent: not called", None)
            self._log(seat, decision, event_index, view, None, self._action_record(action), 0.0,
                      self._epoch + time.perf_counter(), fault, called=False)
            return action
        answer, fault, detail, sent_at, elapsed = call.response, call.fault, call.detail, call.sent_at, call.elapsed_s
        in_time = clock.charge(elapsed, self._deadline_s)
        if fault is None and not in_time:
            fault, detail = FaultKind.TIMEOUT, f"answered after {elapsed:.3f} s, past the deadline and the time bank"
        if fault is FaultKind.TIMEOUT and call.budget_limited:
            # the thinking budget, not the bank, ran out: the bank keeps what the charge left (rules §4.1)
            fault, detail = FaultKind.BUDGET, f"thinking budget spent during the call ({elapsed:.3f} s)"
        elif fault is FaultKind.TIMEOUT:
            clock.bank_s = 0.0
        action: Any = None
        answer_b64 = None
        read = call.read
        if read is not None:  # bytes this game has read before: decoded once, checked every time
            answer_b64 = read.answer_b64
            if fault is None:
                fault, detail = self._check(state, seat, read.action)
                action = read.action
            if fault is not None and call.data is not None:
                answer = parse_answer(call.data)  # for the fault log (it was read before: it reads)
        elif answer is not None:
            answer_b64 = _bytes_b64(answer.SerializeToString())
            if fault is None:
                action, fault, detail = self._decide(state, seat, answer)
                if fault is None and call.data is not None:
                    self._keep_read(call.data, action, answer_b64)
        if fault is not None:
            sent = _to_json(answer) if answer is not None else _raw_json(call.raw)
            self._fault(seat, decision, fault, detail, sent)
            action = self.rules.default_action(state, seat)
        action_b64 = self._action_record(action)
        self._log(seat, decision, event_index, view, answer_b64, action_b64, elapsed * 1000, sent_at, fault)
        return action

    def _decide(self, state: Any, seat: int, answer: bot_pb2.ActResponse) -> tuple[Any, FaultKind | None, str]:
        """A well-formed answer's action, checked by the rules: ``(action, None, "")``, or
        ``(None, fault, detail)`` for an answer of another game, a malformed or an illegal action."""
        which = answer.WhichOneof("action")
        if which != self._field:
            return None, FaultKind.MALFORMED, f"expected a {self._field} action, got {which or 'none'}"
        try:
            candidate = self.spec.decode_action(getattr(answer, which))
        except MalformedAction as exc:
            return None, FaultKind.MALFORMED, str(exc)
        fault, detail = self._check(state, seat, candidate)
        return (candidate, None, "") if fault is None else (None, fault, detail)

    def _check(self, state: Any, seat: int, action: Any) -> tuple[FaultKind | None, str]:
        """The rules' check of a decoded action: ``(None, "")`` if legal, else the fault and why."""
        try:
            self.rules.check(state, seat, action)
        except MalformedAction as exc:
            return FaultKind.MALFORMED, str(exc)
        except IllegalAction as exc:
            return FaultKind.ILLEGAL, str(exc)
        return None, ""

    def _keep_read(self, data: bytes, action: Any, answer_b64: str) -> None:
        """Keep what answer bytes ``data`` came to, when the action is hashable (immutable: it may be
        applied again at another decision) and ``data`` at most MAX_READ_ANSWER_BYTES long; at most
        MAX_READ_ANSWERS of them."""
        if len(data) > MAX_READ_ANSWER_BYTES:
            return
        try:
            hash(action)
        except TypeError:
            return
        read = self._read
        if len(read) >= MAX_READ_ANSWERS:
            read.clear()
        read[data] = _ReadAnswer(action, answer_b64)

    def _fault(self, seat: int, decision: int, kind: FaultKind, detail: str, answer: dict[str, Any] | None) -> None:
        """Record a fault and retire the seat when the policy says so (rules §4.2)."""
        clock = self.clocks[seat]
        clock.faults += 1
        self.faults.append(Fault(seat, decision, kind, detail, answer))
        if kind is FaultKind.UNREACHABLE or clock.faults >= self.tc.max_faults:
            clock.retired = True

    def _log(self, seat: int, decision: int, event_index: int, view: bytes, answer_b64: str | None, action_b64: str,
             latency_ms: float, sent_at: float, fault: FaultKind | None, called: bool = True) -> None:
        self.decisions.append(
            DecisionLog(seat, decision, event_index, _bytes_b64(view), answer_b64, action_b64, _round3(latency_ms),
                        sent_at, self._bank(seat, self.clocks[seat].bank_s)[2], fault, called)
        )

    def _bank(self, seat: int, bank_s: float) -> tuple[float, int, float]:
        """``(bank_s, round(bank_s * 1000), round(bank_s * 1000, 1))``: seat ``seat``'s bank in
        seconds, whole ms and ms to one decimal, kept until the bank changes (a late answer)."""
        kept = self._bank_ms[seat]
        if kept[0] != bank_s:
            kept = self._bank_ms[seat] = (bank_s, round(bank_s * 1000), round(bank_s * 1000, 1))
        return kept

    def _action_record(self, action: Any) -> str:
        """The action's message as base64 of its wire bytes, kept by action when it is hashable
        (at most MAX_KEPT_ACTIONS of them)."""
        kept = self._action_b64
        try:
            known = kept.get(action)
        except TypeError:  # an unhashable action: encoded every time
            return _to_b64(self.spec.encode_action(action))
        if known is None:
            if len(kept) >= MAX_KEPT_ACTIONS:
                kept.clear()
            known = kept[action] = _to_b64(self.spec.encode_action(action))
        return known


def play(spec: GameSpec, params: Any, num_seats: int, seed: int, clients: Sequence[BotClient],
         time_control: TimeControl | None = None, game_id: str = "", live: LiveView | None = None,
         cancelled: Callable[[], bool] | None = None, attempt: int = 1) -> GameRecord:
    """Play one game and return its record.

    ``clients`` holds one bot client per seat (the same bot may sit twice).
    ``seed`` (an int) drives every shuffle and draw by lot. Raises
    RefereeError when the game cannot be finished for a platform reason (the
    caller voids it; nothing of it is stored), and BadParameters (from the
    rules) for impossible parameters. Bot misbehaviour never raises: it is
    recorded as faults (rules §4.2). ``time_control`` None: the game's defaults
    (``TimeControl.for_game``, rules §4.1). ``live``: a :class:`~referee.live.LiveView` the game's
    public progress can be read from while it runs (it does not change the game). ``game_id`` is
    sent to the bots with every decision, so it must say nothing of the seed (default ``"game"``).
    ``cancelled``: called before every decision and again the moment before each call goes out;
    when it returns True the game stops there and GameCancelled is raised (a worker whose lease
    was lost must not call bots any more; asking at the call leaves a stalled process almost no
    window to send one after its lease ran out). It must be cheap: it runs twice per call.
    """
    tc = time_control or TimeControl.for_game(spec)
    return _Game(spec, params, num_seats, seed, clients, tc, game_id or "game", live, cancelled, attempt).run()
