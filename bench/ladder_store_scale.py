"""A ladder at scale in PostgreSQL: choosing the next table and refitting the standings over a large record.

Usage: python -m bench.ladder_store_scale [--entrants 100] [--games 100000] [--new 1000] [--refills 200]
[--epoch-games 1000] [--seed S] [--pg-url URL] [--keep | --db NAME]

Builds a throwaway PostgreSQL database (``<prefix>_scale_<pid>_<hex>``, the prefix from
``CARDARENA_TEST_PG_PREFIX``, default ``cardarena_bench``; the server from ``--pg-url`` or
``CARDARENA_TEST_PG_URL``, default the local one), dropped at the end unless ``--keep``.
In it: ``--entrants`` bots registered for Svara, a ladder of tables of 4 (``league.competition.ladder``)
with its epochs opened by the store (``Ladders.open_epoch``: keys, commitments, the chain's
first entries), and ``--games`` done games bulk-inserted with COPY, as the store writes them:
``games`` (number, deal seed from the epoch's key, deal group, status done, an attempt, times)
and ``game_seats`` (bot, version played, place, score, change, faults). Not written: replays,
the games' chain entries and attempts (no reads below use them; a ``ladder verify`` of the
bulk epochs would fail). Places come from simulated strengths (Plackett-Luce races,
``bench.ladder_scale.make_games``).

Timed, in this order:

1. *cold refit*: ``league.competition.ladder.ladder_fit`` with no checkpoint (reads every game once, folds
   them into the checkpoint, saves it);
2. *refit from the checkpoint*: ``--new`` more done games are inserted, then ``ladder_fit``
   (the checkpoint, the new games read after it, one fit), and ``ladder_standings`` once more
   (checkpoint current; without the luck estimate, which reads replays);
3. *runner start*: a new ``LadderRunner``'s first refill (the match state from the store's aggregates, the
   first fit), the runner made as ``ladder run`` makes it: its later fits are made in a process of its own
   (``workers.refit.ProcessRefitter``);
4. *choosing the next table*: ``--refills`` times, one pending game is claimed (the store's
   claim) and marked done, then the runner's ``refill`` is timed: it adds one table, all its store
   reads and its append included, the bots to pause given as ``ladder run`` gives them. Every refill is
   counted, those that take a new fit from the fitting process too (the fit is made once ``refit_every`` more
   games are done): the median, the 90th percentile and the largest, and the three slowest with their CPU and
   what else they did (opened an epoch, took a new fit).

``--db NAME`` runs steps 3 and 4 again on a database kept by ``--keep``.

Targets (issues 26 and 36): 100 entrants and 1,000,000 games, choosing the next table <= 5 ms median and no
refill over 50 ms, a standings refit <= 2 s.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

from referee.games import spec
from sqlalchemy.engine import make_url

from bench.ladder_scale import make_games
from bench.scratch_db import pg_admin_url, throwaway_database
from league.competition.ladder import LadderRunner, LadderSettings, create_ladder, ladder_fit, ladder_standings
from league.integrity import fairness
from league.policy import POLICY
from store import open_store
from workers.refit import ProcessRefitter

SEATS = 4


def copy_rows(raw, table: str, columns: Sequence[str], rows: Iterator[Sequence[object]]) -> None:
    """COPY ``rows`` into ``table`` through psycopg (tab-separated text, ``\\N`` for None)."""
    buf = io.StringIO()
    for row in rows:
        buf.write("\t".join("\\N" if v is None else str(v) for v in row))
        buf.write("\n")
    buf.seek(0)
    with raw.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        while chunk := buf.read(1 << 20):
            copy.write(chunk)


def insert_done_games(store, lid: int, bots: Sequence[int], games: Sequence[tuple[list[int], list[int]]],
                      epoch_games: int) -> None:
    """Append ``games`` (bot indices, places) as done games to the ladder's epochs, opening epochs as needed,
    ``epoch_games`` a epoch, with COPY; the games' id sequence is moved past them."""
    settings = LadderSettings.from_config(store.ladders.get_ladder(lid).config)
    now = datetime.now(UTC).isoformat()
    raw = store.engine.raw_connection()
    try:
        with raw.cursor() as cur:
            cur.execute("SELECT coalesce(max(id), 0) FROM games")
            next_id = cur.fetchone()[0] + 1
        epoch = store.ladders.current_epoch(lid)
        used = store.seasons.season_progress(epoch.id)["total"]
        pos = 0
        while pos < len(games):
            if used >= epoch_games:
                store.ladders.open_epoch(lid, epoch.epoch + 1, fairness.new_key(), settings.epoch_config())
                epoch, used = store.ladders.current_epoch(lid), 0
            key = store.seasons.schedule_key(epoch.id)
            take = games[pos:pos + epoch_games - used]
            ids = range(next_id, next_id + len(take))
            copy_rows(raw, "games", ["id", "season_id", "number", "seed", "deal_group", "status", "attempts",
                                     "deferrals", "reason", "created_at", "started_at", "finished_at"],
                      ((gid, epoch.id, used + k, fairness.deal_seed(key, used + k, used + k, False), used + k,
                        "done", 1, 0, "completed", now, now, now) for k, gid in enumerate(ids)))
            copy_rows(raw, "game_seats", ["game_id", "seat", "bot_id", "place", "score", "change", "faults",
                                          "retired", "version"],
                      ((gid, s, bots[b], place, 0, 0, 0, "false", "1.0")
                       for gid, (table, places) in zip(ids, take, strict=True)
                       for s, (b, place) in enumerate(zip(table, places, strict=True))))
            raw.commit()
            next_id += len(take)
            used += len(take)
            pos += len(take)
        with raw.cursor() as cur:
            cur.execute("SELECT setval(pg_get_serial_sequence('games', 'id'), %s)", (next_id - 1,))
            cur.execute("ANALYZE")
        raw.commit()
    finally:
        raw.close()


