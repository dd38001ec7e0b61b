import datetime

from cardarena.v1 import bot_pb2 as _bot_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ArenaBot(_message.Message):
    __slots__ = ("id", "name", "endpoint", "version", "author", "games", "capacity", "created_at", "retired", "retired_at", "games_played", "availability", "hosted")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    RETIRED_AT_FIELD_NUMBER: _ClassVar[int]
    GAMES_PLAYED_FIELD_NUMBER: _ClassVar[int]
    AVAILABILITY_FIELD_NUMBER: _ClassVar[int]
    HOSTED_FIELD_NUMBER: _ClassVar[int]
    id: int
    name: str
    endpoint: str
    version: str
    author: str
    games: _containers.RepeatedScalarFieldContainer[_bot_pb2.Game]
    capacity: int
    created_at: _timestamp_pb2.Timestamp
    retired: bool
    retired_at: _timestamp_pb2.Timestamp
    games_played: int
    availability: str
    hosted: bool
    def __init__(self, id: _Optional[int] = ..., name: _Optional[str] = ..., endpoint: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., games: _Optional[_Iterable[_Union[_bot_pb2.Game, str]]] = ..., capacity: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., retired: _Optional[bool] = ..., retired_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., games_played: _Optional[int] = ..., availability: _Optional[str] = ..., hosted: _Optional[bool] = ...) -> None: ...

class EntryCheck(_message.Message):
    __slots__ = ("name", "passed", "detail")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    name: str
    passed: bool
    detail: str
    def __init__(self, name: _Optional[str] = ..., passed: _Optional[bool] = ..., detail: _Optional[str] = ...) -> None: ...

