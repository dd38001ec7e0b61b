"""The HTTP front door (/api/v1/arena): the same operations and errors as the gRPC one."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from arena.http import get_registry, router
from arena.registry import Registry, RegistryConfig
from referee.bots import load_bot
from store import Store
from tests.a_game import GAME, SPEC, STRONG, other_game
from tests.arena.conftest import IllegalBot, make_config, play_season


@pytest.fixture
def http(store: Store) -> Iterator[Callable[..., TestClient]]:
    """``http(config=None) -> TestClient`` of an app with the arena router over ``store``."""
    clients: list[TestClient] = []

    def make(config: RegistryConfig | None = None) -> TestClient:
        app = FastAPI()
        app.include_router(router)
        registry = Registry(store, config or make_config())
        app.dependency_overrides[get_registry] = lambda: registry
        client = TestClient(app)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_register_update_retire_over_http(http, bot_server, store: Store) -> None:
    client = http()
    endpoint = bot_server(load_bot(STRONG))
    r = client.post("/api/v1/arena/bots", json={"name": "web-bot", "endpoint": endpoint, "games": [GAME]})
    assert r.status_code == 201, r.text
    body = r.json()
    token = body["token"]
    assert body["bot"]["name"] == "web-bot" and body["bot"]["endpoint"] == endpoint and body["bot"]["games"] == [GAME]
    assert body["report"]["passed"] and [c["name"] for c in body["report"]["checks"]] == ["health", "describe", f"game:{GAME}"]
    assert body["report"]["decisions"] > 0 and body["report"]["latency_ms"]["max"] > 0
    assert body["report"]["transport"] == "stream"

    r = client.patch("/api/v1/arena/bots/web-bot", json={"version": "7"}, headers=bearer(token))
    assert r.status_code == 200 and r.json()["bot"]["version"] == "7" and r.json()["report"] is None

    listed = client.get("/api/v1/arena/bots").json()
    assert [b["name"] for b in listed] == ["web-bot"] and "endpoint" not in listed[0]

    r = client.delete("/api/v1/arena/bots/web-bot", headers=bearer(token))
    assert r.status_code == 200 and r.json()["bot"]["retired"] is True
    r = client.post("/api/v1/arena/bots/web-bot/retire", headers=bearer(token))
    assert r.status_code == 200  # idempotent
    assert client.get("/api/v1/arena/bots").json() == []
    r = client.patch("/api/v1/arena/bots/web-bot", json={"version": "8"}, headers=bearer(token))
    assert (r.status_code, r.json()["code"]) == (400, "FAILED_PRECONDITION") and "retired" in r.json()["detail"]


def test_every_error_has_its_status_and_message(http, bot_server, dead_endpoint: str, store: Store) -> None:
    client = http()
    token = client.post("/api/v1/arena/bots", json={"name": "first", "endpoint": bot_server(load_bot(STRONG)),
                                                    "games": [GAME]}).json()["token"]

    def post(**body):
        return client.post("/api/v1/arena/bots", json={"endpoint": dead_endpoint, "games": [GAME], **body})

    r = post(name="first", endpoint=bot_server(load_bot("random")))
    assert (r.status_code, r.json()) == (409, {"detail": "a bot named 'first' is already registered", "code": "ALREADY_EXISTS"})
    r = post(name="bad name!")
    assert r.status_code == 422 and r.json()["code"] == "INVALID_ARGUMENT" and "bad bot name" in r.json()["detail"]
    r = post(name="ok", games=["chess"])
    assert r.status_code == 422 and "unknown game(s) 'chess'" in r.json()["detail"]
    r = client.post("/api/v1/arena/bots", json={"name": "ok", "games": [GAME]})  # no endpoint: malformed body
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "endpoint"]
    r = client.post("/api/v1/arena/bots", json={"name": "ok", "endpoint": "h:1", "games": [GAME], "token": "x"})
    assert r.status_code == 422  # unknown fields are refused, not ignored
    r = post(name="ghost")
    assert r.status_code == 400 and r.json()["code"] == "FAILED_PRECONDITION"
    assert r.json()["report"]["checks"][0]["name"] == "health" and not r.json()["report"]["passed"]
    r = post(name="cheat", endpoint=bot_server(IllegalBot()), games=[GAME])
    assert r.status_code == 400 and f"game:{GAME} check failed" in r.json()["detail"]
    fault = r.json()["report"]["faults"][0]
    assert fault["kind"] == "illegal" and SPEC.proto_field in fault["answer"]
    assert [b.name for b in store.bots.list_bots()] == ["first"]  # nothing half-registered

    r = client.patch("/api/v1/arena/bots/first", json={"version": "2"})
    assert r.status_code == 401 and r.headers["WWW-Authenticate"] == "Bearer" and r.json()["code"] == "UNAUTHENTICATED"
    r = client.patch("/api/v1/arena/bots/first", json={"version": "2"}, headers=bearer("nope"))
    assert (r.status_code, r.json()["detail"]) == (401, "wrong token for bot 'first'")
    r = client.patch("/api/v1/arena/bots/first", json={"version": "2"}, headers={"Authorization": f"Basic {token}"})
    assert r.status_code == 401
    r = client.post("/api/v1/arena/bots/nobody/retire", headers=bearer(token))
    assert (r.status_code, r.json()["detail"]) == (404, "no bot named 'nobody'")
    r = client.get("/api/v1/arena/standings", params={"season": "nope"})
    assert (r.status_code, r.json()["code"]) == (404, "NOT_FOUND")
    assert store.bots.get_bot_by_name("first").version == "1.0.0"


def test_policy_and_rate_limit_over_http(http, bot_server, dead_endpoint: str, store: Store) -> None:
    r = http(make_config(allowed="private")).post(
        "/api/v1/arena/bots", json={"name": "local", "endpoint": bot_server(load_bot(STRONG)), "games": [GAME]})
    assert (r.status_code, r.json()["code"]) == (403, "PERMISSION_DENIED")
    assert "127.0.0.1 is outside the allowed networks" in r.json()["detail"]
    limited = http(make_config(limit=1))
    assert limited.post("/api/v1/arena/bots", json={"name": "a", "endpoint": dead_endpoint, "games": [GAME]}).status_code == 400
    r = limited.post("/api/v1/arena/bots", json={"name": "b", "endpoint": dead_endpoint, "games": [GAME]})
    assert r.status_code == 429 and r.json()["code"] == "RESOURCE_EXHAUSTED" and int(r.headers["Retry-After"]) > 3000
    assert store.bots.list_bots() == []


def test_standings_over_http(http, store: Store) -> None:
    ids = [store.bots.register_bot(n, "127.0.0.1:5000", "1", "t", [GAME]) for n in ("a", "b", "c")]
    play_season(store, "s", ids, [((0, 1, 2), (1, 2, 3)), ((1, 2, 0), (2, 1, 3)), ((2, 0, 1), (1, 2, 2))])
    r = http().get("/api/v1/arena/standings", params={"season": "s"})
    assert r.status_code == 200
    rows = r.json()["standings"]
    assert [x["rank"] for x in rows] == [1, 2, 3]
    assert all(x["ml_low"] < x["ml_rating"] < x["ml_high"] for x in rows)
    assert rows[-1]["p_better"] is None and all(0 <= x["p_better"] <= 1 for x in rows[:-1])


def test_the_server_app_mounts_the_arena_beside_the_read_only_dashboard(tmp_path, store: Store) -> None:
    from cli.server import server_app
    from config import Settings
    from dashboard.main import create_app

    settings = Settings(db_url=f"sqlite:///{tmp_path / 'd.db'}")
    with TestClient(server_app(settings, Registry(store, make_config()))) as client:
        assert client.get("/api/v1/arena/bots").json() == []
        r = client.patch("/api/v1/arena/bots/x", json={"version": "1"})
        assert r.status_code == 401
        assert client.get("/api/v1/seasons").status_code == 200
    with TestClient(create_app(settings)) as client:  # the dashboard alone has no write route
        assert client.get("/api/v1/arena/bots").status_code == 404
        assert not [route for route in client.app.routes if set(getattr(route, "methods", ())) - {"GET", "HEAD"}]


def test_a_game_is_added_over_http(http, bot_server, store: Store) -> None:
    client, added = http(), other_game()
    r = client.post("/api/v1/arena/bots", json={"name": "web-2", "endpoint": bot_server(load_bot("random")),
                                                "games": [GAME]})
    assert r.status_code == 201, r.text
    r = client.patch("/api/v1/arena/bots/web-2", json={"games": [added]}, headers=bearer(r.json()["token"]))
    assert r.status_code == 200, r.text
    assert r.json()["bot"]["games"] == [GAME, added] and r.json()["report"]["checks"][-1]["name"] == f"game:{added}"
    assert store.bots.get_bot_by_name("web-2").games == (GAME, added)
