"""The ladder's store layer (rules §5), on both databases: epochs as seasons, compare-and-append,
entrants as bot versions, retirement in one transaction, keys published only for closed epochs."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import text

from league.integrity import fairness
from store import GameStatus, Store
from store import ladders as store_ladders
from store.db import NameTaken
from tests.a_game import game_without_luck, other_game
from tests.store.conftest import finish, quick_params

CONFIG = {"table_sizes": [3], "duplicate": False, "suspend_after_s": 60.0}


def ladder(store: Store, name: str = "lad") -> tuple[int, int, bytes]:
    game = game_without_luck()
    lid = store.ladders.create_ladder(name, game, quick_params(game), {"deadline_ms": 1000}, dict(CONFIG))
    key = fairness.key_from_seed(7)
    sid = store.ladders.open_epoch(lid, 1, key, dict(CONFIG))
    assert sid is not None
    return lid, sid, key


def test_a_ladder_name_is_unique_and_its_epoch_is_a_season(store: Store, bots: list[int]) -> None:
    lid, sid, key = ladder(store)
    try:
        store.ladders.create_ladder("lad", game_without_luck(), {}, {}, {})
    except NameTaken as exc:
        assert "lad" in str(exc)
    else:
        raise AssertionError("a second ladder of the same name was stored")
    season = store.seasons.get_season(sid)
    assert season is not None and (season.ladder_id, season.epoch) == (lid, 1)
    assert season.commitment == fairness.commitment(key, season.chance_scheme)
    assert store.ladders.current_epoch(lid).id == sid
    head = store.chain.chain_head(sid)
    assert head.length == 2  # the season entry (its commitment) and the epoch entry, before any game
    # a second opening of epoch 1 (another runner) writes nothing
    assert store.ladders.open_epoch(lid, 1, fairness.key_from_seed(8), dict(CONFIG)) is None


def test_append_is_compare_and_append_and_closed_epochs_take_nothing(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid, sid, key = ladder(store)
    assert store.ladders.append_games(sid, [(11, [a, b, c])], 0)
    assert not store.ladders.append_games(sid, [(12, [b, c, d])], 0)  # a racing runner saw 0 games too
    assert store.seasons.season_progress(sid)["total"] == 1
    sid2 = store.ladders.open_epoch(lid, 2, fairness.key_from_seed(9), dict(CONFIG))
    assert sid2 is not None and store.ladders.current_epoch(lid).id == sid2
    assert not store.ladders.append_games(sid, [(12, [b, c, d])], 1)  # epoch 1 is closed
    assert store.ladders.append_games(sid2, [(12, [b, c, d])], 0)
    pending, per_bot = store.ladders.open_games(lid)
    assert pending == 2 and per_bot == {a: 1, b: 2, c: 2, d: 1}
    # the closed epoch's key is published once its games are final; the open one's never
    [gid] = store.seasons.next_pending(sid)
    assert store.seasons.revealed_key(sid) is None
    finish(store, gid, [1, 2, 3])
    assert store.seasons.revealed_key(sid) == key
    [gid2] = store.seasons.next_pending(sid2)
    finish(store, gid2, [1, 2, 3])
    assert store.seasons.get_season(sid2).status == "done" and store.seasons.revealed_key(sid2) is None
    assert store.chain.audit(sid).problems == [] and store.chain.audit(sid2).problems == []


def test_entrants_are_bot_versions(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    # not for the ladder's game: not entered
    other = store.bots.register_bot("e", "127.0.0.1:5999", "1", "tests", [other_game(game_without_luck())])
    lid, sid, _ = ladder(store)
    entrants = store.ladders.sync_entrants(lid)
    assert sorted(e.bot_id for e in entrants) == sorted(bots) and other not in {e.bot_id for e in entrants}
    assert all(e.active and e.version == "1.0" for e in entrants)
    store.bots.update_bot(a, version="2.0")
    entrants = store.ladders.sync_entrants(lid)
    mine = {e.version: e for e in entrants if e.bot_id == a}
    assert set(mine) == {"1.0", "2.0"} and mine["2.0"].active and mine["1.0"].superseded_at is not None
    assert store.ladders.sync_entrants(lid) == entrants  # nothing new: the same rows


def test_retiring_a_bot_withdraws_its_pending_ladder_games_at_once(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid, sid, _ = ladder(store)
    store.ladders.sync_entrants(lid)
    assert store.ladders.append_games(sid, [(11, [a, b, c]), (12, [b, c, d]), (13, [a, c, d])], 0)
    running = store.games.claim_game(store.seasons.next_pending(sid)[0], "w", 60)  # a's first game has started: it counts
    withdrawn = store.games.retire_bot(a)
    assert len(withdrawn) == 1
    game = store.game_reads.get_game(withdrawn[0])
    assert game.status == GameStatus.NOT_PLAYED and game.detail.startswith("a suspended from the season: retired")
    assert store.game_reads.get_game(running.game_id).status == GameStatus.RUNNING
    assert all(e.retired_at is not None for e in store.ladders.entrants(lid) if e.bot_id == a)
    assert not store.ladders.append_games(sid, [(14, [a, b, c])], 3)  # never dealt in again
    assert store.chain.audit(sid).problems == []


def test_rating_history_keeps_one_snapshot_per_entrant_and_games(store: Store, bots: list[int]) -> None:
    lid, sid, _ = ladder(store)
    e1, e2, *_ = store.ladders.sync_entrants(lid)
    assert store.ladders.add_rating_points(lid, 10, {e1.id: (5, 1510.0, 80.0), e2.id: (5, 1490.0, 80.0)}) == 2
    assert store.ladders.add_rating_points(lid, 10, {e1.id: (5, 1511.0, 80.0)}) == 0
    store.ladders.add_rating_points(lid, 20, {e1.id: (9, 1520.0, 60.0)})
    history = store.ladders.rating_history(lid, e1.id)
    assert [(p.games, p.rating) for p in history] == [(10, 1510.0), (20, 1520.0)]
    assert store.ladders.last_rating_games(lid) == 20
    assert store.ladders.save_fit_checkpoint(lid, "{}", 5) and not store.ladders.save_fit_checkpoint(lid, "{}", 5)
    assert store.ladders.fit_checkpoint(lid) == ("{}", 5)


def test_a_rating_snapshot_and_an_epoch_opening_take_their_locks_in_one_order(db_url: str, store: Store,
                                                                              bots: list[int]) -> None:
    """A rating snapshot (the fitting process's) while an epoch is being opened (the runner's) on PostgreSQL: the
    opening holds the ladder's row and then asks for the open epoch's; the snapshot waits for the ladder before
    it takes the epoch, so neither is ended as a deadlock and both land."""
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite's writers take one lock for the whole database")
    lid, sid, _ = ladder(store)
    e1, *_ = store.ladders.sync_entrants(lid)
    written: list[int | BaseException] = []

    def take_snapshot() -> None:
        try:
            written.append(store.ladders.add_rating_points(lid, 10, {e1.id: (5, 1510.0, 80.0)}))
        except BaseException as e:  # shown by the assertions below
            written.append(e)

    with store.db.engine.connect() as opening:
        opening.execute(text("SELECT id FROM ladders WHERE id = :l FOR UPDATE"), {"l": lid})  # as open_epoch does
        snapshot = threading.Thread(target=take_snapshot)
        snapshot.start()
        with store.db.engine.connect() as watch:  # until the snapshot waits on a lock
            deadline = time.monotonic() + 8
            while not watch.execute(text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                         "AND datname = current_database()")).scalar_one():
                assert snapshot.is_alive(), f"the snapshot ended without waiting for the ladder: {written}"
                assert time.monotonic() < deadline, "the snapshot never waited for a lock"
                watch.rollback()
                time.sleep(0.01)
            watch.rollback()
        time.sleep(0.2)  # had it taken the epoch first, it would wait for the ladder now, holding the epoch
        opening.execute(text("SELECT id FROM seasons WHERE ladder_id = :l ORDER BY epoch DESC LIMIT 1 FOR UPDATE"),
                        {"l": lid})
        opening.commit()
    snapshot.join(10)
    assert written == [1]
    assert [p.games for p in store.ladders.rating_history(lid, e1.id)] == [10]


def test_the_refill_view_reads_every_new_game_however_many(store: Store, bots: list[int],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A refill's view: the open tables as ``open_games`` counts them, and every game after the id asked for with
    its seats, in id order, also when there are more than its statement reads at once (``NEW_GAMES``)."""
    a, b, c, d = bots
    lid, sid, _ = ladder(store)
    tables = [[a, b, c], [b, c, d], [a, c, d], [a, b, d], [c, d, a]]
    for n, seats in enumerate(tables):
        assert store.ladders.append_games(sid, [(100 + n, seats)], n)
    [first, *_] = store.seasons.next_pending(sid)
    finish(store, first, [1, 2, 3])
    monkeypatch.setattr(store_ladders, "NEW_GAMES", 2)
    monkeypatch.setattr(store_ladders, "_REFILL", {})  # its statements built again, reading two new games at once
    monkeypatch.setattr(store_ladders, "_REFILL_TEXT", {})
    for after in (0, first, first + 1):
        view = store.ladders.refill_view(lid, after)
        want = store.ladders.ladder_games(lid, after_id=after)
        assert [(g.id, g.status, g.seats) for g in view.new_games] == [(g.id, g.status, g.seats) for g in want]
        assert view.open_tables() == store.ladders.open_games(lid)
        assert view.epoch_id == sid and view.epoch_games == len(tables)
    assert len(store.ladders.refill_view(lid, 0).new_games) == len(tables) > 2
