from cardarena.v1 import rummy_pb2 as _rummy_pb2
from cardarena.v1 import slippery_sam_pb2 as _slippery_sam_pb2
from cardarena.v1 import svara_pb2 as _svara_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Game(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_UNSPECIFIED: _ClassVar[Game]
    GAME_SLIPPERY_SAM: _ClassVar[Game]
    GAME_SVARA: _ClassVar[Game]
    GAME_RUMMY: _ClassVar[Game]
GAME_UNSPECIFIED: Game
GAME_SLIPPERY_SAM: Game
GAME_SVARA: Game
GAME_RUMMY: Game

class DescribeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeResponse(_message.Message):
    __slots__ = ("name", "version", "author", "games", "capacity")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    author: str
    games: _containers.RepeatedScalarFieldContainer[Game]
    capacity: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., games: _Optional[_Iterable[_Union[Game, str]]] = ..., capacity: _Optional[int] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("deadline_ms", "time_bank_ms", "budget_ms")
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    BUDGET_MS_FIELD_NUMBER: _ClassVar[int]
    deadline_ms: int
    time_bank_ms: int
    budget_ms: int
    def __init__(self, deadline_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., budget_ms: _Optional[int] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("game_id", "seat", "decision", "clock", "slippery_sam", "svara", "rummy")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    SLIPPERY_SAM_FIELD_NUMBER: _ClassVar[int]
    SVARA_FIELD_NUMBER: _ClassVar[int]
    RUMMY_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    decision: int
    clock: Clock
    slippery_sam: _slippery_sam_pb2.SlipperySamView
    svara: _svara_pb2.SvaraView
    rummy: _rummy_pb2.RummyView
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., decision: _Optional[int] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., slippery_sam: _Optional[_Union[_slippery_sam_pb2.SlipperySamView, _Mapping]] = ..., svara: _Optional[_Union[_svara_pb2.SvaraView, _Mapping]] = ..., rummy: _Optional[_Union[_rummy_pb2.RummyView, _Mapping]] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("slippery_sam", "svara", "rummy")
    SLIPPERY_SAM_FIELD_NUMBER: _ClassVar[int]
    SVARA_FIELD_NUMBER: _ClassVar[int]
    RUMMY_FIELD_NUMBER: _ClassVar[int]
    slippery_sam: _slippery_sam_pb2.SlipperySamAction
    svara: _svara_pb2.SvaraAction
    rummy: _rummy_pb2.RummyAction
    def __init__(self, slippery_sam: _Optional[_Union[_slippery_sam_pb2.SlipperySamAction, _Mapping]] = ..., svara: _Optional[_Union[_svara_pb2.SvaraAction, _Mapping]] = ..., rummy: _Optional[_Union[_rummy_pb2.RummyAction, _Mapping]] = ...) -> None: ...

class ActStreamRequest(_message.Message):
    __slots__ = ("id", "request")
    ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    id: int
    request: ActRequest
    def __init__(self, id: _Optional[int] = ..., request: _Optional[_Union[ActRequest, _Mapping]] = ...) -> None: ...

class ActStreamResponse(_message.Message):
    __slots__ = ("id", "response", "error")
    ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    id: int
    response: ActResponse
    error: ActStreamError
    def __init__(self, id: _Optional[int] = ..., response: _Optional[_Union[ActResponse, _Mapping]] = ..., error: _Optional[_Union[ActStreamError, _Mapping]] = ...) -> None: ...

class ActStreamError(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...
