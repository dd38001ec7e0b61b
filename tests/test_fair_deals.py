"""Secret, provably fair deals and sealed duplicate groups, on a real store (SQLite and PostgreSQL).

Games are played by the real worker path (``workers.service.run_game``) against reference bots
served over gRPC on 127.0.0.1; a running game's progress is stored as its worker's heartbeat
stores it (``referee.live``). Every output a spectator or a bot can reach (every GET route of
the OpenAPI schema, every page, the Arena gRPC service, the CLI's public commands, the bots'
own requests, the live view) is scanned for the seeds of games not yet stored and for the keys.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import grpc
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from arena.service import start_arena_server
from cardarena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2
from config import Settings
from dashboard.main import create_app
from league.competition.seasons import SeasonError, create_season
from league.competition.standings import standings_of
from league.integrity import fairness
from league.integrity.verify import CannotVerify, StoreSource, verify_season
from league.policy import POLICY
from referee.bots import RandomBot
from referee.chance import PER_DEAL
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.games.conformance import conformance
from referee.live import LiveView
from referee.record import GameRecord
from referee.referee import play
from referee.timecontrol import TimeControl
from store import MAX_ATTEMPTS, GameStatus, Store, open_store
from store.replays import decode_json
from store.sealing import SEALED_MESSAGE
from tests.a_game import GAME, SHORT, game_with
from tests.store.conftest import bots, db_url, finish, pg_database, store  # noqa: F401  (fixtures: SQLite and PostgreSQL)
from workers.service import Outcome, run_game

CLI = [sys.executable, "-m", "cli.main"]
ROOT = Path(__file__).parents[1]
PARAMS, BOTS = dict(SHORT), ("alpha", "bravo", "charlie")


class RecordingBot(RandomBot):
    """The random reference bot, keeping the text of every request it was sent."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.seen: list[str] = []

    def act(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        self.seen.append(str(request))
        return super().act(request)


@dataclass
class Running:
    """A game claimed and played in-process, its live snapshot stored; not yet finished."""

    game_id: int
    attempt: int
    record: GameRecord
    snapshot: dict[str, Any]


@dataclass
class League:
    """A store with bots on real gRPC servers and helpers to play its seasons."""

    url: str
    store: Store
    bots: list[RecordingBot]
    running: dict[int, Running] = field(default_factory=dict)

    def season(self, name: str, games: int, *, seed: int | None = None, duplicate: bool = False) -> int:
        return create_season(self.store, name, spec(GAME), list(BOTS), [3], games, seed, duplicate, PARAMS)

    def games(self, season_id: int) -> list[Any]:
        return self.store.game_reads.list_games(season_id, limit=1000)

    def run(self, game_id: int) -> None:
        """Play a pending game through the worker's own path."""
        assert run_game(self.store, game_id, lease_s=30).outcome is Outcome.DONE

    def start(self, game_id: int) -> Running:
        """Claim a game and store its public progress as the worker's heartbeat does."""
        claim = self.store.games.claim_game(game_id, "test-worker", 600)
        assert claim is not None
        live = LiveView()
        clients = [InProcessBotClient(RandomBot(seed=s).act) for s in range(len(claim.seats))]
        record = play(spec(claim.game), make_params(claim.game, claim.params), len(claim.seats), claim.seed,
                      clients, TimeControl.from_json(claim.time_control),
                      game_id=claim.token, live=live)
        snapshot = live.snapshot()
        assert snapshot is not None and self.store.games.renew_lease(game_id, claim.attempt, 600, live=snapshot)
        self.running[game_id] = Running(game_id, claim.attempt, record, snapshot)
        return self.running[game_id]

    def finish(self, game_id: int) -> None:
        run = self.running.pop(game_id)
        assert self.store.games.finish_game(game_id, run.attempt, run.record)

    def play_out(self, season_id: int) -> None:
        """Finish every running game and play every pending one."""
        for game in self.games(season_id):
            if game.id in self.running:
                self.finish(game.id)
            elif game.status is GameStatus.PENDING:
                self.run(game.id)


@pytest.fixture
def league(db_url: str, bot_server: Any) -> Iterator[League]:  # noqa: F811
    store = open_store(db_url, policy=POLICY)
    bots = [RecordingBot(seed=i) for i in range(len(BOTS))]
    for name, bot in zip(BOTS, bots, strict=True):
        store.bots.register_bot(name, bot_server(bot, threads=4), "1", "tests", [GAME], capacity=4)
    yield League(db_url, store, bots)
    store.close()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


def get_routes(app: Any, seasons: dict[int, str], bot_ids: list[int], game_ids: list[int],
               received: list[str]) -> list[str]:
    """Every GET route of the OpenAPI schema, with every id for its path and required parameters
    (and each season and status for a list's optional filters); ``received``: the ids the games' bots are
    sent (a game by the id its bots received)."""
    values: dict[str, list[Any]] = {"season_id": list(seasons), "bot_id": bot_ids, "game_id": game_ids,
                                    "received_id": received,
                                    "season": [*seasons, *seasons.values()], "bot": bot_ids,
                                    # this league has no ladder (tests/dashboard/test_ladder.py checks a ladder's
                                    # pages and API for its open epoch's key and pending seeds): a 404 each
                                    "name": ["no-such-ladder"], "ladder": ["no-such-ladder"]}
    urls = ["/openapi.json"]
    for path, item in app.openapi()["paths"].items():
        if "get" not in item:
            continue
        params = item["get"].get("parameters", [])
        needed = [p["name"] for p in params if p["in"] == "path" or p.get("required")]
        optional = [p["name"] for p in params if p["name"] not in needed and p["name"] in ("season_id", "status")
                    and p["in"] == "query"]
        missing = [n for n in needed if n not in values]
        assert not missing, f"{path}: no test values for {missing}"
        choices: list[list[Any]] = [values[n] for n in needed]
        names = list(needed)
        for name in optional:
            names.append(name)
            choices.append([None, *(values.get(name) or [s.value for s in GameStatus])])
        for combo in product(*choices):
            url, query = path, []
            for name, value in zip(names, combo, strict=True):
                if value is None:
                    continue
                if "{" + name + "}" in url:
                    url = url.replace("{" + name + "}", str(value))
                else:
                    query.append(f"{name}={value}")
            if path.endswith("/games"):
                query.append("limit=100")
            urls.append(url + ("?" + "&".join(query) if query else ""))
    return urls


def pages(seasons: dict[int, str], bot_ids: list[int], game_ids: list[int], received: list[str]) -> list[str]:
    urls = ["/", "/api", "/bots", "/games"]
    for sid in seasons:
        urls += [f"/seasons/{sid}", f"/seasons/{sid}/fairness", f"/games?season_id={sid}"]
        urls += [f"/bots/{b}?season_id={sid}" for b in bot_ids]
    by_received = [f"/games/{r}" for r in received]  # 404 until a game is over
    return urls + [f"/bots/{b}" for b in bot_ids] + [f"/games/{g}" for g in game_ids] + by_received


def scan(client: TestClient, urls: list[str], secrets: dict[str, str]) -> dict[str, str]:
    """``{url: body}`` of every url; fails naming the url and the secret found."""
    bodies = {}
    for url in urls:
        r = client.get(url)
        assert r.status_code < 500, (url, r.status_code, r.text[:300])
        for what, value in secrets.items():
            assert value not in r.text, f"{what} is in {url}"
        bodies[url] = r.text
    return bodies


def arena_answers(url: str, names: list[str]) -> list[str]:
    server, port = start_arena_server(url)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            out = [str(stub.ListBots(arena_pb2.ListBotsRequest(include_retired=True), timeout=30))]
            out += [str(stub.GetStandings(arena_pb2.GetStandingsRequest(season=n), timeout=30)) for n in names]
            return out
    finally:
        server.stop(0)


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_no_seed_of_an_unstored_game_and_no_key_is_reachable_until_the_season_is_over(league: League) -> None:
    store = league.store
    secret = league.season("secret", 6)
    dup = league.season("dup", 3, duplicate=True)
    repro = league.season("repro", 3, seed=5)
    seasons = {secret: "secret", dup: "dup", repro: "repro"}
    s_games, d_games = league.games(secret), league.games(dup)
    for game in s_games[:3]:
        league.run(game.id)
    running = league.start(s_games[3].id)
    league.run(d_games[0].id)  # done, but its group has a running and a pending game: sealed
    league.start(d_games[1].id)

    with store.engine.connect() as conn:
        keys = dict(conn.execute(text("SELECT id, deal_key FROM seasons")).all())
    secrets = {f"key of season {seasons[sid]}": key for sid, key in keys.items()}
    unstored = [g for g in s_games[3:]] + d_games
    secrets |= {f"seed of game {g.number} of {seasons[g.season_id]}": str(g.seed) for g in unstored}
    secrets |= {f"seed of game {g.number} of repro": str(g.seed) for g in league.games(repro)}
    # the id the bots of a game still to be played (or sealed) are sent: shown nowhere, found by no route
    received = {(g.season_id, g.number): fairness.game_token(bytes.fromhex(keys[g.season_id]), g.season_id, g.number)
                for sid in seasons for g in league.games(sid)}
    secrets |= {f"received id of game {g.number} of {seasons[g.season_id]}": received[(g.season_id, g.number)]
                for g in unstored + league.games(repro)}
    assert running.record.game_id == received[(secret, s_games[3].number)]
    assert len({g.seed for g in d_games}) == 1  # one deal for the three rotations

    # the live view and the bots' own requests carry no seed
    assert str(running.record.seed) not in json.dumps(running.snapshot)
    assert running.record.game_id not in json.dumps(running.snapshot)  # nor the id its bots are sent
    assert all(str(g.seed) not in request for bot in league.bots for request in bot.seen for g in s_games + d_games)
    assert sum(len(bot.seen) for bot in league.bots) > 0

    bot_ids = [b.id for b in store.bots.list_bots()]
    game_ids = [g.id for sid in seasons for g in league.games(sid)]
    app = create_app(Settings(db_url=league.url, latency_games=50))
    with TestClient(app) as client:
        ids = [*received.values(), "g-" + "0" * fairness.GAME_ID_HEX]
        bodies = scan(client, get_routes(app, seasons, bot_ids, game_ids, ids) + pages(seasons, bot_ids, game_ids, ids),
                      secrets)
        done_id = received[(secret, s_games[0].number)]  # a done game that is not sealed: found by its bots' id
        assert client.get(f"/api/v1/games/{done_id}").json()["id"] == s_games[0].id
        answers = arena_answers(league.url, list(seasons.values()))
        for answer in answers:
            assert not [w for w, v in secrets.items() if v in answer], answer
        assert "reproducible: true" in answers[3] and "reproducible" not in answers[1]  # repro, then secret
        assert f'commitment: "{fairness.commitment(bytes.fromhex(keys[secret]), PER_DEAL)}"' in answers[1]
        season = client.get(f"/api/v1/seasons/{secret}").json()
        assert season["key"] is None and season["commitment"] == fairness.commitment(bytes.fromhex(keys[secret]), PER_DEAL)
        assert "seed" not in season and season["reproducible"] is False
        assert client.get(f"/api/v1/seasons/{repro}").json()["reproducible"] is True
        assert "reproducible" in bodies[f"/seasons/{repro}"] and "anyone who knows the seed" in bodies[f"/seasons/{repro}"]
        # a done game's seed is shown with its replay, which the worker stored
        done = s_games[0]
        assert client.get(f"/api/v1/games/{done.id}").json()["seed"] == done.seed
        assert client.get(f"/api/v1/replays/{done.id}").json()["record"]["seed"] == done.seed

    for args in (["season", "list"], ["standings", "--season", "secret"], ["standings", "--season", "repro", "--json"],
                 ["season", "verify", "secret"]):
        result = cli(*args, "--db", league.url)
        assert not [w for w, v in secrets.items() if v in result.stdout + result.stderr], args
    listed = cli("season", "list", "--db", league.url).stdout
    assert "reproducible" in listed and "anyone who knows the seed knows every card" in listed
    standings = cli("standings", "--season", "repro", "--db", league.url).stdout
    assert "REPRODUCIBLE" in standings and "anyone who knows the seed knows every card" in standings

    for sid in seasons:
        league.play_out(sid)
    with TestClient(create_app(Settings(db_url=league.url, latency_games=50))) as client:
        for sid, name in seasons.items():
            body = client.get(f"/api/v1/seasons/{sid}").json()
            assert body["status"] == "done" and body["key"] == keys[sid]
            fair = client.get(f"/api/v1/seasons/{sid}/fairness").json()
            assert fair["key"] == keys[sid] and fair["commitment"] == body["commitment"]
            assert keys[sid] in client.get(f"/seasons/{sid}/fairness").text
            for game in league.games(sid):
                assert client.get(f"/api/v1/games/{game.id}").json()["seed"] == game.seed
                assert client.get(f"/api/v1/replays/{game.id}").json()["record"]["seed"] == game.seed
            report = verify_season(StoreSource(store), store.seasons.get_season(sid))  # type: ignore[arg-type]
            assert report.ok and report.replays_checked == report.games == len(league.games(sid)), report.lines()


def test_seasons_without_seed_differ_and_with_the_same_seed_are_the_same(league: League) -> None:
    a, b = league.season("a", 6), league.season("b", 6)
    c, d = league.season("c", 6, seed=42), league.season("d", 6, seed=42)
    seeds = {sid: [g.seed for g in league.games(sid)] for sid in (a, b, c, d)}
    seats = {sid: [tuple(s.bot_id for s in g.seats) for g in league.games(sid)] for sid in (a, b, c, d)}
    assert set(seeds[a]).isdisjoint(seeds[b])
    assert seeds[c] == seeds[d] and seats[c] == seats[d]
    assert set(seeds[c]).isdisjoint(seeds[a])
    infos = {sid: league.store.seasons.get_season(sid) for sid in (a, b, c, d)}
    assert infos[a].commitment != infos[b].commitment and not infos[a].reproducible  # type: ignore[union-attr]
    assert infos[c].commitment == infos[d].commitment and infos[c].reproducible  # type: ignore[union-attr]
    assert infos[a].seed is None and infos[c].seed == 42  # type: ignore[union-attr]


def test_a_season_setting_out_of_range_is_one_line_and_writes_nothing(league: League) -> None:
    with pytest.raises(SeasonError, match=r"--seed must be in \[0, 2\*\*63\), got -1"):
        league.season("bad", 6, seed=-1)
    with pytest.raises(SeasonError, match="--seed must be in"):
        league.season("bad", 6, seed=2**63)
    assert league.store.seasons.list_seasons() == []
    result = cli("season", "create", "bad", "--game", GAME, "--bots", ",".join(BOTS), "--seed", "-3", "--db", league.url)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1 and "--seed" in result.stderr
    result = cli("season", "create", "bad", "--game", GAME, "--bots", ",".join(BOTS), "--games", "0", "--db", league.url)
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        "cardarena: error: a season has 1 to 1,000,000 games, not 0"]
    assert league.store.seasons.list_seasons() == []


