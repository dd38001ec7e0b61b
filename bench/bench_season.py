"""Whole seasons on the local pool: wall time, games per second and where the time goes.

Usage: python -m bench.bench_season [--sam-games N] [--svara-games N] [--rummy-games N] [--processes N]
                                    [--games-per-process N] [--pin-bots] [--transports T,T]
                                    [--stores S,S] [--pg-url URL] [--rounds N]

For each game, one season is played from scratch in a fresh SQLite store: 6
reference bots, each a real gRPC server in its own process on 127.0.0.1
(Slippery Sam: 3 ``odds`` and 3 ``random``; Svara: 3 ``points`` and 3
``random``; rummy: 3 ``greedy`` and 3 ``random``), tables of 3 to 6 seats,
the local pool with one process per core (``--processes``), each refereeing
``--games-per-process`` games at once (default: the settings', 2). The defaults are
the full benchmark (10,000 Slippery Sam games, 2,000 Svara, 200 rummy);
``make bench`` runs a short version. A count of 0 skips that game.

Where the time goes, from the stored records and the bot processes' CPU
time: the pool's time is its slots' (wall time x processes x games per process);
``in games`` is the slots' time inside the referee (the sum
of the games' durations), split into ``bot calls`` (the Act calls'
measured latency: the round trip plus the bot's work; seats asked at once count once) and ``referee`` (the
rest: rules, encoding, time keeping, the record); ``outside games`` is the
rest of the slots' time, split into ``store`` (the runs' own measure of
their time in the store: reading the table, the claim, encoding and
storing the result, ``RunResult.store_s``) and the rest (the hand-off from the
parent, the health checks, idle); ``bots' CPU`` is the CPU seconds the six
bot processes used (their own compute and their gRPC serving), which run on
the same cores, and of it ``own compute``: what the bots do with a request
besides serving gRPC (parse it, decide, serialise the answer), measured
in-process on the requests of a few games of the same lineup
(:func:`bench.bench_bots.own_compute_us`) times the season's decisions. The wall time includes starting the pool's processes
(a second or two); the rate from the first game finished to the last does not.

``--transports`` names the transports the referee calls the bots on (``config.Settings.bot_transport``:
``stream``, the default, one ActStream per bot per pool process; ``unary``, one Act call per decision).
With two or more, each game's season is played once per transport in each of ``--rounds`` rounds, the
transports alternated (the same season, bots and schedule each time, a fresh store), and each round's
ratio of games per second (and of the steady rate, the bots' CPU and the pool's CPU per decision) to the
first transport's is printed: the machine's load drifts, so ratios are taken within a round.

``--stores`` names the stores the season is played on: ``sqlite`` (the default, a file in a temporary folder) and
``postgresql`` (a throwaway database on the server of ``--pg-url``, default ``CARDARENA_TEST_PG_URL`` or the local
one, dropped after each season: ``bench.scratch_db``). With two, they alternate as the transports do, and each
round's ratios are to the first store's (``--stores sqlite,postgresql``: PostgreSQL's games per second over
SQLite's). Transports and stores can both be given: every pair of them is played in each round.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from bench.bench_bots import own_compute_us
from bench.cputime import cpu_seconds
from bench.lineups import LINEUPS, TABLE_SIZES
from bench.scratch_db import pg_admin_url, throwaway_database
from cli.demo import register_or_update
from config import get_settings
from league.competition.seasons import create_season
from league.policy import POLICY
from referee.botprocess import BotProcess, start_bot_process
from referee.clients import GrpcBotClient
from referee.games import spec
from referee.record import DecisionLog
from store import open_store
from workers.local import default_processes, iter_local


@dataclass
class SeasonTimes:
    """One season's figures, seconds unless said otherwise."""

    game: str
    games: int
    decisions: int
    wall_s: float
    processes: int
    games_per_process: int
    in_games_s: float
    bot_calls_s: float
    bots_cpu_s: float
    bots_own_us: float              # the bots' own compute per decision, microseconds (in-process estimate)
    store_s: float
    steady_games_per_s: float       # from the first game finished to the last: without the pool's start
    pool_cpu_s: float = 0.0         # CPU seconds of this process's children but the bots: the pool's processes
    transport: str = "stream"
    store: str = "sqlite"

    def report(self) -> str:
        pool_s = self.wall_s * self.processes * self.games_per_process
        referee_s = self.in_games_s - self.bot_calls_s
        outside_s = pool_s - self.in_games_s

        def share(x: float) -> str:
            return f"{x:8.1f} s {100 * x / pool_s:5.1f}%"

        return "\n".join([
            f"{self.game} ({self.transport}, {self.store}): {self.games} games, {self.decisions} decisions in {self.wall_s:.1f} s = "
            f"{self.games / self.wall_s:.1f} games/s, {self.decisions / self.wall_s:.0f} decisions/s "
            f"({self.processes} pool processes of {self.games_per_process} games at once, {os.cpu_count()} cores); "
            f"{self.steady_games_per_s:.1f} games/s from the first game finished to the last",
            f"  pool slot time    {pool_s:8.1f} s (wall x processes x games per process)",
            f"    in games        {share(self.in_games_s)}",
            f"      bot calls     {share(self.bot_calls_s)}  ({1000 * self.bot_calls_s / max(1, self.decisions):.3f} ms per decision)",
            f"      referee       {share(referee_s)}  ({1000 * referee_s / max(1, self.decisions):.3f} ms per decision)",
            f"    outside games   {share(outside_s)}  ({1000 * outside_s / self.games:.1f} ms per game)",
            f"      store         {share(self.store_s)}  ({1000 * self.store_s / self.games:.1f} ms per game: claim, result)",
            f"      hand-off, idle {share(outside_s - self.store_s)}  ({1000 * (outside_s - self.store_s) / self.games:.1f} ms per game)",
            f"  bots' CPU         {self.bots_cpu_s:8.1f} s  ({1000 * self.bots_cpu_s / max(1, self.decisions):.3f} ms per decision)",
            f"    own compute     {self.bots_own_us * self.decisions / 1e6:8.1f} s  ({self.bots_own_us / 1000:.3f} ms per decision; "
            "the rest is their gRPC serving)",
            f"  pool's CPU        {self.pool_cpu_s:8.1f} s  ({1000 * self.pool_cpu_s / max(1, self.decisions):.3f} ms per decision: "
            "the referees, their clients, the store)",
        ])

    @property
    def games_per_s(self) -> float:
        return self.games / self.wall_s


