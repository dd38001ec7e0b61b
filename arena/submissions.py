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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from arena.errors import ErrorKind, RegistryError, store_errors
from hosting.artifact import ArtifactError
from hosting.build import BuildError
from hosting.launch import HostingConfig, StartError
from hosting.manifest import ManifestError
from hosting.sandbox import SandboxUnavailable, unavailable, unique_name
from hosting.submit import Prepared, prepare
from league.entry.checks import EntryReport
from league.entry.identity import MAX_VERSION_CHARS, VERSION_WINDOW_S, capacity_of, clean, version_limit
from store import BotInfo, NameTaken, Store
from store.artifacts import BuildInfo, HostedBotFields, OutputInfo, SubmissionInfo, hosted_endpoint, hosted_sha

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


def submit(store: Store, config: HostingConfig, name: str, games: Sequence[str], source: bytes | Path,
           existing: BotInfo | None, check: Callable[[str, str, Sequence[str]], EntryReport],
           token: str, token_hash: str | None) -> Submitted:
    """Steps 1 to 5 of the module docstring for the bot ``name`` (``existing``: its row, already authorised by
    the registry; None for a new bot, which gets ``token`` and ``token_hash``), for ``games``; ``check(target,
    shown_as, games)`` runs the entry checks (the registry's, raising RegistryError). Raises RegistryError:
    INVALID_ARGUMENT, ALREADY_EXISTS, FAILED_PRECONDITION (``log`` says more), UNAVAILABLE."""
    why = unavailable()
    if why is not None:
        raise RegistryError(ErrorKind.FAILED_PRECONDITION, f"this platform {why}")
    if existing is not None:  # a new version is a new ladder entrant: as many a day as a remote bot (rules §5.2)
        with store_errors():
            entered = store.bots.versions_entered_since(existing.id, datetime.now(UTC) - timedelta(seconds=VERSION_WINDOW_S))
        limited = version_limit(entered, "(this submission)", None)
        if limited is not None:
            raise RegistryError(ErrorKind.RESOURCE_EXHAUSTED, limited)
    label = unique_name("submission")
    try:
        with store_errors():
            prepared = prepare(source, config, store.artifacts.build, store.artifacts.blob, label)
    except (ArtifactError, ManifestError) as exc:
        raise RegistryError(ErrorKind.INVALID_ARGUMENT, f"bad submission: {exc}") from None
    except BuildError as exc:
        raise RegistryError(ErrorKind.FAILED_PRECONDITION, str(exc), log=exc.log) from None
    except SandboxUnavailable as exc:
        raise RegistryError(ErrorKind.FAILED_PRECONDITION, f"this platform {exc}") from None
    try:
        return _check_and_store(store, config, name, games, prepared, existing, label, check, token, token_hash)
    finally:
        prepared.cleanup()


def _check_and_store(store: Store, config: HostingConfig, name: str, games: Sequence[str], prepared: Prepared,
                     existing: BotInfo | None, label: str, check: Callable[[str, str, Sequence[str]], EntryReport],
                     token: str, token_hash: str | None) -> Submitted:
    sha = prepared.sha256
    code, env = prepared.blobs()
    if existing is not None and existing.endpoint == hosted_endpoint(existing.id, sha) and set(games) <= set(existing.games):
        return Submitted(existing, "", None, sha, len(code.data), prepared.code.unpacked_bytes, prepared.log,
                         prepared.installed, changed=False)
    try:
        with prepared.running(config, f"{label}-check") as bot:
            try:
                report = check(f"unix:{bot.socket}", f"hosted:{sha[:12]}", games)
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
    fields = HostedBotFields(
        name, games, clean(described.author, 80) if described else "", capacity_of(described.capacity if described else 1),
        clean(described.name, 64) if described else "", clean(described.version, MAX_VERSION_CHARS) if described else "",
        token_hash if existing is None else None)
    with store_errors():
        try:
            bot_id = store.artifacts.submit(existing.id if existing else None, fields, code, env, prepared.build_info())
        except NameTaken as exc:
            raise RegistryError(ErrorKind.ALREADY_EXISTS, str(exc)) from None
        bot = store.bots.get_bot(bot_id)
    if bot is None:
        raise RegistryError(ErrorKind.UNAVAILABLE, f"bot {name!r} vanished right after its submission")
    return Submitted(bot, token if existing is None else "", report, sha, len(code.data), prepared.code.unpacked_bytes,
                     prepared.log, prepared.installed)


def build_log(store: Store, bot: BotInfo) -> BuildLog:
    """The bot's current build and its submissions (the registry authorised its author). Raises RegistryError
    (UNAVAILABLE)."""
    sha = hosted_sha(bot.endpoint)
    with store_errors():
        build = store.artifacts.build(sha) if sha else None
        return BuildLog(bot, build, store.artifacts.submissions(bot.id))


def game_output(store: Store, bot: BotInfo, game_id: int) -> list[OutputInfo]:
    """What the bot wrote in game ``game_id`` (each of its seats; the registry authorised its author), once the
    game is published (done, and not sealed: its output shows its cards, as the replay does). Raises
    RegistryError: NOT_FOUND (no such game, or not published yet), UNAVAILABLE."""
    with store_errors():
        outputs = store.artifacts.outputs(game_id, bot.id)
    if outputs is None:
        raise RegistryError(ErrorKind.NOT_FOUND, f"game {game_id} is not done, or sealed until its duplicate group "
                                                 "is played: its output is shown with its replay")
    return outputs