def test_a_sealed_duplicate_group_shows_nothing_until_its_last_game_is_stored(league: League) -> None:
    dup = league.season("dup", 3, duplicate=True)
    g0, g1, g2 = league.games(dup)
    assert g0.seed == g1.seed == g2.seed
    league.run(g0.id)
    league.start(g1.id)
    app = create_app(Settings(db_url=league.url, latency_games=50))
    with TestClient(app) as client:
        def sealed(game_id: int) -> None:
            body = client.get(f"/api/v1/games/{game_id}").json()
            assert body["sealed"] is True and body["sealed_message"] == SEALED_MESSAGE and body["seed"] is None
            assert all(s["place"] is None and s["change"] is None and s["score"] is None for s in body["seats"])
            for url in (f"/api/v1/replays/{game_id}", f"/api/v1/replays/{game_id}/download"):
                r = client.get(url)
                assert r.status_code == 403 and r.json()["sealed"] is True and SEALED_MESSAGE in r.json()["detail"]
            page = client.get(f"/games/{game_id}").text
            assert SEALED_MESSAGE in page and 'id="replay-data"' not in page

        def shown(game_id: int, live: bool = False) -> dict[str, Any]:
            r = client.get(f"/api/v1/replays/{game_id}")
            assert r.status_code == 200 and r.json()["public_only"] is live
            return r.json()

        def counted() -> list[int]:
            """Games counted per bot by the standings (API and store), the crosstable and the bot pages."""
            rows = client.get(f"/api/v1/seasons/{dup}/standings").json()
            assert [r["games"] for r in rows] == [r.games for r in standings_of(league.store, dup)]
            cells = client.get(f"/api/v1/seasons/{dup}/crosstable").json()["cells"]
            bot = client.get(f"/api/v1/bots/{rows[0]['bot_id']}", params={"season_id": dup}).json()
            met = sum(c["games"] for c in cells if c["bot_id"] == rows[0]["bot_id"])  # two opponents a game
            assert sum(x["games"] for x in bot["seats"]) == rows[0]["games"] == met // 2
            assert all(r["elo"] == 1500 for r in rows) == (rows[0]["games"] == 0)
            return sorted(r["games"] for r in rows)

        sealed(g0.id)  # done, two more rotations to play
        sealed(g1.id)  # running: its live events show the cards of the pending rotation
        assert counted() == [0, 0, 0]
        assert client.get(f"/api/v1/games?season_id={dup}&bot_id={g0.seats[0].bot_id}&result=win").json()["total"] == 0
        assert client.get(f"/api/v1/games?season_id={dup}&fault=false").json()["total"] == 0

        league.finish(g1.id)
        sealed(g0.id)
        sealed(g1.id)
        league.start(g2.id)  # the group's last game: its own live events are public to its seats anyway
        assert shown(g2.id, live=True)["record"]["events"]
        sealed(g0.id)
        sealed(g1.id)

        assert counted() == [0, 0, 0]
        league.finish(g2.id)
        assert counted() == [3, 3, 3]
        for game in (g0, g1, g2):
            assert shown(game.id)["record"]["seed"] == game.seed
            body = client.get(f"/api/v1/games/{game.id}").json()
            assert body["sealed"] is False and body["seed"] == game.seed and body["seats"][0]["place"] is not None
            assert SEALED_MESSAGE not in client.get(f"/games/{game.id}").text


