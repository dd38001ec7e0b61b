"""A submission's files as one content-addressed artifact: packed, checked, hashed, stored, unpacked.

An author submits a directory or an archive (``.tar``, ``.tar.gz``/``.tgz``, ``.zip``). :func:`pack`
reads it into a **canonical tar**: entries sorted by name, every parent directory listed, modification
times 0, owner 0, modes 0644 (0755 for directories and executables), no user or group names. Two
submissions of the same files therefore have the same bytes, and the SHA-256 of those bytes (64
lowercase hex digits) is the artifact's identity and the hosted bot's version.

What is refused, each with a one-line :class:`ArtifactError` naming the entry:

- more than ``Limits.max_bytes`` bytes as submitted, or as stored (compressed), or more than
  ``Limits.max_unpacked_bytes`` once unpacked (counted while reading, so a zip or gzip bomb stops at the
  limit), or more than ``Limits.max_entries`` entries;
- absolute names, ``..`` components, empty or ``.`` components, names that are not valid UTF-8 or
  hold control characters;
- symbolic links whose target is absolute or leaves the artifact (resolved against the link's own
  directory); hard links, devices, FIFOs and sockets;
- two entries of the same name.

The stored form is the canonical tar compressed with Zstandard (:func:`stored_bytes`); whoever reads
it back (:func:`from_stored`) re-hashes the tar and refuses bytes that do not hash to the name it was
asked for, so a worker runs exactly the hash. :func:`unpack` extracts with :mod:`tarfile`'s ``data``
filter (no absolute names, nothing outside the destination, no special files) into a fresh directory.
"""

from __future__ import annotations

import hashlib
import io
import os
import posixpath
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import zstandard

#: Zstandard level of the stored form.
COMPRESSION = 3
#: Bytes read at a time from an archive member (counted against the unpacked limit as they come).
CHUNK = 1 << 16


class ArtifactError(ValueError):
    """A submission that cannot be an artifact; the message says which entry and why (one line)."""


@dataclass(frozen=True)
class Limits:
    """How big an artifact may be: ``max_bytes`` as submitted and as stored (compressed), bytes;
    ``max_unpacked_bytes`` of file contents once unpacked, bytes; ``max_entries`` files, directories
    and links."""

    max_bytes: int
    max_unpacked_bytes: int
    max_entries: int = 20_000


@dataclass(frozen=True)
class Entry:
    """One canonical entry: ``name`` (relative POSIX path), ``kind`` (``file``, ``dir``, ``link``),
    ``data`` (a file's bytes, or a link's target as UTF-8), ``executable`` (files)."""

    name: str
    kind: str
    data: bytes = b""
    executable: bool = False


@dataclass(frozen=True)
class Artifact:
    """A packed artifact: ``sha256`` of ``tar`` (the canonical tar's bytes), its ``entries`` count and
    ``unpacked_bytes`` (file contents, bytes)."""

    sha256: str
    tar: bytes
    entries: int
    unpacked_bytes: int

    def member(self, name: str) -> bytes | None:
        """The bytes of the regular file ``name`` in the artifact, None if there is none; raises
        ArtifactError if ``name`` is a link or a directory (the platform never follows an artifact's
        links on its own machine)."""
        with tarfile.open(fileobj=io.BytesIO(self.tar), mode="r:") as tar:
            try:
                info = tar.getmember(name)
            except KeyError:
                return None
            if not info.isfile():
                raise ArtifactError(f"{name} must be a regular file in the submission, not a "
                                    f"{'link' if info.issym() else 'directory'}")
            handle = tar.extractfile(info)
            return handle.read() if handle is not None else None


def _check_name(raw: str, what: str) -> str:
    """The canonical form of an entry name (no leading ``./``, no trailing ``/``); ArtifactError if it is
    absolute, climbs with ``..``, is empty, or holds control characters."""
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise ArtifactError(f"{what}: the absolute name {raw[:200]!r} is refused (names are relative to the submission)")
    if "\\" in raw:
        raise ArtifactError(f"{what}: the name {raw[:200]!r} holds a backslash")
    if any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise ArtifactError(f"{what}: the name {raw[:200]!r} holds a control character")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise ArtifactError(f"{what}: the name {raw[:200]!r} climbs out with '..'")
    if not parts:
        raise ArtifactError(f"{what}: an entry without a name")
    name = "/".join(parts)
    if len(name.encode()) > 1024:
        raise ArtifactError(f"{what}: a name of more than 1024 bytes")
    return name


