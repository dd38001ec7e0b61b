"""The bot page says how its ladder rating moved, and with how many games of its own (rules §5.4: the scale is
anchored, so a move with no game of its own comes from others' games)."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from config import Settings
from dashboard.ladders import RatingMove, rating_moves
from dashboard.main import create_app
from store.reads.ladders import HistoryPoint
from tests.ladder_world import build_ladder_world


def test_moves_are_the_differences_of_consecutive_snapshots_newest_first() -> None:
    points = [HistoryPoint(10, 4, 1500.0, 1400.0, 1600.0), HistoryPoint(20, 9, 1512.5, 1430.0, 1590.0),
              HistoryPoint(30, 9, 1511.0, 1431.0, 1589.0)]
    assert rating_moves(points) == [RatingMove(30, -1.5, 0), RatingMove(20, 12.5, 5)]
    assert rating_moves(points, last=1) == [RatingMove(30, -1.5, 0)]
    assert rating_moves(points[:1]) == []


def test_the_bot_page_lists_its_ladder_ratings_moves(tmp_path: Path) -> None:
    world = build_ladder_world(f"sqlite:///{tmp_path / 'store.db'}")
    store, lid = world.store, world.ladder_id
    a = max(e.id for e in store.ladders.entrants(lid) if e.bot_id == world.bots["a"])
    [last] = [p for p in store.ladders.rating_history(lid, a)][-1:]
    # a later snapshot of entrant a, with no game of its own: others' games moved it
    store.ladders.add_rating_points(lid, last.games + 6, {a: (last.played, last.rating - 2.5, last.sd)})
    with TestClient(create_app(Settings(db_url=world.url))) as client:
        page = client.get(f"/bots/{world.bots['a']}").text
    table = re.search(r'<table class="grid rating-moves".*?</table>', page, re.S)
    assert table is not None, "no table of the rating's moves"
    first_row = re.search(r"<tbody><tr><td>a@1.0</td><td class=\"num\">(\d+)</td><td class=\"num\">([^<]+)</td>"
                          r"<td class=\"num\">(\d+)</td>", table.group(0))
    assert first_row is not None and first_row.groups() == (str(last.games + 6), "-2.5", "0")
    assert "others' games" in table.group(0)