def finish_one(store, lid: int, rng: random.Random) -> None:
    """Claim the ladder's oldest pending game (the store's claim: versions recorded) and mark it done."""
    gid = min(g for g in store.ladders.pending_attempts(lid))
    claim = store.games.claim_game(gid, "bench", 60)
    assert claim is not None
    places = rng.sample(range(1, SEATS + 1), SEATS)
    raw = store.engine.raw_connection()
    try:
        with raw.cursor() as cur:
            cur.execute("UPDATE games SET status = 'done', reason = 'completed', finished_at = now(), "
                        "lease_owner = NULL, lease_expires_at = NULL WHERE id = %s", (gid,))
            for seat, place in enumerate(places):
                cur.execute("UPDATE game_seats SET place = %s, score = 0, change = 0, faults = 0, retired = false "
                            "WHERE game_id = %s AND seat = %s", (place, gid, seat))
        raw.commit()
    finally:
        raw.close()


def time_refills(store, url: str, lid: int, refills: int) -> None:
    """Steps 3 and 4 of the module docstring: a runner as ``ladder run`` makes it (its fit made in a process of its
    own, ``workers.refit.ProcessRefitter``; the bots it pauses given, as ``ladder run`` gives them), its first
    refill, then ``refills`` refills of one table each."""
    runner = LadderRunner(store, lid, window=8)
    runner.refitter = ProcessRefitter(url, lid, runner.refit_every, runner.settings.history_every)
    try:
        t6 = time.perf_counter()
        first = runner.refill(paused=set())
        t7 = time.perf_counter()
        print(f"runner start (match state from the store's aggregates, first fit, {first.added} tables): "
              f"{t7 - t6:.2f} s")
        walls, cpu, fits = [], [], 0
        kinds: list[str] = []  # what else each refill did: opened an epoch, took a new fit
        rng = random.Random(7)
        epoch = first.epoch
        for _ in range(refills):
            finish_one(store, lid, rng)
            before = runner._fit
            start, start_cpu = time.perf_counter(), time.process_time()
            result = runner.refill(paused=set())
            walls.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            assert result.added == 1, result
            fits += runner._fit is not before
            kinds.append(" ".join(k for k, did in (("opened an epoch", result.epoch != epoch),
                                                   ("took a new fit", runner._fit is not before)) if did) or "plain")
            epoch = result.epoch
        ordered = sorted(walls)
        median = statistics.median(walls) * 1e3
        p90 = ordered[int(0.9 * (len(ordered) - 1))] * 1e3
        print(f"choosing the next table (refill of one table, store reads and append included), {len(walls)} refills: "
              f"median {median:.1f} ms, p90 {p90:.1f} ms, max {ordered[-1] * 1e3:.1f} ms (this process's CPU: median "
              f"{statistics.median(cpu) * 1e3:.1f} ms); {fits} new fit(s) taken from the fitting process; "
              f"target 5 ms median: {'met' if median <= 5.0 else 'NOT met'}, none over 50 ms: "
              f"{'met' if ordered[-1] <= 0.05 else 'NOT met'}")
        slowest = sorted(range(len(walls)), key=lambda i: -walls[i])[:3]
        print("  the slowest: " + "; ".join(f"{walls[i] * 1e3:.1f} ms (CPU {cpu[i] * 1e3:.1f} ms, {kinds[i]})"
                                            for i in slowest))
    finally:
        runner.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.ladder_store_scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=100)
    parser.add_argument("--games", type=int, default=100_000, help="done games in the store before the timings")
    parser.add_argument("--new", type=int, default=1000, help="done games added after the checkpoint")
    parser.add_argument("--refills", type=int, default=200, help="refills timed (one table each)")
    parser.add_argument("--epoch-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--pg-url", default=pg_admin_url(),
                        help="SQLAlchemy URL of the server's maintenance database")
    parser.add_argument("--keep", action="store_true", help="keep the database (its name is printed)")
    parser.add_argument("--db", help="time the refills again on a database kept by --keep (steps 3 and 4 only)")
    args = parser.parse_args(argv)
    if args.db:
        url = make_url(args.pg_url).set(database=args.db).render_as_string(hide_password=False)
        store = open_store(url, policy=POLICY)
        try:
            ladders = store.ladders.list_ladders()
            if not ladders:
                parser.error(f"database {args.db} holds no ladder")
            print(f"{args.db}: {store.ladders.ladder_progress(ladders[0].id)['total']:,} games")
            time_refills(store, url, ladders[0].id, args.refills)
        finally:
            store.engine.dispose()
        return 0
    if args.entrants < SEATS * 3 or args.games < 1 or args.new < 0 or args.refills < 1 or args.epoch_games < 1:
        parser.error(f"--entrants must be at least {SEATS * 3}; --games, --refills and --epoch-games at least 1")
    rng = random.Random(args.seed)
    elo = [1100.0 + 800.0 * k / (args.entrants - 1) for k in range(args.entrants)]
    with throwaway_database(args.pg_url, args.keep) as url:
        store = open_store(url, policy=POLICY)
        try:
            bots = [store.bots.register_bot(f"sim{k:03d}", f"127.0.0.1:{20000 + k}", "1.0", "bench", ["svara"],
                                       capacity=2) for k in range(args.entrants)]
            lid = create_ladder(store, "scale", spec("svara"), [SEATS], epoch_games=args.epoch_games, window=8)
            store.ladders.sync_entrants(lid)
            t0 = time.perf_counter()
            insert_done_games(store, lid, bots, make_games(rng, elo, args.games, SEATS), args.epoch_games)
            t1 = time.perf_counter()
            print(f"{args.entrants} entrants, tables of {SEATS}, {args.games:,} done games in "
                  f"{store.ladders.current_epoch(lid).epoch} epochs, inserted in {t1 - t0:.1f} s")
            fit = ladder_fit(store, lid)
            t2 = time.perf_counter()
            print(f"cold refit (no checkpoint: every game read once, checkpoint saved): {t2 - t1:.2f} s, "
                  f"{fit.games:,} games rated")
            insert_done_games(store, lid, bots, make_games(rng, elo, args.new, SEATS), args.epoch_games)
            t3 = time.perf_counter()
            fit = ladder_fit(store, lid)
            t4 = time.perf_counter()
            rows = ladder_standings(store, lid, with_luck=False)
            t5 = time.perf_counter()
            print(f"refit from the checkpoint + {args.new:,} new games: {t4 - t3:.2f} s; standings again "
                  f"(checkpoint current): {t5 - t4:.2f} s; target 2 s: {'met' if t4 - t3 <= 2.0 else 'NOT met'}")
            print(f"  {fit.games:,} games rated, {len(rows)} rows; "
                  f"sd {min(fit.sd(b) for b in fit.bots):.1f}-{max(fit.sd(b) for b in fit.bots):.1f} Elo")
            time_refills(store, url, lid, args.refills)
        finally:
            store.engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
