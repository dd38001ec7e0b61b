"""Contract rummy <-> ``cardarena.v1`` protocol messages (``rummy.proto``)."""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from cardarena.v1 import rummy_pb2 as pb

from referee.cards import is_card
from referee.games import MalformedAction
from referee.games.rummy.melds import Meld, MeldKind, RunEnd
from referee.games.rummy.rules import Decision, DrawSource, LayOff, NewMeld, RummyAction, RummyView
from referee.wire import History, ViewCodec

_DECISION = {
    None: pb.RUMMY_DECISION_UNSPECIFIED,
    Decision.CALL: pb.RUMMY_DECISION_CALL,
    Decision.DRAW: pb.RUMMY_DECISION_DRAW,
    Decision.PLAY: pb.RUMMY_DECISION_PLAY,
}
_KIND = {MeldKind.SET: pb.RUMMY_MELD_KIND_SET, MeldKind.RUN: pb.RUMMY_MELD_KIND_RUN}
_KIND_BACK = {v: k for k, v in _KIND.items()}
_SOURCE = {DrawSource.STOCK: pb.RUMMY_DRAW_SOURCE_STOCK, DrawSource.DISCARD_PILE: pb.RUMMY_DRAW_SOURCE_DISCARD_PILE}
_SOURCE_BACK = {v: k for k, v in _SOURCE.items()}
_END = {RunEnd.LOW: pb.RUMMY_RUN_END_LOW, RunEnd.HIGH: pb.RUMMY_RUN_END_HIGH}
_END_BACK = {v: k for k, v in _END.items()}


def encode_meld(meld: Meld) -> pb.RummyMeld:
    """A meld on the table as the protocol message (with what each card stands for)."""
    return pb.RummyMeld(id=meld.id, owner=meld.owner, kind=_KIND[meld.kind], cards=meld.cards, stands_for=meld.stands_for())


def _fields(view: RummyView) -> dict[str, Any]:
    """Every field of the view message but the melds on the table, as keyword arguments
    (``contract`` as the engine's (sets, runs))."""
    return dict(
        decision=_DECISION[view.decision],
        round=view.round,
        contract=view.contract,
        hand=view.hand,
        discard_top=view.discard_top,
        discard_live=view.discard_live,
        stock_size=view.stock_size,
        discard_size=view.discard_size,
        dealer=view.dealer,
        in_turn=view.in_turn,
        hand_sizes=view.hand_sizes,
        down=view.down,
        scores=view.scores,
        callers=view.callers,
        forbidden_discard=view.forbidden_discard,
        turn=view.turn,
        turn_limit=view.turn_limit,
        take_its=view.take_its,
        take_it_limit=view.take_it_limit,
        jokers=view.jokers,
        take_its_left=None if view.take_it_limit is None else max(0, view.take_it_limit - view.take_its),
    )


def _contract(contract: tuple[int, int]) -> pb.RummyContract:
    return pb.RummyContract(sets=contract[0], runs=contract[1])


#: The view message: each meld is encoded once, again only when laid off to (referee.wire).
VIEW = ViewCodec(pb.RummyView, _fields, (History("melds", attrgetter("melds"), encode_meld),), convert={"contract": _contract})


def encode_view(view: RummyView) -> pb.RummyView:
    """The engine's view as the protocol message sent to the bot, encoded from scratch."""
    return VIEW.message(view)  # type: ignore[return-value]


def _cards(values: object, where: str) -> tuple[str, ...]:
    cards = tuple(values)  # type: ignore[call-overload]
    for c in cards:
        if not is_card(c):
            raise MalformedAction(f"{where}: not a card: {c!r} (cards are written like 'Ah', 'Td', '7s', '2c', or 'Jk')")
    return cards


def decode_action(message: pb.RummyAction) -> RummyAction:
    """The bot's answer as an engine action.

    Raises MalformedAction for a message that is not a RummyAction, a
    non-card string, a meld without its kind, a lay-off that names no meld
    (``meld_id`` unset), or an enum value out of range.
    An unspecified draw source or run end decodes to None: whether it is
    required depends on the decision and the meld, which ``check`` judges.
    """
    if not isinstance(message, pb.RummyAction):
        raise MalformedAction(f"expected a RummyAction, got {type(message).__name__}")
    if message.draw == pb.RUMMY_DRAW_SOURCE_UNSPECIFIED:
        draw = None
    elif message.draw in _SOURCE_BACK:
        draw = _SOURCE_BACK[message.draw]
    else:
        raise MalformedAction(f"unknown draw source {message.draw}")
    go_down = []
    for i, m in enumerate(message.go_down):
        if m.kind not in _KIND_BACK:
            raise MalformedAction(f"go_down[{i}]: the meld kind must be SET or RUN, got {m.kind}")
        go_down.append(NewMeld(_KIND_BACK[m.kind], _cards(m.cards, f"go_down[{i}]")))
    lay_offs = []
    for i, lo in enumerate(message.lay_offs):
        if not lo.HasField("meld_id"):
            raise MalformedAction(f"lay_offs[{i}]: names no meld: meld_id is required")
        if lo.end == pb.RUMMY_RUN_END_UNSPECIFIED:
            end = None
        elif lo.end in _END_BACK:
            end = _END_BACK[lo.end]
        else:
            raise MalformedAction(f"lay_offs[{i}]: unknown run end {lo.end}")
        lay_offs.append(LayOff(int(lo.meld_id), _cards(lo.cards, f"lay_offs[{i}]"), end))
    discard = None
    if message.discard:
        discard = _cards([message.discard], "discard")[0]
    return RummyAction(call=bool(message.call), draw=draw, go_down=tuple(go_down), lay_offs=tuple(lay_offs), discard=discard)


def encode_action(action: RummyAction) -> pb.RummyAction:
    """An engine action as the protocol message."""
    return pb.RummyAction(
        call=action.call,
        draw=_SOURCE[action.draw] if action.draw is not None else pb.RUMMY_DRAW_SOURCE_UNSPECIFIED,
        go_down=[pb.RummyNewMeld(kind=_KIND[m.kind], cards=m.cards) for m in action.go_down],
        lay_offs=[
            pb.RummyLayOff(meld_id=lo.meld_id, cards=lo.cards, end=_END[lo.end] if lo.end is not None else pb.RUMMY_RUN_END_UNSPECIFIED)
            for lo in action.lay_offs
        ],
        discard=action.discard or "",
    )