def _check_link(name: str, target: str) -> None:
    """ArtifactError unless the symbolic link ``name`` -> ``target`` stays inside the artifact."""
    if not target or target.startswith("/"):
        raise ArtifactError(f"{name}: a symbolic link to the absolute path {target[:200]!r} is refused")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
    if resolved == ".." or resolved.startswith("../") or resolved.startswith("/"):
        raise ArtifactError(f"{name}: the symbolic link to {target[:200]!r} points out of the submission")


class _Budget:
    """Counts entries and unpacked bytes against the limits as they are read."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.entries = 0
        self.bytes = 0

    def entry(self) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise ArtifactError(f"more than {self.limits.max_entries} entries: the submission is too big")

    def add(self, n: int) -> None:
        self.bytes += n
        if self.bytes > self.limits.max_unpacked_bytes:
            raise ArtifactError(f"more than {self.limits.max_unpacked_bytes} bytes once unpacked: the submission "
                                "is too big")

    def read(self, handle: io.BufferedIOBase | io.RawIOBase | object) -> bytes:
        out = bytearray()
        while chunk := handle.read(CHUNK):  # type: ignore[attr-defined]
            self.add(len(chunk))
            out += chunk
        return bytes(out)


def _from_directory(root: Path, budget: _Budget) -> Iterator[Entry]:
    """The entries of the directory ``root``, never following a link."""
    def walk(path: Path, prefix: str) -> Iterator[Entry]:
        with os.scandir(path) as items:
            for item in sorted(items, key=lambda i: i.name):
                name = _check_name(f"{prefix}{item.name}", "directory")
                budget.entry()
                mode = item.stat(follow_symlinks=False).st_mode
                if stat.S_ISLNK(mode):
                    target = os.readlink(item.path)
                    _check_link(name, target)
                    yield Entry(name, "link", target.encode())
                elif stat.S_ISDIR(mode):
                    yield Entry(name, "dir")
                    yield from walk(Path(item.path), f"{name}/")
                elif stat.S_ISREG(mode):
                    with open(item.path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as handle:
                        data = budget.read(handle)
                    yield Entry(name, "file", data, bool(mode & 0o111))
                else:
                    raise ArtifactError(f"{name}: a special file (device, FIFO or socket) is refused")
    if not root.is_dir():
        raise ArtifactError(f"{root} is not a directory")
    yield from walk(root, "")


def _from_tar(data: bytes, budget: _Budget) -> Iterator[Entry]:
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r|*") as tar:
            for info in tar:
                name = _check_name(info.name, "archive")
                budget.entry()
                if info.issym():
                    _check_link(name, info.linkname)
                    yield Entry(name, "link", info.linkname.encode())
                elif info.isdir():
                    yield Entry(name, "dir")
                elif info.isreg():
                    budget.add(0)
                    if info.size > budget.limits.max_unpacked_bytes - budget.bytes:
                        raise ArtifactError(f"{name}: {info.size} bytes; more than "
                                            f"{budget.limits.max_unpacked_bytes} bytes once unpacked")
                    handle = tar.extractfile(info)
                    yield Entry(name, "file", budget.read(handle) if handle else b"", bool(info.mode & 0o111))
                elif info.islnk():
                    raise ArtifactError(f"{name}: a hard link is refused (copy the file, or use a relative symbolic link)")
                else:
                    raise ArtifactError(f"{name}: a special file (device, FIFO or socket) is refused")
    except (tarfile.TarError, EOFError, OSError, zstandard.ZstdError) as exc:
        raise ArtifactError(f"not a readable tar archive: {exc}") from None


def _from_zip(data: bytes, budget: _Budget) -> Iterator[Entry]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                name = _check_name(info.filename, "archive")
                budget.entry()
                mode = info.external_attr >> 16
                if info.is_dir():
                    yield Entry(name, "dir")
                    continue
                if info.file_size > budget.limits.max_unpacked_bytes - budget.bytes:
                    raise ArtifactError(f"{name}: {info.file_size} bytes; more than "
                                        f"{budget.limits.max_unpacked_bytes} bytes once unpacked")
                with archive.open(info) as handle:
                    content = budget.read(handle)  # counted as it inflates: a bomb stops at the limit
                if stat.S_ISLNK(mode):
                    target = content.decode("utf-8", "replace")
                    _check_link(name, target)
                    yield Entry(name, "link", content)
                elif mode and not (stat.S_ISREG(mode) or stat.S_IFMT(mode) == 0):
                    raise ArtifactError(f"{name}: a special file (device, FIFO or socket) is refused")
                else:
                    yield Entry(name, "file", content, bool(mode & 0o111))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError) as exc:
        raise ArtifactError(f"not a readable zip archive: {exc}") from None


def canonical_tar(entries: Iterator[Entry]) -> tuple[bytes, int, int]:
    """The canonical tar of ``entries``: ``(bytes, entries written, file bytes)``; ArtifactError on a name
    given twice. Parent directories missing from ``entries`` are added."""
    by_name: dict[str, Entry] = {}
    for entry in entries:
        if entry.name in by_name:
            raise ArtifactError(f"{entry.name}: two entries of this name")
        by_name[entry.name] = entry
    for name in list(by_name):
        parent = posixpath.dirname(name)
        while parent:
            existing = by_name.setdefault(parent, Entry(parent, "dir"))
            if existing.kind != "dir":
                raise ArtifactError(f"{name}: its parent {parent} is not a directory")
            parent = posixpath.dirname(parent)
    out = io.BytesIO()
    size = 0
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(by_name):
            entry = by_name[name]
            info = tarfile.TarInfo(name)
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if entry.kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif entry.kind == "link":
                info.type, info.mode, info.linkname = tarfile.SYMTYPE, 0o777, entry.data.decode()
                tar.addfile(info)
            else:
                info.mode = 0o755 if entry.executable else 0o644
                info.size = len(entry.data)
                size += info.size
                tar.addfile(info, io.BytesIO(entry.data))
    return out.getvalue(), len(by_name), size


def _sniff(data: bytes) -> str:
    """``zip`` or ``tar`` (plain, gzip, bzip2, xz) from an archive's first bytes."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    return "tar"


