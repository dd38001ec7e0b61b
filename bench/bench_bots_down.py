"""A season with a bot that is down for a while: what happens to every game (rules §4.9).

Four reference bots on fixed ports, a Slippery Sam season on tables of 3 on the
local pool. One bot is stopped before the season starts and started again on its
port after ``--down`` seconds; with ``--suspend-after`` shorter than the outage it
is suspended instead. Prints every game's status, attempts, deferrals and the bots
at its table, then the counts and whether anything was charged to the bot.

    python -m bench.bench_bots_down [--games 24] [--down 8] [--suspend-after 600]
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from cli.demo import register_or_update
from league.competition.seasons import create_season
from league.competition.standings import standings_of
from league.policy import POLICY
from referee.botprocess import start_bot_process
from referee.clients import GrpcBotClient
from referee.games import spec
from store import open_store
from workers.local import run_local

LINEUP = (("odds", 0), ("random", 1), ("odds", 1), ("random", 2))


def _port(taken: set[int]) -> int:
    """A free port of 127.0.0.1 below the ephemeral range (not in ``taken``), so no client takes it
    while its bot is down."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for port in range(low - 1, 1024, -1):
        if port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            taken.add(port)
            return port
    raise RuntimeError("no free port")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--down", type=float, default=8.0, help="seconds the bot stays down after the season starts")
    parser.add_argument("--suspend-after", type=float, default=600.0)
    args = parser.parse_args()

    db = f"sqlite:///{Path(tempfile.mkdtemp(prefix='botsdown-')) / 'store.db'}"
    taken: set[int] = set()
    ports = [_port(taken) for _ in LINEUP]
    bots = [start_bot_process(name, seed, port=port) for (name, seed), port in zip(LINEUP, ports, strict=True)]
    store = open_store(db, policy=POLICY)
    try:
        names = [register_or_update(store, f"{b.name}-{i}", b.endpoint, GrpcBotClient(b.endpoint).describe())
                 for i, b in enumerate(bots)]
        sid = create_season(store, "one-down", spec("slippery-sam"), names, [3], args.games, 7, params={"orbits": 1},
                            suspend_after_s=args.suspend_after)
        down = names[1]
        bots[1].stop()
        ids = store.seasons.next_pending(sid, 10**6)
        started = time.monotonic()
        runner = threading.Thread(target=lambda: run_local(db, ids, processes=2), daemon=True)
        runner.start()
        runner.join(args.down)
        if runner.is_alive():
            bots[1] = start_bot_process(LINEUP[1][0], LINEUP[1][1], port=ports[1])
            print(f"{down} started again after {time.monotonic() - started:.1f} s")
        runner.join()
        print(f"season done in {time.monotonic() - started:.1f} s; {down} was down first")
        print(f"{'game':>4}  {'status':10}  attempts  deferrals  table")
        games = store.game_reads.list_games(sid, limit=10**6)
        deferrals = {g.id: d for g, d in ((g, _deferrals(store, g.id)) for g in games)}
        for g in games:
            table = ", ".join(s.bot_name for s in g.seats)
            print(f"{g.number:>4}  {g.status:10}  {g.attempts:>8}  {deferrals[g.id]:>9}  {table}")
        print(dict(Counter(str(g.status) for g in games)))
        faults = sum(s.faults or 0 for g in games for s in g.seats if s.bot_name == down)
        rows = {r.name: r for r in standings_of(store, sid)}
        print(f"{down}: {rows[down].games} rated games, {faults} faults, suspended={rows[down].suspended}; "
              f"availability: {store.seasons.season_availability(sid)}")
    finally:
        for bot in bots:
            bot.stop()


def _deferrals(store, game_id: int) -> int:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from store.models import Game

    with store.engine.connect() as conn:
        return int(conn.execute(select(Game.deferrals).where(Game.id == game_id)).scalar_one())


if __name__ == "__main__":
    main()
