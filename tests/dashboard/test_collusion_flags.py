"""The collusion screen on a real store: a season of the game of ``bench.bench_collusion`` played by the referee with
a hand-sharing pair of our own among honest bots; the flag on both partners in the standings rows, the JSON API, the
season page, `cardarena standings` and `cardarena season verify`; and the same season without the sharing, clean."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from cardarena.v1 import bot_pb2
from fastapi.testclient import TestClient

from bench.bench_collusion import GAME, Team, attack
from config import Settings
from dashboard.main import create_app
from league.competition.schedule import ScheduledGame
from league.competition.seasons import create_season
from league.competition.standings import standings_json, standings_of
from league.policy import POLICY
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.referee import play
from store import open_store

ROOT = Path(__file__).parents[2]
BOTS = ("ann", "bob", "p1", "p2", "p3")  # ann and bob are the pair (bench.bench_collusion.attack's bots 0 and 1)
GAMES = 100


def _policy_client(policy):
    rng = random.Random(0)
    field = spec(GAME).proto_field
    return InProcessBotClient(lambda req: bot_pb2.ActResponse(**{field: policy(getattr(req, field), rng)}))


def _play_season(store, name: str, colluding: bool) -> int:
    """A season of 5 bots at tables of 5, every game played by the referee and stored."""
    for i, bot in enumerate(BOTS):
        if store.bots.get_bot_by_name(bot) is None:
            store.bots.register_bot(bot, f"127.0.0.1:{7100 + i}", "1.0", "tests", [GAME])
    sid = create_season(store, name, spec(GAME), list(BOTS), [5], GAMES, seed=23)
    index = {store.bots.get_bot_by_name(n).id: i for i, n in enumerate(BOTS)}
    players = attack("soft", Team(), colluding)
    params = make_params(GAME, {})
    for row in store.game_reads.list_games(sid):
        claim = store.games.claim_game(row.id, "test", 60)
        assert claim is not None
        seats = tuple(index[s.bot_id] for s in claim.seats)
        scheduled = ScheduledGame(row.number, claim.seed, seats, row.number)
        clients = [_policy_client(players[b].policy(seat, scheduled)) for seat, b in enumerate(seats)]
        record = play(spec(GAME), params, 5, claim.seed, clients, game_id=f"{sid}/{row.number}")
        assert store.games.finish_game(row.id, claim.attempt, record)
    return sid


def test_a_hand_sharing_pair_is_flagged_on_both_everywhere_the_standings_are_shown(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'team.db'}"
    store = open_store(url, policy=POLICY)
    sid = _play_season(store, "team", colluding=True)
    ann, bob = store.bots.get_bot_by_name("ann").id, store.bots.get_bot_by_name("bob").id
    rows = {r.bot_id: r for r in standings_of(store, sid)}
    assert any(line.startswith("team play with bob: ") for line in rows[ann].audit)
    assert any(line.startswith("team play with ann: ") for line in rows[bob].audit)
    assert all(not r.audit for b, r in rows.items() if b not in (ann, bob))
    as_json = {r["bot_id"]: r for r in standings_json(list(rows.values()))}  # the rows above: one screen, not two
    assert as_json[ann]["audit"] == list(rows[ann].audit)

    with TestClient(create_app(Settings(db_url=url, latency_games=50))) as client:
        api = {row["bot_id"]: row for row in client.get(f"/api/v1/seasons/{sid}/standings").json()}
        assert api[bob]["audit"] == list(rows[bob].audit)
        page = client.get(f"/seasons/{sid}").text
        assert 'id="collusion"' in page and 'href="#collusion"' in page and "ann: team play with bob" in page

    cli = [sys.executable, "-m", "cli.main"]
    out = subprocess.run([*cli, "standings", "--season", "team", "--db", url, "--json"], capture_output=True,
                         text=True, timeout=300, cwd=ROOT, check=True).stdout
    by_bot = {row["bot_id"]: row for row in json.loads(out)["standings"]}
    assert by_bot[ann]["audit"] == list(rows[ann].audit)
    verify = subprocess.run([*cli, "season", "verify", "team", "--db", url], capture_output=True, text=True,
                            timeout=600, cwd=ROOT, env={"COLUMNS": "250", "PATH": ""})
    assert "Collusion screen FLAG: ann: team play with bob" in verify.stdout, verify.stdout + verify.stderr
    assert "Collusion screen FLAG: bob: team play with ann" in verify.stdout
    store.close()


def test_the_same_bots_not_sharing_show_a_clean_screen(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'clean.db'}"
    store = open_store(url, policy=POLICY)
    sid = _play_season(store, "clean", colluding=False)
    assert all(r["audit"] == [] for r in standings_json(standings_of(store, sid)))
    with TestClient(create_app(Settings(db_url=url, latency_games=50))) as client:
        page = client.get(f"/seasons/{sid}").text
        assert 'id="collusion"' in page and "Collusion screen: no two bots played as a team" in page
        assert "audit flag" not in page
    store.close()


def _play_ladder(store, name: str, colluding: bool, epoch_games: int = GAMES) -> tuple[int, list[int]]:
    """A ladder of the 5 bots at tables of 5, its runner refilled and every game played by the referee, until its
    first epoch is over (closed, every game final, its key published); ``(ladder id, games per epoch-1 check)``:
    the number of collusion lines seen while the first epoch was still open, after each of its games."""
    from league.competition.ladder import LadderRunner, create_ladder, ladder_standings

    for i, bot in enumerate(BOTS):
        if store.bots.get_bot_by_name(bot) is None:
            store.bots.register_bot(bot, f"127.0.0.1:{7100 + i}", "1.0", "tests", [GAME])
    lid = create_ladder(store, name, spec(GAME), [5], epoch_games=epoch_games, window=1)
    index = {store.bots.get_bot_by_name(n).id: i for i, n in enumerate(BOTS)}
    players = attack("soft", Team(), colluding)
    params = make_params(GAME, {})
    runner = LadderRunner(store, lid)
    seen_open = []
    first = None
    for _ in range(3 * epoch_games):
        runner.refill()
        first = first or store.ladders.epochs(lid)[0].id
        if store.seasons.revealed_key(first) is not None:
            return lid, seen_open
        for epoch in store.ladders.epochs(lid):
            for gid in store.seasons.next_pending(epoch.id, limit=100):
                row = store.game_reads.get_game(gid)
                claim = store.games.claim_game(gid, "test", 60)
                assert claim is not None
                seats = tuple(index[s.bot_id] for s in claim.seats)
                scheduled = ScheduledGame(row.number, claim.seed, seats, row.number)
                clients = [_policy_client(players[b].policy(seat, scheduled)) for seat, b in enumerate(seats)]
                record = play(spec(GAME), params, 5, claim.seed, clients, game_id=f"{epoch.id}/{row.number}")
                assert store.games.finish_game(gid, claim.attempt, record)
        if store.seasons.revealed_key(first) is None and len(seen_open) < 3:
            seen_open.append(sum(len(r.collusion) for r in ladder_standings(store, lid)))
    raise AssertionError("the ladder's first epoch never ended")


def test_a_hand_sharing_pair_on_a_ladder_is_flagged_on_both_once_its_epoch_is_over(tmp_path: Path) -> None:
    """Rules §5.6: an epoch is screened once, when it is over; the flag names the epoch and the partner's version and
    shows in `ladder standings` (table and JSON) and on the ladder page."""
    from league.competition.ladder import ladder_standings, standings_json

    url = f"sqlite:///{tmp_path / 'team-ladder.db'}"
    store = open_store(url, policy=POLICY)
    lid, seen_open = _play_ladder(store, "team-lad", colluding=True)
    assert seen_open and not any(seen_open)  # the open epoch is not screened
    rows = {r.name: r for r in ladder_standings(store, lid)}
    assert any(line.startswith("epoch 1: team play with bob@1.0: ") for line in rows["ann"].collusion)
    assert any(line.startswith("epoch 1: team play with ann@1.0: ") for line in rows["bob"].collusion)
    assert set(rows["ann"].collusion) <= set(rows["ann"].audit)
    assert all(not r.collusion for name, r in rows.items() if name not in ("ann", "bob"))
    as_json = {r["name"]: r for r in standings_json(list(rows.values()))}
    assert as_json["bob"]["collusion"] == list(rows["bob"].collusion) and as_json["bob"]["audit"]

    with TestClient(create_app(Settings(db_url=url, latency_games=500))) as client:
        page = client.get("/ladders/team-lad").text
        assert 'id="collusion"' in page and "ann@1.0: epoch 1: team play with bob@1.0" in page
        api = {row["name"]: row for row in client.get("/api/v1/ladders/team-lad/audit").json()["entrants"]}
        assert api["ann"]["collusion"] == list(rows["ann"].collusion) and api["bob"]["collusion"]
        assert all(not row["collusion"] for name, row in api.items() if name not in ("ann", "bob"))
    cli = [sys.executable, "-m", "cli.main"]
    out = subprocess.run([*cli, "ladder", "standings", "team-lad", "--db", url], capture_output=True, text=True,
                         timeout=300, cwd=ROOT, env={"COLUMNS": "250", "PATH": ""})
    assert "Collusion screen FLAG: ann@1.0: epoch 1: team play with bob@1.0" in out.stdout, out.stdout + out.stderr
    store.close()


def test_the_same_bots_on_a_ladder_not_sharing_are_not_flagged(tmp_path: Path) -> None:
    from league.competition.ladder import ladder_standings

    url = f"sqlite:///{tmp_path / 'clean-ladder.db'}"
    store = open_store(url, policy=POLICY)
    lid, _ = _play_ladder(store, "clean-lad", colluding=False)
    assert all(not r.collusion for r in ladder_standings(store, lid))
    with TestClient(create_app(Settings(db_url=url, latency_games=500))) as client:
        assert 'id="collusion"' not in client.get("/ladders/clean-lad").text
        audit = client.get("/api/v1/ladders/clean-lad/audit").json()
        assert audit["computing"] is False and all(not row["collusion"] for row in audit["entrants"])
        assert client.get("/api/v1/ladders/no-such-ladder/audit").status_code == 404
    store.close()
