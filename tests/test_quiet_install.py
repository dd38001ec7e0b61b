"""``make demo``'s first install is quiet: the Makefile's install of the project into a new virtual environment
prints nothing of its build (no page of setuptools notices or deprecation warnings)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_the_first_install_prints_nothing_of_the_build(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # the Makefile's own recipe for .venv/.installed, into a throwaway environment; the project alone (its
    # dependencies are the index's business, not its build's)
    result = subprocess.run(["make", "--no-print-directory", f"VENV={venv}", "PIP_ARGS=--no-deps",
                             f"{venv}/.installed"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    # a pip configuration may name an index folder that this machine lacks: pip's line about it is not the build's
    said = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("WARNING: Location ")]
    assert said == [], result.stderr
    assert (venv / ".installed").exists()
