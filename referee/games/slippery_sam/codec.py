"""Slippery Sam <-> ``cardarena.v1`` protocol messages (``slippery_sam.proto``)."""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter
from typing import Any

from cardarena.v1 import slippery_sam_pb2 as pb

from referee.games import MalformedAction
from referee.games.slippery_sam.rules import Decision, SettledBet, SlipperySamAction, SlipperySamView
from referee.wire import History, ViewCodec

_DECISION = {
    None: pb.SLIPPERY_SAM_DECISION_UNSPECIFIED,
    Decision.KITTY: pb.SLIPPERY_SAM_DECISION_KITTY,
    Decision.BET: pb.SLIPPERY_SAM_DECISION_BET,
}
#: The members ``_fields`` compares a view's decision with (an Enum member hashes in Python, and an
#: Enum class's attribute is looked up through a hook): its number without a lookup in ``_DECISION``.
_BET, _KITTY = Decision.BET, Decision.KITTY
_BET_NUMBER, _KITTY_NUMBER, _NO_DECISION = _DECISION[_BET], _DECISION[_KITTY], _DECISION[None]


def _bet(b: SettledBet) -> pb.SlipperySamBet:
    """A settled bet as a message (the view encoder keeps each bet's bytes: every later view repeats them, rules §1.7)."""
    return pb.SlipperySamBet(dealer=b.dealer, seat=b.seat, amount=b.amount, turned=b.turned, won=b.won, shoot=b.shoot)


#: A settled bet's fields in the order of ``SlipperySamBet``'s field numbers (its frame is joined
#: from their bytes, no message built: ``referee.wire.History.values``).
_bet_values = attrgetter("dealer", "seat", "amount", "turned", "won", "shoot")


def _fields(view: SlipperySamView) -> dict[str, Any]:
    """Every field of the view message but the history (``shots``, ``bets``), as keyword arguments."""
    decision = view.decision
    return {
        "decision": _BET_NUMBER if decision is _BET else _KITTY_NUMBER if decision is _KITTY else _NO_DECISION,
        "min_amount": view.min_amount,
        "max_amount": view.max_amount,
        "hand": view.hand,
        "dealer": max(view.dealer, 0),
        "kitty": view.kitty,
        "deal_in_turn": view.deal_in_turn,
        "tokens": view.tokens,
        "out": view.out,
        "turned": view.turned,
        "first_dealer_cards": view.first_dealer_cards,
        "orbit": view.orbit,
        "orbits": view.orbits,
        "starting_tokens": view.starting_tokens,
    }


def _shot(shot: tuple[int, tuple[str, ...]]) -> pb.SlipperySamShot:
    return pb.SlipperySamShot(seat=shot[0], cards=shot[1])


#: The view message: the deal's shots and the game's bets are encoded once each (referee.wire); a
#: settled bet, with its turned card and outcome, seldom repeats, so its frame is not kept by value.
VIEW = ViewCodec(
    pb.SlipperySamView,
    _fields,
    (History("shots", attrgetter("shots"), _shot), History("bets", attrgetter("bets"), _bet, repeats=False, values=_bet_values)),
)


def encode_view(view: SlipperySamView) -> pb.SlipperySamView:
    """The engine's view as the protocol message sent to the bot, encoded from scratch."""
    return VIEW.message(view)  # type: ignore[return-value]


def decode_action(message: pb.SlipperySamAction) -> SlipperySamAction:
    """The bot's answer as an engine action; raises MalformedAction if it is not a SlipperySamAction."""
    if not isinstance(message, pb.SlipperySamAction):
        raise MalformedAction(f"expected a SlipperySamAction, got {type(message).__name__}")
    return _action(message.amount)


@lru_cache(maxsize=1 << 12)
def _action(amount: int) -> SlipperySamAction:
    """The action of ``amount`` tokens, one object per amount (an action is immutable; amounts repeat)."""
    return SlipperySamAction(amount=int(amount))


def encode_action(action: SlipperySamAction) -> pb.SlipperySamAction:
    """An engine action as the protocol message."""
    return pb.SlipperySamAction(amount=action.amount)
