"""The bot page and the replay page of a hosted bot: hosted or remote, its hash, size and submission time, and
links to its author's build log and per-game output (served by the Arena beside the dashboard)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from arena.registry import Registry, RegistryConfig
from cli.main import main
from cli.server import server_app
from config import Settings
from hosting.launch import HostingConfig
from referee.botprocess import start_bot_process
from store import Store
from tests.a_game import GAME, STRONG

ROOT = Path(__file__).resolve().parents[2]


def test_the_pages_say_hosted_or_remote_and_show_the_hash(store: Store, config: HostingConfig) -> None:
    url = str(store.engine.url)
    registry = Registry(store, RegistryConfig.from_settings(), hosting=config)
    done = registry.submit("hosted-page", [GAME], ROOT / "examples" / "python")
    remote = start_bot_process(STRONG, seed=1)
    try:
        store.bots.register_bot("remote-page", remote.endpoint, "1", "tests", [GAME], capacity=8)
        store.bots.register_bot("remote-two", remote.endpoint, "1", "tests", [GAME], capacity=8)
        assert main(["season", "create", "pages", "--game", GAME, "--bots", "hosted-page,remote-page,remote-two",
                     "--tables", "3", "--games", "3", "--db", url]) == 0
        assert main(["season", "run", "pages", "--workers", "1", "--db", url]) == 0
    finally:
        remote.stop()
    with TestClient(server_app(Settings(db_url=url), registry)) as client:
        hosted = client.get(f"/api/v1/bots/{done.bot.id}").json()
        assert hosted["hosted"] is True and hosted["submission"]["sha256"] == done.sha256
        assert hosted["submission"]["size"] == done.size and hosted["submission"]["submissions"] == 1
        page = client.get(f"/bots/{done.bot.id}").text
        assert "Hosted" in page and done.sha256 in page and "/arena/logs?bot=hosted-page" in page
        remote_id = store.bots.get_bot_by_name("remote-page").id
        other = client.get(f"/api/v1/bots/{remote_id}").json()
        assert other["hosted"] is False and other["submission"] is None
        assert "Remote" in client.get(f"/bots/{remote_id}").text
        season = store.seasons.get_season_by_name("pages")
        game = store.game_reads.list_games(season.id, limit=1)[0]
        replay = client.get(f"/games/{game.id}").text
        assert f"/arena/logs?bot=hosted-page&amp;game={game.id}" in replay and "what remote-page wrote" not in replay
        assert client.get("/arena/logs").status_code == 200
