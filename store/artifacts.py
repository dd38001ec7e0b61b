"""Hosted bots' artifacts, builds, submissions and per-game output (migration 0011).

A hosted bot is a bot row whose endpoint is ``hosted:<bot id>/<sha256>`` (:func:`hosted_endpoint`) and whose
version is that hash: its code is the artifact of that name. The bot's id is part of the endpoint so that two
bots submitting the same files still run apart, each in sandboxes of its own (no shared memory between bots). The artifact's bytes (a canonical tar,
Zstandard-compressed, ``hosting.artifact``), the build that says how it runs (its manifest, its Python
environment's artifact, the packages installed, the build log) and each submission are stored here, so
every worker can fetch a bot by its hash. :meth:`Artifacts.submit` writes a submission and the bot's row
in one transaction: a submission is stored whole or not at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from store.bots import check_game_name, taken_message
from store.db import NameTaken, NotFound
from store.models import Artifact, Bot, BotSubmission, Game, GameOutput, HostedBuild, utcnow
from store.sealing import published
from store.session import Database

#: How a hosted bot's endpoint starts; the rest is ``<bot id>/<sha256 of its code>``.
HOSTED_PREFIX = "hosted:"


@dataclass(frozen=True)
class Hosted:
    """A hosted bot as its endpoint names it: the bot ``bot_id`` running the code artifact ``sha256``."""

    bot_id: int
    sha256: str

    @property
    def key(self) -> str:
        """``<bot id>-<sha256>``: a name for its slots and logs."""
        return f"{self.bot_id}-{self.sha256}"


def hosted_endpoint(bot_id: int, sha256: str) -> str:
    """The endpoint of the hosted bot ``bot_id`` whose code is the artifact ``sha256``."""
    return f"{HOSTED_PREFIX}{bot_id}/{sha256}"


def hosted_of(endpoint: str) -> Hosted | None:
    """The hosted bot an endpoint names, None for a remote bot's endpoint (or a malformed one)."""
    if not endpoint.startswith(HOSTED_PREFIX):
        return None
    bot, _, sha = endpoint[len(HOSTED_PREFIX):].partition("/")
    return Hosted(int(bot), sha) if bot.isdigit() and len(sha) == 64 else None


def hosted_sha(endpoint: str) -> str | None:
    """The code artifact's SHA-256 of a hosted bot's endpoint, None for a remote bot's."""
    found = hosted_of(endpoint)
    return found.sha256 if found is not None else None


@dataclass(frozen=True)
class Blob:
    """An artifact to store: its ``sha256``, ``kind`` (``code`` or ``env``), stored ``data`` and ``unpacked_size``."""

    sha256: str
    kind: str
    data: bytes
    unpacked_size: int


@dataclass(frozen=True)
class BuildInfo:
    """How the code artifact ``code_sha256`` runs: its ``manifest`` (JSON), ``env_sha256`` (None: no Python
    environment), ``installed`` (``{"name", "version", "sha256"}`` per package), the build's ``log``,
    ``built_at``, and the code artifact's stored ``size`` and ``unpacked_size`` (bytes)."""

    code_sha256: str
    env_sha256: str | None
    manifest: dict[str, Any]
    installed: list[dict[str, Any]]
    log: str
    built_at: datetime
    size: int = 0
    unpacked_size: int = 0


@dataclass(frozen=True)
class SubmissionInfo:
    """A submission: ``bot_id`` was given ``code_sha256`` at ``submitted_at``; the artifact's stored ``size`` and
    ``unpacked_size`` (bytes)."""

    bot_id: int
    code_sha256: str
    submitted_at: datetime
    size: int
    unpacked_size: int


@dataclass(frozen=True)
class HostedBotFields:
    """The bot row a submission writes: its ``name``, ``games``, ``author``, ``capacity``, the identity its
    Describe declared at the entry checks, and (a new bot) its ``token_hash``."""

    name: str
    games: Sequence[str]
    author: str
    capacity: int
    described_name: str
    described_version: str
    token_hash: str | None = None


@dataclass(frozen=True)
class OutputInfo:
    """What the hosted bot ``bot_id`` in ``seat`` wrote during a game (``truncated``: some was left out)."""

    seat: int
    bot_id: int
    text: str
    truncated: bool


