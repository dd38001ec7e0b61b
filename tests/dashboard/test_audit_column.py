"""The duplicate audit on a real store: a duplicate season of a game with a luck estimator played by the
referee with a remembering bot of our own (``bench.bench_audit``'s, for that game) among honest ones; its flag
in the standings rows, the JSON API, the season page, `cardarena standings` (table and --json) and
`cardarena season verify`."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from cardarena.v1 import bot_pb2
from fastapi.testclient import TestClient

from bench.bench_audit import MATCHES, honest_opponents
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
BOTS = ("memo", "strong", "weaker", "sloppy")


def audited_game() -> str:
    """A game with a luck estimator (the audit's luck test) and a remembering bot in ``bench.bench_audit``."""
    return game_with(lambda s: s.luck is not None and s.name in MATCHES, "with a luck estimator and a remembering bot")


def _policy_client(game: str, policy):
    """An in-process client answering ``game``'s views with a ``(view, rng) -> action`` policy."""
    rng = random.Random(0)
    field = spec(game).proto_field
    return InProcessBotClient(lambda req: bot_pb2.ActResponse(**{field: policy(getattr(req, field), rng)}))


def _play_season(store, name: str, remember: bool) -> int:
    """A 64-game duplicate season of 4 bots (16 deal groups) of :func:`audited_game` (its very short
    parameters), every game played and stored: the remembering bot (or its twin), the game's strong
    reference bot, and the bench's weaker and sloppy honest bots."""
    game = audited_game()
    params = dict(conformance(game).short_params)
    for i, bot in enumerate(BOTS):
        if store.bots.get_bot_by_name(bot) is None:
            store.bots.register_bot(bot, f"127.0.0.1:{7000 + i}", "1.0", "tests", [game])
    sid = create_season(store, name, spec(game), list(BOTS), [4], 64, seed=17, duplicate=True, params=params)
    names = {store.bots.get_bot_by_name(n).id: n for n in BOTS}
    memo = MATCHES[game][1](remember)
    _, weaker, sloppy = honest_opponents(game)
    deals = {number: group for _, number, group, _, _ in store.seasons.season_deals(sid)}
    for row in store.game_reads.list_games(sid):
        claim = store.games.claim_game(row.id, "test", 60)
        assert claim is not None
        scheduled = ScheduledGame(row.number, claim.seed, tuple(s.bot_id for s in claim.seats), deals[row.number])
        clients = []
        for seat, s in enumerate(claim.seats):
            who = names[s.bot_id]
            if who == "memo":
                clients.append(_policy_client(game, memo.policy(seat, scheduled)))
            elif who == "strong":
                clients.append(InProcessBotClient(load_bot(conformance(game).strong_bot, seat).act))
            else:
                clients.append(_policy_client(game, (weaker if who == "weaker" else sloppy).policy(seat, scheduled)))
        record = play(spec(game), make_params(game, params), 4, claim.seed, clients, game_id=claim.token)
        assert store.games.finish_game(row.id, claim.attempt, record)
        learn = getattr(memo, "learn", None)  # a bot told every deal once played (bench.bench_audit)
        if learn is not None:
            learn(scheduled, record.events)
    assert memo.known > 0 or not remember
    return sid


def test_a_remembering_bot_is_flagged_everywhere_the_standings_are_shown(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'dup.db'}"
    store = open_store(url, policy=POLICY)
    sid = _play_season(store, "dup-memo", remember=True)
    memo = store.bots.get_bot_by_name("memo").id
    rows = {r.bot_id: r for r in standings_of(store, sid)}
    assert rows[memo].audit and all(not r.audit for b, r in rows.items() if b != memo)
    assert any(line.startswith("luck in later rotations: +") for line in rows[memo].audit)
    as_json = {r["bot_id"]: r for r in standings_json(standings_of(store, sid))}
    assert as_json[memo]["audit"] == list(rows[memo].audit)
    assert all(r["audit"] == [] for b, r in as_json.items() if b != memo)

    with TestClient(create_app(Settings(db_url=url, latency_games=50))) as client:
        api = {row["bot_id"]: row for row in client.get(f"/api/v1/seasons/{sid}/standings").json()}
        assert api[memo]["audit"] == list(rows[memo].audit)
        assert all(row["audit"] == [] for b, row in api.items() if b != memo)
        page = client.get(f"/seasons/{sid}").text
        assert 'id="audit"' in page and "audit flag" in page and "memo: luck in later rotations" in page

    cli = [sys.executable, "-m", "cli.main"]
    out = subprocess.run([*cli, "standings", "--season", "dup-memo", "--db", url, "--json"], capture_output=True,
                         text=True, timeout=300, cwd=ROOT, check=True).stdout
    by_bot = {row["bot_id"]: row for row in json.loads(out)["standings"]}
    assert by_bot[memo]["audit"] and by_bot[memo]["audit"] == list(rows[memo].audit)
    table = subprocess.run([*cli, "standings", "--season", "dup-memo", "--db", url], capture_output=True, text=True,
                           timeout=300, cwd=ROOT, check=True, env={"COLUMNS": "250", "PATH": ""}).stdout
    assert "Duplicate audit FLAG: memo: luck in later rotations" in table
    verify = subprocess.run([*cli, "season", "verify", "dup-memo", "--db", url], capture_output=True, text=True,
                            timeout=600, cwd=ROOT, env={"COLUMNS": "250", "PATH": ""})
    assert "Duplicate audit FLAG: memo:" in verify.stdout, verify.stdout + verify.stderr
    store.close()


def test_an_honest_duplicate_season_shows_a_clean_audit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'honest.db'}"
    store = open_store(url, policy=POLICY)
    sid = _play_season(store, "dup-honest", remember=False)
    assert all(r["audit"] == [] for r in standings_json(standings_of(store, sid)))
    with TestClient(create_app(Settings(db_url=url, latency_games=50))) as client:
        assert all(row["audit"] == [] for row in client.get(f"/api/v1/seasons/{sid}/standings").json())
        page = client.get(f"/seasons/{sid}").text
        assert 'id="audit"' in page and "Duplicate audit: no bot did better" in page and "audit flag" not in page
    store.close()
