"""``cardarena.toml``: how the platform starts a submitted bot.

The manifest is a TOML file at the root of the submission with one table, ``[bot]``, and one of:

- ``serve = "module:Class"``: a Python bot written with the SDK. The platform imports ``module`` (a
  file of the submission, e.g. ``bot.py`` for ``bot``), makes ``Class()`` and serves it with the SDK on
  the Unix socket it chose (``python3 -m botsdk.hosted module:Class``). The SDK, grpcio and protobuf are
  provided: a bot needs no requirements file for them.
- ``command = ["./bot", "--socket", "{socket}"]``: any program. ``{socket}`` is replaced by the Unix
  socket path the bot must listen on (gRPC target ``unix:{socket}``); or ``{port}`` by a TCP port the
  bot listens on at 127.0.0.1 inside its own network namespace, which the platform reaches through a
  forwarder in the sandbox. A command names a file of the submission (``./bot``, a Go binary as
  built) or a program of the worker's system: ``node`` (a Node bot ships its ``node_modules``),
  ``python3``. The same path is also in the environment as ``CARDARENA_SOCKET`` (``CARDARENA_PORT``).

and, for Python bots, ``requirements = "requirements.txt"``: a requirements file of the submission,
installed at submission with pip from the package index into the bot's own environment (wheels only).

Example::

    [bot]
    serve = "bot:ExampleBot"
    requirements = "requirements.txt"
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from hosting.artifact import Artifact, ArtifactError

#: The manifest's file name, at the root of a submission.
MANIFEST = "cardarena.toml"
_SERVE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")
#: The most arguments a command may have, and characters per argument.
MAX_ARGS, MAX_ARG_CHARS = 64, 512
#: Placeholders of a command.
SOCKET, PORT = "{socket}", "{port}"


class ManifestError(ValueError):
    """A missing or malformed manifest; the message says what to write (one line)."""


@dataclass(frozen=True)
class Manifest:
    """A parsed ``cardarena.toml``: ``serve`` (``module:Class``) or ``command`` (argv with ``{socket}``
    or ``{port}``), ``requirements`` (a file of the submission, Python) and ``listen``: ``unix`` (the bot
    listens on the socket itself) or ``port`` (on a port of its own network namespace)."""

    serve: str | None = None
    command: tuple[str, ...] = ()
    requirements: str | None = None
    listen: str = "unix"

    @property
    def python(self) -> bool:
        """Whether the bot needs the Python runtime (an SDK bot, a requirements file, or ``python3``)."""
        return self.serve is not None or self.requirements is not None or (
            bool(self.command) and self.command[0] in ("python3", "python"))

    def argv(self, socket: str, port: int) -> list[str]:
        """The command to run, its placeholders replaced (an SDK bot: the SDK's hosted server)."""
        if self.serve is not None:
            return ["python3", "-m", "botsdk.hosted", self.serve]
        return [a.replace(SOCKET, socket).replace(PORT, str(port)) for a in self.command]

    def to_json(self) -> dict[str, object]:
        """The manifest as stored with the build."""
        return {"serve": self.serve, "command": list(self.command), "requirements": self.requirements,
                "listen": self.listen}

    @classmethod
    def from_json(cls, value: dict[str, object]) -> Manifest:
        """The inverse of :meth:`to_json`."""
        return cls(value.get("serve"), tuple(value.get("command") or ()),  # type: ignore[arg-type]
                   value.get("requirements"), str(value.get("listen") or "unix"))  # type: ignore[arg-type]


def parse(text: bytes) -> Manifest:
    """Parse a manifest's bytes; raises ManifestError saying what is wrong."""
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{MANIFEST} is not valid TOML: {exc}") from None
    bot = data.get("bot")
    if not isinstance(bot, dict):
        raise ManifestError(f"{MANIFEST} needs a [bot] table with serve = \"module:Class\" or command = [...]")
    unknown = sorted(set(bot) - {"serve", "command", "requirements"})
    if unknown:
        raise ManifestError(f"{MANIFEST}: unknown key(s) {', '.join(unknown)} in [bot] (serve, command, requirements)")
    serve, command, requirements = bot.get("serve"), bot.get("command"), bot.get("requirements")
    if (serve is None) == (command is None):
        raise ManifestError(f"{MANIFEST}: give exactly one of serve = \"module:Class\" (a Python SDK bot) or "
                            "command = [\"program\", \"--socket\", \"{socket}\"]")
    if serve is not None and (not isinstance(serve, str) or not _SERVE.match(serve)):
        raise ManifestError(f"{MANIFEST}: serve must be \"module:Class\" (e.g. \"bot:MyBot\"), not {serve!r:.80}")
    listen = "unix"
    if command is not None:
        if (not isinstance(command, list) or not command or len(command) > MAX_ARGS
                or not all(isinstance(a, str) and 0 < len(a) <= MAX_ARG_CHARS and "\0" not in a for a in command)):
            raise ManifestError(f"{MANIFEST}: command must be a list of 1 to {MAX_ARGS} non-empty strings")
        joined = " ".join(command)
        if (SOCKET in joined) == (PORT in joined):
            raise ManifestError(f"{MANIFEST}: the command must pass the bot where to listen: exactly one of "
                                f"{SOCKET} (a Unix socket path) or {PORT} (a TCP port in its own network namespace)")
        listen = "unix" if SOCKET in joined else "port"
    if requirements is not None and (not isinstance(requirements, str) or not requirements
                                     or requirements.startswith("/") or ".." in requirements.split("/")):
        raise ManifestError(f"{MANIFEST}: requirements must name a file of the submission, e.g. \"requirements.txt\"")
    return Manifest(serve, tuple(command or ()), requirements, listen)


def of(artifact: Artifact) -> Manifest:
    """The manifest of ``artifact``; ManifestError if it has none, or a bad one, or its requirements file is missing."""
    try:
        text = artifact.member(MANIFEST)
    except ArtifactError as exc:
        raise ManifestError(str(exc)) from None
    if text is None:
        raise ManifestError(f"no {MANIFEST} at the root of the submission: it says how to start the bot, e.g. "
                            "[bot] serve = \"bot:MyBot\" (see docs/writing-a-bot.md)")
    manifest = parse(text)
    if manifest.requirements is not None:
        try:
            found = artifact.member(manifest.requirements)
        except ArtifactError as exc:
            raise ManifestError(str(exc)) from None
        if found is None:
            raise ManifestError(f"{MANIFEST} names requirements {manifest.requirements!r}, which the submission lacks")
    return manifest
