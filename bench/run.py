"""Run every benchmark in turn (``make bench``)."""

from __future__ import annotations

import runpy
import sys

for module in ("bench.bench_engine", "bench.bench_referee", "bench.bench_meld_search"):
    try:
        __import__(module)
    except ImportError:
        continue
    print(f"== {module}", flush=True)
    sys.argv = [module]
    runpy.run_module(module, run_name="__main__")