def tamper_replay(store: Store, game_id: int) -> int:
    """Swap the first two cards of the first shuffle in the stored replay; returns that chance event's index."""
    with store.engine.begin() as conn:
        blob = conn.execute(text("SELECT record FROM replays WHERE game_id = :g"), {"g": game_id}).scalar_one()
        record = decode_json(blob)
        index = next(i for i, outcome in enumerate(record["chance"]) if isinstance(outcome, list))
        shuffle = record["chance"][index]
        shuffle[0], shuffle[1] = shuffle[1], shuffle[0]
        conn.execute(text("UPDATE replays SET record = :r WHERE game_id = :g"),
                     {"r": zlib.compress(json.dumps(record).encode()), "g": game_id})  # as stored before: read too
    return index


def test_verify_succeeds_refuses_before_the_end_and_names_a_tampered_seed_or_replay(league: League) -> None:
    sid = league.season("v", 6)
    games = league.games(sid)
    league.run(games[0].id)
    with pytest.raises(CannotVerify, match="is not over .5 games still to play.: its key is published when"):
        verify_season(StoreSource(league.store), league.store.seasons.get_season(sid))  # type: ignore[arg-type]
    league.play_out(sid)
    season = league.store.seasons.get_season(sid)
    report = verify_season(StoreSource(league.store), season)  # type: ignore[arg-type]
    assert report.ok and report.seeds_checked == report.replays_checked == 6

    with league.store.engine.begin() as conn:
        conn.execute(text("UPDATE games SET seed = seed + 1 WHERE id = :g"), {"g": games[2].id})
    index = tamper_replay(league.store, games[4].id)
    report = verify_season(StoreSource(league.store), season)  # type: ignore[arg-type]
    assert not report.ok and len(report.problems) == 3, report.problems
    assert report.problems[0] == (f"game 2 (id {games[2].id}): stored seed {games[2].seed + 1} is not the seed "
                                  f"from the key, {games[2].seed} (game:2)")
    assert report.problems[1] == (f"game 4 (id {games[4].id}): the replay: the replay does not re-run: chance event "
                                  f"{index} differs from the seed's")
    assert report.problems[2].startswith("game 4: replay is now ")  # the chain: its bytes are not those chained


