"""The platform's runtime directory, mounted read-only at ``/opt/cardarena`` in every sandbox.

It holds what a submission does not ship:

- ``python/``: the Python bot SDK (``botsdk`` with ``python -m botsdk.hosted``), the protocol stubs
  (``cardarena.v1``) and their dependencies (grpcio, grpcio-health-checking, protobuf and what they
  need), copied from the platform's own installed distributions, so a hosted Python bot runs the SDK
  the platform was tested with; a bot's own environment (``/bot/env``) comes first on ``PYTHONPATH``;
- ``tools/``: pip, for the builds of Python environments (:mod:`hosting.build`);
- ``forward.py``: the forwarder of a bot that listens on a TCP port of its own network namespace
  (:mod:`hosting.forward`);
- ``proto/``: the protocol's ``.proto`` files (``proto/cardarena/v1/*.proto``), for bots that load them at
  run time (the Node example: ``--proto /opt/cardarena/proto``).

The directory is named by the SHA-256 of its files (``runtime/<hash>`` under the hosting directory),
made once per machine (atomically: several worker processes may race) and never changed. The sandbox
runs the system's ``python3`` (``/usr/bin/python3``), which must be the platform's Python minor version
(the SDK's compiled grpcio is built for it): :func:`python_problem` says so in one line otherwise.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import botsdk
import cardarena

#: The distributions the SDK needs at run time; their own requirements are added.
SDK_DISTRIBUTIONS = ("grpcio", "grpcio-health-checking", "protobuf")
#: The Python the sandbox runs (inside, ``/usr`` is the machine's).
SANDBOX_PYTHON = "/usr/bin/python3"
_lock = threading.Lock()
_made: dict[Path, Path] = {}


def _requirement_names(dist: metadata.Distribution) -> list[str]:
    names = []
    for requirement in dist.requires or []:
        if ";" in requirement and "extra ==" in requirement:
            continue
        match = re.match(r"[A-Za-z0-9_.-]+", requirement)
        if match:
            names.append(match.group(0))
    return names


def _closure(names: tuple[str, ...]) -> list[metadata.Distribution]:
    """The installed distributions ``names`` and everything they require (not their extras)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        dist = metadata.distribution(name)
        seen[key] = dist
        todo.extend(_requirement_names(dist))
    return [seen[k] for k in sorted(seen)]


def _files() -> dict[str, Path]:
    """``{path in the runtime: file on this machine}`` of everything the runtime holds."""
    out: dict[str, Path] = {}
    for dist in [*_closure(SDK_DISTRIBUTIONS), metadata.distribution("pip")]:
        prefix = "tools" if dist.metadata["Name"].lower() == "pip" else "python"
        for file in dist.files or []:
            relative = str(file)
            if relative.startswith("..") or relative.endswith(".pyc") or "__pycache__" in relative:
                continue  # scripts outside site-packages; byte code is made again in the sandbox
            out[f"{prefix}/{relative}"] = Path(str(dist.locate_file(file)))
    for package, name in ((botsdk, "botsdk"), (cardarena, "cardarena")):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            if "tests" not in path.relative_to(root).parts:
                out[f"python/{name}/{path.relative_to(root)}"] = path
    for path in sorted(Path(cardarena.__file__).parent.rglob("*.proto")):
        out[f"proto/cardarena/{path.relative_to(Path(cardarena.__file__).parent)}"] = path
    out["forward.py"] = Path(__file__).with_name("forward.py")
    return out


def runtime_dir(hosting_dir: Path) -> Path:
    """The runtime directory under ``hosting_dir`` (made on first use, once per machine); its path."""
    with _lock:
        if hosting_dir in _made:
            return _made[hosting_dir]
        files = _files()
        digest = hashlib.sha256()
        for name in sorted(files):
            digest.update(name.encode() + b"\0" + files[name].read_bytes() + b"\0")
        target = hosting_dir / "runtime" / digest.hexdigest()[:24]
        if not target.is_dir():
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            work = Path(tempfile.mkdtemp(prefix=".runtime-", dir=target.parent))
            for name, source in files.items():
                dest = work / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest)
                os.chmod(dest, 0o755 if os.access(source, os.X_OK) and dest.suffix != ".py" else 0o644)
            for path in [work, *work.rglob("*")]:
                if path.is_dir():
                    os.chmod(path, 0o755)
            try:
                os.rename(work, target)
            except OSError:  # another process made it meanwhile
                shutil.rmtree(work, ignore_errors=True)
        _made[hosting_dir] = target
        return target


def python_problem() -> str | None:
    """Why the sandbox's Python cannot run the SDK (one line), or None: it must exist and be this Python's
    minor version."""
    if not Path(SANDBOX_PYTHON).exists():
        return f"cannot run hosted Python bots: {SANDBOX_PYTHON} is not installed"
    try:
        found = subprocess.run([SANDBOX_PYTHON, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True, timeout=10, env={}).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run hosted Python bots: {SANDBOX_PYTHON} does not run: {exc}"
    ours = "%d.%d" % sys.version_info[:2]
    if found != ours:
        return (f"cannot run hosted Python bots: {SANDBOX_PYTHON} is Python {found}, the platform runs {ours} "
                "(the SDK's grpcio is built for it)")
    return None
