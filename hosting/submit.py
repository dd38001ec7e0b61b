"""A submission, from the author's files to what the store keeps: pack, read the manifest, build, start.

:func:`prepare` packs the submission (:mod:`hosting.artifact`), reads its manifest
(:mod:`hosting.manifest`), unpacks it into a work directory and, for a Python bot with a requirements
file, builds its environment (:mod:`hosting.build`) and packs that as an artifact of its own. A code
artifact built before (the same hash, submitted by anyone) keeps its first build: the same hash always
runs the same environment. :meth:`Prepared.running` starts the bot in its sandbox for the entry checks,
exactly as a worker will (the canonical unpacked files, the same runtime, the same limits).

Errors: ArtifactError and ManifestError (the submission itself: its author fixes it), BuildError (with
pip's log), StartError (the bot did not answer), SandboxUnavailable (this machine cannot host bots).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from hosting.artifact import Artifact, ArtifactError, from_stored, pack, stored_bytes, unpack
from hosting.build import build_env
from hosting.cache import private_dir
from hosting.launch import HostingConfig, RunningBot, bot_spec, start_bot
from hosting.manifest import Manifest, of
from hosting.runtime import python_problem
from hosting.sandbox import SandboxUnavailable, require
from store.artifacts import Blob, BuildInfo, now

#: Lines of the build log that describe the submission before pip's output.
_HEADER = "submission {sha} ({entries} entries, {size} bytes unpacked)"


@dataclass
class Prepared:
    """A prepared submission: the ``code`` artifact, its ``manifest``, the ``env`` artifact (Python
    requirements) or None, the packages ``installed``, the build ``log``, whether the build was ``reused``,
    and the ``work`` directory holding both unpacked (removed by :meth:`cleanup`)."""

    code: Artifact
    manifest: Manifest
    env: Artifact | None
    installed: list[dict[str, str]]
    log: str
    work: Path
    reused: bool = False
    built_at: object = field(default_factory=now)

    @property
    def sha256(self) -> str:
        """The submission's identity and version."""
        return self.code.sha256

    def blobs(self) -> tuple[Blob, Blob | None]:
        """The artifacts to store: the code's, and the environment's (or None)."""
        code = Blob(self.code.sha256, "code", stored_bytes(self.code), self.code.unpacked_bytes)
        env = Blob(self.env.sha256, "env", stored_bytes(self.env), self.env.unpacked_bytes) if self.env else None
        return code, env

    def build_info(self) -> BuildInfo:
        """The build to store with the code artifact."""
        return BuildInfo(self.code.sha256, self.env.sha256 if self.env else None, self.manifest.to_json(),
                         self.installed, self.log, self.built_at)  # type: ignore[arg-type]

    @contextmanager
    def running(self, config: HostingConfig, name: str) -> Iterator[RunningBot]:
        """The bot started in its sandbox (cgroup ``name``), stopped on leaving; raises StartError or
        SandboxUnavailable."""
        spec = bot_spec(name, self.manifest, self.work / "code", self.work / "env" if self.env else None, config)
        bot = start_bot(spec, config.start_timeout_s)
        try:
            yield bot
        finally:
            bot.stop()

    def cleanup(self) -> None:
        """Remove the work directory."""
        shutil.rmtree(self.work, ignore_errors=True)


def prepare(source: Path | bytes, config: HostingConfig, earlier: Callable[[str], BuildInfo | None],
            fetch: Callable[[str], bytes | None], name: str) -> Prepared:
    """Pack ``source`` (a directory or an archive's bytes), read its manifest and build its environment
    (``earlier(sha)``: a build stored before for the same hash, reused with its environment from ``fetch``).
    ``name`` names the build's cgroup. Raises ArtifactError, ManifestError, BuildError, SandboxUnavailable."""
    require(config.directory)
    code = pack(source, config.artifact_limits)
    manifest = of(code)
    if manifest.python:
        problem = python_problem()
        if problem is not None:
            raise SandboxUnavailable(problem)
    work = Path(tempfile.mkdtemp(prefix="submission-", dir=private_dir(config.directory / "submissions")))
    try:
        os.chmod(work, 0o711)  # the sandbox's user passes through to the files unpacked below
        unpack(code, work / "code")
        header = _HEADER.format(sha=code.sha256, entries=code.entries, size=code.unpacked_bytes)
        stored = earlier(code.sha256)
        if stored is not None:
            env = None
            if stored.env_sha256:
                data = fetch(stored.env_sha256)
                if data is None:
                    raise ArtifactError(f"the environment {stored.env_sha256[:12]} of an earlier build is missing")
                env = from_stored(data, stored.env_sha256, config.artifact_limits)
                unpack(env, work / "env")
            return Prepared(code, Manifest.from_json(stored.manifest), env, stored.installed, stored.log, work,
                            reused=True, built_at=stored.built_at)
        if manifest.requirements is None:
            return Prepared(code, manifest, None, [], f"{header}\nno requirements: the platform's SDK only\n", work)
        built = build_env(work / "code", manifest.requirements, work / "build", config, f"{name}-build")
        env = pack(built.env, config.artifact_limits)
        unpack(env, work / "env")
        shutil.rmtree(work / "build", ignore_errors=True)
        lines = [header, f"environment {env.sha256} ({env.entries} entries, {env.unpacked_bytes} bytes)",
                 *(f"installed {p['name']}=={p['version']} sha256={p['sha256']}" for p in built.installed),
                 "", built.log]
        return Prepared(code, manifest, env, built.installed, "\n".join(lines), work)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise

