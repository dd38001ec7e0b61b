"""Translation between the Svara engine and the ``cardarena.v1`` protocol (rules §2; svara.proto).

Pure functions, no I/O: :func:`encode_view` (engine view -> ``SvaraView``),
:func:`decode_action` (``SvaraAction`` -> engine action, raising
MalformedAction) and :func:`encode_action` (engine action -> ``SvaraAction``).
"""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter
from typing import Any

from cardarena.v1 import svara_pb2

from referee.games import MalformedAction
from referee.games.svara.rules import Decision, SvaraEvent, SvaraMove, SvaraMoveAction, SvaraShown, SvaraView
from referee.wire import History, ViewCodec


#: The decision whose view carries ``in_svara`` (a global: an Enum class's attribute is looked up through a hook).
_JOIN_DECISION = Decision.JOIN


def _fields(view: SvaraView) -> dict[str, Any]:
    """Every field of the view message but the history (``history``, ``shown``), as keyword arguments
    (``legal`` as the tuple of the engine's SvaraLegal fields, in field order)."""
    legal = view.legal
    return {
        "decision": int(view.decision),
        "legal": (legal.moves, legal.stake_min, legal.stake_max, legal.see_cost, legal.join_cost),
        "hand": view.hand,
        "looked": view.looked,
        "szacha": view.szacha,
        "bottom_card": view.bottom_card,
        "dealer": view.dealer if view.dealer >= 0 else None,
        "bank": view.bank,
        "current_stake": view.current_stake,
        "min_stake": view.min_stake,
        "max_stake": view.max_stake,
        "tokens": view.tokens,
        "in_play": view.in_play,
        "has_looked": view.has_looked,
        "out": view.out,
        "svara": view.svara,
        "circuit": view.circuit,
        "circuits": view.circuits,
        "hand_number": view.hand_number,
        "hands": view.hands,
        "proposer": view.proposer if view.proposer >= 0 else None,
        "in_svara": tuple(view.in_play) if view.decision is _JOIN_DECISION else (),
        "svaras_per_bank": view.svaras_per_bank,
        "starting_tokens": view.starting_tokens,
    }


def _legal(legal: tuple[tuple[SvaraMove, ...], int, int, int, int]) -> svara_pb2.SvaraLegal:
    """The legal moves as a message, from ``_fields``' tuple of a SvaraLegal's fields (a tuple hashes
    and compares at C speed, where the view encoder looks its bytes up by value)."""
    moves, stake_min, stake_max, see_cost, join_cost = legal
    return svara_pb2.SvaraLegal(moves=[int(m) for m in moves], stake_min=stake_min, stake_max=stake_max,
                                see_cost=see_cost, join_cost=join_cost)


def _event(e: SvaraEvent) -> svara_pb2.SvaraEvent:
    return svara_pb2.SvaraEvent(seat=e.seat, move=int(e.move), amount=e.amount)


#: A move's fields in the order of ``SvaraEvent``'s field numbers (its frame is joined from their
#: bytes and kept by them: ``referee.wire.History.values``).
_event_values = attrgetter("seat", "move", "amount")


def _shown(s: SvaraShown) -> svara_pb2.SvaraShown:
    return svara_pb2.SvaraShown(seat=s.seat, cards=s.cards, points=s.points)


#: The view message: the deal's moves and the hand's shown cards are encoded once each (referee.wire).
VIEW = ViewCodec(
    svara_pb2.SvaraView,
    _fields,
    (History("history", attrgetter("history"), _event, values=_event_values), History("shown", attrgetter("shown"), _shown)),
    convert={"legal": _legal},
)


def encode_view(view: SvaraView) -> svara_pb2.SvaraView:
    """The protocol message for an engine view, encoded from scratch. ``dealer``/``proposer`` of -1 (none) are
    left unset; ``in_svara`` is filled for a JOIN decision only (from the engine's ``in_play``, which marks
    the seats in the coming svara then)."""
    return VIEW.message(view)  # type: ignore[return-value]


def decode_action(message: svara_pb2.SvaraAction) -> SvaraMoveAction:
    """The engine action for a protocol action; the amount is kept for STAKE only.

    Raises MalformedAction for a message of another type or an unspecified or unknown move.
    """
    if not isinstance(message, svara_pb2.SvaraAction):
        raise MalformedAction(f"expected a SvaraAction, got {type(message).__name__}")
    number = message.move
    return _action(number, message.amount if number == SvaraMove.STAKE else 0)


@lru_cache(maxsize=1 << 12)
def _action(number: int, amount: int) -> SvaraMoveAction:
    """The action of move ``number`` and ``amount`` tokens, one object per pair (an action is immutable;
    answers repeat); raises MalformedAction for a number that is not a move."""
    try:
        move = SvaraMove(number)
    except ValueError:
        raise MalformedAction(f"SvaraAction.move must be a move, not {number}") from None
    return SvaraMoveAction(move, amount)


def encode_action(action: SvaraMoveAction) -> svara_pb2.SvaraAction:
    """The protocol message for an engine action (amount sent for STAKE only)."""
    amount = action.amount if action.move is SvaraMove.STAKE else 0
    return svara_pb2.SvaraAction(move=int(action.move), amount=amount)