def pack(source: Path | bytes, limits: Limits) -> Artifact:
    """The artifact of a directory (a Path) or of an archive's bytes (tar, tar.gz, zip).

    Raises ArtifactError (see the module docstring) for anything refused, or for an empty submission.
    """
    budget = _Budget(limits)
    if isinstance(source, Path) and source.is_dir():
        entries = _from_directory(source, budget)
    else:
        data = source.read_bytes() if isinstance(source, Path) else source
        if len(data) > limits.max_bytes:
            raise ArtifactError(f"the archive has {len(data)} bytes; at most {limits.max_bytes} are accepted")
        entries = _from_zip(data, budget) if _sniff(data) == "zip" else _from_tar(data, budget)
    tar, count, size = canonical_tar(entries)
    if not count:
        raise ArtifactError("the submission is empty")
    artifact = Artifact(hashlib.sha256(tar).hexdigest(), tar, count, size)
    stored = stored_bytes(artifact)
    if len(stored) > limits.max_bytes:
        raise ArtifactError(f"{len(stored)} bytes once compressed; at most {limits.max_bytes} are accepted")
    return artifact


def stored_bytes(artifact: Artifact) -> bytes:
    """The stored form of ``artifact``: its canonical tar compressed with Zstandard."""
    return zstandard.ZstdCompressor(level=COMPRESSION).compress(artifact.tar)


def from_stored(data: bytes, sha256: str, limits: Limits) -> Artifact:
    """The artifact ``sha256`` from its stored bytes; ArtifactError if they do not decompress within
    ``limits`` or do not hash to ``sha256`` (a worker runs exactly the hash it was given)."""
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data))
        tar = reader.read(limits.max_unpacked_bytes + 64 * limits.max_entries + (1 << 20))
    except zstandard.ZstdError as exc:
        raise ArtifactError(f"artifact {sha256[:12]}: the stored bytes do not decompress: {exc}") from None
    got = hashlib.sha256(tar).hexdigest()
    if got != sha256:
        raise ArtifactError(f"artifact {sha256[:12]}: the stored bytes hash to {got[:12]}, not to its name")
    with tarfile.open(fileobj=io.BytesIO(tar), mode="r:") as archive:
        members = archive.getmembers()
    return Artifact(sha256, tar, len(members), sum(m.size for m in members if m.isfile()))


def unpack(artifact: Artifact, dest: Path) -> None:
    """Extract ``artifact`` into the new directory ``dest`` (created; its parent must exist) with tarfile's
    ``data`` filter; files end up 0644 or 0755, directories 0755, readable by the sandbox's user.
    Raises ArtifactError if the filter refuses a member (never for an artifact made by :func:`pack`)."""
    dest.mkdir(mode=0o755)
    try:
        with tarfile.open(fileobj=io.BytesIO(artifact.tar), mode="r:") as tar:
            tar.extractall(dest, filter="data")
    except tarfile.FilterError as exc:
        raise ArtifactError(f"artifact {artifact.sha256[:12]}: {exc}") from None
    os.chmod(dest, 0o755)
