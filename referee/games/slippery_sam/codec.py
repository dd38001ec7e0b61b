"""Slippery Sam <-> ``cardarena.v1`` protocol messages (``slippery_sam.proto``)."""

from __future__ import annotations

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


def _bet(b: SettledBet) -> pb.SlipperySamBet:
    """A settled bet as a message (the view encoder keeps each bet's bytes: every later view repeats them, rules §1.7)."""
    return pb.SlipperySamBet(dealer=b.dealer, seat=b.seat, amount=b.amount, turned=b.turned, won=b.won, shoot=b.shoot)


def _fields(view: SlipperySamView) -> dict[str, Any]:
    """Every field of the view message but the history (``shots``, ``bets``), as keyword arguments."""
    return dict(
        decision=_DECISION[view.decision],
        min_amount=view.min_amount,
        max_amount=view.max_amount,
        hand=view.hand,
        dealer=max(view.dealer, 0),
        kitty=view.kitty,
        deal_in_turn=view.deal_in_turn,
        tokens=view.tokens,
        out=view.out,
        turned=view.turned,
        first_dealer_cards=view.first_dealer_cards,
        orbit=view.orbit,
        orbits=view.orbits,
        starting_tokens=view.starting_tokens,
    )


def _shot(shot: tuple[int, tuple[str, ...]]) -> pb.SlipperySamShot:
    return pb.SlipperySamShot(seat=shot[0], cards=shot[1])


#: The view message: the deal's shots and the game's bets are encoded once each (referee.wire).
VIEW = ViewCodec(
    pb.SlipperySamView,
    _fields,
    (History("shots", lambda v: v.shots, _shot), History("bets", lambda v: v.bets, _bet)),
)


def encode_view(view: SlipperySamView) -> pb.SlipperySamView:
    """The engine's view as the protocol message sent to the bot, encoded from scratch."""
    return VIEW.message(view)  # type: ignore[return-value]


def decode_action(message: pb.SlipperySamAction) -> SlipperySamAction:
    """The bot's answer as an engine action; raises MalformedAction if it is not a SlipperySamAction."""
    if not isinstance(message, pb.SlipperySamAction):
        raise MalformedAction(f"expected a SlipperySamAction, got {type(message).__name__}")
    return SlipperySamAction(amount=int(message.amount))


def encode_action(action: SlipperySamAction) -> pb.SlipperySamAction:
    """An engine action as the protocol message."""
    return pb.SlipperySamAction(amount=action.amount)
