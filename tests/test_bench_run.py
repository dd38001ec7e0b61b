"""``make bench``'s runner: every benchmark it names exists, and it runs one that starts bot processes.

The benchmarks start bot processes with the ``spawn`` start method, and a spawned
process imports the parent's main module again: a runner that ran its list at
import, in its own process, made every bot process start the benchmarks over, and
the first benchmark with bots died (EOFError from the bot process). Each benchmark
now runs as a program of its own, as ``python -m`` runs it.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import pytest

from bench import run
from tests.store.conftest import PgDatabase, pg_database  # noqa: F401  (the fixture)


def test_every_benchmark_named_exists() -> None:
    for module, _ in run.RUNS:
        assert importlib.util.find_spec(module) is not None, module


def test_the_runner_runs_a_benchmark_that_starts_bot_processes() -> None:
    out = subprocess.run([sys.executable, "-m", "bench.run", "bench.bench_referee"], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.count("== bench.") == 1 and "ratio per decision / raw Act" in out.stdout


def test_the_runner_refuses_a_name_it_does_not_run() -> None:
    out = subprocess.run([sys.executable, "-m", "bench.run", "bench.nothing"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 1 and "not a benchmark of make bench: bench.nothing" in out.stderr


def test_the_season_bench_compares_the_stores(pg_database: PgDatabase) -> None:
    """``bench.bench_season --stores sqlite,postgresql``: the same season on each store, and PostgreSQL's ratio
    (its figures are the bench's, not asserted; its throwaway databases are dropped)."""
    if pg_database.url is None:
        pytest.skip(pg_database.reason)
    out = subprocess.run([sys.executable, "-m", "bench.bench_season", "--sam-games", "16", "--svara-games", "0",
                          "--rummy-games", "0", "--processes", "1", "--stores", "sqlite,postgresql"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    played = re.findall(r"\(stream, (\w+)\): (\d+) games", out.stdout)
    assert [store for store, _ in played] == ["sqlite", "postgresql"] and played[0][1] == played[1][1], out.stdout
    assert re.search(r"postgresql / sqlite, games per second: median \d+\.\d\d", out.stdout), out.stdout
    bad = subprocess.run([sys.executable, "-m", "bench.bench_season", "--stores", "sqlite,mysql"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--stores: 'sqlite,mysql': use sqlite, postgresql" in bad.stderr, bad.stderr
