"""The ladder's runner over a real store (SQLite and PostgreSQL): refills, entrants as versions,
retirement, paused bots, epochs closing and opening, ratings over the whole record (rules §5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from league.competition.ladder import LadderError, LadderRunner, create_ladder, ladder_fit, ladder_standings
from league.policy import POLICY
from referee.games import spec
from store import GameStatus, Store, open_store
from tests.a_game import game_without_luck
from tests.store.conftest import finish


def make(store: Store, **kw) -> int:
    return create_ladder(store, "lad", spec(game_without_luck()), kw.pop("tables", [3]), window=kw.pop("window", 4), **kw)


def play_all(store: Store, lid: int, order: dict[int, int] | None = None) -> int:
    """Finish every pending game of the ladder, bots ranked by ``order`` (bot id -> rank; default id)."""
    n = 0
    for epoch in store.ladders.epochs(lid):
        for gid in store.seasons.next_pending(epoch.id, limit=1000):
            seats = [s.bot_id for s in store.game_reads.get_game(gid).seats]
            ranks = sorted(seats, key=lambda b: (order or {}).get(b, b))
            finish(store, gid, [ranks.index(b) + 1 for b in seats])
            n += 1
    return n


def test_bad_ladders_are_refused_with_one_line(store: Store, bots: list[int]) -> None:
    too_many = spec(game_without_luck()).max_seats + 1
    for kw, words in [({"tables": [too_many]}, "seats"), ({"epoch_games": 0}, "--epoch-games"), ({"window": 0}, "--pending")]:
        with pytest.raises(LadderError, match=words):
            make(store, **kw)
    with pytest.raises(LadderError, match="bad ladder name"):
        create_ladder(store, "a b", spec(game_without_luck()), [3])
    make(store)
    with pytest.raises(LadderError, match="exists already"):
        make(store)


def test_refill_keeps_the_window_within_capacity_and_is_safe_for_two_runners(store: Store, bots: list[int]) -> None:
    lid = make(store, window=6)
    one, two = LadderRunner(store, lid), LadderRunner(store, lid)
    first = one.refill()
    assert first.added > 0 and first.epoch == 1
    pending, per_bot = store.ladders.open_games(lid)
    assert all(n <= 2 for n in per_bot.values())  # capacity 2 each: tables seated within it
    assert two.refill().added == 0  # no room left: the other runner's tables count
    play_all(store, lid)
    a, b = one.refill(), two.refill()  # the second sees the first's tables (or loses the race): no excess
    pending, per_bot = store.ladders.open_games(lid)
    assert a.added + b.added == pending and all(n <= 2 for n in per_bot.values())
    games = store.ladders.ladder_games(lid)
    assert len({g.id for g in games}) == len(games)


def test_a_new_version_is_a_new_entrant_and_the_old_one_stops(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid = make(store)
    runner = LadderRunner(store, lid)
    for _ in range(4):
        runner.refill()
        play_all(store, lid)
    store.bots.update_bot(a, version="2.0")
    for _ in range(4):
        runner.refill()
        play_all(store, lid)
    entrants = {(e.bot_id, e.version): e for e in store.ladders.entrants(lid)}
    old, new = entrants[(a, "1.0")], entrants[(a, "2.0")]
    assert not old.active and new.active
    fit = ladder_fit(store, lid)
    assert old.id in fit.rating and new.id in fit.rating  # both rated over the whole record
    rows = {r.entrant_id: r for r in ladder_standings(store, lid)}
    assert rows[new.id].latest and not rows[old.id].latest and rows[old.id].status == "superseded"
    assert rows[new.id].placing  # fewer than 20 games
    # the versions played are the ones recorded at the claim
    versions = {s[1] for g in store.ladders.ladder_games(lid, status=[GameStatus.DONE]) for s in g.seats if s[0] == a}
    assert versions == {"1.0", "2.0"}


def test_a_retired_bot_leaves_and_a_paused_bot_is_not_seated(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    store.bots.register_bot("e", "127.0.0.1:5100", "1", "t", [game_without_luck()], capacity=2)
    lid = make(store, window=8)
    runner = LadderRunner(store, lid)
    runner.refill()
    withdrawn = store.games.retire_bot(a)
    for gid in withdrawn:
        assert store.game_reads.get_game(gid).status == GameStatus.NOT_PLAYED
    play_all(store, lid)
    start = max(g.id for g in store.ladders.ladder_games(lid))
    for _ in range(3):
        runner.refill(paused={b})
        play_all(store, lid)
    later = [g for g in store.ladders.ladder_games(lid) if g.id > start]
    assert later and not any(bot in (a, b) for g in later for bot, _, _ in g.seats)


def test_an_epoch_closes_after_its_games_and_its_key_is_published_once_final(store: Store, bots: list[int]) -> None:
    lid = make(store, epoch_games=3, window=2)
    runner = LadderRunner(store, lid)
    now = datetime.now(UTC)
    while store.ladders.current_epoch(lid).epoch == 1:
        runner.refill(now=now)
        play_all(store, lid)
    epochs = store.ladders.epochs(lid)
    assert [e.epoch for e in epochs] == [1, 2]
    assert store.seasons.season_progress(epochs[0].id)["total"] >= 3
    assert store.seasons.revealed_key(epochs[0].id) is not None and store.seasons.revealed_key(epochs[1].id) is None
    start = store.ladders.chain_start(epochs[1].id)
    assert start[1]["previous"]["commitment"] == epochs[0].commitment
    # by time too
    runner.refill(now=now + timedelta(days=2))
    assert store.ladders.current_epoch(lid).epoch == 3


def test_the_fit_orders_entrants_by_strength(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid = make(store, window=4)
    runner = LadderRunner(store, lid)
    for _ in range(12):
        runner.refill()
        play_all(store, lid, order={d: 0, c: 1, b: 2, a: 3})
    rows = [r for r in ladder_standings(store, lid) if r.latest]
    assert [r.bot_id for r in rows] == [d, c, b, a]
    assert all(r.low < r.rating < r.high for r in rows)
    assert store.ladders.rating_history(lid)  # snapshots were taken


def test_progress_keeps_counting_right_once_closed_epochs_are_kept(store: Store, bots: list[int], db_url: str) -> None:
    """``ladder_progress`` keeps the counts of closed epochs whose games are final, and counts the rest:
    the same totals as the epochs' own counts at every step, with one store object and with a fresh one."""
    lid = make(store, epoch_games=3, window=2)
    runner = LadderRunner(store, lid)

    def by_epochs() -> dict[str, int]:
        total = {k: 0 for k in store.ladders.ladder_progress(lid)}
        for e in store.ladders.epochs(lid):
            for k, n in store.seasons.season_progress(e.id).items():
                if k in total:
                    total[k] += n
        return total

    for _ in range(8):
        runner.refill()
        assert store.ladders.ladder_progress(lid) == by_epochs()
        play_all(store, lid)
        assert store.ladders.ladder_progress(lid) == by_epochs()
    assert len(store.ladders.epochs(lid)) >= 3 and store.ladders._final_epochs  # closed epochs were kept
    fresh = open_store(db_url, run_migrations=False, policy=POLICY)
    try:
        assert fresh.ladders.ladder_progress(lid) == by_epochs()
    finally:
        fresh.close()


