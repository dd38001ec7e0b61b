"""Hosted bots in everything that exists, unchanged: a duplicate season on the local pool beside a remote bot,
verified from its key, with each hosted seat's output kept for its author only; a crash that costs only the
game in flight; a hosted bot that declares new versions keeps its hash as its version.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.registry import ErrorKind, Registry, RegistryConfig, RegistryError
from cli.main import main
from config import get_settings
from hosting.launch import HostingConfig
from league.entry.identity import Declared, Expected, review
from league.competition.standings import standings_of
from league.integrity import fairness
from referee.botprocess import BotProcess, start_bot_process
from referee.record import FaultKind
from store import GameStatus, Store
from tests.a_game import GAME, SPEC, STRONG

ROOT = Path(__file__).resolve().parents[2]

CHATTY = '''
import sys as _sys
_plain = getattr(ExampleBot, "@METHOD@")


def _chatty(self, view, ctx):
    print(f"deciding {ctx.game_id} seat {ctx.seat} decision {ctx.decision}", file=_sys.stderr, flush=True)
    return _plain(self, view, ctx)


setattr(ExampleBot, "@METHOD@", _chatty)
'''.replace("@METHOD@", SPEC.proto_field)

CRASH_IN = '''
import os as _os
_plain = getattr(ExampleBot, "@METHOD@")


def _crashing(self, view, ctx):
    if ctx.game_id == {game_id!r} and ctx.decision >= 2:
        _os._exit(3)  # the whole bot dies, mid-game
    return _plain(self, view, ctx)


setattr(ExampleBot, "@METHOD@", _crashing)
'''.replace("@METHOD@", SPEC.proto_field)

NEW_VERSION_EACH_START = '''
import secrets as _secrets
ExampleBot.version = _secrets.token_hex(4)  # a new declared version at every start
'''


def example(tmp_path: Path, name: str, extra: str = "") -> Path:
    d = tmp_path / name
    shutil.copytree(ROOT / "examples" / "python", d)
    with (d / "bot.py").open("a") as handle:
        handle.write(extra)
    return d


@pytest.fixture
def remote() -> Iterator[BotProcess]:
    """A reference bot its author serves (a remote bot) on 127.0.0.1."""
    process = start_bot_process(STRONG, seed=3)
    yield process
    process.stop()


def test_a_duplicate_season_of_hosted_and_remote_bots_is_played_verified_and_logged(
        tmp_path: Path, store: Store, config: HostingConfig, remote: BotProcess,
        capsys: pytest.CaptureFixture[str]) -> None:
    url = str(store.engine.url)
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    a = registry.submit("hosted-a", [GAME], example(tmp_path, "a", CHATTY))
    b = registry.submit("hosted-b", [GAME], example(tmp_path, "b"))
    store.bots.register_bot("remote", remote.endpoint, "1", "tests", [GAME], capacity=8)
    assert main(["season", "create", "mixed", "--game", GAME, "--bots", "hosted-a,hosted-b,remote",
                 "--tables", "3", "--games", "9", "--duplicate", "--db", url]) == 0
    assert main(["season", "run", "mixed", "--workers", "2", "--db", url]) == 0
    out = capsys.readouterr().out
    season = store.seasons.get_season_by_name("mixed")
    progress = store.seasons.season_progress(season.id)
    assert progress["done"] == progress["total"] == 9, out
    rows = {r.name: r for r in standings_of(store, season.id)}
    assert rows["hosted-a"].games == rows["hosted-b"].games == 9 and rows["hosted-a"].faults == 0
    assert main(["season", "verify", "mixed", "--db", url]) == 0, capsys.readouterr()

    games = store.game_reads.list_games(season.id, limit=100)
    seat_of_a = {g.id: next(s.seat for s in g.seats if s.bot_id == a.bot.id) for g in games}
    game_id = games[0].id
    outputs = registry.game_output("hosted-a", a.token, game_id)
    assert [o.seat for o in outputs] == [seat_of_a[game_id]]
    received = store.replays.get_replay(game_id).game_id  # type: ignore[union-attr]  # the id its bots were sent
    assert f"deciding {received} " in outputs[0].text  # what it wrote in that game
    assert registry.game_output("hosted-b", b.token, game_id)[0].text == ""  # b's own seat only: it wrote nothing
    with pytest.raises(RegistryError) as refused:
        registry.game_output("hosted-a", b.token, game_id)
    assert refused.value.kind is ErrorKind.UNAUTHENTICATED


def test_a_crash_costs_only_the_game_in_flight(tmp_path: Path, store: Store, config: HostingConfig,
                                               remote: BotProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    url = str(store.engine.url)
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    store.bots.register_bot("remote", remote.endpoint, "1", "tests", [GAME], capacity=8)
    store.bots.register_bot("remote-2", remote.endpoint, "1", "tests", [GAME], capacity=8)
    # the id its bots are sent in game 2 of season 1 of the reproducible season of seed 5 (keyed, opaque)
    registry.submit("crashy", [GAME], example(tmp_path, "crashy",
                                              CRASH_IN.format(game_id=fairness.game_token(fairness.key_from_seed(5), 1, 2))))
    monkeypatch.setenv("CARDARENA_GAMES_PER_PROCESS", "1")  # one game in flight at a time
    get_settings.cache_clear()
    assert main(["season", "create", "crash", "--game", GAME, "--bots", "crashy,remote,remote-2",
                 "--tables", "3", "--games", "6", "--seed", "5", "--db", url]) == 0
    season = store.seasons.get_season_by_name("crash")
    assert season.id == 1  # the season of the game id the bot crashes in
    assert main(["season", "run", "crash", "--workers", "1", "--db", url]) == 0
    games = store.game_reads.list_games(season.id, limit=100)
    assert all(g.status == GameStatus.DONE for g in games)
    crashy = store.bots.get_bot_by_name("crashy").id
    faulted = {}
    for g in games:
        record = store.replays.get_replay(g.id)
        seat = next(s for s in g.seats if s.bot_id == crashy)
        faulted[g.number] = seat.faults
        if seat.faults:
            assert record is not None and {f.kind for f in record.faults if f.seat == seat.seat} == {FaultKind.UNREACHABLE}, \
                (g.number, [f for f in record.faults])
    assert faulted[2] >= 1 and all(n == 0 for number, n in faulted.items() if number != 2), faulted


def test_a_hosted_bot_keeps_its_hash_as_its_version_whatever_it_declares(tmp_path: Path, store: Store,
                                                                         config: HostingConfig, remote: BotProcess) -> None:
    assert review(Expected("x", "1", 4, pinned=True), Declared("x", "2", 4)).changes == {"described_version": "2"}
    assert review(Expected("x", "1", 4), Declared("x", "2", 4)).changes == {"version": "2", "described_version": "2"}
    url = str(store.engine.url)
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    done = registry.submit("shifty", [GAME], example(tmp_path, "shifty", NEW_VERSION_EACH_START))
    store.bots.register_bot("remote", remote.endpoint, "1", "tests", [GAME], capacity=8)
    store.bots.register_bot("remote-2", remote.endpoint, "1", "tests", [GAME], capacity=8)
    assert main(["season", "create", "shift", "--game", GAME, "--bots", "shifty,remote,remote-2",
                 "--tables", "3", "--games", "3", "--db", url]) == 0
    assert main(["season", "run", "shift", "--workers", "1", "--db", url]) == 0
    bot = store.bots.get_bot_by_name("shifty")
    assert bot.version == done.sha256
    season = store.seasons.get_season_by_name("shift")
    assert {s.version for g in store.game_reads.list_games(season.id, limit=10) for s in g.seats if s.bot_id == bot.id} == {done.sha256}
