"""Run every benchmark in turn (``make bench``)."""

from __future__ import annotations

import runpy
import sys

# bench_celery and bench_dashboard start Redis, workers or a 100,000-game store: run them on their own.
for module in ("bench.bench_engine", "bench.bench_referee", "bench.bench_meld_search", "bench.bench_rating_coverage"):
    print(f"== {module}", flush=True)
    sys.argv = [module]
    runpy.run_module(module, run_name="__main__")
