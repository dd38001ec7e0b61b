"""Each game's default thinking budget fits its length (rules §4.1), seasons store it, and `bot check` shows it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from league.policy import POLICY
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.conformance import lineup
from referee.games import games, make_params, spec
from referee.games.conformance import conformance
from referee.referee import play
from referee.timecontrol import TimeControl
from store import open_store

@pytest.mark.parametrize("game", games())
def test_a_bot_answering_at_the_deadline_has_budget_for_every_decision_of_a_long_game(game: str) -> None:
    """A seat that used the whole 1 s deadline at every decision must not run out of budget: the
    default budget covers twice the most decisions any seat makes in games at the largest table."""
    game_spec = spec(game)
    tc = TimeControl.for_game(game_spec)
    n = game_spec.max_seats
    most = 0
    for seed in range(4):
        # the game's strong reference bot (its conformance declaration) seated in turn with random
        clients = [InProcessBotClient(load_bot(name, seed * 10 + k).act) for k, name in enumerate(lineup(game, n))]
        record = play(game_spec, make_params(game), n, seed, clients)
        counts = [sum(1 for d in record.decisions if d.seat == s and d.called) for s in range(n)]
        most = max(most, *counts)
    assert most > 0
    assert 2 * most * tc.deadline_s <= tc.budget_s, (game, most, tc.budget_s)


@pytest.mark.parametrize("game", games())
def test_for_game_takes_the_games_budget_unless_one_is_given(game: str) -> None:
    game_spec = spec(game)
    budget = game_spec.default_budget_s  # each game's own value is checked in its folder's tests
    assert TimeControl.for_game(game_spec).budget_s == budget
    assert TimeControl.for_game(game_spec, budget_s=None, deadline_s=2.0) == TimeControl(deadline_s=2.0, budget_s=budget)
    assert TimeControl.for_game(game_spec, budget_s=50.0).budget_s == 50.0


@pytest.mark.parametrize("game", games())
def test_season_create_stores_the_games_budget(tmp_path: Path, game: str) -> None:
    url = f"sqlite:///{tmp_path / 'tc.db'}"
    store = open_store(url, policy=POLICY)
    seats = spec(game).min_seats
    names = [f"b{k}" for k in range(max(3, seats))]
    for name in names:
        store.bots.register_bot(name, "127.0.0.1:1", "1", "t", [game])
    repo = Path(__file__).parents[1]
    for season, extra, budget in (("r-default", [], spec(game).default_budget_s), ("r-given", ["--budget", "45"], 45.0)):
        result = subprocess.run([sys.executable, "-m", "cli.main", "season", "create", season, "--game", game,
                                 "--bots", ",".join(names), "--tables", str(seats), "--games", "3", *extra, "--db", url],
                                cwd=repo, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert store.seasons.get_season_by_name(season).time_control["budget_s"] == budget
    store.close()


@pytest.mark.parametrize("game", games())
def test_bot_check_shows_capacity_and_the_season_time_control(bot_server, capsys, game: str) -> None:
    from cli.main import main

    bot = load_bot(conformance(game).strong_bot)
    bot.capacity = 1  # the SDK's default
    assert main(["bot", "check", bot_server(bot), "--game", game]) == 0
    out = capsys.readouterr().out
    assert "capacity 1 (Describe): the platform gives the bot one game at a time" in out
    assert "declares capacity N (`capacity = N` on a botsdk.Bot)" in out
    budget = spec(game).default_budget_s
    assert (f"seasons of {game} by default (rules §4.1): 1 s per decision, a 10 s time bank and a {budget:.0f} s thinking "
            f"budget per seat per game (room for {budget:.0f} decisions at the full deadline)") in out