def calls_wall_s(decisions: Sequence[DecisionLog]) -> float:
    """Seconds during which at least one of a game's Act calls was in flight: the union of the calls'
    intervals (seats asked at once, as rummy's offers of the discard, overlap and count once)."""
    spans = sorted((d.sent_at, d.sent_at + d.latency_ms / 1000) for d in decisions if d.called)
    total, end = 0.0, float("-inf")
    for start, stop in spans:
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def bot_cpus(count: int) -> list[int]:
    """A CPU for each of ``count`` bot processes, in turn over the CPUs this process may use."""
    cpus = sorted(os.sched_getaffinity(0))
    return [cpus[i % len(cpus)] for i in range(count)]


def children_cpu_seconds() -> float:
    """CPU seconds of this process's children that have ended and been waited for (the pool's processes)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: The stores ``--stores`` names.
STORES = ("sqlite", "postgresql")


def play_season(tmp: Path, game: str, games: int, processes: int, pin_bots: bool = False,
                games_per_process: int | None = None, transport: str | None = None, store_kind: str = "sqlite",
                pg_url: str | None = None) -> SeasonTimes:
    """Start the bots (each on a CPU of its own with ``pin_bots``: :func:`bot_cpus`), schedule and play one
    season, and measure it. ``transport``: the pool's ``bot_transport`` (None: the settings'). ``store_kind``: one
    of :data:`STORES`; PostgreSQL's throwaway database is made on the server of ``pg_url`` (default:
    :func:`bench.scratch_db.pg_admin_url`). Raises RuntimeError if a game of the season is not done at its end."""
    if transport is not None:
        os.environ["CARDARENA_BOT_TRANSPORT"] = transport  # the pool's processes read it when they start
        get_settings.cache_clear()
    lineup = LINEUPS[game]
    cpus: list[int | None] = list(bot_cpus(len(lineup))) if pin_bots else [None] * len(lineup)
    bots: list[BotProcess] = [start_bot_process(name, seed, cpu=cpu) for (name, seed), cpu in zip(lineup, cpus, strict=True)]
    scratch = ExitStack()  # PostgreSQL's throwaway database, dropped once the bots are stopped
    try:
        db_url = (scratch.enter_context(throwaway_database(pg_url or pg_admin_url(), label="season"))
                  if store_kind == "postgresql" else f"sqlite:///{tmp / f'{game}.db'}")
        store = open_store(db_url, policy=POLICY)
        names = [register_or_update(store, f"{b.name}-{i}", b.endpoint, GrpcBotClient(b.endpoint).describe())
                 for i, b in enumerate(bots)]
        season_id = create_season(store, f"bench-{game}", spec(game), names, TABLE_SIZES, games, 17)
        ids = store.seasons.next_pending(season_id, 10**7)
        cpu_before = sum(cpu_seconds(b.process.pid) for b in bots if b.process.pid is not None)
        pool_before = children_cpu_seconds()
        start = time.perf_counter()
        finished, store_s = [], 0.0
        per_process = games_per_process or get_settings().games_per_process
        for result in iter_local(db_url, ids, processes, games_per_process=per_process):
            finished.append(time.perf_counter())
            store_s += result.store_s
        wall = time.perf_counter() - start
        pool_cpu = children_cpu_seconds() - pool_before  # the pool has ended; the bots still run
        bots_cpu = sum(cpu_seconds(b.process.pid) for b in bots if b.process.pid is not None) - cpu_before
        progress = store.seasons.season_progress(season_id)
        if progress["done"] != len(ids):
            raise RuntimeError(f"{game}: {progress} after the season")
        in_games = calls_ms = 0.0
        decisions = 0
        for gid in ids:
            record = store.replays.get_replay(gid)
            assert record is not None
            in_games += record.finished_at - record.started_at
            decisions += len(record.decisions)
            calls_ms += 1000 * calls_wall_s(record.decisions)
        store.close()
    finally:
        for b in bots:
            b.stop()
        scratch.close()
    steady = (len(finished) - 1) / (finished[-1] - finished[0]) if len(finished) > 1 and finished[-1] > finished[0] else 0.0

    return SeasonTimes(game, len(ids), decisions, wall, processes, per_process, in_games, calls_ms / 1000, bots_cpu,
                       own_compute_us(game), store_s, steady, pool_cpu, get_settings().bot_transport, store_kind)


def compare(rounds: Sequence[dict[str, SeasonTimes]]) -> str:
    """Each variant's ratios to the first one's (a variant: a transport, a store or a pair of them, as played in
    every round), per round (median, min-max): games per second, the steady rate, the bots' CPU and the pool's
    CPU per decision."""
    first, *others = list(rounds[0])
    lines = []
    for variant in others:
        figures = {
            "games per second": [r[variant].games_per_s / r[first].games_per_s for r in rounds],
            "steady games per second": [r[variant].steady_games_per_s / r[first].steady_games_per_s for r in rounds],
            "bots' CPU per decision": [(r[variant].bots_cpu_s / r[variant].decisions)
                                       / (r[first].bots_cpu_s / r[first].decisions) for r in rounds],
            "pool's CPU per decision": [(r[variant].pool_cpu_s / r[variant].decisions)
                                        / (r[first].pool_cpu_s / r[first].decisions) for r in rounds],
        }
        for label, values in figures.items():
            lines.append(f"  {variant} / {first}, {label}: median {statistics.median(values):.2f} "
                         f"({min(values):.2f}-{max(values):.2f}) over {len(values)} rounds: "
                         + ", ".join(f"{v:.2f}" for v in values))
    return "\n".join(lines)


def variant_name(times: SeasonTimes, transports: Sequence[str | None], stores: Sequence[str]) -> str:
    """What names a season among those of its round: its transport, its store, or both when both vary."""
    parts = ([times.transport] if len(transports) > 1 else []) + ([times.store] if len(stores) > 1 else [])
    return "/".join(parts) or times.transport


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sam-games", type=int, default=10_000, help="Slippery Sam games (default 10,000)")
    parser.add_argument("--svara-games", type=int, default=2_000, help="Svara games (default 2,000)")
    parser.add_argument("--rummy-games", type=int, default=200, help="rummy games (default 200)")
    parser.add_argument("--processes", type=int, default=default_processes(), help="pool processes (default: one per core)")
    parser.add_argument("--games-per-process", type=int, default=None,
                        help="games each pool process referees at once (default: the settings', CARDARENA_GAMES_PER_PROCESS)")
    parser.add_argument("--pin-bots", action="store_true", help="run each bot process on one CPU, the bots in turn over the CPUs")
    parser.add_argument("--transports", default=None,
                        help="the referee's transports, comma-separated (stream, unary; default: the settings', "
                             "CARDARENA_BOT_TRANSPORT): with two or more, each season is played on each in turn")
    parser.add_argument("--stores", default="sqlite",
                        help="the stores, comma-separated (sqlite, postgresql; default sqlite): with two, each season is "
                             "played on each in turn")
    parser.add_argument("--pg-url", default=None,
                        help="SQLAlchemy URL of the PostgreSQL server's maintenance database, where each season's "
                             "throwaway database is made (default: CARDARENA_TEST_PG_URL, else the local server)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with two or more transports or stores: rounds of alternated seasons")
    args = parser.parse_args()
    transports: list[str | None] = args.transports.split(",") if args.transports else [None]
    unknown = {t for t in transports if t is not None and t not in ("stream", "unary")}
    if unknown:
        parser.error(f"unknown transport(s) {', '.join(sorted(unknown))}: use stream, unary")
    stores = args.stores.split(",")
    if not stores or set(stores) - set(STORES):
        parser.error(f"--stores: {args.stores!r}: use {', '.join(STORES)}")
    variants = [(t, s) for t in transports for s in stores]
    with tempfile.TemporaryDirectory() as tmp_name:
        for game, games in (("slippery-sam", args.sam_games), ("svara", args.svara_games), ("rummy", args.rummy_games)):
            if games <= 0:
                continue
            rounds = []
            for number in range(args.rounds if len(variants) > 1 else 1):
                played = {}
                for transport, store_kind in variants:
                    where = Path(tmp_name) / f"{game}-{transport}-{store_kind}-{number}"
                    where.mkdir()
                    times = play_season(where, game, games, args.processes, args.pin_bots, args.games_per_process,
                                        transport, store_kind, args.pg_url)
                    played[variant_name(times, transports, stores)] = times
                    print(times.report(), flush=True)
                rounds.append(played)
            if len(variants) > 1:
                print(f"{game}: compared, each round's seasons alternated:\n{compare(rounds)}", flush=True)


if __name__ == "__main__":
    main()
