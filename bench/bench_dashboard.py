"""How fast the dashboard answers with a large store: 100,000 done games in one season, or a ladder.

Not a test: run ``.venv/bin/python -m bench.bench_dashboard [--games N]``. The games
are inserted with bulk SQL into a temporary SQLite store (schema by the real
migrations), 3 to 6 seats each among 12 bots, a few with faults; then the
standings and the games list endpoints (and the season page) are requested
through the app, and the median of several requests is printed, with the first
request shown apart. A season this large fits its maximum-likelihood ratings and
crosstable in the background (``dashboard.deps.Refresher``): the first request
answers without them, and the time of that fit is printed too.

``--part ladder [--games N] [--entrants E] [--pg-url URL]`` times a ladder's page and API instead
(rules §5; target: 100 entrants and 1,000,000 games in PostgreSQL, the page within 200 ms): a fresh
PostgreSQL database (dropped at the end) gets a ladder of E bots through the store (its epochs of
1,000 games opened as the runner opens them), then its games, seats and rating snapshots (one every
``--history-every`` rated games, as the runner stores them) by ``COPY``; ten bots declared a second
version, two joined late and are placing, the open epoch has pending games. The page reads the stored
snapshot (``store.reads.ladders``): nothing is fitted on a request. Beside each wall time: this
process's CPU time per request (the app's own work, what a busy machine's load does not inflate).
``--keep`` keeps the database; ``--db NAME`` times a kept one again without filling.
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

from bench.scratch_db import pg_admin_url
from config import Settings
from dashboard.main import create_app
from league.policy import POLICY
from referee.games import spec
from store import open_store

BOTS = 12
REPEATS = 7


def fill(url: str, games: int, seed: int = 1) -> int:
    """A season of ``games`` done games with seats, results and ratings; returns its id."""
    store = open_store(url, policy=POLICY)
    bot_ids = [store.bots.register_bot(f"bot-{i:02d}", f"127.0.0.1:{6000 + i}", "1", "bench", ["svara"])
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


LADDER = "bench-ladder"
EPOCH_GAMES = 1000


def fill_ladder(url: str, games: int, entrants: int, history_every: int, seed: int = 1) -> dict[str, int]:
    """A ladder of ``entrants`` bots (ten with a second version, two joined late) with ``games`` games
    (all done but the last 8, pending) and rating snapshots every ``history_every`` games; bulk COPY."""
    import math

    from league.competition.ladder import create_ladder
    from store.models import utcnow

    rng = random.Random(seed)
    store = open_store(url, policy=POLICY)
    early = entrants - 2
    bots = [store.bots.register_bot(f"bot-{i:03d}", f"127.0.0.1:{7000 + i}", "1.0", "bench", ["svara"], capacity=4)
            for i in range(early)]
    lid = create_ladder(store, LADDER, spec("svara"), [4], epoch_games=EPOCH_GAMES)
    store.ladders.sync_entrants(lid)
    movers = bots[:10]
    for b in movers:
        store.bots.update_bot(b, version="2.0")
    late = [store.bots.register_bot(f"late-{i}", f"127.0.0.1:{7900 + i}", "1.0", "bench", ["svara"], capacity=4)
            for i in range(2)]
    store.ladders.sync_entrants(lid)
    entrant_ids = {(e.bot_id, e.version): e.id for e in store.ladders.entrants(lid)}
    epochs = math.ceil(games / EPOCH_GAMES)
    for e in range(2, epochs + 1):
        store.ladders.open_epoch(lid, e, rng.randbytes(32), {"table_sizes": [4], "duplicate": False,
                                                            "suspend_after_s": 600.0})
    epoch_ids = [x.id for x in store.ladders.epochs(lid)]
    switch = int(games * 0.8)  # the movers play version 2.0 from here
    late_from = max(0, games - 60)  # the late bots' first game
    pending_from = games - 8
    now = utcnow().replace(tzinfo=None)
    raw = store.engine.raw_connection()
    try:
        conn = raw.driver_connection
        with conn.cursor() as cur:
            cur.execute("UPDATE seasons SET status = 'done' WHERE ladder_id = %s AND epoch < %s", (lid, epochs))
            cur.execute("UPDATE seasons SET status = 'running' WHERE ladder_id = %s AND epoch = %s", (lid, epochs))
            played: dict[int, int] = {}
            with cur.copy("COPY games (id, season_id, number, deal_group, seed, status, attempts, reason, created_at, "
                          "started_at, finished_at) FROM STDIN") as copy:
                for i in range(games):
                    done = i < pending_from
                    copy.write_row((i + 1, epoch_ids[i // EPOCH_GAMES], i % EPOCH_GAMES, i % EPOCH_GAMES,
                                    rng.randrange(2**62), "done" if done else "pending", 1 if done else 0,
                                    "completed" if done else None, now, now if done else None, now if done else None))
            with cur.copy("COPY game_seats (game_id, seat, bot_id, version, place, score, change, faults, retired) "
                          "FROM STDIN") as copy:
                for i in range(games):
                    pool = bots + late if i >= late_from else bots
                    seated = rng.sample(pool, 4) if i < late_from or rng.random() < 0.5 else \
                        [*rng.sample(late, 1), *rng.sample(bots, 3)]
                    places = [1, 2, 3, 4]
                    rng.shuffle(places)
                    done = i < pending_from
                    for seat, (bot, place) in enumerate(zip(seated, places, strict=True)):
                        version = "2.0" if bot in movers and i >= switch else "1.0"
                        if done:
                            e = entrant_ids[(bot, version)]
                            played[e] = played.get(e, 0) + 1
                        copy.write_row((i + 1, seat, bot, version if done else None, place if done else None,
                                        1000 + 50 * (2 - place) if done else None, 50 * (5 - 2 * place) if done else None,
                                        0 if done else None, False if done else None))
            strength = {e: rng.gauss(1500, 150) for e in entrant_ids.values()}
            rows = 0
            with cur.copy("COPY ladder_ratings (ladder_id, entrant_id, games, played, rating, sd, at) FROM STDIN") as copy:
                for g in range(history_every, pending_from + 1, history_every):
                    for (bot, version), e in entrant_ids.items():
                        start = switch if version == "2.0" else late_from if bot in late else 0
                        if g <= start or (version == "1.0" and bot in movers and g > switch + 2000):
                            continue  # not entered yet; a superseded version's rating stays as it was
                        share = (g - start) * 4 / len(bots)
                        sd = 400 / math.sqrt(1 + share)
                        copy.write_row((lid, e, g, int(share), strength[e] + rng.gauss(0, sd / 4), sd, now))
                        rows += 1
            cur.execute("SELECT setval(pg_get_serial_sequence('games', 'id'), %s)", (games,))
        conn.commit()
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute("ANALYZE")
    finally:
        raw.close()
        store.close()
    return {"ladder_id": lid, "epochs": epochs, "entrants": len(entrant_ids), "snapshots": rows,
            "bot": bots[10]}


def ladder_main(args: argparse.Namespace) -> None:
    """The ``--part ladder`` run: a fresh PostgreSQL database, filled, timed, dropped."""
    import uuid

    from sqlalchemy import create_engine, make_url, text

    admin = create_engine(make_url(args.pg_url), isolation_level="AUTOCOMMIT")
    name = f"bench_ladder_{uuid.uuid4().hex[:8]}" if args.db is None else args.db
    if args.db is None:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(args.pg_url).set(database=name).render_as_string(hide_password=False)
    try:
        start = time.perf_counter()
        if args.db is not None:  # a store a --keep run filled
            from store.models import Bot

            store = open_store(url, policy=POLICY)
            with store.db.read() as s:
                bot = s.query(Bot.id).filter(Bot.name == "bot-010").scalar()
            store.close()
            info = {"bot": bot, "entrants": "?", "epochs": "?", "snapshots": 0}
        else:
            info = fill_ladder(url, args.games, args.entrants, args.history_every)
        if args.db is None:
            print(f"ladder of {info['entrants']} entrants ({args.entrants} bots), {args.games:,} games in {info['epochs']} "
                  f"epochs, {info['snapshots']:,} rating snapshots (every {args.history_every} games) stored in "
                  f"{time.perf_counter() - start:.1f} s (PostgreSQL)")
        app = create_app(Settings(db_url=url))
        with TestClient(app) as client:
            client.get("/api/v1/ladders")  # open the store
            import os

            store = app.state.stores.get(url, False)
            first_epoch = store.ladders.epochs(store.ladders.get_ladder_by_name(LADDER).id)[0].id

            def ping() -> None:
                with store.engine.connect() as conn:
                    conn.exec_driver_sql("SELECT 1").all()
            _, floor = timed(ping)
            print(f"machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; one store round trip "
                  f"(SELECT 1 on a pooled connection) {floor:.2f} ms: a ladder page makes about 15")
            cases = [
                ("ladder page GET /ladders/{name}", f"/ladders/{LADDER}"),
                ("ladder      GET /api/v1/ladders/{name}", f"/api/v1/ladders/{LADDER}"),
                ("history     GET /api/v1/ladders/{name}/history", f"/api/v1/ladders/{LADDER}/history"),
                ("history     GET /api/v1/ladders/{name}/history?bot (2 versions)",
                 f"/api/v1/ladders/{LADDER}/history?bot=bot-000"),
                ("games       GET /api/v1/ladders/{name}/games", f"/api/v1/ladders/{LADDER}/games"),
                ("games       GET /api/v1/ladders/{name}/games?bot&before",
                 f"/api/v1/ladders/{LADDER}/games?bot=bot-010&before={args.games // 2}"),
                ("ladders     GET /api/v1/ladders", "/api/v1/ladders"),
                ("home page   GET / (the ladders, and the seasons not of a ladder)", "/"),
                ("seasons     GET /api/v1/seasons (every season, the 1,000 epochs included)", "/api/v1/seasons"),
                ("bot         GET /api/v1/bots/{id} (by seat, opponents)", f"/api/v1/bots/{info['bot']}"),
                ("bot page    GET /bots/{id} (+ its ladders)", f"/bots/{info['bot']}"),
                ("games list  GET /api/v1/games", "/api/v1/games"),
                ("games list  GET /api/v1/games?bot_id&status=done", f"/api/v1/games?bot_id={info['bot']}&status=done"),
                ("games list  GET /api/v1/games?fault=true", "/api/v1/games?fault=true"),
                ("games list  GET /api/v1/games?bot_id&result=win&offset=5000",
                 f"/api/v1/games?bot_id={info['bot']}&result=win&offset=5000"),
                ("games page  GET /games", "/games"),
                ("epoch page  GET /seasons/{id} (the first epoch: standings + crosstable)", f"/seasons/{first_epoch}"),
            ]
            print(f"{'request':66} {'first ms':>9} {'median ms':>10} {'our CPU ms':>10}")
            for label, path in cases:
                cpu: list[float] = []

                def call(path: str = path) -> None:
                    c0 = time.process_time()
                    response = client.get(path)
                    cpu.append((time.process_time() - c0) * 1000)
                    assert response.status_code == 200, (path, response.status_code, response.text[:200])
                first, median = timed(call)
                print(f"{label:66} {first:9.1f} {median:10.1f} {statistics.median(cpu[1:]):10.1f}")
            # the bot page reads the bot's results over all its games (store.reads.bots), ladder or not: once
            t0 = time.perf_counter()
            assert client.get(f"/bots/{info['bot']}").status_code == 200
            print(f"{'bot page    GET /bots/{id} (once: its seats over all games, then its ladders)':66} "
                  f"{(time.perf_counter() - t0) * 1000:9.1f}")
            app.state.refresher.wait_idle(600)
    finally:
        if args.keep or args.db is not None:
            print(f"kept the database {name!r}: time it again with --db {name}; drop it with DROP DATABASE")
        else:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("season", "ladder"), default="season",
                        help="season: 100,000 games of one season (SQLite); ladder: a ladder's page (PostgreSQL)")
    parser.add_argument("--games", type=int, default=None,
                        help="games to store (default 100,000; the ladder's target is 1,000,000)")
    parser.add_argument("--entrants", type=int, default=100, help="ladder: bots entered (at least 12)")
    parser.add_argument("--history-every", type=int, default=20, help="ladder: rated games between rating snapshots")
    parser.add_argument("--pg-url", default=pg_admin_url(),
                        help="ladder: a PostgreSQL server's URL (a database is created on it for the run and dropped "
                             "after; default: CARDARENA_TEST_PG_URL, else the local server)")
    parser.add_argument("--keep", action="store_true", help="ladder: keep the database filled (to time it again)")
    parser.add_argument("--db", default=None, help="ladder: time a database a --keep run filled (no filling)")
    args = parser.parse_args()
    if args.games is None:
        args.games = 100_000
    if args.part == "ladder":
        if args.entrants < 12 or args.games < 100 or args.history_every < 1:
            parser.error("--entrants must be at least 12, --games at least 100, --history-every at least 1")
        ladder_main(args)
        return
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
