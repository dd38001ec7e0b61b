"""Spectators follow a running game: the worker's heartbeat stores its public progress, and
nothing else, until the game is stored (or voided), when the progress is cleared."""

from __future__ import annotations

import threading
import time

from dashboard.replays import load_replay
from league.competition.seasons import create_season
from referee.games import spec
from store import GameStatus, Store
from tests.a_game import GAME, QUICK
from tests.workers.test_claims import Slow, store  # noqa: F401  (the SQLite/PostgreSQL store fixture)
from workers.service import Outcome, run_game


def test_a_running_game_shows_its_public_events_as_they_happen(store: Store, bot_server) -> None:  # noqa: F811
    names = []
    for i in range(3):
        store.bots.register_bot(f"slow{i}", bot_server(Slow(seed=i), threads=4), "1", "t", [GAME], capacity=4)
        names.append(f"slow{i}")
    season_id = create_season(store, "live", spec(GAME), names, [3], 1, 1, params=dict(QUICK))
    (game_id,) = store.seasons.next_pending(season_id, 1)
    results = []
    worker = threading.Thread(target=lambda: results.append(run_game(store, game_id, lease_s=1.0)))
    worker.start()
    seen: list[list[dict]] = []
    try:
        while worker.is_alive():
            live = store.replays.live_record(game_id)
            if live is not None and (not seen or live["events"] != seen[-1]):
                seen.append(live["events"])
                replay = load_replay(store, game_id)  # what the dashboard shows of it now
                after = store.replays.live_record(game_id)
                if replay.game.status != GameStatus.RUNNING:
                    # stored between the two reads: the page shows the whole record from then on
                    assert replay.game.status == GameStatus.DONE and not replay.public_only
                    break
                assert replay.public_only and replay.record["decisions"] == [] and replay.record["results"] == []
                # the heartbeat may store newer progress meanwhile: the page shows a snapshot between the two reads
                shown = replay.record["events"]
                assert shown[:len(live["events"])] == live["events"]
                assert after is None or after["events"][:len(shown)] == shown
            time.sleep(0.05)
    finally:
        worker.join(120)
    assert results and results[0].outcome == Outcome.DONE
    assert len(seen) >= 3, "the progress was stored several times while the game ran"
    final = [e for e in store.replays.get_replay(game_id).events if e["visible_to"] is None]
    private = [e for e in store.replays.get_replay(game_id).events if e["visible_to"] is not None]
    assert private, "the game had private events (dealt cards)"
    for events in seen:
        assert all(e["visible_to"] is None for e in events)
        assert events == final[:len(events)]  # the public events so far, in order, nothing else
    assert len(seen[-1]) > len(seen[0])
    # stored: the progress is gone and the full record is what the dashboard shows
    assert store.game_reads.get_game(game_id).status == GameStatus.DONE and store.replays.live_record(game_id) is None
    assert load_replay(store, game_id).public_only is False


def test_a_voided_attempt_leaves_no_progress_behind(store: Store) -> None:  # noqa: F811
    for name in ("a", "b", "c"):
        store.bots.register_bot(name, "127.0.0.1:1", "1", "t", [GAME])
    season_id = create_season(store, "void", spec(GAME), ["a", "b", "c"], [3], 1, 1)
    (game_id,) = store.seasons.next_pending(season_id, 1)
    claim = store.games.claim_game(game_id, "w", 60)
    assert claim is not None
    progress = {"game": GAME, "events": [{"kind": "ante", "data": {}, "visible_to": None}], "faults": []}
    assert store.games.renew_lease(game_id, claim.attempt, 60, live=progress)
    assert store.replays.live_record(game_id) == progress
    store.games.void_game(game_id, claim.attempt, "platform failure: test")
    assert store.replays.live_record(game_id) is None
    assert not store.games.renew_lease(game_id, claim.attempt, 60, live=progress)  # a stale worker writes nothing
    again = store.games.claim_game(game_id, "w", 60)
    assert again is not None and store.replays.live_record(game_id) is None
