"""The store's tables as SQLAlchemy 2 declarative models.

The same models serve SQLite (the default) and PostgreSQL. The schema is
created and changed only by the Alembic migrations in ``store/migrations``;
``tests/store`` checks that autogenerate finds no drift between these models
and the migrations, so a change here needs a new migration.

Times are timezone-aware UTC :class:`datetime.datetime` values on both
databases (see :class:`UtcDateTime`). Statuses are stored as their string
values (``native_enum=False``: a VARCHAR with a CHECK constraint, the same on
both databases, so adding a value never needs a PostgreSQL ``ALTER TYPE``).
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

#: Constraint names are fixed by convention so migrations name them the same
#: way on every database (SQLite needs names to alter constraints later).
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every database.

    PostgreSQL stores ``timestamp with time zone``; SQLite has no time zones,
    so values are stored as naive UTC text (which then compares correctly as
    text) and read back as aware UTC. Naive values given to the store are
    taken to be UTC already.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class SeasonStatus(enum.StrEnum):
    """A season's life: scheduled until its first claim, running, done when no game is left."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    DONE = "done"


class GameStatus(enum.StrEnum):
    """A game's life (rules §4.3): pending -> running -> done, or back to pending when an
    attempt is voided, or failed after the last voided attempt (shown, not rated); or
    pending -> not_played when a bot of its table was suspended from the season for not
    answering (rules §4.9: shown, never rated), or because its season was cancelled (reason
    :data:`CANCELLED`, rules §4.11: shown apart, never rated)."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    NOT_PLAYED = "not_played"


#: The reason of a game not played because its season was cancelled (rules §4.11); its status is
#: ``not_played``, its detail says ``season cancelled: WHY``. The season's ``config["cancelled"]`` holds
#: ``{"at": ISO time, "reason": WHY}``.
CANCELLED = "cancelled"


class AttemptOutcome(enum.StrEnum):
    """How one attempt at a game ended; ``None`` in the row while it runs."""

    DONE = "done"
    VOIDED = "voided"


def _str_enum(cls: type[enum.StrEnum], name: str) -> Enum:
    return Enum(
        cls,
        name=name,
        native_enum=False,
        create_constraint=True,
        length=16,
        values_callable=lambda e: [m.value for m in e],
        validate_strings=True,
    )


class Base(DeclarativeBase):
    """Declarative base carrying the naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UtcDateTime(), dict[str, Any]: JSON(), list[Any]: JSON()}


