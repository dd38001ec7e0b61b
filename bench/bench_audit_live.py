"""The duplicate audit on the real platform: remembering Svara bots served over gRPC, seasons run by the local pool.

Usage: python -m bench.bench_audit_live [--seasons N] [--games 96] [--workers 2] [--attackers memo,evader]
                                        [--seed S] [--keep DIR]

``bench.bench_audit`` measures the audit on simulated seasons played in-process, one game after another. This bench
plays the same bots on the platform as a user runs it: each bot a gRPC server process of its own (capacity 4, so the
pool hands it several games at once), the season made with ``cardarena season create --duplicate --seed S`` and run
with ``cardarena season run --workers W`` (each worker process referees 2 games at once, the default), and the
verdict read from ``cardarena standings --json`` (each row's ``audit``), exactly what an organiser sees.

Per season seed, three seasons are played on the same key (so the same deals, seats and orders of rotations): with
the remembering bot (``memo``: it uses what it remembers in every later rotation), with the evader (``evader``: only
in the 2nd and 3rd rotation it plays of a deal, the bot a later-less-first test misses most), and with their twin
(the same bot with its memory off). The three honest opponents are the bench's: ``points`` (the reference bot), a
tight one and a sloppy one. A remembering bot finds the deal again by its szacha and bottom card (rules §2) and keys
what it remembers by the opaque game id its requests carry.

Printed per attacker: its gain over its twin (tokens a game, with a 95% interval over seasons), the seasons in which
it is flagged (by which test), the seasons in which an honest bot is flagged, and the twins' seasons with any flag.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.bench_audit import BySeat, Player, RememberingSvara
from bench.bench_duplicate import bot_policy, sloppy, tight_policy
from botsdk.bot import Bot, Context

GAME = "svara"
#: bot name -> (module:Class served, what it is)
HONEST = ("points", "tight", "sloppy")


@dataclass(frozen=True)
class _Game:
    """What a :class:`bench.bench_audit.Player` reads of a game: a number unique to it (here its opaque id)."""

    number: Any


class PlayerBot(Bot):
    """A bench player (``bench.bench_audit``) served as a bot: each request is answered by the player's policy for
    the request's game and seat. Subclasses set :meth:`make`."""

    version = "1.0.0"
    author = "bench"
    games = (GAME,)
    capacity = 4

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.player = self.make()
        self.lock = threading.Lock()

    def make(self) -> Player:
        raise NotImplementedError

    def svara(self, view: Any, ctx: Context) -> Any:
        with self.lock:  # one memory, several games at once
            return self.player.policy(ctx.seat, _Game(ctx.game_id))(view, ctx.rng)  # type: ignore[arg-type]


class MemoBot(PlayerBot):
    """``points`` that remembers every hand it saw, by deal, and uses it in every later rotation."""

    name = "memo"

    def make(self) -> Player:
        return RememberingSvara(True)


class EvaderBot(PlayerBot):
    """``points`` that remembers, and uses it only in the 2nd and 3rd rotation it plays of a deal."""

    name = "evader"

    def make(self) -> Player:
        return RememberingSvara(True, only=frozenset({1, 2}))


class TwinBot(PlayerBot):
    """The remembering bots' twin: ``points`` through the same code, memory off."""

    name = "twin"

    def make(self) -> Player:
        return RememberingSvara(False)


class TightBot(PlayerBot):
    """``bench.bench_duplicate``'s tight Svara policy."""

    name = "tight"

    def make(self) -> Player:
        return BySeat(tight_policy)


class SloppyBot(PlayerBot):
    """``points`` playing a share of its decisions at random (``bench.bench_duplicate.sloppy``)."""

    name = "sloppy"

    def make(self) -> Player:
        return BySeat(lambda seat: sloppy("points", GAME, seat))


class PointsPlayerBot(PlayerBot):
    """The reference ``points`` bot, seeded per seat as the simulated seasons seed it."""

    name = "points"

    def make(self) -> Player:
        return BySeat(lambda seat: bot_policy("points", GAME, seat))


SERVED = {"memo": "MemoBot", "evader": "EvaderBot", "twin": "TwinBot", "points": "PointsPlayerBot",
          "tight": "TightBot", "sloppy": "SloppyBot"}


