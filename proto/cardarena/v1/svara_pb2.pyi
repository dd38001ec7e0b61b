from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SvaraDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SVARA_DECISION_UNSPECIFIED: _ClassVar[SvaraDecision]
    SVARA_DECISION_TURN: _ClassVar[SvaraDecision]
    SVARA_DECISION_VOTE: _ClassVar[SvaraDecision]
    SVARA_DECISION_JOIN: _ClassVar[SvaraDecision]

class SvaraMove(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SVARA_MOVE_UNSPECIFIED: _ClassVar[SvaraMove]
    SVARA_MOVE_LOOK: _ClassVar[SvaraMove]
    SVARA_MOVE_FOLD: _ClassVar[SvaraMove]
    SVARA_MOVE_STAKE: _ClassVar[SvaraMove]
    SVARA_MOVE_SEE: _ClassVar[SvaraMove]
    SVARA_MOVE_PROPOSE: _ClassVar[SvaraMove]
    SVARA_MOVE_ACCEPT: _ClassVar[SvaraMove]
    SVARA_MOVE_REFUSE: _ClassVar[SvaraMove]
    SVARA_MOVE_JOIN: _ClassVar[SvaraMove]
    SVARA_MOVE_DECLINE: _ClassVar[SvaraMove]
SVARA_DECISION_UNSPECIFIED: SvaraDecision
SVARA_DECISION_TURN: SvaraDecision
SVARA_DECISION_VOTE: SvaraDecision
SVARA_DECISION_JOIN: SvaraDecision
SVARA_MOVE_UNSPECIFIED: SvaraMove
SVARA_MOVE_LOOK: SvaraMove
SVARA_MOVE_FOLD: SvaraMove
SVARA_MOVE_STAKE: SvaraMove
SVARA_MOVE_SEE: SvaraMove
SVARA_MOVE_PROPOSE: SvaraMove
SVARA_MOVE_ACCEPT: SvaraMove
SVARA_MOVE_REFUSE: SvaraMove
SVARA_MOVE_JOIN: SvaraMove
SVARA_MOVE_DECLINE: SvaraMove

class SvaraLegal(_message.Message):
    __slots__ = ("moves", "stake_min", "stake_max", "see_cost", "join_cost")
    MOVES_FIELD_NUMBER: _ClassVar[int]
    STAKE_MIN_FIELD_NUMBER: _ClassVar[int]
    STAKE_MAX_FIELD_NUMBER: _ClassVar[int]
    SEE_COST_FIELD_NUMBER: _ClassVar[int]
    JOIN_COST_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedScalarFieldContainer[SvaraMove]
    stake_min: int
    stake_max: int
    see_cost: int
    join_cost: int
    def __init__(self, moves: _Optional[_Iterable[_Union[SvaraMove, str]]] = ..., stake_min: _Optional[int] = ..., stake_max: _Optional[int] = ..., see_cost: _Optional[int] = ..., join_cost: _Optional[int] = ...) -> None: ...

class SvaraEvent(_message.Message):
    __slots__ = ("seat", "move", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    move: SvaraMove
    amount: int
    def __init__(self, seat: _Optional[int] = ..., move: _Optional[_Union[SvaraMove, str]] = ..., amount: _Optional[int] = ...) -> None: ...

class SvaraShown(_message.Message):
    __slots__ = ("seat", "cards", "points")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    points: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., points: _Optional[int] = ...) -> None: ...

class SvaraView(_message.Message):
    __slots__ = ("decision", "legal", "hand", "looked", "szacha", "bottom_card", "dealer", "bank", "current_stake", "min_stake", "max_stake", "tokens", "in_play", "has_looked", "out", "svara", "circuit", "circuits", "hand_number", "hands", "history", "shown", "proposer", "in_svara", "svaras_per_bank", "starting_tokens")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LOOKED_FIELD_NUMBER: _ClassVar[int]
    SZACHA_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_CARD_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    BANK_FIELD_NUMBER: _ClassVar[int]
    CURRENT_STAKE_FIELD_NUMBER: _ClassVar[int]
    MIN_STAKE_FIELD_NUMBER: _ClassVar[int]
    MAX_STAKE_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    IN_PLAY_FIELD_NUMBER: _ClassVar[int]
    HAS_LOOKED_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    SVARA_FIELD_NUMBER: _ClassVar[int]
    CIRCUIT_FIELD_NUMBER: _ClassVar[int]
    CIRCUITS_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    PROPOSER_FIELD_NUMBER: _ClassVar[int]
    IN_SVARA_FIELD_NUMBER: _ClassVar[int]
    SVARAS_PER_BANK_FIELD_NUMBER: _ClassVar[int]
    STARTING_TOKENS_FIELD_NUMBER: _ClassVar[int]
    decision: SvaraDecision
    legal: SvaraLegal
    hand: _containers.RepeatedScalarFieldContainer[str]
    looked: bool
    szacha: str
    bottom_card: str
    dealer: int
    bank: int
    current_stake: int
    min_stake: int
    max_stake: int
    tokens: _containers.RepeatedScalarFieldContainer[int]
    in_play: _containers.RepeatedScalarFieldContainer[bool]
    has_looked: _containers.RepeatedScalarFieldContainer[bool]
    out: _containers.RepeatedScalarFieldContainer[bool]
    svara: int
    circuit: int
    circuits: int
    hand_number: int
    hands: int
    history: _containers.RepeatedCompositeFieldContainer[SvaraEvent]
    shown: _containers.RepeatedCompositeFieldContainer[SvaraShown]
    proposer: int
    in_svara: _containers.RepeatedScalarFieldContainer[bool]
    svaras_per_bank: int
    starting_tokens: int
    def __init__(self, decision: _Optional[_Union[SvaraDecision, str]] = ..., legal: _Optional[_Union[SvaraLegal, _Mapping]] = ..., hand: _Optional[_Iterable[str]] = ..., looked: _Optional[bool] = ..., szacha: _Optional[str] = ..., bottom_card: _Optional[str] = ..., dealer: _Optional[int] = ..., bank: _Optional[int] = ..., current_stake: _Optional[int] = ..., min_stake: _Optional[int] = ..., max_stake: _Optional[int] = ..., tokens: _Optional[_Iterable[int]] = ..., in_play: _Optional[_Iterable[bool]] = ..., has_looked: _Optional[_Iterable[bool]] = ..., out: _Optional[_Iterable[bool]] = ..., svara: _Optional[int] = ..., circuit: _Optional[int] = ..., circuits: _Optional[int] = ..., hand_number: _Optional[int] = ..., hands: _Optional[int] = ..., history: _Optional[_Iterable[_Union[SvaraEvent, _Mapping]]] = ..., shown: _Optional[_Iterable[_Union[SvaraShown, _Mapping]]] = ..., proposer: _Optional[int] = ..., in_svara: _Optional[_Iterable[bool]] = ..., svaras_per_bank: _Optional[int] = ..., starting_tokens: _Optional[int] = ...) -> None: ...

class SvaraAction(_message.Message):
    __slots__ = ("move", "amount")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    move: SvaraMove
    amount: int
    def __init__(self, move: _Optional[_Union[SvaraMove, str]] = ..., amount: _Optional[int] = ...) -> None: ...
