"""Run every benchmark in turn (``make bench``), or those named: ``python -m bench.run [bench.bench_x ...]``."""

from __future__ import annotations

import subprocess
import sys

# bench_celery and bench_dashboard start Redis, workers or a 100,000-game store: run them on their own.
# bench_season runs here in a short version (its defaults are the full 10,000-game season), and so does
# bench_fair_play (120 games a season by default); it exits 1 when a card leaks or its cheater is blind.
# bench_hosted runs its round trip and cold start only (its Celery season and ladder take minutes); it says in one line,
# and exits 0, on a machine that cannot run sandboxes.
RUNS = (
    ("bench.bench_engine", []),
    ("bench.bench_referee", ["--games", "8", "--rounds", "5"]),
    ("bench.bench_referee_own", ["--games", "20", "--rounds", "3"]),
    ("bench.bench_bots", ["--games", "20", "--calls", "2000"]),
    ("bench.bench_season", ["--sam-games", "300", "--svara-games", "60", "--rummy-games", "4"]),
    ("bench.bench_store", ["--games", "300"]),
    ("bench.bench_identity", ["--rounds", "500"]),
    ("bench.bench_meld_search", []),
    ("bench.bench_rating_coverage", []),
    ("bench.bench_fair_play", ["--games", "24"]),
    ("bench.bench_hosted", ["--parts", "roundtrip,coldstart", "--games", "6", "--starts", "3"]),
)


def main(names: list[str]) -> None:
    """Run each of :data:`RUNS` (only those whose module is in ``names``, if any), in turn, each in a
    Python process of its own (as ``python -m``). Raises SystemExit for a name that is not one of
    them, and with a benchmark's exit status when one fails."""
    unknown = set(names) - {module for module, _ in RUNS}
    if unknown:
        raise SystemExit(f"not a benchmark of make bench: {', '.join(sorted(unknown))}; "
                         f"choose from {', '.join(module for module, _ in RUNS)}")
    for module, args in RUNS:
        if names and module not in names:
            continue
        print(f"== {module} {' '.join(args)}".rstrip(), flush=True)
        done = subprocess.run([sys.executable, "-m", module, *args], check=False)
        if done.returncode != 0:
            raise SystemExit(done.returncode)


# Only when run: the benchmarks start bot processes by spawning, and a spawned process imports
# the main module again, which must then run nothing.
if __name__ == "__main__":
    main(sys.argv[1:])
