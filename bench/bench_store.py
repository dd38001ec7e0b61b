"""The store's own cost per game, in one process: the claim, the record's encoding and the result.

Usage: python -m bench.bench_store [--game NAME] [--games N] [--db-url URL]

A season of ``--games`` games (tables of 3 to 6 of six bots, as ``bench_season`` schedules them)
is created in a fresh SQLite file (or in ``--db-url``, e.g. a PostgreSQL database of its own:
the season is added to what is there). Each game is claimed as a worker claims it
(``claim_within_capacity``), played in this process by the reference bots (no RPC, off the
clock), and stored (``finish_game``, which encodes the record and rates the season). For each of
the three steps the thread's CPU time and the wall time are measured; the first tenth of the
games is left out (caches warming). The record's encoding (``store.replays.encode_record``) is
timed on its own too, and is part of the result's figure. Figures are milliseconds per game,
means with the median in brackets.

No other process touches the store, so the figures are the store's own work with no lock waits:
a season on the local pool adds those, and its caches are colder (``bench_season``'s "store" line).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass, field

from league.competition.seasons import create_season
from league.policy import POLICY
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.referee import play
from store import open_store
from store.replays import encode_record

from bench.lineups import LINEUPS, TABLE_SIZES


@dataclass
class Step:
    """The CPU and wall seconds of one step, per game."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    def line(self, name: str, skip: int) -> str:
        cpu, wall = self.cpu[skip:], self.wall[skip:]
        return (f"  {name:<10} CPU {1000 * statistics.mean(cpu):6.3f} ms ({1000 * statistics.median(cpu):.3f})"
                f"   wall {1000 * statistics.mean(wall):6.3f} ms ({1000 * statistics.median(wall):.3f})")


def run(url: str, game: str, games: int) -> dict[str, Step]:
    """Create the season in ``url``, then claim, play and store each game; the steps' times."""
    store = open_store(url, policy=POLICY)
    stamp = time.strftime("%Y%m%d%H%M%S")
    bots = {}
    for i, (name, seed) in enumerate(LINEUPS[game]):
        bot = f"store-bench-{stamp}-{name}-{i}"
        store.bots.register_bot(bot, f"127.0.0.1:{40000 + i}", "1", "bench", [game], 1000)
        bots[bot] = load_bot(name, seed)
    season_id = create_season(store, f"store-bench-{stamp}", spec(game), list(bots), TABLE_SIZES, games, 17)
    game_spec, params = spec(game), make_params(game, {})
    steps = {"claim": Step(), "encode": Step(), "result": Step()}

    def timed(step: Step, fn, *args):  # type: ignore[no-untyped-def]
        cpu, wall = time.thread_time(), time.perf_counter()
        out = fn(*args)
        step.cpu.append(time.thread_time() - cpu)
        step.wall.append(time.perf_counter() - wall)
        return out

    try:
        for game_id in store.seasons.next_pending(season_id, 10**7):
            claim = timed(steps["claim"], store.games.claim_within_capacity, game_id, "bench-store", 600.0)
            clients = [InProcessBotClient(bots[seat.name].act) for seat in claim.seats]
            record = play(game_spec, params, len(clients), claim.seed, clients, game_id=claim.token)
            timed(steps["encode"], encode_record, record)
            if not timed(steps["result"], store.games.finish_game, game_id, claim.attempt, record):
                raise RuntimeError(f"game {game_id} was not stored")
    finally:
        store.close()
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="slippery-sam", choices=sorted(LINEUPS), help="the game (default slippery-sam)")
    parser.add_argument("--games", type=int, default=1000, help="games in the season (default 1,000)")
    parser.add_argument("--db-url", help="the store (default: a new SQLite file)")
    args = parser.parse_args()
    if args.games < 10:
        parser.error("--games must be at least 10")
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db_url or f"sqlite:///{tmp}/store.db"
        steps = run(url, args.game, args.games)
    skip = args.games // 10
    print(f"{args.game}: the store's cost per game over games {skip + 1}-{args.games} of {args.games} "
          f"(mean, median in brackets)")
    for name, step in steps.items():
        print(step.line(name, skip) + ("   (part of the result)" if name == "encode" else ""))
    total = sum(statistics.mean(steps[name].cpu[skip:]) for name in ("claim", "result"))
    print(f"  claim + result: {1000 * total:.3f} ms of CPU per game")


if __name__ == "__main__":
    main()
