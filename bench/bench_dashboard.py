"""How fast the dashboard answers with a large store: 100,000 done games in one season.

Not a test: run ``.venv/bin/python -m bench.bench_dashboard [--games N]``. The games
are inserted with bulk SQL into a temporary SQLite store (schema by the real
migrations), 3 to 6 seats each among 12 bots, a few with faults; then the
standings and the games list endpoints (and the season page) are requested
through the app, and the median of several requests is printed, with the first
request shown apart. A season this large fits its maximum-likelihood ratings and
crosstable in the background (``dashboard.deps.Refresher``): the first request
answers without them, and the time of that fit is printed too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from fastapi.testclient import TestClient

from config import Settings
from dashboard.main import create_app
from league.policy import POLICY
from store import open_store

BOTS = 12
REPEATS = 7


def fill(url: str, games: int, seed: int = 1) -> int:
    """A season of ``games`` done games with seats, results and ratings; returns its id."""
    store = open_store(url, policy=POLICY)
    bot_ids = [store.register_bot(f"bot-{i:02d}", f"127.0.0.1:{6000 + i}", "1", "bench", ["svara"])
               for i in range(BOTS)]
    rng = random.Random(seed)
    now = datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" ")
    raw = store.engine.raw_connection()
    try:
        cur = raw.cursor()
        cur.execute("BEGIN")
        cur.execute(
            "INSERT INTO seasons (name, game, params, time_control, seed, config, status, rated_through, created_at) "
            "VALUES ('bench', 'svara', '{}', '{}', 1, '{}', 'done', -1, ?)", (now,))
        season_id = int(cur.lastrowid)
        game_rows, seat_rows = [], []
        first_id = 1
        for number in range(games):
            game_id = first_id + number
            game_rows.append((game_id, season_id, number, number, rng.randrange(2**62), "done", 1, "completed",
                              "hands", now, now, now))
            n = rng.randint(3, 6)
            seated = rng.sample(bot_ids, n)
            places = list(range(1, n + 1))
            rng.shuffle(places)
            for seat, (bot, place) in enumerate(zip(seated, places, strict=True)):
                faults = 1 if rng.random() < 0.002 else 0
                seat_rows.append((game_id, seat, bot, place, 1000 + 50 * (n - place), 50 * (n - 2 * place), faults, 0))
        cur.executemany(
            "INSERT INTO games (id, season_id, number, deal_group, seed, status, attempts, reason, detail, created_at, "
            "started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", game_rows)
        cur.executemany("INSERT INTO game_seats (game_id, seat, bot_id, place, score, change, faults, retired) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", seat_rows)
        cur.executemany("INSERT INTO ratings (season_id, bot_id, elo, games, updated_at, base_elo, base_games) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [(season_id, b, 1500 + rng.uniform(-200, 200), games // 3, now, 1500, 0) for b in bot_ids])
        cur.execute("COMMIT")
        cur.execute("ANALYZE")
    finally:
        raw.close()
        store.close()
    return season_id


def add_result(url: str, season_id: int, number: int) -> None:
    """One more done game (three seats), as a worker's result would add it."""
    store = open_store(url, run_migrations=False, policy=POLICY)
    try:
        with store.engine.begin() as conn:
            now = datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" ")
            game_id = conn.exec_driver_sql(
                "INSERT INTO games (season_id, number, deal_group, seed, status, attempts, reason, created_at, "
                "finished_at) VALUES (?, ?, ?, 1, 'done', 1, 'completed', ?, ?)", (season_id, number, number, now, now)).lastrowid
            conn.exec_driver_sql("INSERT INTO game_seats (game_id, seat, bot_id, place, score, change, faults, retired) "
                                 "VALUES (?, 0, 1, 1, 10, 5, 0, 0), (?, 1, 2, 2, 5, 0, 0, 0), (?, 2, 3, 3, 0, -5, 0, 0)",
                                 (game_id, game_id, game_id))
    finally:
        store.close()


def timed(call: Callable[[], object], repeats: int = REPEATS) -> tuple[float, float]:
    """``(first, median of the following)`` wall times of ``call`` in milliseconds."""
    times = []
    for _ in range(repeats + 1):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times[0], statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        start = time.perf_counter()
        season_id = fill(url, args.games)
        print(f"inserted {args.games:,} done games (3-6 seats, {BOTS} bots) in {time.perf_counter() - start:.1f} s")
        app = create_app(Settings(db_url=url))
        with TestClient(app) as client:
            client.get("/api/v1/seasons")  # open the store
            bot = client.get("/api/v1/bots").json()[0]["id"]
            start = time.perf_counter()
            first = client.get(f"/api/v1/seasons/{season_id}/standings")
            answered = time.perf_counter() - start
            client.get(f"/api/v1/seasons/{season_id}/crosstable")
            app.state.refresher.wait_idle(600)
            print(f"first standings request (nothing cached) answered in {answered * 1000:.0f} ms "
                  f"(season ratings {'pending' if first.json()[0]['ml_rating'] is None else 'ready'}); "
                  f"the background fit of the season ratings and crosstable took {time.perf_counter() - start:.1f} s")
            times = []
            for i in range(REPEATS):
                add_result(url, season_id, args.games + i)
                t0 = time.perf_counter()
                assert client.get(f"/api/v1/seasons/{season_id}/standings").status_code == 200
                times.append((time.perf_counter() - t0) * 1000)
            app.state.refresher.wait_idle(600)
            print(f"standings right after a new result (recomputed; refit in the background): "
                  f"median {statistics.median(times):.1f} ms")
            cases = [
                ("standings  GET /api/v1/seasons/{id}/standings", f"/api/v1/seasons/{season_id}/standings"),
                ("games list GET /api/v1/games", "/api/v1/games"),
                ("games list GET /api/v1/games?season_id&bot_id&status=done", f"/api/v1/games?season_id={season_id}&bot_id={bot}&status=done"),
                ("games list GET /api/v1/games?fault=true", "/api/v1/games?fault=true"),
                ("games list GET /api/v1/games?bot_id&result=win&offset=5000", f"/api/v1/games?bot_id={bot}&result=win&offset=5000"),
                ("games list GET /api/v1/games?offset=90000", "/api/v1/games?offset=90000"),
                ("seasons    GET /api/v1/seasons", "/api/v1/seasons"),
                ("season page GET /seasons/{id} (standings + crosstable)", f"/seasons/{season_id}"),
                ("games page GET /games", "/games"),
                ("bot        GET /api/v1/bots/{id} (by seat, opponents)", f"/api/v1/bots/{bot}"),
                ("bot page   GET /bots/{id} (+ rating history)", f"/bots/{bot}"),
            ]
            print(f"{'request':62} {'first ms':>9} {'median ms':>10}")
            for label, path in cases:
                def call(path: str = path) -> None:
                    response = client.get(path)
                    assert response.status_code == 200, (path, response.status_code, response.text[:200])
                first, median = timed(call)
                print(f"{label:62} {first:9.1f} {median:10.1f}")
            app.state.refresher.wait_idle(600)  # before the temporary store goes away


if __name__ == "__main__":
    main()
