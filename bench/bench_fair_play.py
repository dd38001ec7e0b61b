"""A hostile bot that reads the platform's public API while it plays: can it learn the cards?

The cheater is the ``odds`` bot plus one trick. At each bet it reads the
dashboard's JSON API (every season, game, live replay and bot), collects every
integer it finds, and tries each as the seed of its own game, and as a season
seed from which the schedule's game seeds follow (``league.schedule``). A
candidate is confirmed when the referee's shuffles from it reproduce the
cards it can see (its hand and the stack cards turned so far); then it knows
the next stack card and bets the most it may when it wins and the least when
it loses. An honest copy (the plain ``odds`` bot) plays the same season.

Prints, for one Slippery Sam season against the reference bots: the bets in
which the cheater knew the card, and both bots' standings with their 95%
intervals. With secret deal seeds (rules §0.2) it never knows, and the two
rows agree within their intervals.

    python -m bench.bench_fair_play [--games 120]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from botsdk.bot import Context
from referee.games.slippery_sam.bots import OddsBot
from cardarena.v1 import slippery_sam_pb2 as pb
from league.policy import POLICY
from league.standings import standings_of

API_ENV = "CARDARENA_BENCH_API"
#: Where the cheater records what it learned, one JSON line per bet.
LOG_ENV = "CARDARENA_BENCH_LOG"
_INT = re.compile(r"(?<![\w.])\d{6,19}(?![\w.])")


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.loads(answer.read())


def _ints(value: Any) -> set[int]:
    """Every integer in a JSON document, also inside strings (a seed shown as text)."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):
        return {int(x) for x in _INT.findall(value)}
    if isinstance(value, dict):
        return set().union(*(_ints(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_ints(v) for v in value)) if value else set()
    return set()


def _shuffles(seed: int, count: int) -> list[list[str]]:
    """The first ``count`` shuffles the referee makes from ``seed`` (every Slippery Sam chance event is one)."""
    from referee.games.slippery_sam.rules import PACK

    rng = random.Random(seed)
    return [rng.sample(PACK, len(PACK)) for _ in range(count)]


class Cheater(OddsBot):
    """The odds bot that tries every number the public API shows as its game's seed."""

    name = "cheater"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.api = os.environ.get(API_ENV, "")
        self.known: dict[str, int | None] = {}

    def _candidates(self, game_id: str) -> set[int]:
        numbers: set[int] = set()
        season_id = game_id.split("/")[0]
        pages = [f"/api/v1/seasons/{season_id}", f"/api/v1/games?season_id={season_id}&limit=1000", "/api/v1/seasons",
                 "/api/v1/bots"]
        try:
            for game in _get(self.api + f"/api/v1/games?season_id={season_id}&limit=1000"):
                pages += [f"/api/v1/games/{game['id']}", f"/api/v1/replays/{game['id']}"]
        except Exception:  # noqa: BLE001  (an unreachable API: nothing to learn)
            pass
        for page in pages:
            try:
                numbers.update(_ints(_get(self.api + page)))
            except Exception:  # noqa: BLE001  (a 403/404/409 is an answer too: nothing in it)
                continue
        return {n for n in numbers if 0 <= n < 2**63}

    def _seed_of(self, game_id: str, view: pb.SlipperySamView) -> int | None:
        if game_id in self.known:
            return self.known[game_id]
        first = list(view.first_dealer_cards)
        found = None
        for candidate in self._candidates(game_id):
            for seed in [candidate, *self._schedule_seeds(game_id, candidate)]:
                if _shuffles(seed, 1)[0][:len(first)] == first:
                    found = seed
                    break
            if found is not None:
                break
        self.known[game_id] = found
        return found

    def _schedule_seeds(self, game_id: str, season_seed: int) -> list[int]:
        """The game seed the schedule would give game ``game_id`` if ``season_seed`` were the season's seed."""
        from league.schedule import build_schedule

        try:
            season_id, number = game_id.split("/")
            season = _get(self.api + f"/api/v1/seasons/{season_id}")
            bots = {b["name"]: b["id"] for b in _get(self.api + "/api/v1/bots")}
            config = season.get("config") or {}
            ids = [bots[n] for n in config.get("bots", [])]
            schedule = build_schedule(ids, config["table_sizes"], config["games_requested"], season_seed,
                                      config.get("duplicate", False))
            return [schedule[int(number)].seed]
        except Exception:  # noqa: BLE001  (not a season seed, or no config shown)
            return []

    def slippery_sam(self, view: pb.SlipperySamView, ctx: Context) -> pb.SlipperySamAction:
        honest = super().slippery_sam(view, ctx)
        if view.decision != pb.SLIPPERY_SAM_DECISION_BET or not self.api:
            return honest
        seed = self._seed_of(ctx.game_id, view)
        card = self._next_card(seed, view) if seed is not None else None
        self._log({"game": ctx.game_id, "knew": card is not None, "card": card, "hand": sorted(view.hand),
                   "turned": list(view.turned)})
        if card is None:
            return honest
        wins = any(c[1] == card[1] and "23456789TJQKA".index(c[0]) > "23456789TJQKA".index(card[0]) for c in view.hand)
        return pb.SlipperySamAction(amount=view.max_amount if wins else view.min_amount)

    @staticmethod
    def _next_card(seed: int, view: pb.SlipperySamView) -> str | None:
        n = len(view.tokens)
        players = [s for s in ((view.dealer + k) % n for k in range(1, n)) if not view.out[s]]
        for order in _shuffles(seed, 200)[1:]:
            dealt, stack = order[:3 * len(players)], order[3 * len(players):]
            if set(view.hand) <= set(dealt) and stack[:len(view.turned)] == list(view.turned):
                return stack[len(view.turned)]
        return None

    @staticmethod
    def _log(entry: dict[str, Any]) -> None:
        path = os.environ.get(LOG_ENV)
        if path:
            with open(path, "a") as out:
                out.write(json.dumps(entry) + "\n")


def _next_cards(store: Any, season_id: int) -> dict[tuple[str, tuple[str, ...], tuple[str, ...]], str]:
    """From the stored replays: (game id, a bettor's sorted hand, the cards turned before his bet) -> the card turned."""
    out: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str] = {}
    for game in store.list_games(season_id, limit=10**6):
        record = store.get_replay(game.id)
        if record is None:
            continue
        hands: dict[int, tuple[str, ...]] = {}
        turned: list[str] = []
        for event in record.events:
            kind, data = event["kind"], event["data"]
            if kind == "deal":
                hands, turned = {}, []
            elif kind == "hand":
                hands[data["seat"]] = tuple(sorted(data["cards"]))
            elif kind == "turn":
                out[(record.game_id, hands.get(data["seat"], ()), tuple(turned))] = data["card"]
                turned.append(data["card"])
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, env=env, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120)
    args = parser.parse_args()

    from referee.botprocess import start_bot_process
    from cli.demo import register_or_update
    from referee.clients import GrpcBotClient
    from store import open_store

    work = Path(tempfile.mkdtemp(prefix="fairplay-"))
    db = f"sqlite:///{work / 'store.db'}"
    port = _free_port()
    log = work / "cheater.jsonl"
    env = {**os.environ, API_ENV: f"http://127.0.0.1:{port}", LOG_ENV: str(log), "CARDARENA_DB_URL": db}
    os.environ.update({API_ENV: env[API_ENV], LOG_ENV: str(log)})  # the bot processes inherit them
    store = open_store(db, policy=POLICY)
    server = subprocess.Popen([sys.executable, "-m", "cli.main", "server", "--port", str(port), "--grpc-port",
                               str(_free_port()), "--db", db], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bots = [start_bot_process("bench.bench_fair_play:Cheater"), start_bot_process("odds"),
            start_bot_process("odds", 1), start_bot_process("random", 1)]
    try:
        names = [register_or_update(store, n, b.endpoint, GrpcBotClient(b.endpoint).describe())
                 for n, b in zip(("cheater", "honest", "odds", "random"), bots, strict=True)]
        for _ in range(100):  # the dashboard answers
            try:
                _get(env[API_ENV] + "/api/v1/seasons")
                break
            except Exception:  # noqa: BLE001
                time.sleep(0.2)
        made = _cli("season", "create", "fair", "--game", "slippery-sam", "--bots", ",".join(names), "--tables", "3,4",
                    "--games", str(args.games), "--db", db, env=env)
        if made.returncode:
            raise SystemExit(made.stderr)
        started = time.monotonic()
        ran = _cli("season", "run", "fair", "--db", db, "--workers", "2", env=env)
        print(ran.stdout[-4000:], ran.stderr[-2000:])
        entries = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        season = store.get_season_by_name("fair")
        actual = _next_cards(store, season.id)  # type: ignore[union-attr]
        guessed = [e for e in entries if e["knew"]]
        right = sum(actual.get((e["game"], tuple(e["hand"]), tuple(e["turned"]))) == e["card"] for e in guessed)
        print(f"season of {args.games} games in {time.monotonic() - started:.0f} s; the cheater found a seed that fits "
              f"what it saw in {len(guessed)} of {len(entries)} bets ({len({e['game'] for e in guessed})} games); "
              f"the card it then expected was the card turned in {right} of them")
        for row in standings_of(store, season.id):  # type: ignore[union-attr]
            if row.name in ("cheater", "honest"):
                print(f"{row.name:8} games {row.games:4}  avg place {row.avg_place:.2f}  avg change {row.avg_change:+.1f}  "
                      f"ML {row.ml_rating:.0f} [{row.ml_low:.0f}, {row.ml_high:.0f}]")
    finally:
        for bot in bots:
            bot.stop()
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
