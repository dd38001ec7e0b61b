"""``ladder verify`` against an organiser who edits a ladder's finished epochs or its rating history: each epoch's
link to the previous epoch's chain head, chain heads seen before (``--head``, from the store or ``--api``) and
the stored rating snapshots against the chain (SQLite, real gRPC bots, the local pool)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import text

from cli.main import main
from league.competition.ladder import LadderRunner
from league.integrity.chain import GENESIS, link
from league.policy import POLICY
from league.ratings import elo
from store import Store, open_store
from store.chain import entry_text
from tests.a_game import GAME, SHORT, param_arg
from tests.dashboard.test_browser import serve
from tests.ladder.test_cli_ladder import cli, lite  # noqa: F401  (the fixture)


@pytest.fixture
def played(lite: str, capsys: pytest.CaptureFixture[str]) -> str:  # noqa: F811
    """A ladder ``lad`` of three epochs or more (3 games each), its games all final; its store's URL."""
    code, _, err = cli(capsys, "ladder", "create", "lad", "--game", GAME, "--tables", "3", *param_arg(SHORT),
                       "--epoch-games", "3", "--pending", "3", "--db", lite)
    assert code == 0, err
    code, out, err = cli(capsys, "ladder", "run", "lad", "--workers", "1", "--games", "10", "--db", lite)
    assert code == 0, out + err
    code, out, _ = cli(capsys, "ladder", "verify", "lad", "--db", lite)
    assert code == 0 and "0 failed" in out, out
    return lite


def _epochs(store: Store) -> list[Any]:
    ladder = store.ladders.get_ladder_by_name("lad")
    assert ladder is not None
    return store.ladders.epochs(ladder.id)


def _verify(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, list[str], str]:
    code, out, _ = cli(capsys, "ladder", "verify", "lad", "--db", url, *args)
    return code, [line for line in out.splitlines() if "MISMATCH" in line or "failed" in line], out


def _delete_a_game_and_rebuild_the_chain(store: Store, season_id: int) -> None:
    """As the organiser: remove the epoch's last game everywhere, rebuild the epoch's whole chain to match (its
    schedule, its close) and its Elo ratings from the games left, so that the epoch alone verifies."""
    with store.engine.begin() as conn:
        gid, number, status = conn.execute(text("SELECT id, number, status FROM games WHERE season_id = :s "
                                                "ORDER BY number DESC LIMIT 1"), {"s": season_id}).one()
        for table, column in (("game_seats", "game_id"), ("game_attempts", "game_id"), ("replays", "game_id"),
                              ("games", "id")):
            conn.execute(text(f"DELETE FROM {table} WHERE {column} = :g"), {"g": gid})  # noqa: S608
        rows = conn.execute(text("SELECT kind, number, entry FROM chain_entries WHERE season_id = :s ORDER BY seq"),
                            {"s": season_id}).all()
        conn.execute(text("DELETE FROM chain_entries WHERE season_id = :s"), {"s": season_id})
        previous, seq = GENESIS, 0
        for kind, entry_number, entry in rows:
            if entry_number == number:
                continue
            data = json.loads(entry)
            if kind in ("season", "schedule"):
                data["games"] = [g for g in data["games"] if g[0] != number]
            if kind == "close":
                data["games"] -= 1
                data["statuses"][status] -= 1
                data["statuses"] = {k: v for k, v in data["statuses"].items() if v}
            body = entry_text(data)
            previous = link(previous, body)
            conn.execute(text("INSERT INTO chain_entries (season_id, seq, kind, number, entry, hash) "
                              "VALUES (:s, :q, :k, :n, :e, :h)"),
                         {"s": season_id, "q": seq, "k": kind, "n": entry_number, "e": body, "h": previous})
            seq += 1
        conn.execute(text("UPDATE seasons SET chain_head = :h, chain_length = :n WHERE id = :s"),
                     {"h": previous, "n": seq, "s": season_id})
    rated = [(g.number, [seat[1] for seat in g.seats], [seat[2] for seat in g.seats])
             for g in store.seasons.stored_games(season_id) if str(g.status) == "done"]
    now, _ = elo.replay({}, rated, -1)
    with store.engine.begin() as conn:
        conn.execute(text("DELETE FROM ratings WHERE season_id = :s"), {"s": season_id})
        for bot, (rating, games) in now.items():
            conn.execute(text("INSERT INTO ratings (season_id, bot_id, elo, games, base_elo, base_games, updated_at) "
                              "VALUES (:s, :b, :e, :g, 1500, 0, CURRENT_TIMESTAMP)"),
                         {"s": season_id, "b": bot, "e": rating, "g": games})


