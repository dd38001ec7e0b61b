"""`cardarena bot check / register / update / retire` against real gRPC bots and a real Arena."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from arena.registry import Registry
from arena.service import start_arena_server
from referee.bots import load_bot
from cli.main import main
from store import Store
from tests.a_game import GAME, STRONG, other_game
from tests.arena.conftest import IllegalBot, OneGameOnly, make_config


@pytest.fixture
def arena_at(store: Store) -> Iterator[str]:
    """The Arena over ``store`` on a free port of 127.0.0.1: its "HOST:PORT"."""
    server, port = start_arena_server("unused://", "127.0.0.1", 0, registry=Registry(store, make_config()))
    yield f"127.0.0.1:{port}"
    server.stop(0)


def test_bot_check_reports_a_good_bot(bot_server, capsys) -> None:
    endpoint = bot_server(load_bot(STRONG))
    assert main(["bot", "check", endpoint, "--game", GAME]) == 0
    out = capsys.readouterr().out
    assert f"entry checks for {endpoint} ({GAME})" in out and f"ok    game:{GAME}" in out
    assert re.search(r"latency of \d+ decisions: median [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms", out)
    assert out.rstrip().endswith("PASSED: the bot may enter seasons")


def test_bot_check_reports_a_faulting_bot(bot_server, capsys) -> None:
    assert main(["bot", "check", bot_server(IllegalBot()), "--game", GAME]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  game:{GAME}" in out and "fault at decision 0: illegal" in out and "answer: {" in out
    assert main(["bot", "check", "127.0.0.1:1", "--game", "chess"]) == 2


def test_bot_register_prints_the_token_once_and_retire_uses_it(store: Store, bot_server, arena_at: str, capsys) -> None:
    arena = arena_at
    endpoint = bot_server(OneGameOnly(game=GAME))
    assert main(["bot", "register", "cli-bot", "--endpoint", endpoint, "--game", GAME, "--server", arena]) == 0
    out = capsys.readouterr().out
    bot = store.bots.get_bot_by_name("cli-bot")
    assert bot is not None and f"registered bot cli-bot (id {bot.id}) at {endpoint} for {GAME};" in out
    token = re.search(r"^token: (\S+)$", out, re.M).group(1)
    assert main(["bot", "update", "cli-bot", "--version", "9.9", "--token", token, "--server", arena]) == 0
    assert store.bots.get_bot_by_name("cli-bot").version == "9.9"
    assert main(["bot", "update", "cli-bot", "--game", other_game(), "--token", token, "--server", arena]) == 1
    assert "FAIL  describe" in capsys.readouterr().err  # the bot plays GAME only: nothing is added
    assert store.bots.get_bot_by_name("cli-bot").games == (GAME,)
    assert main(["bot", "retire", "cli-bot", "--token", "wrong", "--server", arena]) == 1
    assert "cardarena: error: UNAUTHENTICATED: wrong token for bot 'cli-bot'" in capsys.readouterr().err
    assert main(["bot", "retire", "cli-bot", "--token", token, "--server", arena]) == 0
    assert "for good, the name cannot be registered again" in capsys.readouterr().out
    assert store.bots.get_bot_by_name("cli-bot").retired_at is not None
    # retired for good: the name does not come back, and the answers say so
    assert main(["bot", "update", "cli-bot", "--version", "10", "--token", token, "--server", arena]) == 1
    err = capsys.readouterr().err
    assert "FAILED_PRECONDITION: bot 'cli-bot' is retired: it cannot be updated. Retirement is final" in err, err
    assert main(["bot", "register", "cli-bot", "--endpoint", endpoint, "--game", GAME, "--server", arena]) == 1
    err = capsys.readouterr().err
    assert "ALREADY_EXISTS: a bot named 'cli-bot' was registered and is retired since" in err, err
    assert "the name cannot come back" in err, err
    assert main(["bot", "register", "cli-bot", "--endpoint", endpoint, "--game", GAME, "--if-missing",
                 "--server", arena]) == 1
    assert "retirement is final, the name cannot come back" in capsys.readouterr().err

    assert main(["bot", "register", "bad", "--endpoint", bot_server(IllegalBot()), "--game", GAME,
                 "--server", arena]) == 1
    err = capsys.readouterr().err
    assert f"FAIL  game:{GAME}" in err and "cardarena: error: FAILED_PRECONDITION: entry checks failed" in err
    assert store.bots.get_bot_by_name("bad") is None


def test_bot_register_without_a_server(dead_endpoint: str, capsys) -> None:
    assert main(["bot", "register", "x", "--endpoint", "127.0.0.1:5000", "--game", GAME, "--server", dead_endpoint]) == 1
    assert f"cannot reach the Arena service at {dead_endpoint}" in capsys.readouterr().err


def test_bot_update_adds_a_game(store: Store, bot_server, arena_at: str, capsys) -> None:
    arena = arena_at
    endpoint, added = bot_server(load_bot("random")), other_game()
    assert main(["bot", "register", "two-games", "--endpoint", endpoint, "--game", GAME, "--server", arena]) == 0
    token = re.search(r"^token: (\S+)$", capsys.readouterr().out, re.M).group(1)
    assert main(["bot", "update", "two-games", "--game", added, "--token", token, "--server", arena]) == 0
    assert f"registered for {GAME}, {added}" in capsys.readouterr().out
    assert store.bots.get_bot_by_name("two-games").games == (GAME, added)


def test_bot_register_waits_for_an_arena_that_is_starting(store: Store, bot_server, capsys) -> None:
    """A register run just after `cardarena server &` (as pasted): the Arena comes up a moment later."""
    import socket
    import threading
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = bot_server(load_bot(STRONG))
    codes: list[int] = []
    client = threading.Thread(target=lambda: codes.append(main(
        ["bot", "register", "early", "--endpoint", endpoint, "--game", GAME, "--server", f"127.0.0.1:{port}"])))
    client.start()
    time.sleep(0.5)  # not a margin the test needs: the client waits up to ARENA_CONNECT_S for the Arena
    server, _ = start_arena_server("unused://", "127.0.0.1", port, registry=Registry(store, make_config()))
    try:
        client.join(120)
        assert codes == [0], capsys.readouterr().err
        assert store.bots.get_bot_by_name("early") is not None
    finally:
        server.stop(0)


def test_bot_list_through_the_arena_shows_endpoints_games_played_and_availability(
        store: Store, bot_server, arena_at: str, dead_endpoint: str, capsys) -> None:
    import json

    from league.policy import POLICY  # noqa: F401  (the store's policy is the fixture's)

    live = bot_server(load_bot(STRONG))
    assert main(["bot", "register", "pointy", "--endpoint", live, "--game", GAME, "--server", arena_at]) == 0
    two = [GAME, other_game()]
    gone = store.bots.register_bot("gone", dead_endpoint, "2.0", "tests", two, capacity=3)
    capsys.readouterr()
    assert main(["bot", "list", "--json", "--server", arena_at]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["pointy"]["endpoint"] == live and rows["pointy"]["games"] == [GAME]  # a loopback caller sees endpoints
    assert rows["pointy"]["availability"] == "answering" and rows["pointy"]["games_played"] == 0
    assert rows["gone"]["id"] == gone and rows["gone"]["games"] == two and rows["gone"]["capacity"] == 3
    assert rows["gone"]["version"] == "2.0" and rows["gone"]["availability"].startswith("not answering: ")
    assert main(["bot", "list", "--no-check", "--server", arena_at]) == 0
    table = capsys.readouterr().out
    assert "pointy" in table and live in table and "answering" not in table


def test_bot_register_if_missing_is_idempotent_and_names_a_conflict(store: Store, bot_server, arena_at: str,
                                                                    capsys) -> None:
    endpoint = bot_server(load_bot(STRONG))
    args = ["bot", "register", "again", "--endpoint", endpoint, "--game", GAME, "--server", arena_at, "--if-missing"]
    assert main(args) == 0 and "token: " in capsys.readouterr().out
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"bot again (id {store.bots.get_bot_by_name('again').id}) is registered already at {endpoint} for {GAME}" in out
    assert "token" not in out
    moved = ["bot", "register", "again", "--endpoint", "127.0.0.1:9", "--game", GAME, "--server", arena_at,
             "--if-missing"]
    assert main(moved) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"cardarena: error: bot 'again' is registered already at {endpoint}, not 127.0.0.1:9 "
                   "(`cardarena bot update again --endpoint 127.0.0.1:9` moves it)")
    assert main(["bot", "register", "again", "--endpoint", endpoint, "--game", GAME, "--server", arena_at]) == 1
    assert "ALREADY_EXISTS" in capsys.readouterr().err  # without --if-missing: as before


def test_a_misspelt_bot_or_season_name_gets_did_you_mean(store: Store, bot_server, arena_at: str, capsys) -> None:
    endpoint = bot_server(load_bot(STRONG))
    assert main(["bot", "register", "pointy", "--endpoint", endpoint, "--game", GAME, "--server", arena_at]) == 0
    capsys.readouterr()
    assert main(["bot", "retire", "ponty", "--token", "x", "--server", arena_at]) == 1
    assert capsys.readouterr().err.strip() == "cardarena: error: NOT_FOUND: no bot named 'ponty'; did you mean 'pointy'?"
    assert main(["bot", "check", endpoint, "--game", GAME[:2] + GAME[3:]]) == 2  # one letter dropped
    assert f"did you mean '{GAME}'?" in capsys.readouterr().err