def test_season_verify_on_the_command_line(league: League) -> None:
    sid = league.season("cli", 3)
    result = cli("season", "verify", "cli", "--db", league.url)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "cardarena: error: season 'cli' is not over (3 games still to play): its key is published when every game "
        "is final; verify it then"]
    league.play_out(sid)
    result = cli("season", "verify", "cli", "--db", league.url)
    key = league.store.seasons.revealed_key(sid)
    assert result.returncode == 0, result.stdout + result.stderr
    assert key is not None and f"key {key.hex()}" in result.stdout
    assert ("3 of 3 game seeds derive from the key; 3 replays re-run and every stored field matches; "
            "3 of 3 statuses proven") in result.stdout
    assert result.stdout.strip().endswith("verified: every deal came from the committed key and every stored "
                                          "result is the replays'")
    game = league.games(sid)[1]
    index = tamper_replay(league.store, game.id)
    result = cli("season", "verify", "cli", "--db", league.url)
    assert result.returncode == 1
    assert (f"MISMATCH game 1 (id {game.id}): the replay: the replay does not re-run: chance event {index} differs"
            in result.stdout)


def test_a_sealed_group_closed_by_a_failed_game_is_rated(store: Store, bots: list[int]) -> None:  # noqa: F811
    # the store fixture's records (tests.store.conftest.finish) hold made-up events: a game whose standings read no luck
    game = game_with(lambda s: s.luck is None, "without a luck estimator, for the store fixture's made-up records")
    sid = store.seasons.create_season("d", game, dict(conformance(game).short_params), {}, 1, {"duplicate": True},
                              [(5, bots[:3]), (5, bots[1:4])], deal_groups=[0, 0])
    g0, g1 = store.game_reads.list_games(sid)
    finish(store, g0.id, [1, 2, 3])
    assert store.season_reads.ratings(sid) == {} and all(r.games == 0 for r in standings_of(store, sid))
    for _ in range(MAX_ATTEMPTS):
        claim = store.games.claim_game(g1.id, "w", 60)
        assert claim is not None
        store.games.void_game(g1.id, claim.attempt, "platform failure")
    assert store.game_reads.get_game(g1.id).status is GameStatus.FAILED  # type: ignore[union-attr]
    assert set(store.season_reads.ratings(sid)) == set(bots[:3])
    assert sorted(r.games for r in standings_of(store, sid)) == [0, 1, 1, 1]


