"""A hosted Python bot's own environment, built at submission with pip from the package index.

:func:`build_env` runs pip in a build sandbox (:mod:`hosting.sandbox`): the submission read-only, pip from
the platform's runtime, an output directory and the machine's pip cache writable, and the network (the
only sandbox that has it, to reach the index). It installs the submission's requirements file into the
environment (``--target``) **as wheels only** (``--only-binary=:all:``): installing a wheel runs none of
the package's code, so nothing the author wrote runs with the network. A requirement with no wheel for
the platform fails the build, saying so. pip's installation report gives each package's name, version
and the SHA-256 of the file installed, which the build records; pip's output is the build log, kept for
the bot's author.

The index is the settings' ``hosted_index_url`` (else pip's default, or the machine's pip configuration:
``/etc/pip.conf`` and the worker's ``PIP_*`` variables are passed on); the pip cache under the hosting
directory makes a second build of the same requirements fast.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from hosting.cache import private_dir
from hosting.launch import HostingConfig
from hosting.runtime import runtime_dir
from hosting.sandbox import CODE, ENV, RUNTIME, SANDBOX_GID, SANDBOX_UID, Bind, SandboxSpec, environment, launch

#: Bytes of pip's output kept as the build log.
MAX_LOG_BYTES = 256 << 10
#: The worker's environment variables passed on to pip (its index, certificates, proxies).
PASSED = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_TRUSTED_HOST",
          "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
#: Where pip writes its report in the build sandbox.
OUT = "/bot/out"


class BuildError(RuntimeError):
    """A build that failed; ``log`` is pip's output (the message is its last line)."""

    def __init__(self, message: str, log: str) -> None:
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class Built:
    """A built environment: its directory ``env``, the packages ``installed`` (``{"name", "version", "sha256"}``)
    and the build ``log``."""

    env: Path
    installed: list[dict[str, str]] = field(default_factory=list)
    log: str = ""


def _own(path: Path) -> Path:
    """``path`` made writable by the sandbox's user (``nobody`` when the worker is root)."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(path, SANDBOX_UID, SANDBOX_GID)
    os.chmod(path, 0o755)
    return path


def installed_of(report: dict[str, object]) -> list[dict[str, str]]:
    """``{"name", "version", "sha256"}`` of each package in pip's installation report (``--report``)."""
    out = []
    for item in report.get("install", []) or []:  # type: ignore[union-attr]
        meta = item.get("metadata", {})
        hashes = ((item.get("download_info") or {}).get("archive_info") or {}).get("hashes") or {}
        sha = hashes.get("sha256") or str((item.get("download_info") or {}).get("archive_info", {}).get("hash", ""))
        out.append({"name": str(meta.get("name", "")), "version": str(meta.get("version", "")),
                    "sha256": sha.removeprefix("sha256=")})
    return sorted(out, key=lambda p: p["name"].lower())


def build_env(code: Path, requirements: str, work: Path, config: HostingConfig, name: str) -> Built:
    """Install ``requirements`` (a file of the submission unpacked at ``code``) into ``work/env``; raises
    BuildError with pip's output, or SandboxUnavailable."""
    env, out = _own(work / "env"), _own(work / "out")
    cache = _own(private_dir(config.directory) / "pip-cache")
    argv = ["python3", "-m", "pip", "install", "--only-binary=:all:", "--no-input", "--disable-pip-version-check",
            "--no-warn-script-location", "--progress-bar", "off", "--target", ENV, "--report", f"{OUT}/report.json",
            "--cache-dir", "/cache", "-r", f"{CODE}/{requirements}"]
    if config.index_url:
        argv += ["--index-url", config.index_url]
    passed = {k: v for k in PASSED if (v := os.environ.get(k))}
    binds = [Bind(code, CODE), Bind(runtime_dir(config.directory), RUNTIME), Bind(env, ENV, writable=True),
             Bind(out, OUT, writable=True), Bind(cache, "/cache", writable=True)]
    if Path("/etc/pip.conf").exists():
        binds.append(Bind(Path("/etc/pip.conf"), "/etc/pip.conf"))
    spec = SandboxSpec(name, tuple(argv), tuple(binds), config.limits, config.tmp_bytes,
                       environment(passed, [f"{RUNTIME}/tools"]), cwd=CODE, network=True)
    sandbox = launch(spec)
    try:
        try:
            output, _ = sandbox.process.communicate(timeout=config.build_timeout_s)
        except subprocess.TimeoutExpired:
            raise BuildError(f"the build took longer than {config.build_timeout_s:g} s", "") from None
        status = sandbox.process.returncode
    finally:
        sandbox.stop()
    text = output[-MAX_LOG_BYTES:].decode("utf-8", "replace")
    if status != 0:
        last = next((line for line in reversed(text.strip().splitlines()) if line.strip()), f"pip exited with {status}")
        raise BuildError(f"the Python environment could not be built: {last.strip()}", text)
    try:
        report = json.loads((out / "report.json").read_text())
    except (OSError, ValueError):
        report = {}
    shutil.rmtree(out, ignore_errors=True)
    return Built(env, installed_of(report), text)

