from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RummyDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUMMY_DECISION_UNSPECIFIED: _ClassVar[RummyDecision]
    RUMMY_DECISION_CALL: _ClassVar[RummyDecision]
    RUMMY_DECISION_DRAW: _ClassVar[RummyDecision]
    RUMMY_DECISION_PLAY: _ClassVar[RummyDecision]

class RummyMeldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUMMY_MELD_KIND_UNSPECIFIED: _ClassVar[RummyMeldKind]
    RUMMY_MELD_KIND_SET: _ClassVar[RummyMeldKind]
    RUMMY_MELD_KIND_RUN: _ClassVar[RummyMeldKind]

class RummyDrawSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUMMY_DRAW_SOURCE_UNSPECIFIED: _ClassVar[RummyDrawSource]
    RUMMY_DRAW_SOURCE_STOCK: _ClassVar[RummyDrawSource]
    RUMMY_DRAW_SOURCE_DISCARD_PILE: _ClassVar[RummyDrawSource]

class RummyRunEnd(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUMMY_RUN_END_UNSPECIFIED: _ClassVar[RummyRunEnd]
    RUMMY_RUN_END_LOW: _ClassVar[RummyRunEnd]
    RUMMY_RUN_END_HIGH: _ClassVar[RummyRunEnd]
RUMMY_DECISION_UNSPECIFIED: RummyDecision
RUMMY_DECISION_CALL: RummyDecision
RUMMY_DECISION_DRAW: RummyDecision
RUMMY_DECISION_PLAY: RummyDecision
RUMMY_MELD_KIND_UNSPECIFIED: RummyMeldKind
RUMMY_MELD_KIND_SET: RummyMeldKind
RUMMY_MELD_KIND_RUN: RummyMeldKind
RUMMY_DRAW_SOURCE_UNSPECIFIED: RummyDrawSource
RUMMY_DRAW_SOURCE_STOCK: RummyDrawSource
RUMMY_DRAW_SOURCE_DISCARD_PILE: RummyDrawSource
RUMMY_RUN_END_UNSPECIFIED: RummyRunEnd
RUMMY_RUN_END_LOW: RummyRunEnd
RUMMY_RUN_END_HIGH: RummyRunEnd

class RummyMeld(_message.Message):
    __slots__ = ("id", "owner", "kind", "cards", "stands_for")
    ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    STANDS_FOR_FIELD_NUMBER: _ClassVar[int]
    id: int
    owner: int
    kind: RummyMeldKind
    cards: _containers.RepeatedScalarFieldContainer[str]
    stands_for: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[int] = ..., owner: _Optional[int] = ..., kind: _Optional[_Union[RummyMeldKind, str]] = ..., cards: _Optional[_Iterable[str]] = ..., stands_for: _Optional[_Iterable[str]] = ...) -> None: ...

class RummyContract(_message.Message):
    __slots__ = ("sets", "runs")
    SETS_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    sets: int
    runs: int
    def __init__(self, sets: _Optional[int] = ..., runs: _Optional[int] = ...) -> None: ...

class RummyView(_message.Message):
    __slots__ = ("decision", "round", "contract", "hand", "melds", "discard_top", "discard_live", "stock_size", "discard_size", "dealer", "in_turn", "hand_sizes", "down", "scores", "callers", "forbidden_discard", "turn", "turn_limit", "take_its", "take_it_limit", "jokers", "take_its_left")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    MELDS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_TOP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_LIVE_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_SIZE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    IN_TURN_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    DOWN_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    CALLERS_FIELD_NUMBER: _ClassVar[int]
    FORBIDDEN_DISCARD_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TURN_LIMIT_FIELD_NUMBER: _ClassVar[int]
    TAKE_ITS_FIELD_NUMBER: _ClassVar[int]
    TAKE_IT_LIMIT_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    TAKE_ITS_LEFT_FIELD_NUMBER: _ClassVar[int]
    decision: RummyDecision
    round: int
    contract: RummyContract
    hand: _containers.RepeatedScalarFieldContainer[str]
    melds: _containers.RepeatedCompositeFieldContainer[RummyMeld]
    discard_top: str
    discard_live: bool
    stock_size: int
    discard_size: int
    dealer: int
    in_turn: int
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    down: _containers.RepeatedScalarFieldContainer[bool]
    scores: _containers.RepeatedScalarFieldContainer[int]
    callers: _containers.RepeatedScalarFieldContainer[int]
    forbidden_discard: str
    turn: int
    turn_limit: int
    take_its: int
    take_it_limit: int
    jokers: int
    take_its_left: int
    def __init__(self, decision: _Optional[_Union[RummyDecision, str]] = ..., round: _Optional[int] = ..., contract: _Optional[_Union[RummyContract, _Mapping]] = ..., hand: _Optional[_Iterable[str]] = ..., melds: _Optional[_Iterable[_Union[RummyMeld, _Mapping]]] = ..., discard_top: _Optional[str] = ..., discard_live: _Optional[bool] = ..., stock_size: _Optional[int] = ..., discard_size: _Optional[int] = ..., dealer: _Optional[int] = ..., in_turn: _Optional[int] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., down: _Optional[_Iterable[bool]] = ..., scores: _Optional[_Iterable[int]] = ..., callers: _Optional[_Iterable[int]] = ..., forbidden_discard: _Optional[str] = ..., turn: _Optional[int] = ..., turn_limit: _Optional[int] = ..., take_its: _Optional[int] = ..., take_it_limit: _Optional[int] = ..., jokers: _Optional[int] = ..., take_its_left: _Optional[int] = ...) -> None: ...

class RummyLayOff(_message.Message):
    __slots__ = ("meld_id", "cards", "end")
    MELD_ID_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    meld_id: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    end: RummyRunEnd
    def __init__(self, meld_id: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., end: _Optional[_Union[RummyRunEnd, str]] = ...) -> None: ...

class RummyNewMeld(_message.Message):
    __slots__ = ("kind", "cards")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    kind: RummyMeldKind
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, kind: _Optional[_Union[RummyMeldKind, str]] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class RummyAction(_message.Message):
    __slots__ = ("call", "draw", "go_down", "lay_offs", "discard")
    CALL_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    GO_DOWN_FIELD_NUMBER: _ClassVar[int]
    LAY_OFFS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    call: bool
    draw: RummyDrawSource
    go_down: _containers.RepeatedCompositeFieldContainer[RummyNewMeld]
    lay_offs: _containers.RepeatedCompositeFieldContainer[RummyLayOff]
    discard: str
    def __init__(self, call: _Optional[bool] = ..., draw: _Optional[_Union[RummyDrawSource, str]] = ..., go_down: _Optional[_Iterable[_Union[RummyNewMeld, _Mapping]]] = ..., lay_offs: _Optional[_Iterable[_Union[RummyLayOff, _Mapping]]] = ..., discard: _Optional[str] = ...) -> None: ...
