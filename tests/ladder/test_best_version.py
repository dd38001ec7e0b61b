"""A bot is known by its best version, and a retired bot leaves the ranking (rules §5.4): the standings
``ladder standings`` prints and the board the dashboard and the Arena read, over a ladder of real store rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.main import main
from league.competition.ladder import ladder_standings
from league.competition.ladder_board import board
from store.reads.ladders import LadderReads
from tests.ladder_world import NAME, LadderWorld, build_ladder_world


@pytest.fixture
def lw(tmp_path: Path) -> Iterator[LadderWorld]:
    # 60 games: d's first version finishes placing whatever tables the epoch's key draws (36 left it at 18 games
    # now and then, still placing, and then its newest version stood for it)
    w = build_ladder_world(f"sqlite:///{tmp_path / 'store.db'}", games=60)
    yield w
    w.store.close()


def test_the_ranking_is_each_bots_best_version_and_no_retired_bot(lw: LadderWorld, capsys) -> None:
    store, bots = lw.store, lw.bots
    store.games.retire_bot(bots["c"])
    store.ladders.sync_entrants(lw.ladder_id)
    for rows in (ladder_standings(store, lw.ladder_id, with_luck=False),
                 board(LadderReads(store.db, store.ladders), store.ladders.get_ladder(lw.ladder_id))):
        best = [r for r in rows if r.best]
        # one row per bot not retired; d by 1.0, its placed version, not by 2.0, which is still placing
        assert sorted((r.name, r.version) for r in best) == [("a", "1.0"), ("b", "1.0"), ("d", "1.0")], rows
        assert [r.name for r in rows[:3]] == [r.name for r in sorted(best, key=lambda r: -(r.rating or 0))]
        assert not any(r.best for r in rows if r.name == "c")
        d2 = next(r for r in rows if (r.name, r.version) == ("d", "2.0"))
        assert d2.latest and not d2.best and d2.status == "active"
    ranks = {(r.name, r.version): r.rank for r in board(LadderReads(store.db, store.ladders),
                                                        store.ladders.get_ladder(lw.ladder_id))}
    assert sorted(ranks[(n, "1.0")] for n in "abd") == [1, 2, 3] and ranks[("c", "1.0")] is None

    assert main(["ladder", "standings", NAME, "--db", lw.url]) == 0
    out = capsys.readouterr().out
    assert "└ d" in out and "plays now" in out and "best version" in out, out
    assert "Retired (unranked, record kept): c@1.0" in out, out
    ranked_lines = [line for line in out.splitlines() if line.startswith("│ ") and line[2:4].strip().isdigit()]
    assert len(ranked_lines) == 3, out
