"""Submitted code: a hosted bot's submission, its build log and each game's output, for both front doors.

:func:`submit` is ``Registry.submit``'s work, under the registry's rules (names, games, tokens, rate
limit, entry checks; ``arena.registry``):

1. the machine must be able to run sandboxes (``hosting.sandbox.unavailable``: one line otherwise,
   FAILED_PRECONDITION; nothing ever runs unsandboxed);
2. the files are packed and checked (``hosting.artifact``: size, paths, links) and the manifest read
   (INVALID_ARGUMENT with what to fix);
3. a Python bot's requirements are installed (``hosting.build``; FAILED_PRECONDITION with pip's log);
4. the bot is started in its sandbox, as a worker will start it, and the entry checks run against its
   Unix socket (FAILED_PRECONDITION with the report and what the bot wrote);
5. the artifacts, the build, the bot row (endpoint ``hosted:<sha256>``, version the hash) and the
   submission are stored in one transaction.

A new name registers a new bot (its token is returned, once); a registered bot's token submits a new
version (a new ladder entrant, rules §5.2). The same files again change nothing. Only the bot's author
(its token) reads its build log and what it wrote in each game (:func:`build_log`, :func:`game_output`).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hosting.artifact import ArtifactError
from hosting.build import BuildError
from hosting.launch import StartError
from hosting.manifest import ManifestError
from hosting.sandbox import SandboxUnavailable, unavailable, unique_name
from hosting.submit import Prepared, prepare
from league.entry import EntryReport
from league.identity import MAX_VERSION_CHARS, capacity_of, clean
from store import BotInfo, NameTaken
from store.artifacts import BuildInfo, HostedBotFields, OutputInfo, SubmissionInfo, hosted_endpoint, hosted_sha

if TYPE_CHECKING:
    from arena.registry import Registry

#: Bytes of what the bot wrote during its entry checks added to a failed submission's log.
CHECK_OUTPUT_BYTES = 16 << 10


@dataclass(frozen=True)
class Submitted:
    """A stored submission: the ``bot``, its ``token`` (a new bot's, shown once; else ""), the entry ``report``
    (None when nothing changed), the artifact's ``sha256`` (the bot's version), stored ``size`` and
    ``unpacked_size`` (bytes), the build ``log``, the packages ``installed``, and whether anything ``changed``."""

    bot: BotInfo
    token: str
    report: EntryReport | None
    sha256: str
    size: int
    unpacked_size: int
    log: str
    installed: list[dict[str, str]] = field(default_factory=list)
    changed: bool = True


@dataclass(frozen=True)
class BuildLog:
    """A hosted bot's current build (``build``: its log, manifest and packages) and its ``submissions``, newest
    first; ``build`` is None for a bot never submitted (a remote one)."""

    bot: BotInfo
    build: BuildInfo | None
    submissions: list[SubmissionInfo]


def _error(kind: str, message: str, **extra: object) -> Exception:
    from arena.registry import ErrorKind, RegistryError

    return RegistryError(ErrorKind(kind), message, **extra)  # type: ignore[arg-type]


def submit(registry: Registry, name: str, games: Sequence[str], source: bytes | Path, token: str = "",
           client: str = "") -> Submitted:
    """Submit code for the bot ``name`` (see the module docstring). Raises RegistryError: RESOURCE_EXHAUSTED,
    INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION
    (no sandbox here, the build, the start or the entry checks failed: ``log`` says more), UNAVAILABLE."""
    from arena.registry import _store_errors, check_games, check_name

    registry._limit(client)
    check_name(name)
    if name.isdigit():
        raise _error("INVALID_ARGUMENT", f"bad bot name {name!r}: not all digits (the dashboard reads /bots/{name} "
                                         "as a bot id)")
    wanted = check_games(games) if games else ()
    with _store_errors():
        existing = registry.store.get_bot_by_name(name)
    if existing is not None:
        existing = registry._authorised(name, token)
        if existing.retired_at is not None:
            raise _error("FAILED_PRECONDITION", f"bot {name!r} is retired")
        wanted = tuple(dict.fromkeys([*existing.games, *wanted]))
    elif not wanted:
        raise _error("INVALID_ARGUMENT", "name the games a new bot plays (at least one game)")
    why = unavailable()
    if why is not None:
        raise _error("FAILED_PRECONDITION", f"this platform {why}")
    config = registry.hosting_config()
    label = unique_name("submission")
    try:
        with _store_errors():
            prepared = prepare(source, config, registry.store.artifacts.build, registry.store.artifacts.blob, label)
    except (ArtifactError, ManifestError) as exc:
        raise _error("INVALID_ARGUMENT", f"bad submission: {exc}") from None
    except BuildError as exc:
        raise _error("FAILED_PRECONDITION", str(exc), log=exc.log) from None
    except SandboxUnavailable as exc:
        raise _error("FAILED_PRECONDITION", f"this platform {exc}") from None
    try:
        return _check_and_store(registry, name, wanted, prepared, existing, label)
    finally:
        prepared.cleanup()


def _check_and_store(registry: Registry, name: str, games: Sequence[str], prepared: Prepared,
                     existing: BotInfo | None, label: str) -> Submitted:
    from arena.registry import ErrorKind, RegistryError, _store_errors, hash_token

    sha = prepared.sha256
    code, env = prepared.blobs()
    if existing is not None and existing.endpoint == hosted_endpoint(existing.id, sha) and set(games) <= set(existing.games):
        return Submitted(existing, "", None, sha, len(code.data), prepared.code.unpacked_bytes, prepared.log,
                         prepared.installed, changed=False)
    try:
        with prepared.running(registry.hosting_config(), f"{label}-check") as bot:
            try:
                report = registry._entry_checks(f"unix:{bot.socket}", f"hosted:{sha[:12]}", games)
            except RegistryError as exc:
                said, cut = bot.output.since(0, CHECK_OUTPUT_BYTES)
                raise RegistryError(exc.kind, exc.message, report=exc.report,
                                    log=f"{prepared.log}\n--- what the bot wrote during its entry checks"
                                        f"{' (cut)' if cut else ''} ---\n{said}") from None
    except StartError as exc:
        raise RegistryError(ErrorKind.FAILED_PRECONDITION, f"the submitted bot did not start: {exc}",
                            log=prepared.log) from None
    except SandboxUnavailable as exc:
        raise RegistryError(ErrorKind.FAILED_PRECONDITION, f"this platform {exc}") from None
    described = report.describe
    declared_capacity = capacity_of(described.capacity if described else 1)
    token = secrets.token_urlsafe(32) if existing is None else ""
    fields = HostedBotFields(
        name, games, clean(described.author, 80) if described else "", declared_capacity,
        clean(described.name, 64) if described else "", clean(described.version, MAX_VERSION_CHARS) if described else "",
        hash_token(token) if token else None)
    with _store_errors():
        try:
            bot_id = registry.store.artifacts.submit(existing.id if existing else None, fields, code, env,
                                                     prepared.build_info())
        except NameTaken:
            raise RegistryError(ErrorKind.ALREADY_EXISTS, f"a bot named {name!r} is already registered") from None
        bot = registry.store.get_bot(bot_id)
    if bot is None:
        raise RegistryError(ErrorKind.UNAVAILABLE, f"bot {name!r} vanished right after its submission")
    return Submitted(bot, token, report, sha, len(code.data), prepared.code.unpacked_bytes, prepared.log,
                     prepared.installed)


def build_log(registry: Registry, name: str, token: str) -> BuildLog:
    """The bot's current build and its submissions, for its author (token). Raises RegistryError:
    INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, UNAVAILABLE."""
    from arena.registry import _store_errors

    bot = registry._authorised(name, token)
    sha = hosted_sha(bot.endpoint)
    with _store_errors():
        build = registry.store.artifacts.build(sha) if sha else None
        return BuildLog(bot, build, registry.store.artifacts.submissions(bot.id))


def game_output(registry: Registry, name: str, token: str, game_id: int) -> list[OutputInfo]:
    """What the bot wrote in game ``game_id`` (each of its seats), for its author (token), once the game is
    published (done, and not sealed: its output shows its cards, as the replay does). Raises RegistryError:
    INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND (no such game, or not published yet),
    UNAVAILABLE."""
    from arena.registry import _store_errors

    bot = registry._authorised(name, token)
    with _store_errors():
        outputs = registry.store.artifacts.outputs(game_id, bot.id)
    if outputs is None:
        raise _error("NOT_FOUND", f"game {game_id} is not done, or sealed until its duplicate group is played: its "
                                  "output is shown with its replay")
    return outputs
