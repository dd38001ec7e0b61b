"""A machine's cache of unpacked artifacts, fetched from the store by hash.

``<hosting dir>/artifacts/<sha256>`` holds artifact ``sha256`` unpacked, read-only for the sandboxes
(files 0644 or 0755, owned by the worker). It is made once per machine: the bytes are fetched from the
store, decompressed and re-hashed (:func:`hosting.artifact.from_stored`: bytes that do not hash to the
name are refused, so a worker runs exactly the hash it was given), unpacked into a temporary directory
and renamed into place, so worker processes racing for the same artifact never see half of one. The
directories above are 0711: the sandbox's user may pass through them to its own artifact, never list them.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from hosting.artifact import ArtifactError, Limits, from_stored, unpack

_SHA = re.compile(r"^[0-9a-f]{64}$")


class CacheError(RuntimeError):
    """An artifact that cannot be had (not in the store, corrupt); the message says which and why."""


def unreachable(path: Path) -> str | None:
    """Why the sandbox's user (``nobody``, when the worker is root) cannot pass through to ``path``, or None: every
    existing parent must be executable by others (``o+x``). One line naming the first that is not."""
    if os.geteuid() != 0:
        return None  # the sandbox runs as the worker's own user
    for parent in [*reversed(path.absolute().parents), path.absolute()]:
        try:
            mode = parent.stat().st_mode
        except FileNotFoundError:
            return None  # made by the platform, 0711
        if not mode & 0o001:
            return (f"the hosting directory {path} is out of the sandbox's reach: {parent} is mode {mode & 0o777:o}, "
                    f"which its user nobody cannot pass through (chmod o+x {parent}, or set CARDARENA_HOSTING_DIR "
                    "elsewhere)")
    return None


def private_dir(path: Path) -> Path:
    """``path`` made (with its parents) and set to 0711: traversable by the sandbox's user, not listable."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o711)
    return path


class ArtifactCache:
    """Unpacked artifacts under ``directory`` (``<hosting dir>/artifacts``), within ``limits``."""

    def __init__(self, directory: Path, limits: Limits) -> None:
        self.directory = directory
        self.limits = limits
        self._lock = threading.Lock()

    def path(self, sha256: str, fetch: Callable[[str], bytes | None]) -> Path:
        """The directory of artifact ``sha256``, fetched with ``fetch`` (the store's stored bytes) and unpacked
        if this machine does not have it yet. Raises CacheError."""
        if not _SHA.match(sha256):
            raise CacheError(f"{sha256[:80]!r} is not an artifact's SHA-256")
        target = self.directory / sha256
        if target.is_dir():
            return target
        with self._lock:
            if target.is_dir():
                return target
            data = fetch(sha256)
            if data is None:
                raise CacheError(f"artifact {sha256[:12]} is not in the store")
            try:
                artifact = from_stored(data, sha256, self.limits)
            except ArtifactError as exc:
                raise CacheError(str(exc)) from None
            private_dir(self.directory)
            work = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=self.directory))
            try:
                unpack(artifact, work / "files")
                os.rename(work / "files", target)
            except FileExistsError:
                pass  # another process unpacked it meanwhile
            except OSError as exc:
                if not target.is_dir():
                    raise CacheError(f"artifact {sha256[:12]}: cannot unpack it: {exc}") from None
            except ArtifactError as exc:
                raise CacheError(str(exc)) from None
            finally:
                shutil.rmtree(work, ignore_errors=True)
        return target