class Artifacts:
    """Hosted bots' artifacts, builds, submissions and outputs over one :class:`~store.session.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def blob(self, sha256: str) -> bytes | None:
        """The stored bytes of artifact ``sha256`` (compressed), or None."""
        with self._db.read() as s:
            return s.scalar(select(Artifact.data).where(Artifact.sha256 == sha256))

    def build(self, code_sha256: str) -> BuildInfo | None:
        """How the code artifact ``code_sha256`` runs, or None if it was never submitted."""
        with self._db.read() as s:
            row = s.execute(select(HostedBuild, Artifact.size, Artifact.unpacked_size)
                            .join(Artifact, Artifact.sha256 == HostedBuild.code_sha256)
                            .where(HostedBuild.code_sha256 == code_sha256)).first()
            if row is None:
                return None
            b, size, unpacked = row
            return BuildInfo(b.code_sha256, b.env_sha256, dict(b.manifest), list(b.installed), b.log, b.built_at,
                             size, unpacked)

    def submit(self, bot_id: int | None, fields: HostedBotFields, code: Blob, env: Blob | None,
               build: BuildInfo) -> int:
        """Store a submission in one transaction: the artifacts (kept if stored already), the build (the first
        build of a hash stays its build), the bot (a new one when ``bot_id`` is None, else ``bot_id`` moved to
        the code's hash: endpoint ``hosted:<sha256>``, version the hash) and the submission. Returns the bot's
        id. Raises NameTaken (a new bot whose name is registered), NotFound (no bot ``bot_id``), ValueError
        (an unknown game, a capacity < 1)."""
        if fields.capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {fields.capacity}")
        games = [check_game_name(g) for g in fields.games]
        try:
            with self._db.write() as s:
                for blob in (code, env):
                    if blob is not None and s.get(Artifact, blob.sha256) is None:
                        s.add(Artifact(sha256=blob.sha256, kind=blob.kind, size=len(blob.data),
                                       unpacked_size=blob.unpacked_size, data=blob.data))
                s.flush()
                if s.get(HostedBuild, code.sha256) is None:
                    s.add(HostedBuild(code_sha256=code.sha256, env_sha256=build.env_sha256, manifest=build.manifest,
                                      installed=build.installed, log=build.log))
                values = {"version": code.sha256, "games": games,
                          "capacity": fields.capacity, "described_name": fields.described_name,
                          "described_version": fields.described_version, "described_capacity": fields.capacity}
                if bot_id is None:
                    taken = s.scalar(select(Bot.name).where(func.lower(Bot.name) == fields.name.lower()))
                    if taken is not None:
                        raise NameTaken(taken_message(fields.name, taken))
                    bot = Bot(name=fields.name, author=fields.author, token_hash=fields.token_hash,
                              endpoint=HOSTED_PREFIX, **values)
                    s.add(bot)
                    s.flush()
                    bot.endpoint = hosted_endpoint(bot.id, code.sha256)
                else:
                    bot = s.get(Bot, bot_id)
                    if bot is None:
                        raise NotFound(f"no bot with id {bot_id}")
                    for key, value in values.items():
                        setattr(bot, key, value)
                    bot.endpoint = hosted_endpoint(bot.id, code.sha256)
                    bot.author = fields.author or bot.author
                s.flush()
                s.add(BotSubmission(bot_id=bot.id, code_sha256=code.sha256))
                return bot.id
        except IntegrityError as exc:
            raise NameTaken(f"a bot named {fields.name!r} is already registered") from exc

    def submissions(self, bot_id: int) -> list[SubmissionInfo]:
        """The bot's submissions, newest first."""
        with self._db.read() as s:
            rows = s.execute(select(BotSubmission.bot_id, BotSubmission.code_sha256, BotSubmission.submitted_at,
                                    Artifact.size, Artifact.unpacked_size)
                             .join(Artifact, Artifact.sha256 == BotSubmission.code_sha256)
                             .where(BotSubmission.bot_id == bot_id)
                             .order_by(BotSubmission.id.desc())).all()
        return [SubmissionInfo(*r) for r in rows]

    def latest(self, bot_ids: Sequence[int]) -> dict[int, SubmissionInfo]:
        """``{bot id: its latest submission}`` for those of ``bot_ids`` that were ever submitted."""
        if not bot_ids:
            return {}
        with self._db.read() as s:
            last = (select(func.max(BotSubmission.id)).where(BotSubmission.bot_id.in_(list(bot_ids)))
                    .group_by(BotSubmission.bot_id))
            rows = s.execute(select(BotSubmission.bot_id, BotSubmission.code_sha256, BotSubmission.submitted_at,
                                    Artifact.size, Artifact.unpacked_size)
                             .join(Artifact, Artifact.sha256 == BotSubmission.code_sha256)
                             .where(BotSubmission.id.in_(last))).all()
        return {r[0]: SubmissionInfo(*r) for r in rows}

    def put_outputs(self, game_id: int, outputs: Sequence[OutputInfo]) -> None:
        """Keep what each hosted seat of game ``game_id`` wrote (a game played again replaces its seats')."""
        if not outputs:
            return
        with self._db.write() as s:
            s.execute(delete(GameOutput).where(GameOutput.game_id == game_id,
                                               GameOutput.seat.in_([o.seat for o in outputs])))
            s.add_all(GameOutput(game_id=game_id, seat=o.seat, bot_id=o.bot_id, text=o.text, truncated=o.truncated)
                      for o in outputs)

    def outputs(self, game_id: int, bot_id: int | None = None) -> list[OutputInfo] | None:
        """What the hosted seats of game ``game_id`` wrote (only ``bot_id``'s if given), by seat; None while the
        game is not published (not done, or sealed until its duplicate group is played, ``store.sealing``):
        a bot's output shows what it was dealt, as the replay does."""
        with self._db.read() as s:
            if s.scalar(select(Game.id).where(Game.id == game_id, published(Game))) is None:
                return None
            q = select(GameOutput).where(GameOutput.game_id == game_id).order_by(GameOutput.seat)
            if bot_id is not None:
                q = q.where(GameOutput.bot_id == bot_id)
            return [OutputInfo(o.seat, o.bot_id, o.text, o.truncated) for o in s.scalars(q)]


def now() -> datetime:
    """The current time (UTC), for builds made before they are stored."""
    return utcnow()
