"""Every process of the platform imports grpc with its runtime setting in the environment (botsdk.runtime).

Each entry module is imported in a fresh interpreter with ``GRPC_EXPERIMENTS`` unset, and an
import hook notes the variable at the moment ``grpc`` itself is first imported (by the module, or after it when
it does not import grpc itself): that is the value gRPC runs with. A setting grpcio does not know makes gRPC log "Unknown experiment"
when it starts, which is checked too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from botsdk.runtime import GRPC_EXPERIMENTS, GRPC_VERBOSITY

REPO = Path(__file__).resolve().parents[1]

#: Imports ``sys.argv[1]`` and prints GRPC_EXPERIMENTS as it was when grpc was first imported: by the module, or,
#: when it does not import grpc (the command line imports it only when a command needs it), by the process's first
#: use after it; then opens and closes a channel.
_PROBE = r"""
import importlib, importlib.abc, os, sys
seen, verbosity = [], []
class Note(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "grpc" and not seen:
            seen.append(os.environ.get("GRPC_EXPERIMENTS", "<unset>"))
            verbosity.append(os.environ.get("GRPC_VERBOSITY", "<unset>"))
        return None
sys.meta_path.insert(0, Note())
importlib.import_module(sys.argv[1])
import grpc
print("verbosity " + (verbosity[0] if verbosity else "<not imported>"))
print(seen[0] if seen else "<not imported>")
grpc.insecure_channel("127.0.0.1:1").close()
"""

ENTRY_MODULES = ["botsdk", "referee.clients", "cli.main", "workers.tasks", "workers.local", "dashboard.main", "arena.service",
                 "bench.bench_season", "tests.conftest"]


def _probe(module: str, env_value: str | None) -> tuple[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GRPC_EXPERIMENTS", "GRPC_VERBOSITY")}
    if env_value is not None:
        env["GRPC_EXPERIMENTS"] = env_value
    result = subprocess.run([sys.executable, "-c", _PROBE, module], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.split("\n")[:-1]  # each line printed ends with one newline (the last may be empty)
    return lines[-1], result.stderr + "\n".join(lines[-2:-1]) + "\n"


@pytest.mark.parametrize("module", ENTRY_MODULES)
def test_grpc_is_first_imported_with_the_platforms_setting(module: str) -> None:
    seen, stderr = _probe(module, None)
    assert seen == GRPC_EXPERIMENTS, f"{module} imports grpc before botsdk.runtime sets it (saw {seen!r})"
    assert f"verbosity {GRPC_VERBOSITY}\n" in stderr, f"{module}: gRPC's C-core INFO lines are not silenced"
    assert "Unknown experiment" not in stderr, stderr


def test_an_operators_own_setting_is_kept() -> None:
    seen, _ = _probe("referee.clients", "")
    assert seen == ""
    seen, _ = _probe("botsdk", "-event_engine_client")
    assert seen == "-event_engine_client"