def _cli(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, env=env,
                          check=False)
    if done.returncode:
        raise SystemExit(f"cardarena {' '.join(args[:3])} failed ({done.returncode}):\n{done.stdout[-2000:]}\n"
                         f"{done.stderr[-2000:]}")
    return done.stdout


def play_season(name: str, bot: str, seed: int, games: int, workers: int, db: str, env: dict[str, str]) -> dict[str, Any]:
    """Create and run one duplicate season of ``bot`` and the honest three; returns its standings rows by bot name."""
    _cli("season", "create", name, "--game", GAME, "--bots", ",".join([bot, *HONEST]), "--tables", "4", "--games",
         str(games), "--duplicate", "--seed", str(seed), "--deadline", "5", "--db", db, env=env)
    _cli("season", "run", name, "--workers", str(workers), "--db", db, env=env)
    data = json.loads(_cli("standings", "--season", name, "--json", "--db", db, env=env))
    return {r["name"]: r for r in data["standings"]}


def _per_game(row: dict[str, Any]) -> float:
    return float(row["avg_change"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=10, help="season seeds (each played once per attacker and once "
                                                                  "by the twin)")
    parser.add_argument("--games", type=int, default=96)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--attackers", default="memo,evader")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="keep the store in this directory")
    args = parser.parse_args(argv)
    attackers = [a for a in args.attackers.split(",") if a]

    from cli.demo import register_or_update
    from league.policy import POLICY
    from referee.botprocess import start_bot_process
    from referee.clients import GrpcBotClient
    from store import open_store

    work = args.keep or Path(tempfile.mkdtemp(prefix="audit-live-"))
    work.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{work / 'store.db'}"
    env = {**os.environ, "CARDARENA_DB_URL": db}
    store = open_store(db, policy=POLICY)
    served = [*attackers, "twin", *HONEST]
    processes = {b: start_bot_process(f"bench.bench_audit_live:{SERVED[b]}") for b in served}
    try:
        for b, p in processes.items():
            register_or_update(store, b, p.endpoint, GrpcBotClient(p.endpoint).describe())
        rows: dict[str, list[dict[str, Any]]] = {b: [] for b in [*attackers, "twin"]}
        started = time.monotonic()
        for i in range(args.seasons):
            seed = args.seed * 1_000_003 + i
            for bot in [*attackers, "twin"]:
                rows[bot].append(play_season(f"live-{bot}-{seed}", bot, seed, args.games, args.workers, db, env))
            print(f"season seed {seed} done ({time.monotonic() - started:.0f} s)", flush=True)
        twin = [_per_game(r["twin"]) for r in rows["twin"]]
        twin_alarms = sum(any(r[b]["audit"] for b in r) for r in rows["twin"])
        for bot in attackers:
            gains = [_per_game(r[bot]) - t for r, t in zip(rows[bot], twin)]
            n = len(gains)
            mean = sum(gains) / n
            sd = math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1)) if n > 1 else 0.0
            flagged = sum(bool(r[bot]["audit"]) for r in rows[bot])
            tests: dict[str, int] = {}
            for r in rows[bot]:
                for line in r[bot]["audit"]:
                    key = line.split(":")[0]
                    tests[key] = tests.get(key, 0) + 1
            honest = sum(any(r[h]["audit"] for h in HONEST) for r in rows[bot])
            print(f"{bot}: gain over its twin {mean:+.1f} tokens a game [{mean - 1.96 * sd / math.sqrt(n):+.1f}, "
                  f"{mean + 1.96 * sd / math.sqrt(n):+.1f}] over {n} seasons of {args.games} games; flagged in "
                  f"{flagged}/{n} ({', '.join(f'{k} {v}' for k, v in sorted(tests.items())) or 'no test'}); an honest "
                  f"bot of its seasons flagged in {honest}/{n}")
        print(f"twin seasons with any flag: {twin_alarms}/{len(rows['twin'])}; store {db}")
        return 0
    finally:
        for p in processes.values():
            p.stop()
        store.close()


# Only when run: each bot process is spawned and imports this module again.
if __name__ == "__main__":
    random.seed(0)
    sys.exit(main())