def test_a_game_deleted_from_a_closed_middle_epoch_with_its_chain_rebuilt(played: str,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    store = open_store(played, policy=POLICY)
    try:
        epochs = _epochs(store)
        assert len(epochs) >= 3 and store.seasons.revealed_key(epochs[1].id) is not None
        seen = store.chain.chain_head(epochs[-1].id).head
        _delete_a_game_and_rebuild_the_chain(store, epochs[1].id)
    finally:
        store.close()
    code, _, out = _verify(capsys, played)
    assert code == 1, out
    assert any(f"its epoch entry names epoch {epochs[1].epoch}'s chain head" in line
               and "it was rewritten after this epoch opened" in line for line in out.splitlines()), out
    assert f"epoch {epochs[1].epoch} ({epochs[1].name}): verified" in out  # the epoch alone is consistent
    assert seen is not None and _verify(capsys, played, "--head", seen)[0] == 1


def test_heads_seen_before_from_the_store_and_from_the_api(played: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = open_store(played, policy=POLICY)
    try:
        epochs = _epochs(store)
        heads = [store.chain.chain_head(e.id).head for e in epochs]
    finally:
        store.close()
    code, lines, out = _verify(capsys, played, *[a for h in heads for a in ("--head", h)])
    assert code == 0 and f"{len(heads)} of {len(heads)} chain head(s) seen before found" in out, out
    other = "ab" * 32
    code, lines, out = _verify(capsys, played, "--head", other)
    assert code == 1 and any(f"the head {other} seen before is in no epoch's chain" in line for line in lines), out
    over = [h for e, h in zip(epochs, heads) if (e.config or {}).get("ladder_epoch", {}).get("closed")]
    with serve(played) as base:
        code, out, err = cli(capsys, "ladder", "verify", "lad", "--api", base, "--head", over[-1])
        assert code == 0 and "1 of 1 chain head(s) seen before found" in out, out + err
        assert "0 failed" in out and "rating snapshots: not checked" in out
        code, out, _ = cli(capsys, "ladder", "verify", "lad", "--api", base, "--head", other)
        assert code == 1 and f"MISMATCH chain: the head {other} seen before is in no epoch's chain" in out, out


def test_a_rating_snapshot_changed_or_removed(played: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = open_store(played, policy=POLICY)
    try:
        ladder = store.ladders.get_ladder_by_name("lad")
        assert ladder is not None
        LadderRunner(store, ladder.id).fit()  # the runner's fit: its first with rated games is stored as a snapshot
        points = store.ladders.rating_history(ladder.id)
        assert points, "the run stored no rating snapshot"
        first, last = points[0], points[-1]
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE ladder_ratings SET rating = rating + 100 WHERE entrant_id = :e AND games = :g"),
                         {"e": first.entrant_id, "g": first.games})
            if (last.entrant_id, last.games) != (first.entrant_id, first.games):
                conn.execute(text("DELETE FROM ladder_ratings WHERE entrant_id = :e AND games = :g"),
                             {"e": last.entrant_id, "g": last.games})
    finally:
        store.close()
    code, lines, out = _verify(capsys, played)
    assert code == 1 and "rating snapshots: " in out, out
    assert any(f"ratings: entrant {first.entrant_id}'s stored snapshot after {first.games} rated games" in line
               and "chained as" in line for line in lines), out
    if (last.entrant_id, last.games) != (first.entrant_id, first.games):
        assert any(f"entrant {last.entrant_id}'s snapshot after {last.games} rated games is chained" in line
                   and "no longer stored" in line for line in lines), out
