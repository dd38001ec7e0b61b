"""A game id is resolved to its GameSpec once, where it arrives, and the GameSpec is passed on.

Followed from the command line to the stored results, the id (``--game``) enters the registry's
lookup (:func:`referee.games.spec`) once; a worker's task resolves the id of the stored game it
claims once per game. Counted over every binding of ``spec`` while real gRPC bots play the games
through the real code path: ``cardarena match`` (reference bots in their own processes, the local
pool) and ``season create`` in this process, and the worker's task (:func:`workers.service.run_game`)
in this process against bots served on ephemeral ports. Enumerating every game
(:func:`referee.games.specs`, help texts and the reference bots) is not a lookup of an id.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import referee.games
from league.policy import POLICY
from referee.bots import load_bot
from store import open_store
from tests.a_game import GAME, QUICK, STRONG


@pytest.fixture
def lookups() -> Iterator[list[str]]:
    """The game id of every call of :func:`referee.games.spec` during the test, by every module that
    bound it (``from referee.games import spec``), before the test or during it; every binding is the
    registry's own again afterwards. A test clears the list where the walk it follows starts."""
    original = referee.games.spec
    calls: list[str] = []

    def counting(game: str) -> referee.games.GameSpec:
        calls.append(game)
        return original(game)

    def rebind(old: object, new: object) -> None:
        for module in list(sys.modules.values()):
            if getattr(module, "spec", None) is old:
                module.spec = new  # type: ignore[attr-defined]

    rebind(original, counting)
    try:
        yield calls
    finally:
        rebind(counting, original)


def test_match_resolves_its_game_once_from_the_command_line_to_the_printed_results(lookups: list[str]) -> None:
    """``cardarena match``: the targets' Describe, the registrations, the season, its stored games and the
    printed results all take the GameSpec resolved from ``--game``; the pool's processes play and store the games."""
    from cli.main import app

    result = CliRunner().invoke(app, ["match", STRONG, "random", "random", "--game", GAME, "--games", "3",
                                      "--seed", "5", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert len(re.findall(r"^game \d+ \(id \d+\): ", result.output, re.M)) == 3, result.output  # stored and read back
    assert lookups == [GAME]


def test_season_create_resolves_its_game_once_and_stores_the_id(lookups: list[str],
                                                                 tmp_path: Path, bot_server) -> None:  # type: ignore[no-untyped-def]
    from cli.main import app

    url = f"sqlite:///{tmp_path / 'walk.db'}"
    store = open_store(url, policy=POLICY)
    names = [f"b{i}" for i in range(3)]
    for i, name in enumerate(names):
        store.bots.register_bot(name, bot_server(load_bot("random", i)), "1", "t", [GAME], capacity=2)
    lookups.clear()  # the walk starts at the command line
    result = CliRunner().invoke(app, ["season", "create", "walk", "--game", GAME, "--bots", ",".join(names),
                                      "--tables", "3", "--games", "3", "--seed", "4", "--db", url,
                                      *[f"--param={k}={v}" for k, v in QUICK.items()]])
    assert result.exit_code == 0, result.output
    assert lookups == [GAME]
    assert store.seasons.get_season_by_name("walk").game == GAME  # the rows keep the id


def test_the_workers_task_resolves_the_stored_game_once_per_game(lookups: list[str],
                                                                  tmp_path: Path, bot_server) -> None:  # type: ignore[no-untyped-def]
    from league.competition.seasons import create_season
    from workers.service import Outcome, run_game

    store = open_store(f"sqlite:///{tmp_path / 'task.db'}", policy=POLICY)
    names = [f"b{i}" for i in range(3)]
    for i, name in enumerate(names):
        store.bots.register_bot(name, bot_server(load_bot("random", i)), "1", "t", [GAME], capacity=2)
    season_id = create_season(store, "tasks", referee.games.spec(GAME), names, [3], 3, 3, params=dict(QUICK))
    pending = [g.id for g in store.game_reads.list_games(season_id)]
    lookups.clear()  # the walk starts at the stored games
    assert [run_game(store, gid, lease_s=30).outcome for gid in pending] == [Outcome.DONE] * 3
    assert lookups == [GAME] * 3  # one per task: the claimed game's stored id
    assert [r.game for _, _, r in store.replays.season_records(season_id)] == [GAME] * 3
