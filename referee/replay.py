"""Re-run a stored game from its record and check that it comes out the same.

A game is a pure function of (game, parameters, seats, seed, the actions
applied), so replaying the recorded actions through the rules, with shuffles
drawn from the seed by the record's chance scheme (``referee.chance``), must reproduce the recorded chance outcomes, events and
results exactly (DESIGN: "a stored replay can be verified by re-running it").
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from cardarena.v1 import bot_pb2
from referee.chance import Chance
from referee.driver import Driver
from referee.engine import DrawLot, IllegalAction, Rules, Shuffle
from referee.games import spec
from referee.record import DecisionLog, GameRecord


class ReplayMismatch(Exception):
    """The re-run differs from the record; the message says where."""


def _decode(cls: type[Message], b64: str) -> Message:
    message = cls()
    message.ParseFromString(base64.b64decode(b64))
    return message


def _json(message: Message) -> dict[str, Any]:
    """``message`` as protobuf JSON with every field, as the bot received it: zero, false and empty
    fields too (``0``, ``false``, ``""``, ``[]``); only an unset ``optional`` field or oneof member is left out."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)


def expand(record: GameRecord) -> dict[str, Any]:
    """The record as JSON with every decision's view, answer and action decoded to protobuf JSON,
    every field shown (zero, false and empty ones too; see :func:`_json`), and each fault's answer
    as its decision's (undecodable bytes stay as the record lists them: ``raw_base64``, ``bytes``)."""
    gs = spec(record.game)
    view_cls, action_cls = gs.view_type, gs.action_type
    data = record.to_json()
    for d in data["decisions"]:
        d["view"] = _json(_decode(view_cls, d["view"]))
        d["action"] = _json(_decode(action_cls, d["action"]))
        d["answer"] = _json(_decode(bot_pb2.ActResponse, d["answer"])) if d["answer"] is not None else None
    # a fault's answer as its decision's, with every field too (the stored list keeps protobuf JSON's defaults)
    answers = {(d["seat"], d["decision"]): d["answer"] for d in data["decisions"]}
    for f in data["faults"]:
        if f.get("answer") is not None and answers.get((f["seat"], f["decision"])) is not None:
            f["answer"] = answers[(f["seat"], f["decision"])]
    return data


def rerun(record: GameRecord, on_decision: Callable[[Rules[Any, Any, Any], Any, DecisionLog], None] | None = None,
          ) -> Iterator[tuple[Rules[Any, Any, Any], Any]]:
    """Re-run ``record`` step by step: yields ``(rules, state)`` before the first step and after
    every chance outcome and every decision applied (``len(state.events)`` then counts the
    events logged so far). ``on_decision(rules, state, logged)``, if given, is called with each
    logged decision before its action is applied (``referee.recheck`` checks it there).
    Raises ReplayMismatch where the re-run leaves the record."""
    gs = spec(record.game)
    rules = gs.make_rules(gs.params(record.params), record.num_seats)
    try:
        seeded = Chance(record.seed, record.chance_scheme, record.attempt)
    except ValueError as exc:
        raise ReplayMismatch(str(exc)) from None
    chance = iter(record.chance)
    decisions = iter(record.decisions)
    action_cls = gs.action_type
    n_chance = 0

    def answer(request: Shuffle | DrawLot) -> Any:
        nonlocal n_chance
        outcome = seeded.answer(request)
        if next(chance, None) != outcome:
            raise ReplayMismatch(f"chance event {n_chance} differs from the seed's")
        n_chance += 1
        return outcome

    def decide(state: Any, seats: tuple[int, ...]) -> dict[int, Any]:
        actions = {}
        for seat in seats:
            logged = next(decisions, None)
            if logged is None or logged.seat != seat:
                raise ReplayMismatch(f"expected a decision of seat {seat}, the record has {logged and logged.seat}")
            if on_decision is not None:
                on_decision(rules, state, logged)
            actions[seat] = gs.decode_action(_decode(action_cls, logged.action))
        return actions

    driver = Driver(rules, answer, decide)
    state = rules.new_state()
    yield rules, state
    while True:
        try:
            if driver.step(state) is None:
                break
        except IllegalAction as exc:
            raise ReplayMismatch(f"a recorded action is illegal on re-run: {exc}") from None
        yield rules, state
    if next(decisions, None) is not None or next(chance, None) is not None:
        raise ReplayMismatch("the record has decisions or chance events the re-run did not use")


def verify(record: GameRecord) -> None:
    """Re-run ``record`` and raise ReplayMismatch at the first difference."""
    for rules, state in rerun(record):
        pass
    events = [{"kind": e.kind, "data": e.data, "visible_to": list(e.visible_to) if e.visible_to is not None else None} for e in state.events]
    if events != record.events:
        first = next(i for i, (a, b) in enumerate(zip(events + [None], record.events + [None])) if a != b)
        raise ReplayMismatch(f"events differ from event {first} on")
    if list(rules.scores(state)) != [r.score for r in record.results]:
        raise ReplayMismatch("final scores differ")