class EntryReport(_message.Message):
    __slots__ = ("checks", "latency_median_ms", "latency_p99_ms", "latency_max_ms", "decisions", "transport")
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MEDIAN_MS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_P99_MS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MAX_MS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    TRANSPORT_FIELD_NUMBER: _ClassVar[int]
    checks: _containers.RepeatedCompositeFieldContainer[EntryCheck]
    latency_median_ms: float
    latency_p99_ms: float
    latency_max_ms: float
    decisions: int
    transport: str
    def __init__(self, checks: _Optional[_Iterable[_Union[EntryCheck, _Mapping]]] = ..., latency_median_ms: _Optional[float] = ..., latency_p99_ms: _Optional[float] = ..., latency_max_ms: _Optional[float] = ..., decisions: _Optional[int] = ..., transport: _Optional[str] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "endpoint", "games", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    endpoint: str
    games: _containers.RepeatedScalarFieldContainer[_bot_pb2.Game]
    version: str
    def __init__(self, name: _Optional[str] = ..., endpoint: _Optional[str] = ..., games: _Optional[_Iterable[_Union[_bot_pb2.Game, str]]] = ..., version: _Optional[str] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("bot", "token", "report")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    bot: ArenaBot
    token: str
    report: EntryReport
    def __init__(self, bot: _Optional[_Union[ArenaBot, _Mapping]] = ..., token: _Optional[str] = ..., report: _Optional[_Union[EntryReport, _Mapping]] = ...) -> None: ...

class UpdateBotRequest(_message.Message):
    __slots__ = ("name", "token", "endpoint", "version", "games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    endpoint: str
    version: str
    games: _containers.RepeatedScalarFieldContainer[_bot_pb2.Game]
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., endpoint: _Optional[str] = ..., version: _Optional[str] = ..., games: _Optional[_Iterable[_Union[_bot_pb2.Game, str]]] = ...) -> None: ...

class UpdateBotResponse(_message.Message):
    __slots__ = ("bot", "report")
    BOT_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    bot: ArenaBot
    report: EntryReport
    def __init__(self, bot: _Optional[_Union[ArenaBot, _Mapping]] = ..., report: _Optional[_Union[EntryReport, _Mapping]] = ...) -> None: ...

class RetireBotRequest(_message.Message):
    __slots__ = ("name", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class RetireBotResponse(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: ArenaBot
    def __init__(self, bot: _Optional[_Union[ArenaBot, _Mapping]] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("include_retired", "check")
    INCLUDE_RETIRED_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    include_retired: bool
    check: bool
    def __init__(self, include_retired: _Optional[bool] = ..., check: _Optional[bool] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[ArenaBot]
    def __init__(self, bots: _Optional[_Iterable[_Union[ArenaBot, _Mapping]]] = ...) -> None: ...

class GetStandingsRequest(_message.Message):
    __slots__ = ("season",)
    SEASON_FIELD_NUMBER: _ClassVar[int]
    season: str
    def __init__(self, season: _Optional[str] = ...) -> None: ...

class StandingRow(_message.Message):
    __slots__ = ("rank", "bot_id", "name", "games", "avg_place", "avg_change", "faults", "elo", "ml_rating", "ml_low", "ml_high", "p_better", "openskill_mu", "openskill_sigma", "retired", "luck_change", "luck_low", "luck_high")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    AVG_PLACE_FIELD_NUMBER: _ClassVar[int]
    AVG_CHANGE_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    ML_RATING_FIELD_NUMBER: _ClassVar[int]
    ML_LOW_FIELD_NUMBER: _ClassVar[int]
    ML_HIGH_FIELD_NUMBER: _ClassVar[int]
    P_BETTER_FIELD_NUMBER: _ClassVar[int]
    OPENSKILL_MU_FIELD_NUMBER: _ClassVar[int]
    OPENSKILL_SIGMA_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    LUCK_CHANGE_FIELD_NUMBER: _ClassVar[int]
    LUCK_LOW_FIELD_NUMBER: _ClassVar[int]
    LUCK_HIGH_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot_id: int
    name: str
    games: int
    avg_place: float
    avg_change: float
    faults: int
    elo: float
    ml_rating: float
    ml_low: float
    ml_high: float
    p_better: float
    openskill_mu: float
    openskill_sigma: float
    retired: int
    luck_change: float
    luck_low: float
    luck_high: float
    def __init__(self, rank: _Optional[int] = ..., bot_id: _Optional[int] = ..., name: _Optional[str] = ..., games: _Optional[int] = ..., avg_place: _Optional[float] = ..., avg_change: _Optional[float] = ..., faults: _Optional[int] = ..., elo: _Optional[float] = ..., ml_rating: _Optional[float] = ..., ml_low: _Optional[float] = ..., ml_high: _Optional[float] = ..., p_better: _Optional[float] = ..., openskill_mu: _Optional[float] = ..., openskill_sigma: _Optional[float] = ..., retired: _Optional[int] = ..., luck_change: _Optional[float] = ..., luck_low: _Optional[float] = ..., luck_high: _Optional[float] = ...) -> None: ...

class GetStandingsResponse(_message.Message):
    __slots__ = ("season", "game", "rows", "reproducible", "commitment")
    SEASON_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    REPRODUCIBLE_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    season: str
    game: _bot_pb2.Game
    rows: _containers.RepeatedCompositeFieldContainer[StandingRow]
    reproducible: bool
    commitment: str
    def __init__(self, season: _Optional[str] = ..., game: _Optional[_Union[_bot_pb2.Game, str]] = ..., rows: _Optional[_Iterable[_Union[StandingRow, _Mapping]]] = ..., reproducible: _Optional[bool] = ..., commitment: _Optional[str] = ...) -> None: ...

class GetLadderStandingRequest(_message.Message):
    __slots__ = ("ladder", "bot")
    LADDER_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    bot: str
    def __init__(self, ladder: _Optional[str] = ..., bot: _Optional[str] = ...) -> None: ...

class LadderVersionRow(_message.Message):
    __slots__ = ("version", "status", "latest", "rank", "games", "placing", "rating", "low", "high")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LATEST_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PLACING_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    version: str
    status: str
    latest: bool
    rank: int
    games: int
    placing: bool
    rating: float
    low: float
    high: float
    def __init__(self, version: _Optional[str] = ..., status: _Optional[str] = ..., latest: _Optional[bool] = ..., rank: _Optional[int] = ..., games: _Optional[int] = ..., placing: _Optional[bool] = ..., rating: _Optional[float] = ..., low: _Optional[float] = ..., high: _Optional[float] = ...) -> None: ...

class GetLadderStandingResponse(_message.Message):
    __slots__ = ("ladder", "game", "bot", "table_size", "placement_games", "rated_games", "current", "versions")
    LADDER_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_GAMES_FIELD_NUMBER: _ClassVar[int]
    RATED_GAMES_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    game: _bot_pb2.Game
    bot: str
    table_size: int
    placement_games: int
    rated_games: int
    current: LadderVersionRow
    versions: _containers.RepeatedCompositeFieldContainer[LadderVersionRow]
    def __init__(self, ladder: _Optional[str] = ..., game: _Optional[_Union[_bot_pb2.Game, str]] = ..., bot: _Optional[str] = ..., table_size: _Optional[int] = ..., placement_games: _Optional[int] = ..., rated_games: _Optional[int] = ..., current: _Optional[_Union[LadderVersionRow, _Mapping]] = ..., versions: _Optional[_Iterable[_Union[LadderVersionRow, _Mapping]]] = ...) -> None: ...

class ListLadderGamesRequest(_message.Message):
    __slots__ = ("ladder", "bot", "page_size", "page_token")
    LADDER_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    bot: str
    page_size: int
    page_token: str
    def __init__(self, ladder: _Optional[str] = ..., bot: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class LadderGameSeat(_message.Message):
    __slots__ = ("seat", "bot", "version", "place", "change")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot: str
    version: str
    place: int
    change: int
    def __init__(self, seat: _Optional[int] = ..., bot: _Optional[str] = ..., version: _Optional[str] = ..., place: _Optional[int] = ..., change: _Optional[int] = ...) -> None: ...

class LadderGame(_message.Message):
    __slots__ = ("id", "epoch", "status", "seats", "seed", "finished_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    id: int
    epoch: int
    status: str
    seats: _containers.RepeatedCompositeFieldContainer[LadderGameSeat]
    seed: int
    finished_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[int] = ..., epoch: _Optional[int] = ..., status: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[LadderGameSeat, _Mapping]]] = ..., seed: _Optional[int] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListLadderGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[LadderGame]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[LadderGame, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class SubmitBotRequest(_message.Message):
    __slots__ = ("name", "token", "games", "archive")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    ARCHIVE_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    games: _containers.RepeatedScalarFieldContainer[_bot_pb2.Game]
    archive: bytes
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., games: _Optional[_Iterable[_Union[_bot_pb2.Game, str]]] = ..., archive: _Optional[bytes] = ...) -> None: ...

class InstalledPackage(_message.Message):
    __slots__ = ("name", "version", "sha256")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    sha256: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., sha256: _Optional[str] = ...) -> None: ...

class SubmitBotResponse(_message.Message):
    __slots__ = ("bot", "token", "report", "sha256", "size", "unpacked_size", "build_log", "installed", "changed")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    UNPACKED_SIZE_FIELD_NUMBER: _ClassVar[int]
    BUILD_LOG_FIELD_NUMBER: _ClassVar[int]
    INSTALLED_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    bot: ArenaBot
    token: str
    report: EntryReport
    sha256: str
    size: int
    unpacked_size: int
    build_log: str
    installed: _containers.RepeatedCompositeFieldContainer[InstalledPackage]
    changed: bool
    def __init__(self, bot: _Optional[_Union[ArenaBot, _Mapping]] = ..., token: _Optional[str] = ..., report: _Optional[_Union[EntryReport, _Mapping]] = ..., sha256: _Optional[str] = ..., size: _Optional[int] = ..., unpacked_size: _Optional[int] = ..., build_log: _Optional[str] = ..., installed: _Optional[_Iterable[_Union[InstalledPackage, _Mapping]]] = ..., changed: _Optional[bool] = ...) -> None: ...

class GetBotLogRequest(_message.Message):
    __slots__ = ("name", "token", "game_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    game_id: int
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ..., game_id: _Optional[int] = ...) -> None: ...

class BotSubmission(_message.Message):
    __slots__ = ("sha256", "submitted_at", "size", "unpacked_size")
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    UNPACKED_SIZE_FIELD_NUMBER: _ClassVar[int]
    sha256: str
    submitted_at: _timestamp_pb2.Timestamp
    size: int
    unpacked_size: int
    def __init__(self, sha256: _Optional[str] = ..., submitted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., size: _Optional[int] = ..., unpacked_size: _Optional[int] = ...) -> None: ...

class GameOutput(_message.Message):
    __slots__ = ("seat", "text", "truncated")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    text: str
    truncated: bool
    def __init__(self, seat: _Optional[int] = ..., text: _Optional[str] = ..., truncated: _Optional[bool] = ...) -> None: ...

class GetBotLogResponse(_message.Message):
    __slots__ = ("sha256", "build_log", "installed", "submissions", "outputs")
    SHA256_FIELD_NUMBER: _ClassVar[int]
    BUILD_LOG_FIELD_NUMBER: _ClassVar[int]
    INSTALLED_FIELD_NUMBER: _ClassVar[int]
    SUBMISSIONS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    sha256: str
    build_log: str
    installed: _containers.RepeatedCompositeFieldContainer[InstalledPackage]
    submissions: _containers.RepeatedCompositeFieldContainer[BotSubmission]
    outputs: _containers.RepeatedCompositeFieldContainer[GameOutput]
    def __init__(self, sha256: _Optional[str] = ..., build_log: _Optional[str] = ..., installed: _Optional[_Iterable[_Union[InstalledPackage, _Mapping]]] = ..., submissions: _Optional[_Iterable[_Union[BotSubmission, _Mapping]]] = ..., outputs: _Optional[_Iterable[_Union[GameOutput, _Mapping]]] = ...) -> None: ...
