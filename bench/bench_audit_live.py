"""The duplicate audit on the real platform: remembering bots served over gRPC, seasons run by the local pool.

Usage: python -m bench.bench_audit_live [--game svara|slippery-sam] [--seasons N] [--games 96] [--workers 2]
                                        [--attackers memo,evader,thin,big] [--seed S] [--keep DIR]

``bench.bench_audit`` measures the audit on simulated seasons played in-process, one game after another. This bench
plays the same bots on the platform as a user runs it: each bot a gRPC server process of its own (capacity 4, so the
pool hands it several games at once), the season made with ``cardarena season create --duplicate --seed S`` and run
with ``cardarena season run --workers W`` (each worker process referees 2 games at once, the default), and the
verdict read from ``cardarena standings --json`` (each row's ``audit``), exactly what an organiser sees.

Per season seed, a season for each attacker named and one for their twin are played on the same key (so the same
deals, seats and orders of rotations): with
the remembering bot (``memo``: it uses what it remembers in every later rotation), with the evader (``evader``: only
in the 2nd and 3rd rotation it plays of a deal, the bot a later-less-first test misses most), with any other attacker
named (``thin``: in 30% of the decisions it could; ``big``: on large stakes only), and with their twin
(the same bot with its memory off). The three honest opponents are the bench's (``reference``, ``weaker``,
``sloppy``). The remembering bots are ``bench.bench_audit``'s (Svara's finds the deal again by its szacha, bottom card
and the hands it remembers, Slippery Sam's by the first-dealer cards) and tell games apart by the opaque game id
their requests carry.

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

from bench.bench_audit import MATCHES, Player, Restraint, honest_opponents
from botsdk.bot import Bot, Context

#: The environment variable that tells the bot processes (spawned, so they import this module afresh) the game.
GAME_ENV = "CARDARENA_BENCH_AUDIT_GAME"
#: The games with a remembering bot that finds the deal again from what it is shown.
GAMES = ("svara", "slippery-sam")
#: The three honest opponents' names (``bench.bench_audit.honest_opponents``: the reference bot, a weaker one, a sloppy one).
HONEST = ("reference", "weaker", "sloppy")


def _game() -> str:
    return os.environ.get(GAME_ENV, "svara")


@dataclass(frozen=True)
class _Game:
    """What a :class:`bench.bench_audit.Player` reads of a game: a number unique to it (here its opaque id)."""

    number: Any


class PlayerBot(Bot):
    """A bench player (``bench.bench_audit``) served as a bot: each request is answered by the player's policy for
    the request's game and seat. Subclasses set :meth:`make`."""

    version = "1.0.0"
    author = "bench"
    games = GAMES
    capacity = 4

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.player = self.make()
        self.lock = threading.Lock()

    def make(self) -> Player:
        raise NotImplementedError

    def answer(self, view: Any, ctx: Context) -> Any:
        with self.lock:  # one memory, several games at once
            return self.player.policy(ctx.seat, _Game(ctx.game_id))(view, ctx.rng)  # type: ignore[arg-type]

    def svara(self, view: Any, ctx: Context) -> Any:
        return self.answer(view, ctx)

    def slippery_sam(self, view: Any, ctx: Context) -> Any:
        return self.answer(view, ctx)


class MemoBot(PlayerBot):
    """The game's remembering bot (``bench.bench_audit.MATCHES``): it uses what it remembers in every later rotation."""

    name = "memo"

    def make(self) -> Player:
        return MATCHES[_game()][1](True)


class EvaderBot(PlayerBot):
    """The remembering bot that uses what it remembers only in the 2nd and 3rd rotation it plays of a deal."""

    name = "evader"

    def make(self) -> Player:
        player = MATCHES[_game()][1](True)
        player.only = frozenset({1, 2})  # type: ignore[attr-defined]
        return player


class ThinBot(PlayerBot):
    """The remembering bot that uses what it remembers in only 30% of the decisions it could (``Restraint(0.3)``)."""

    name = "thin"

    def make(self) -> Player:
        player = MATCHES[_game()][1](True)
        player.restraint = Restraint(0.3)  # type: ignore[attr-defined]
        return player


class BigBot(PlayerBot):
    """The remembering bot that uses what it remembers only on large stakes (``Restraint(big=0.75)``)."""

    name = "big"

    def make(self) -> Player:
        player = MATCHES[_game()][1](True)
        player.restraint = Restraint(big=0.75)  # type: ignore[attr-defined]
        return player


class TwinBot(PlayerBot):
    """The remembering bots' twin: the same code, memory off."""

    name = "twin"

    def make(self) -> Player:
        return MATCHES[_game()][1](False)


class ReferenceBot(PlayerBot):
    """The game's reference bot, as the simulated seasons play it."""

    name = "reference"

    def make(self) -> Player:
        return honest_opponents(_game())[0]


class WeakerBot(PlayerBot):
    """The simulated seasons' weaker honest bot."""

    name = "weaker"

    def make(self) -> Player:
        return honest_opponents(_game())[1]


class SloppyBot(PlayerBot):
    """The simulated seasons' bot that plays a share of its decisions at random."""

    name = "sloppy"

    def make(self) -> Player:
        return honest_opponents(_game())[2]


SERVED = {"memo": "MemoBot", "evader": "EvaderBot", "thin": "ThinBot", "big": "BigBot", "twin": "TwinBot",
          "reference": "ReferenceBot", "weaker": "WeakerBot", "sloppy": "SloppyBot"}


def _cli(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, env=env,
                          check=False)
    if done.returncode:
        raise SystemExit(f"cardarena {' '.join(args[:3])} failed ({done.returncode}):\n{done.stdout[-2000:]}\n"
                         f"{done.stderr[-2000:]}")
    return done.stdout


def play_season(game: str, name: str, bot: str, seed: int, games: int, workers: int, db: str,
                env: dict[str, str]) -> dict[str, Any]:
    """Create and run one duplicate season of ``bot`` and the honest three; returns its standings rows by bot name."""
    _cli("season", "create", name, "--game", game, "--bots", ",".join([bot, *HONEST]), "--tables", "4", "--games",
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
    parser.add_argument("--game", choices=GAMES, default="svara")
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
    os.environ[GAME_ENV] = args.game  # the bot processes inherit it
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
                rows[bot].append(play_season(args.game, f"live-{bot}-{seed}", bot, seed, args.games, args.workers, db,
                                             env))
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
            print(f"{args.game}, {bot}: gain over its twin {mean:+.1f} tokens a game [{mean - 1.96 * sd / math.sqrt(n):+.1f}, "
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
