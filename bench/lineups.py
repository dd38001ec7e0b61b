"""The reference bots the season benchmarks seat, per game, and their table sizes.

``bench_season`` plays seasons of them, ``bench_bots`` times their decisions on the same lineups,
``bench_store`` schedules its season as ``bench_season`` does.
"""

from __future__ import annotations

#: Per game: the six bots (reference name, seed) and the game's parameters.
LINEUPS = {
    "slippery-sam": [("odds", 0), ("odds", 1), ("odds", 2), ("random", 0), ("random", 1), ("random", 2)],
    "svara": [("points", 0), ("points", 1), ("points", 2), ("random", 0), ("random", 1), ("random", 2)],
    "rummy": [("greedy", 0), ("greedy", 1), ("greedy", 2), ("random", 0), ("random", 1), ("random", 2)],
}
TABLE_SIZES = [3, 4, 5, 6]
