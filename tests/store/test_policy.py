"""The store computes no ratings: it never imports the league, whose policy rates a season from a checkpoint."""

from __future__ import annotations

import subprocess
import sys

from league.policy import POLICY
from league.ratings import elo
from league.ratings.settling import SEQUENTIAL_KEY

GAMES = [(0, [1, 2, 3], [1, 2, 3]), (1, [2, 3, 4], [2, 1, 3]), (2, [1, 4], [1, 1]), (3, [3, 1, 2], [3, 1, 2])]


def test_the_store_never_imports_the_league() -> None:
    code = ("import sys, store, store.bots, store.seasons, store.lifecycle, store.replays, store.ratings, "
            "store.reads.games, store.reads.seasons, store.reads.bots; "
            "print(sorted(m for m in sys.modules if m == 'league' or m.startswith('league.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_replay_from_a_checkpoint_is_the_replay_from_the_start() -> None:
    whole = elo.season_elo((bots, places) for _, bots, places in GAMES)
    now, kept = POLICY.rate({}, GAMES[:2], checkpoint_before=1)
    assert {bot: r for bot, (r, _) in kept.items() if kept[bot][1]} == elo.season_elo([(GAMES[0][1], GAMES[0][2])])
    assert kept[4] == (elo.START, 0)  # not rated before the checkpoint
    base = {bot: rated for bot, rated in kept.items() if rated[1] > 0}
    rest, _ = POLICY.rate(base, GAMES[1:], checkpoint_before=4)
    assert {bot: r for bot, (r, _) in rest.items()} == whole  # bit-identical
    assert {bot: n for bot, (_, n) in rest.items()} == {1: 3, 2: 3, 3: 3, 4: 2}
    assert now[4][1] == 1


def test_a_sequential_season_keeps_its_key_until_it_stops() -> None:
    assert POLICY.key_is_public({})
    assert not POLICY.key_is_public({SEQUENTIAL_KEY: {"stop": None}})
    assert POLICY.key_is_public({SEQUENTIAL_KEY: {"stop": "settled"}})