class Bot(Base):
    """A registered bot service. ``endpoint`` is ``host:port``; ``games`` the game names
    (``referee.games.games()`` names) it plays; ``capacity`` how many games it accepts
    at once (the last capacity its Describe declared, ``workers.identity``); ``token_hash`` a
    hash of its auth token, never the token. ``described_name`` is the name the endpoint's
    Describe gave when it was registered (or first checked, for rows from before migration
    0008): another name there means the endpoint serves another bot (rules §4.9).
    ``described_version`` / ``described_capacity``: the last version and capacity Describe
    declared (``version`` and ``capacity`` follow them when they change; ``bot update --version``
    sets ``version`` alone). ``revision`` grows by one at every update of the row (migration 0017), so
    the count of bots and the sum of their revisions change whenever any bot does: a ladder's runner
    keeps its entrants until they do (``store.ladders.Ladders.refill_view``)."""

    __tablename__ = "bots"
    # names are unique whatever their case (league.names; migration 0012)
    __table_args__ = (Index("ix_bots_name_folded", func.lower(text("name")), unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    endpoint: Mapped[str] = mapped_column(String(255))
    version: Mapped[str] = mapped_column(String(64))
    author: Mapped[str] = mapped_column(String(128))
    games: Mapped[list[Any]]
    capacity: Mapped[int] = mapped_column(Integer, default=1)
    token_hash: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retired_at: Mapped[datetime | None]
    described_name: Mapped[str | None] = mapped_column(String(64))
    described_version: Mapped[str | None] = mapped_column(String(64))
    described_capacity: Mapped[int | None] = mapped_column(Integer)
    revision: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"), onupdate=text("revision + 1"))


class Season(Base):
    """A season: one game with fixed parameters, time control and key, and its schedule.

    ``config`` holds the scheduler's settings (table sizes, duplicate flag, ...).
    ``deal_key`` is the season's secret key (``league.integrity.fairness``: 64 hex digits; every
    game's deal seed is an HMAC of it), never shown until the season is done;
    ``commitment`` its SHA-256, public from the start. ``reproducible``: the key was
    derived from the organiser's ``seed`` (``--seed``; a secret season stores 0, which
    ``store.SeasonInfo`` shows as None).
    Seasons from before keys (migration 0005) have neither key nor commitment and are
    marked reproducible: their seed was public. ``rated_through``
    is the ratings checkpoint: every game numbered up to it is final (done or
    failed) and ``ratings.base_elo`` holds the Elo after exactly those games
    (-1: no checkpoint)."""

    __tablename__ = "seasons"
    __table_args__ = (Index("ix_seasons_ladder_id_epoch", "ladder_id", "epoch", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    game: Mapped[str] = mapped_column(String(32))
    params: Mapped[dict[str, Any]]
    time_control: Mapped[dict[str, Any]]
    seed: Mapped[int] = mapped_column(BigInteger)
    deal_key: Mapped[str | None] = mapped_column(String(64))
    commitment: Mapped[str | None] = mapped_column(String(64))
    reproducible: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))
    config: Mapped[dict[str, Any]]
    status: Mapped[SeasonStatus] = mapped_column(
        _str_enum(SeasonStatus, "season_status"), default=SeasonStatus.SCHEDULED
    )
    rated_through: Mapped[int] = mapped_column(Integer, default=-1, server_default=text("-1"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    #: the chance scheme (``referee.chance.SCHEMES``) every game of the season is dealt with, fixed at
    #: creation and covered by the commitment (NULL: a season from before migration 0007)
    chance_scheme: Mapped[str | None] = mapped_column(String(32))
    #: the hash of the season's last chain entry (``store.chain``) and the number of entries
    chain_head: Mapped[str | None] = mapped_column(String(64))
    chain_length: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    #: a ladder's epoch (``store.ladders``): the ladder's id and the epoch's number (from 1); NULL for a
    #: season. No foreign key: SQLite cannot add one to an existing table without copying it (migration 0009).
    ladder_id: Mapped[int | None] = mapped_column(Integer)
    epoch: Mapped[int | None] = mapped_column(Integer)


class Ladder(Base):
    """An always-on competition for one game (rules §5): its games are played in epochs, each a
    :class:`Season` row (``seasons.ladder_id``, ``seasons.epoch``) with its own key, commitment and chain.

    ``config`` holds the ladder's settings (``table_sizes``, ``duplicate``, ``epoch_games``,
    ``epoch_seconds``, ``suspend_after_s``, ``window``); ``status`` is ``"open"``.
    ``fit_checkpoint``/``fit_through``: the ratings fit's checkpoint (JSON) and the last game id it
    covers (-1: none), kept for the incremental refit."""

    __tablename__ = "ladders"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    game: Mapped[str] = mapped_column(String(32))
    params: Mapped[dict[str, Any]]
    time_control: Mapped[dict[str, Any]]
    config: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), default="open", server_default=text("'open'"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    fit_checkpoint: Mapped[str | None] = mapped_column(Text)
    fit_through: Mapped[int] = mapped_column(Integer, default=-1, server_default=text("-1"))


class LadderEntrant(Base):
    """A bot version entered in a ladder (rules §5.2): one row per ``(ladder, bot, version)``.
    ``superseded_at``: when the bot declared another version (this one is no longer scheduled);
    ``retired_at``: when the bot was retired. Either keeps the row and its record."""

    __tablename__ = "ladder_entrants"
    __table_args__ = (UniqueConstraint("ladder_id", "bot_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    version: Mapped[str] = mapped_column(String(64))
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)
    superseded_at: Mapped[datetime | None]
    retired_at: Mapped[datetime | None]


class LadderRating(Base):
    """A snapshot of an entrant's ladder rating (its history): after ``games`` rated games of the
    ladder, its Bradley-Terry ``rating`` and standard error ``sd`` (Elo points) and its own ``played``."""

    __tablename__ = "ladder_ratings"
    __table_args__ = (UniqueConstraint("entrant_id", "games"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"), index=True)
    entrant_id: Mapped[int] = mapped_column(ForeignKey("ladder_entrants.id", ondelete="CASCADE"))
    games: Mapped[int] = mapped_column(Integer)
    played: Mapped[int] = mapped_column(Integer)
    rating: Mapped[float] = mapped_column(Float)
    sd: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class LadderCompare(Base):
    """A version A/B test on a ladder (rules §5.5, ``league.competition.compare``): does entrant ``candidate`` beat
    entrant ``base``? ``delta`` the indifference zone and ``difference``/``low``/``high`` the estimate of
    ``rating[candidate] - rating[base]`` with its 95% interval (Elo points); ``confidence`` 1 - alpha;
    ``max_games`` its budget; ``status`` ``running``, ``better``, ``worse``, ``within_zone``, ``budget``
    (stopped at the budget), ``replaced`` (by the compare of its candidate's next version, ``--auto``) or
    ``stopped`` (an entrant left, or stopped by hand); ``games`` the games fed to
    the test; ``after_game`` the ladder's last game id when it started (its games have higher ids);
    ``follow``: a new version of the candidate's bot starts the next compare (``--auto``); ``state`` the
    test's state (JSON: the sufficient statistics, the games fed, the last look; ``against: record`` for a
    compare against a version no longer played, answered from the ladder's ratings)."""

    __tablename__ = "ladder_compares"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ladder_id: Mapped[int] = mapped_column(ForeignKey("ladders.id", ondelete="CASCADE"), index=True)
    base_entrant_id: Mapped[int] = mapped_column(ForeignKey("ladder_entrants.id", ondelete="CASCADE"))
    candidate_entrant_id: Mapped[int] = mapped_column(ForeignKey("ladder_entrants.id", ondelete="CASCADE"))
    delta: Mapped[float] = mapped_column(Float)
    confidence: Mapped[float] = mapped_column(Float)
    max_games: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="running", server_default=text("'running'"))
    games: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    difference: Mapped[float | None] = mapped_column(Float)
    low: Mapped[float | None] = mapped_column(Float)
    high: Mapped[float | None] = mapped_column(Float)
    follow: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))
    after_game: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    state: Mapped[dict[str, Any]]


class ChainEntry(Base):
    """One entry of a season's chain (``store.chain``): ``entry`` is the canonical JSON of what was
    stored (the season and its schedule, games added to it, or a game that became final), ``hash``
    SHA-256 of the previous entry's hash, a newline and ``entry``. ``seq`` counts from 0 in the order
    stored; ``number`` is the game's number for a game entry (else NULL)."""

    __tablename__ = "chain_entries"

    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    number: Mapped[int | None] = mapped_column(Integer)
    entry: Mapped[str] = mapped_column(Text)
    hash: Mapped[str] = mapped_column(String(64))


class Game(Base):
    """One scheduled game. ``number`` is its 0-based place in the season's schedule (the
    order ratings are computed in). ``attempts`` counts claims; ``deferrals`` how often it
    was put off because a bot of its table did not answer at game start (not attempts,
    rules §4.9); ``lease_*`` name the worker running it and until when. ``reason``/``detail``: for a done game the
    record's end reason and detail; for a failed one ``"failed"`` and why; while
    pending after a void, the last void's reason. ``live_record``: while running, the
    public progress so far (JSON of ``referee.live.LiveView.snapshot``), else NULL.
    ``deal_group``: the games that share this game's deal (``league.competition.schedule``): in a
    duplicate season the table's rotation group number, else the game's own number;
    while any game of a group is pending or running, the others are sealed (``store.sealing``).
    ``token``: the id its bots are sent (``league.integrity.fairness.game_token``, keyed from the season's key:
    it tells a bot nothing of the schedule), found by the dashboard once the game is final; NULL for games
    stored before migration 0013, whose bots were sent ``<season id>/<number>``."""

    __tablename__ = "games"
    __table_args__ = (
        UniqueConstraint("season_id", "number"),
        # by season and status, in schedule order: next_pending, progress, the ratings checkpoint
        Index("ix_games_season_id_status_number", "season_id", "status", "number"),
        Index("ix_games_status_lease_expires_at", "status", "lease_expires_at"),
        # a deal group's open games: is a game sealed (migration 0005)
        Index("ix_games_season_id_deal_group_status", "season_id", "deal_group", "status"),
        # a game by the id its bots received (migration 0013)
        Index("ix_games_token", "token", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    deal_group: Mapped[int | None] = mapped_column(Integer)  # always written; NULL-able for migration 0005
    token: Mapped[str | None] = mapped_column(String(32))  # always written; NULL-able for migration 0013
    status: Mapped[GameStatus] = mapped_column(
        _str_enum(GameStatus, "game_status"), default=GameStatus.PENDING
    )
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    deferrals: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    lease_owner: Mapped[str | None] = mapped_column(String(255))
    lease_expires_at: Mapped[datetime | None]
    reason: Mapped[str | None] = mapped_column(String(32))
    detail: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    live_record: Mapped[str | None] = mapped_column(Text, deferred=True)


class SeasonBotStatus(Base):
    """A bot's availability in a season (rules §4.9), written only when it did not answer at
    the start of one of the season's games: ``unavailable_since`` the first such moment since
    it last answered (NULL once a game with it starts again), ``reason`` the last failed
    check, ``suspended_at`` when it was suspended from the season (its remaining games stored
    as not played)."""

    __tablename__ = "season_bot_status"

    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    unavailable_since: Mapped[datetime | None]
    reason: Mapped[str | None] = mapped_column(Text)
    suspended_at: Mapped[datetime | None]


class GameSeat(Base):
    """A seat of a game and, once the game is done, its result (``SeatResult``):
    ``place`` 1 = best (ties share), ``score`` final tokens or points, ``change`` the
    score change over the game, ``faults`` count, ``retired`` per rules §4.2. ``version``: the
    bot's version when the game was claimed (the version it played); NULL for games claimed
    before migration 0008 (shown as unknown)."""

    __tablename__ = "game_seats"
    __table_args__ = (
        Index("ix_game_seats_bot_id", "bot_id"),
        # covering index for the dashboard's per-bot aggregates (migration 0003)
        Index("ix_game_seats_bot_id_game_id_place_change_faults", "bot_id", "game_id", "place", "change", "faults"),
        # the seats with a fault, few among millions: the game lists' fault filter (migration 0014)
        Index("ix_game_seats_faulted", "game_id", postgresql_where=text("faults > 0"), sqlite_where=text("faults > 0")),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    place: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[int | None] = mapped_column(BigInteger)
    change: Mapped[int | None] = mapped_column(BigInteger)
    faults: Mapped[int | None] = mapped_column(Integer)
    retired: Mapped[bool | None] = mapped_column(Boolean)
    version: Mapped[str | None] = mapped_column(String(64))


class GameAttempt(Base):
    """One attempt at a game (one claim): who ran it, when, and how it ended.
    ``outcome`` is ``None`` while the attempt runs; ``detail`` says why it was voided."""

    __tablename__ = "game_attempts"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    attempt: Mapped[int] = mapped_column(Integer, primary_key=True)
    worker: Mapped[str] = mapped_column(String(255))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]
    outcome: Mapped[AttemptOutcome | None] = mapped_column(_str_enum(AttemptOutcome, "attempt_outcome"))
    detail: Mapped[str | None] = mapped_column(Text)


class Replay(Base):
    """A done game's complete ``GameRecord``: Zstandard-compressed UTF-8 JSON of
    ``GameRecord.to_json()`` (zlib in records stored before; ``store.replays`` reads both).
    Replays run to ~100 KB of JSON; they compress ~10x. ``json_size`` is the JSON's size in bytes."""

    __tablename__ = "replays"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    record: Mapped[bytes] = mapped_column(LargeBinary)
    json_size: Mapped[int] = mapped_column(Integer)


class Rating(Base):
    """A bot's rating in a season, equal to Elo over all done games in schedule order
    (``league.ratings.elo``), recomputed after every result, never accumulated in finish
    order. ``games`` is the number of rated seats. ``base_elo``/``base_games`` are the
    same at the season's checkpoint (``seasons.rated_through``), so a recompute
    replays only the games after it. Later rating systems add their own columns here."""

    __tablename__ = "ratings"

    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    elo: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    base_elo: Mapped[float] = mapped_column(Float, server_default=text("1500"))
    base_games: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Artifact(Base):
    """A content-addressed blob of a hosted bot (``hosting.artifact``): ``sha256`` of its canonical tar (64 hex
    digits, its name), ``kind`` ``code`` (a submission) or ``env`` (a Python environment built from its
    requirements), ``data`` the tar compressed with Zstandard (``size`` bytes, at most the platform's limit),
    ``unpacked_size`` the bytes of its files."""

    __tablename__ = "artifacts"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    size: Mapped[int] = mapped_column(Integer)
    unpacked_size: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class HostedBuild(Base):
    """How the platform runs a code artifact, fixed when it was first submitted: ``manifest`` (its
    ``cardarena.toml``, as parsed), ``env_sha256`` (the Python environment built from its requirements, or
    None), ``installed`` (each package pip installed: name, version, sha256) and the build's ``log``."""

    __tablename__ = "hosted_builds"

    code_sha256: Mapped[str] = mapped_column(ForeignKey("artifacts.sha256"), primary_key=True)
    env_sha256: Mapped[str | None] = mapped_column(ForeignKey("artifacts.sha256"))
    manifest: Mapped[dict[str, Any]]
    installed: Mapped[list[Any]]
    log: Mapped[str] = mapped_column(Text)
    built_at: Mapped[datetime] = mapped_column(default=utcnow)


class BotSubmission(Base):
    """A submission of a hosted bot: ``bot_id`` was given the code ``code_sha256`` at ``submitted_at`` (each
    one a new version: the bot's ``version`` is the hash)."""

    __tablename__ = "bot_submissions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), index=True)
    code_sha256: Mapped[str] = mapped_column(ForeignKey("hosted_builds.code_sha256"))
    submitted_at: Mapped[datetime] = mapped_column(default=utcnow)


class GameOutput(Base):
    """What a hosted bot wrote (stdout and stderr) while a game was played, for its author only: the seat's
    ``bot_id``, the ``text`` (at most the platform's cap) and whether some was left out (``truncated``)."""

    __tablename__ = "game_outputs"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    text: Mapped[str] = mapped_column(Text)
    truncated: Mapped[bool] = mapped_column(Boolean, default=False)


class FoldedSeason(Base):
    """A finished season (done, its key public: ``store.chain.finished``; it takes no new game, and none of its
    games changes again) whose per-bot results are folded into :class:`BotTotal`, :class:`BotSeasonTotal` and
    :class:`BotOpponentTotal` (``store.reads.totals``), so a bot's page sums a few rows per finished season instead
    of reading every seat it ever played. One row per season, written in the transaction that folds it."""

    __tablename__ = "folded_seasons"

    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)


class BotTotal(Base):
    """A bot's done games of the folded seasons, by game, seat position and version (``store.reads.bots``'s
    :data:`UNKNOWN_VERSION` for seats stored before versions were): ``games``, ``place_sum``, ``change_sum``
    (the game's unit), ``wins`` (first places), ``faults``, and ``first_game`` (the smallest game id: versions
    are listed in order of first play)."""

    __tablename__ = "bot_totals"

    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[str] = mapped_column(String(64), primary_key=True)
    games: Mapped[int] = mapped_column(BigInteger)
    place_sum: Mapped[int] = mapped_column(BigInteger)
    change_sum: Mapped[int] = mapped_column(BigInteger)
    wins: Mapped[int] = mapped_column(BigInteger)
    faults: Mapped[int] = mapped_column(BigInteger)
    first_game: Mapped[int] = mapped_column(BigInteger)


class BotSeasonTotal(Base):
    """A bot's done games in one folded season (its seasons list; a season it sat in with none done holds 0), and
    ``seated``, its games there of any status (its game list's count)."""

    __tablename__ = "bot_season_totals"

    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)
    games: Mapped[int] = mapped_column(BigInteger)
    seated: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))


class SeasonGameTotal(Base):
    """A folded season's games by status (``cancelled``: not played because the season was cancelled), the rows
    its progress is counted from (``store.seasons.progress_counts``): the season list reads these instead of
    counting every game of every finished season."""

    __tablename__ = "season_game_totals"

    season_id: Mapped[int] = mapped_column(ForeignKey("seasons.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), primary_key=True)
    cancelled: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    games: Mapped[int] = mapped_column(BigInteger)


class BotOpponentTotal(Base):
    """A bot's head-to-head record against one opponent over the folded seasons: games met, games it placed
    ahead (``wins``) and level (``draws``)."""

    __tablename__ = "bot_opponent_totals"

    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), primary_key=True)
    opponent_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), primary_key=True)
    games: Mapped[int] = mapped_column(BigInteger)
    wins: Mapped[int] = mapped_column(BigInteger)
    draws: Mapped[int] = mapped_column(BigInteger)
