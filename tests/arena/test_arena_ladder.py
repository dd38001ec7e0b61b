"""GetLadderStanding and ListLadderGames over real gRPC (127.0.0.1, an ephemeral port) on a real ladder
(SQLite, rules §5): an author reads each version's rank, rating, interval, games and placing, pages
through the ladder's games, and never sees a pending game's seed."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import grpc
import pytest

from arena.registry import Registry
from arena.service import start_arena_server
from cardarena.v1 import arena_pb2, arena_pb2_grpc
from league.competition.ladder import ladder_standings
from referee.games import spec
from tests.arena.conftest import make_config
from tests.ladder_world import NAME, LadderWorld, build_ladder_world


@pytest.fixture(scope="module")
def lw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LadderWorld]:
    w = build_ladder_world(f"sqlite:///{tmp_path_factory.mktemp('arena-ladder') / 'store.db'}")
    yield w
    w.store.close()


@pytest.fixture(scope="module")
def stub(lw: LadderWorld) -> Iterator[arena_pb2_grpc.ArenaStub]:
    server, port = start_arena_server("unused://", "127.0.0.1", 0, registry=Registry(lw.store, make_config()))
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield arena_pb2_grpc.ArenaStub(channel)
    channel.close()
    server.stop(0)


def refused(call: Callable[..., object], request: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(request, timeout=10)
    return info.value  # type: ignore[return-value]


def test_an_author_reads_each_version_of_their_bot(stub: arena_pb2_grpc.ArenaStub, lw: LadderWorld) -> None:
    fitted = {(r.name, r.version): r for r in ladder_standings(lw.store, lw.ladder_id, with_luck=False)}
    main = sorted((r for r in fitted.values() if r.latest and r.rating is not None), key=lambda r: -r.rating)
    a = stub.GetLadderStanding(arena_pb2.GetLadderStandingRequest(ladder=NAME, bot="a"), timeout=10)
    assert a.ladder == NAME and a.game == spec(lw.game).proto_enum and a.bot == "a" and a.table_size == 4
    assert a.current.version == "1.0" and a.current.latest and a.current.status == "active"
    assert a.current.rank == [r.name for r in main].index("a") + 1
    assert a.current.rating == pytest.approx(fitted[("a", "1.0")].rating, abs=0.01)
    assert a.current.low < a.current.rating < a.current.high and not a.current.placing
    assert a.current.games == fitted[("a", "1.0")].games and len(a.versions) == 1
    d = stub.GetLadderStanding(arena_pb2.GetLadderStandingRequest(ladder=NAME, bot="d"), timeout=10)
    assert [v.version for v in d.versions] == ["2.0", "1.0"] and d.current.version == "2.0"
    assert d.current.placing and d.current.games == fitted[("d", "2.0")].games < d.placement_games
    assert d.versions[1].status == "superseded" and not d.versions[1].latest and d.versions[1].HasField("rank")


def test_standing_errors(stub: arena_pb2_grpc.ArenaStub, lw: LadderWorld) -> None:
    for ladder, bot, code, words in [("", "a", grpc.StatusCode.INVALID_ARGUMENT, "name the ladder"),
                                     ("nope", "a", grpc.StatusCode.NOT_FOUND, "no ladder named 'nope'"),
                                     (NAME, "ghost", grpc.StatusCode.NOT_FOUND, "has no entrant")]:
        error = refused(stub.GetLadderStanding, arena_pb2.GetLadderStandingRequest(ladder=ladder, bot=bot))
        assert error.code() == code and words in error.details()


def test_games_page_on_and_hide_pending_seeds(stub: arena_pb2_grpc.ArenaStub, lw: LadderWorld) -> None:
    seen = []
    token = ""
    while True:
        page = stub.ListLadderGames(arena_pb2.ListLadderGamesRequest(ladder=NAME, page_size=7, page_token=token),
                                    timeout=10)
        seen += list(page.games)
        token = page.next_page_token
        if not token:
            break
    assert [g.id for g in seen] == sorted((g.id for g in lw.store.ladders.ladder_games(lw.ladder_id)), reverse=True)
    pending = set(lw.pending_ids)
    assert pending
    for g in seen:
        stored = lw.store.game_reads.get_game(g.id)
        if g.id in pending:
            assert g.status == "pending" and not g.HasField("seed")
            assert not any(s.HasField("place") for s in g.seats)
        elif g.status == "done" and g.HasField("seed"):
            assert g.seed == stored.seed and all(s.HasField("place") and s.version for s in g.seats)
        assert g.epoch >= 1
    mine = stub.ListLadderGames(arena_pb2.ListLadderGamesRequest(ladder=NAME, bot="d", page_size=500), timeout=10)
    assert mine.games and all(any(s.bot == "d" for s in g.seats) for g in mine.games)
    assert {s.version for g in mine.games for s in g.seats if s.bot == "d"} >= {"1.0", "2.0"}


def test_games_errors(stub: arena_pb2_grpc.ArenaStub) -> None:
    for request, code in [(arena_pb2.ListLadderGamesRequest(ladder=""), grpc.StatusCode.INVALID_ARGUMENT),
                          (arena_pb2.ListLadderGamesRequest(ladder="nope"), grpc.StatusCode.NOT_FOUND),
                          (arena_pb2.ListLadderGamesRequest(ladder=NAME, bot="ghost"), grpc.StatusCode.NOT_FOUND),
                          (arena_pb2.ListLadderGamesRequest(ladder=NAME, page_size=501), grpc.StatusCode.INVALID_ARGUMENT),
                          (arena_pb2.ListLadderGamesRequest(ladder=NAME, page_token="x1"),
                           grpc.StatusCode.INVALID_ARGUMENT)]:
        assert refused(stub.ListLadderGames, request).code() == code


def test_the_same_reads_over_http(lw: LadderWorld) -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from arena.http import get_registry, router

    app = FastAPI()
    app.include_router(router)
    registry = Registry(lw.store, make_config())
    app.dependency_overrides[get_registry] = lambda: registry
    with TestClient(app) as client:
        body = client.get(f"/api/v1/arena/ladders/{NAME}/bots/d").json()
        assert [v["version"] for v in body["versions"]] == ["2.0", "1.0"] and body["current"]["placing"]
        r = client.get(f"/api/v1/arena/ladders/{NAME}/bots/ghost")
        assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
        page = client.get(f"/api/v1/arena/ladders/{NAME}/games", params={"page_size": 3}).json()
        assert len(page["games"]) == 3 and page["next_page_token"] == str(page["games"][-1]["id"])
        for g in client.get(f"/api/v1/arena/ladders/{NAME}/games", params={"page_size": 500}).json()["games"]:
            assert g["id"] not in lw.pending_ids or g["seed"] is None
        assert client.get(f"/api/v1/arena/ladders/{NAME}/games", params={"page_token": "zz"}).status_code == 422


def test_bot_ladder_cli_through_the_arena(stub: arena_pb2_grpc.ArenaStub, lw: LadderWorld, capsys) -> None:
    import json

    from cli.main import main

    server, port = start_arena_server("unused://", "127.0.0.1", 0, registry=Registry(lw.store, make_config()))
    try:
        at = f"127.0.0.1:{port}"
        assert main(["bot", "ladder", "d", "--ladder", NAME, "--server", at, "--games", "3"]) == 0
        out = capsys.readouterr().out
        assert f"d@2.0 in ladder {NAME}:" in out and "placing: " in out and "superseded" in out
        assert main(["bot", "ladder", "a", "--ladder", NAME, "--server", at, "--json"]) == 0
        body = json.loads(capsys.readouterr().out)
        assert body["current"]["version"] == "1.0" and body["table_size"] == 4 and body["current"]["rank"] >= 1
        assert main(["bot", "ladder", "a", "--ladder", "nope", "--server", at]) == 1
        assert "NOT_FOUND: no ladder named 'nope'" in capsys.readouterr().err
    finally:
        server.stop(0)
