"""The luck audit (league.integrity.eprocess) on a real store: a season (no shared deals) of a game with luck
terms played by the referee with a seed predictor of our own (``bench.bench_luck_audit``'s: it knows every chance
card) among honest bots; its flag and wealth in the standings rows, the JSON API, the season page,
`cardarena standings --json` and `cardarena season verify`; and an honest season that shows a clean luck audit."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from cardarena.v1 import bot_pb2
from fastapi.testclient import TestClient

from bench.bench_audit import honest_opponents
from bench.bench_luck_audit import PREDICTORS
from config import Settings
from dashboard.main import create_app
from league.competition.schedule import ScheduledGame
from league.competition.seasons import create_season
from league.competition.standings import standings_json, standings_of
from league.policy import POLICY
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.games.conformance import conformance
from referee.referee import play
from store import open_store
from tests.a_game import game_with

ROOT = Path(__file__).parents[2]
BOTS = ("seer", "strong", "weaker", "sloppy")


def lucky_game() -> str:
    """A game with luck terms and a seed predictor in ``bench.bench_luck_audit``."""
    return game_with(lambda s: s.luck_terms is not None and s.name in PREDICTORS, "with luck terms and a predictor")


def _policy_client(game: str, policy):
    rng = random.Random(0)
    field = spec(game).proto_field
    return InProcessBotClient(lambda req: bot_pb2.ActResponse(**{field: policy(getattr(req, field), rng)}))


def _play_season(store, name: str, predict: bool, games: int = 32) -> int:
    """A season of 4 bots at tables of 4, every game played by the referee and stored: the seed predictor (or the
    game's strong reference bot in its place), the strong bot, and ``bench.bench_audit``'s weaker and sloppy bots."""
    game = lucky_game()
    params = dict(conformance(game).short_params)
    for i, bot in enumerate(BOTS):
        if store.bots.get_bot_by_name(bot) is None:
            store.bots.register_bot(bot, f"127.0.0.1:{7100 + i}", "1.0", "tests", [game])
    sid = create_season(store, name, spec(game), list(BOTS), [4], games, seed=23, params=params)
    names = {store.bots.get_bot_by_name(n).id: n for n in BOTS}
    seer = PREDICTORS[game]()
    _, weaker, sloppy = honest_opponents(game)
    for row in store.game_reads.list_games(sid):
        claim = store.games.claim_game(row.id, "test", 60)
        assert claim is not None
        scheduled = ScheduledGame(row.number, claim.seed, tuple(s.bot_id for s in claim.seats), row.number)
        clients = []
        for seat, s in enumerate(claim.seats):
            who = names[s.bot_id]
            if who == "seer" and predict:
                clients.append(_policy_client(game, seer.policy(seat, scheduled)))
            elif who in ("strong", "seer"):
                clients.append(InProcessBotClient(load_bot(conformance(game).strong_bot, seat).act))
            else:
                clients.append(_policy_client(game, (weaker if who == "weaker" else sloppy).policy(seat, scheduled)))
        record = play(spec(game), make_params(game, params), 4, claim.seed, clients, game_id=f"{sid}/{row.number}")
        assert store.games.finish_game(row.id, claim.attempt, record)
    assert seer.known > 0 or not predict
    return sid


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, env={"COLUMNS": "250", "PATH": ""})


def test_a_seed_predictor_is_flagged_everywhere_the_standings_are_shown(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'seer.db'}"
    store = open_store(url, policy=POLICY)
    sid = _play_season(store, "seer", predict=True)
    seer = store.bots.get_bot_by_name("seer").id
    rows = {r.bot_id: r for r in standings_of(store, sid)}
    assert [line for line in rows[seer].audit if line.startswith("luck: wealth ")]
    assert rows[seer].luck_wealth >= rows[seer].luck_bar == 400
    assert all(not r.audit and r.luck_wealth < r.luck_bar for b, r in rows.items() if b != seer)
    as_json = {r["bot_id"]: r for r in standings_json(standings_of(store, sid))}
    assert as_json[seer]["audit"] == list(rows[seer].audit) and as_json[seer]["luck_bar"] == 400

    with TestClient(create_app(Settings(db_url=url, latency_games=50))) as client:
        api = {row["bot_id"]: row for row in client.get(f"/api/v1/seasons/{sid}/standings").json()}
        assert api[seer]["audit"] == list(rows[seer].audit)
        assert all(row["audit"] == [] and row["luck_wealth"] is not None for b, row in api.items() if b != seer)
        page = client.get(f"/seasons/{sid}").text
        assert 'id="luck-audit"' in page and "seer: luck: wealth" in page and 'id="luck-wealth"' in page
        assert "Duplicate audit" not in page
        bot_page = client.get(f"/bots/{seer}?season_id={sid}").text
        assert 'id="bot-audit"' in bot_page and "luck: wealth" in bot_page
        other = next(b for b in rows if b != seer)
        clean = client.get(f"/bots/{other}?season_id={sid}").text
        assert 'id="bot-audit"' in clean and "Luck audit: its luck test martingale" in clean and "luck: wealth" not in clean

    out = _cli("standings", "--season", "seer", "--db", url, "--json")
    by_bot = {row["bot_id"]: row for row in json.loads(out.stdout)["standings"]}
    assert by_bot[seer]["audit"] == list(rows[seer].audit)
    verify = _cli("season", "verify", "seer", "--db", url)
    assert "Luck audit FLAG: seer: luck: wealth" in verify.stdout, verify.stdout + verify.stderr
    assert "Duplicate audit" not in verify.stdout
    store.close()


def test_an_honest_season_shows_a_clean_luck_audit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'honest.db'}"
    store = open_store(url, policy=POLICY)
    sid = _play_season(store, "honest", predict=False)
    rows = standings_json(standings_of(store, sid))
    assert all(r["audit"] == [] and 1e-3 < r["luck_wealth"] < r["luck_bar"] for r in rows)
    with TestClient(create_app(Settings(db_url=url, latency_games=50))) as client:
        page = client.get(f"/seasons/{sid}").text
        assert 'id="luck-wealth"' in page and 'id="luck-audit"' not in page
    verify = _cli("season", "verify", "honest", "--db", url)
    assert "Luck audit: no bot's luck test martingale reached its bar" in verify.stdout, verify.stdout + verify.stderr
    store.close()
