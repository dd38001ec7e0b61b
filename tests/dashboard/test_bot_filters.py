"""A bot's statistics follow the season filter, and figures read the right way.

The test store holds two seasons of two games: the fixture's season (a game whose higher score is
better), and a season of a game that counts penalty points (``GameSpec.higher_score_is_better``
False) played here by the same three bots (alpha plays the game's strong reference bot, bravo and
charlie random; bravo errs once in the first game). Every panel of ``/api/v1/bots/{id}`` and of the
bot page covers only the season asked for; without one, a mean change is per game (the one game's
gains are never averaged with the other's penalty points); penalty points are printed as points,
not gains; a probability of a finite sample never reads 100%.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from referee.bots import load_bot
from config import Settings
from dashboard.main import create_app
from dashboard.templating import probability
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.games.conformance import conformance
from referee.referee import play
from tests.a_game import game_with
from tests.dashboard.conftest import World, build_world, faulty

#: Games enough that the strong reference bot surely beats random (a p_better that reads ">99%"), each a very
#: short game (``Conformance.short_params``).
PENALTY_GAMES = 45


def penalty_game() -> str:
    """A game that counts penalty points: lower is better."""
    return game_with(lambda s: not s.higher_score_is_better, "with penalty points")


def world_game(world: World) -> str:
    """The game of the fixture's season; its higher score is better."""
    game = world.store.seasons.get_season(world.season_id).game
    assert spec(game).higher_score_is_better, f"the fixture's season plays {game}, whose lower score is better"
    return game


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """One store for the module: its tests only read it (45 games played once, not once a test)."""
    w = build_world(f"sqlite:///{tmp_path_factory.mktemp('filters') / 'dash.db'}")
    yield w
    w.store.close()


@pytest.fixture(scope="module")
def penalty_season(world: World) -> int:
    """A season of ``PENALTY_GAMES`` done games of :func:`penalty_game` in ``world``'s store; its id."""
    game = penalty_game()
    params = dict(conformance(game).short_params)
    plays = {"alpha": conformance(game).strong_bot, "bravo": "random", "charlie": "random"}
    store, ids = world.store, world.bot_ids
    order = [ids["alpha"], ids["bravo"], ids["charlie"]]
    schedule = [(100 + i, order[i % 3:] + order[:i % 3]) for i in range(PENALTY_GAMES)]
    season = store.seasons.create_season("penalty-season", game, params, {}, 5, {"table_sizes": [3]}, schedule)
    names = {v: k for k, v in ids.items()}
    for n, row in enumerate(store.game_reads.list_games(season)):
        claim = store.games.claim_game(row.id, "test", 60)
        assert claim is not None
        clients = []
        for seat, s in enumerate(claim.seats):
            act = load_bot(plays[names[s.bot_id]], claim.seed + seat).act
            clients.append(InProcessBotClient(faulty(act) if n == 0 and names[s.bot_id] == "bravo" else act))
        record = play(spec(game), make_params(game, params), 3, claim.seed, clients)
        assert store.games.finish_game(row.id, claim.attempt, record)
    return season


@pytest.fixture(scope="module")
def app_client(world: World, penalty_season: int) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(db_url=world.url, latency_games=500))) as c:
        yield c


def done_games(client: TestClient, bot_id: int, season_id: int | None = None) -> list[dict]:
    params = {"bot_id": bot_id, "status": "done", "limit": 500, **({"season_id": season_id} if season_id else {})}
    return client.get("/api/v1/games", params=params).json()["items"]


def test_every_panel_follows_the_season_filter(app_client: TestClient, world: World, penalty_season: int) -> None:
    bravo = world.bot_ids["bravo"]
    everything = app_client.get(f"/api/v1/bots/{bravo}").json()
    assert {f["season_id"] for f in everything["faults"]} == {world.season_id, penalty_season}
    for season in (world.season_id, penalty_season):
        body = app_client.get(f"/api/v1/bots/{bravo}", params={"season_id": season}).json()
        assert body["season_id"] == season
        assert body["faults"] and {f["season_id"] for f in body["faults"]} == {season}
        games = done_games(app_client, bravo, season)
        assert body["latency"]["games"] == len(games)
        assert sum(s["games"] for s in body["seats"]) == len(games)
        assert sum(o["games"] for o in body["opponents"]) == 2 * len(games)
    assert everything["latency"]["games"] == len(done_games(app_client, bravo))


