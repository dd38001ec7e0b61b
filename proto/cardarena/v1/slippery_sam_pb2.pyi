from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SlipperySamDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SLIPPERY_SAM_DECISION_UNSPECIFIED: _ClassVar[SlipperySamDecision]
    SLIPPERY_SAM_DECISION_KITTY: _ClassVar[SlipperySamDecision]
    SLIPPERY_SAM_DECISION_BET: _ClassVar[SlipperySamDecision]
SLIPPERY_SAM_DECISION_UNSPECIFIED: SlipperySamDecision
SLIPPERY_SAM_DECISION_KITTY: SlipperySamDecision
SLIPPERY_SAM_DECISION_BET: SlipperySamDecision

class SlipperySamShot(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class SlipperySamBet(_message.Message):
    __slots__ = ("dealer", "seat", "amount", "turned", "won", "shoot")
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TURNED_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    SHOOT_FIELD_NUMBER: _ClassVar[int]
    dealer: int
    seat: int
    amount: int
    turned: str
    won: bool
    shoot: bool
    def __init__(self, dealer: _Optional[int] = ..., seat: _Optional[int] = ..., amount: _Optional[int] = ..., turned: _Optional[str] = ..., won: _Optional[bool] = ..., shoot: _Optional[bool] = ...) -> None: ...

class SlipperySamView(_message.Message):
    __slots__ = ("decision", "min_amount", "max_amount", "hand", "dealer", "kitty", "deal_in_turn", "tokens", "out", "turned", "shots", "bets", "first_dealer_cards", "orbit", "orbits", "starting_tokens")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    MIN_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    DEAL_IN_TURN_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    TURNED_FIELD_NUMBER: _ClassVar[int]
    SHOTS_FIELD_NUMBER: _ClassVar[int]
    BETS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_CARDS_FIELD_NUMBER: _ClassVar[int]
    ORBIT_FIELD_NUMBER: _ClassVar[int]
    ORBITS_FIELD_NUMBER: _ClassVar[int]
    STARTING_TOKENS_FIELD_NUMBER: _ClassVar[int]
    decision: SlipperySamDecision
    min_amount: int
    max_amount: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    dealer: int
    kitty: int
    deal_in_turn: int
    tokens: _containers.RepeatedScalarFieldContainer[int]
    out: _containers.RepeatedScalarFieldContainer[bool]
    turned: _containers.RepeatedScalarFieldContainer[str]
    shots: _containers.RepeatedCompositeFieldContainer[SlipperySamShot]
    bets: _containers.RepeatedCompositeFieldContainer[SlipperySamBet]
    first_dealer_cards: _containers.RepeatedScalarFieldContainer[str]
    orbit: int
    orbits: int
    starting_tokens: int
    def __init__(self, decision: _Optional[_Union[SlipperySamDecision, str]] = ..., min_amount: _Optional[int] = ..., max_amount: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., dealer: _Optional[int] = ..., kitty: _Optional[int] = ..., deal_in_turn: _Optional[int] = ..., tokens: _Optional[_Iterable[int]] = ..., out: _Optional[_Iterable[bool]] = ..., turned: _Optional[_Iterable[str]] = ..., shots: _Optional[_Iterable[_Union[SlipperySamShot, _Mapping]]] = ..., bets: _Optional[_Iterable[_Union[SlipperySamBet, _Mapping]]] = ..., first_dealer_cards: _Optional[_Iterable[str]] = ..., orbit: _Optional[int] = ..., orbits: _Optional[int] = ..., starting_tokens: _Optional[int] = ...) -> None: ...

class SlipperySamAction(_message.Message):
    __slots__ = ("amount",)
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    amount: int
    def __init__(self, amount: _Optional[int] = ...) -> None: ...