def test_migrating_a_populated_store_keeps_every_row_and_marks_old_seasons(db_url: str) -> None:  # noqa: F811
    from store import db

    engine = db.create_store_engine(db_url)
    db.migrate(engine, "0004")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO bots (id, name, endpoint, version, author, games, capacity, created_at) VALUES "
                          "(1, 'a', 'h:1', '1', 't', :games, 1, '2026-01-01'), "
                          "(2, 'b', 'h:2', '1', 't', :games, 1, '2026-01-01')"), {"games": json.dumps([GAME])})
        conn.execute(text("INSERT INTO seasons (id, name, game, params, time_control, seed, config, status, "
                          "rated_through, created_at) VALUES (1, 'old', :game, '{}', '{}', 7, '{}', 'scheduled', -1, "
                          "'2026-01-01')"), {"game": GAME})
        conn.execute(text("INSERT INTO games (id, season_id, number, seed, status, attempts, created_at) VALUES "
                          "(1, 1, 0, 99, 'pending', 0, '2026-01-01'), (2, 1, 1, 98, 'done', 1, '2026-01-01')"))
        conn.execute(text("INSERT INTO game_seats (game_id, seat, bot_id) VALUES (1, 0, 1), (1, 1, 2), (2, 0, 2), (2, 1, 1)"))
        conn.execute(text("INSERT INTO replays (game_id, record, json_size) VALUES (2, :r, 2)"), {"r": b"x"})
    db.migrate(engine)
    with engine.connect() as conn:
        counts = [conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()  # noqa: S608
                  for t in ("bots", "seasons", "games", "game_seats", "replays")]
        groups = conn.execute(text("SELECT number, deal_group FROM games ORDER BY number")).all()
    engine.dispose()
    assert counts == [2, 1, 2, 4, 1] and [tuple(g) for g in groups] == [(0, 0), (1, 1)]
    st = open_store(db_url, policy=POLICY)
    try:
        season = st.seasons.get_season(1)
        assert season is not None and season.reproducible and season.commitment is None and season.seed == 7
        with pytest.raises(CannotVerify, match="created before seasons had keys"):
            verify_season(StoreSource(st), season)
    finally:
        st.close()


def test_the_deals_note_names_what_the_commitment_covers() -> None:
    """The CLI's line under the standings says what was hashed: the key and its chance scheme for a season
    that committed to one, the key alone for one from before (the commitment's two forms)."""
    from types import SimpleNamespace

    from cli.season import deals_note

    now = SimpleNamespace(commitment="ab" * 32, reproducible=False, status="done", name="s",
                          chance_scheme="per-deal-aside")
    assert "(SHA-256 of the season key and its chance scheme)" in deals_note(now)
    before = SimpleNamespace(**{**vars(now), "chance_scheme": None, "status": "running"})
    assert "(SHA-256 of the season key, published with the key" in deals_note(before)