def test_the_bot_page_says_which_season_each_panel_covers(app_client: TestClient, world: World,
                                                          penalty_season: int) -> None:
    bravo = world.bot_ids["bravo"]
    page = app_client.get(f"/bots/{bravo}", params={"season_id": penalty_season}).text
    assert page.count('class="muted small covers">season penalty-season<') == 5  # seats, versions, opponents, latency, faults
    faults = re.findall(r'<a href="/games/(\d+)#decision-', page)
    penalty_ids = {g["id"] for g in done_games(app_client, bravo, penalty_season)}
    assert faults and {int(g) for g in faults} <= penalty_ids
    assert f"fault=yes&season_id={penalty_season}" in page
    assert app_client.get(f"/bots/{bravo}").text.count('class="muted small covers">all seasons<') == 5


def test_without_a_season_the_mean_change_is_per_game(app_client: TestClient, world: World) -> None:
    alpha = world.bot_ids["alpha"]
    higher, lower = world_game(world), penalty_game()
    want = {higher: (spec(higher).score_unit, True), lower: (spec(lower).score_unit, False)}
    changes: dict[tuple[str, int], list[int]] = defaultdict(list)
    for game in done_games(app_client, alpha):
        [mine] = [s for s in game["seats"] if s["bot_id"] == alpha]
        changes[(game["game"], mine["seat"])].append(mine["change"])
    rows = app_client.get(f"/api/v1/bots/{alpha}").json()["seats"]
    assert {(r["game"], r["seat"]) for r in rows} == set(changes)
    for r in rows:
        assert r["games"] == len(changes[(r["game"], r["seat"])])
        assert r["avg_change"] == pytest.approx(sum(changes[(r["game"], r["seat"])]) / r["games"])
        assert (r["score_unit"], r["higher_score_is_better"]) == want[r["game"]]


def test_penalty_points_are_not_printed_as_gains(app_client: TestClient, world: World, penalty_season: int) -> None:
    points, gains = spec(penalty_game()).score_unit, spec(world_game(world)).score_unit
    page = app_client.get(f"/seasons/{penalty_season}").text
    standings = page[page.index('id="standings"'):page.index("</table>", page.index('id="standings"'))]
    cells = re.findall(r'<td class="num">([-+]?\d+\.\d)</td>', standings)
    assert cells and not any(c.startswith("+") for c in cells), cells  # avg points, lower is better
    bot_page = app_client.get(f"/bots/{world.bot_ids['bravo']}").text
    seats = bot_page[bot_page.index('id="by-seat"'):bot_page.index("</table>", bot_page.index('id="by-seat"'))]
    assert re.search(rf">\d+\.\d {points}<", seats) and not re.search(rf">\+\d+\.\d {points}<", seats)
    assert re.search(rf">[-+]\d+\.\d {gains}<", seats)  # the fixture's game: won or lost
    game = done_games(app_client, world.bot_ids["bravo"], penalty_season)[0]
    results = app_client.get(f"/games/{game['id']}").text
    results = results[results.index('id="results"'):results.index("</table>", results.index('id="results"'))]
    assert [int(c) for c in re.findall(r'<td class="num">(\d+)</td><td class="num">\d+</td></tr>', results)] == [
        s["change"] for s in game["seats"]]  # the change column, unsigned
    listed = app_client.get("/games", params={"season_id": penalty_season}).text
    assert re.search(r'<span class="muted">\d+</span>', listed) and not re.search(r'<span class="muted">\+\d+</span>', listed)
    won_or_lost = app_client.get("/games", params={"season_id": world.season_id}).text
    assert re.search(r'<span class="muted">[-+]\d+</span>', won_or_lost)


def test_a_sure_probability_reads_above_99_not_100(app_client: TestClient, penalty_season: int) -> None:
    assert [probability(p) for p in (None, 0.0, 0.004, 0.005, 0.5, 0.994, 0.995, 0.999, 1.0)] == [
        "\u2013", "<1%", "<1%", "1%", "50%", "99%", ">99%", ">99%", ">99%"]
    rows = app_client.get(f"/api/v1/seasons/{penalty_season}/standings").json()
    assert max(r["p_better"] for r in rows if r["p_better"] is not None) >= 0.995  # the strong bot beats random
    page = app_client.get(f"/seasons/{penalty_season}").text
    assert ">&gt;99%<" in page and "100%" not in page


def test_a_penalty_season_says_its_points_are_better_fewer(app_client: TestClient, penalty_season: int) -> None:
    body = app_client.get(f"/api/v1/seasons/{penalty_season}").json()
    game = penalty_game()
    assert (body["game"], body["score_unit"], body["higher_score_is_better"]) == (game, spec(game).score_unit, False)