def test_a_bot_that_goes_down_holds_up_no_one_else(store: Store, bots: list[int]) -> None:
    """Tables waiting for a paused bot count neither in the window nor in the other bots' capacity (rules
    §5.3): the ladder goes on seating the others, and those tables are played once the bot answers."""
    a, b, c, d = bots
    lid = make(store, window=4)
    runner = LadderRunner(store, lid)
    assert runner.refill().added > 0
    epoch = store.ladders.current_epoch(lid)
    waiting = {g.id for g in store.ladders.ladder_games(lid, status=[GameStatus.PENDING])
               if d in {s.bot_id for s in store.game_reads.get_game(g.id).seats}}
    assert waiting and runner.refill().added == 0  # the window is full while d answers
    store.marks.mark_down(epoch.id, {d: "refused"})
    added = runner.refill()  # d is paused: the others get new tables without it
    assert added.added > 0
    new = [g for g in store.ladders.ladder_games(lid, status=[GameStatus.PENDING]) if g.id not in waiting]
    assert all(d not in {s.bot_id for s in store.game_reads.get_game(g.id).seats} for g in new if g.id > max(waiting))
    pending, per_bot = store.ladders.open_games(lid, stalled_by={d})
    assert pending <= 4 and all(n <= 2 for n in per_bot.values())  # the window and capacities hold for the rest
    assert {g.id for g in store.ladders.ladder_games(lid, status=[GameStatus.PENDING])} >= waiting  # kept waiting


def test_standings_say_which_bot_is_paused(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid = make(store, window=4)
    LadderRunner(store, lid).refill()
    play_all(store, lid)
    assert all(r.paused is None for r in ladder_standings(store, lid, with_luck=False))
    store.marks.mark_down(store.ladders.current_epoch(lid).id, {d: "refused"})
    rows = {r.bot_id: r for r in ladder_standings(store, lid, with_luck=False) if r.latest}
    assert rows[d].paused == "refused" and all(rows[x].paused is None for x in (a, b, c))


def test_one_per_author_keeps_an_authors_bots_at_separate_tables(store: Store) -> None:
    from tests.a_game import games_of

    ids = {n: store.bots.register_bot(n, f"127.0.0.1:{6000 + i}", "1.0", author, games_of(game_without_luck()),
                                      capacity=2)
           for i, (n, author) in enumerate([("a1", "Ann"), ("a2", "ann"), ("b1", "bob"), ("c1", ""), ("d1", "dee")])}
    ann = {ids["a1"], ids["a2"]}
    for name, apart in (("apart", True), ("free", False)):
        lid = create_ladder(store, name, spec(game_without_luck()), [3], window=4, one_per_author=apart)
        assert store.ladders.get_ladder(lid).config["one_per_author"] is apart  # type: ignore[union-attr]
        runner = LadderRunner(store, lid)
        for _ in range(15):
            runner.refill()
            play_all(store, lid)
        tables = [{s[0] for s in g.seats} for g in store.ladders.ladder_games(lid)]
        assert len(tables) >= 30
        together = sum(ann <= t for t in tables)
        assert (together == 0) if apart else (together > 0), (name, together)
