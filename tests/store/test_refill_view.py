"""What a ladder's runner reads before it adds tables (``Ladders.refill_view``), on both databases: the same open
tables, games, marks and epoch as the store's other reads give, and a bots' signature that changes whenever
any bot does (``bots.revision``, migration 0017)."""

from __future__ import annotations

from league.integrity import fairness
from store import Store
from store.db import NotFound
from tests.a_game import game_without_luck, other_game
from tests.store.conftest import finish
from tests.store.test_ladders import CONFIG, ladder


def same_as_the_other_reads(store: Store, lid: int, after: int, stalled: set[int]) -> None:
    view = store.ladders.refill_view(lid, after)
    epoch = store.ladders.current_epoch(lid)
    assert (view.epoch_id, view.epoch, view.epoch_opened_at) == (epoch.id, epoch.epoch, epoch.created_at)
    assert view.epoch_games == store.seasons.season_progress(epoch.id)["total"]
    assert view.open_tables(stalled) == store.ladders.open_games(lid, stalled_by=stalled)
    assert view.open_tables() == store.ladders.open_games(lid)
    assert view.new_games == store.ladders.ladder_games(lid, after_id=after)
    assert view.marked == store.ladders.marked_bots(epoch.id)
    assert view.entrants == len(store.ladders.entrants(lid))
    assert store.ladders.refill_view(lid, after, marked=False).marked is None


def test_the_view_reads_what_the_store_reads_one_by_one(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid, sid, _ = ladder(store)
    store.ladders.sync_entrants(lid)
    assert store.ladders.append_games(sid, [(11, [a, b, c]), (12, [b, c, d]), (13, [a, c, d])], 0, [0, 1, 1])
    ids = [g.id for g in store.ladders.ladder_games(lid)]
    for after in (0, ids[0], ids[-1]):
        same_as_the_other_reads(store, lid, after, set())
    store.marks.mark_down(sid, {d: "no answer"})
    claim = store.games.claim_game(ids[0], "w", 60)  # a running game: its table is not stalled by a mark
    assert claim is not None
    finish(store, ids[1], [1, 2, 3])  # a final game: among the new games, not the open ones
    for after in (0, ids[0]):
        same_as_the_other_reads(store, lid, after, {d})
        same_as_the_other_reads(store, lid, after, {a})
    sid2 = store.ladders.open_epoch(lid, 2, fairness.key_from_seed(9), dict(CONFIG))
    assert sid2 is not None
    same_as_the_other_reads(store, lid, ids[-1], {d})  # the new epoch, no game yet
    try:
        store.ladders.refill_view(lid + 100, 0)
    except NotFound:
        pass
    else:
        raise AssertionError("a view of an unknown ladder was read")


def test_the_bots_signature_changes_whenever_a_bot_does(store: Store, bots: list[int]) -> None:
    lid, _, _ = ladder(store)
    seen = [store.ladders.refill_view(lid, 0).bots]
    changes = [
        lambda: store.bots.update_bot(bots[0], version="1.1"),
        lambda: store.bots.update_bot(bots[1], capacity=3),
        lambda: store.bots.update_bot(bots[2], games=[other_game()]),
        lambda: store.bots.update_bot(bots[2], endpoint="127.0.0.1:6000"),
        lambda: store.bots.register_bot("e", "127.0.0.1:5100", "1.0", "tests", [game_without_luck()]),
        lambda: store.games.retire_bot(bots[3]),
    ]
    for change in changes:
        change()
        seen.append(store.ladders.refill_view(lid, 0).bots)
    assert len(set(seen)) == len(seen), seen  # every change gave a signature not seen before
    assert store.ladders.refill_view(lid, 0).bots == seen[-1]  # and nothing else moves it
