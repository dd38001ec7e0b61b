"""Run every benchmark in turn (``make bench``)."""

from __future__ import annotations

import runpy
import sys

# bench_celery and bench_dashboard start Redis, workers or a 100,000-game store: run them on their own.
# bench_season runs here in a short version (its defaults are the full 10,000-game season).
RUNS = (
    ("bench.bench_engine", []),
    ("bench.bench_referee", []),
    ("bench.bench_bots", ["--games", "20", "--calls", "2000"]),
    ("bench.bench_season", ["--sam-games", "300", "--svara-games", "60", "--rummy-games", "4"]),
    ("bench.bench_meld_search", []),
    ("bench.bench_rating_coverage", []),
)
for module, args in RUNS:
    print(f"== {module} {' '.join(args)}".rstrip(), flush=True)
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__")
