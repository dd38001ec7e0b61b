"""Celery's per-game time limits leave room for every seat's whole thinking budget (rules §4.1)."""

from __future__ import annotations

from pathlib import Path

from config import get_settings
from league.competition.seasons import create_season
from league.policy import POLICY
from referee.games import spec
from referee.timecontrol import TimeControl
from store import open_store
from tests.a_game import GAME
from workers.follower import game_time_limits


def _season(tmp_path: Path, tables: list[int], budget_s: float) -> tuple[object, int]:
    store = open_store(f"sqlite:///{tmp_path / 'limits.db'}", policy=POLICY)
    names = [f"b{i}" for i in range(8)]
    for name in names:
        store.bots.register_bot(name, "127.0.0.1:1", "1", "t", [GAME])
    season_id = create_season(store, f"s{len(tables)}-{int(budget_s)}", spec(GAME), names, tables, 8, 1,
                              time_control=TimeControl(budget_s=budget_s))
    return store, season_id


def test_small_tables_keep_the_configured_limits(tmp_path: Path) -> None:
    store, season_id = _season(tmp_path, [3], 60.0)
    settings = get_settings()
    assert game_time_limits(store, season_id) == (settings.game_soft_limit_s, settings.game_hard_limit_s)


def test_eight_seats_spending_their_whole_budgets_fit_under_the_soft_limit(tmp_path: Path) -> None:
    store, season_id = _season(tmp_path, [3, 8], 120.0)
    soft, hard = game_time_limits(store, season_id)
    assert soft >= 8 * 120.0 + 60 and hard > soft
