"""Bots that do not answer at game start (rules §4.9): deferral, suspension, games not played, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from league.competition.standings import standings_of
from store import GameStatus, SeasonStatus, Store
from tests.a_game import game_without_luck
from tests.store.conftest import finish, quick_params

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def season_with_limit(store: Store, tables: list[list[int]], suspend_after_s: float) -> int:
    game = game_without_luck()
    return store.seasons.create_season(f"s-{suspend_after_s}", game, quick_params(game), {"deadline_ms": 1000}, 42,
                               {"suspend_after_s": suspend_after_s},
                               [(1000 + i, list(t)) for i, t in enumerate(tables)])


def test_a_deferred_game_stays_pending_with_no_attempt(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    sid = season_with_limit(store, [[a, b, c], [b, c, d]], 60)
    gid = store.seasons.next_pending(sid)[0]
    deferral = store.games.defer_game(gid, {a: "no health answer within 2 s"}, now=T0)
    assert deferral.status == GameStatus.PENDING and deferral.deferrals == 1 and deferral.suspended == ()
    assert "a does not answer (no health answer within 2 s)" in deferral.detail
    game = store.game_reads.get_game(gid)
    assert game is not None and game.status == GameStatus.PENDING and game.attempts == 0
    assert store.game_reads.attempts(gid) == []
    assert store.seasons.pending_deferrals(sid) == {gid: 1}
    [row] = store.seasons.season_availability(sid)
    assert (row.name, row.unavailable_since, row.suspended_at) == ("a", T0, None)
    # a second deferral keeps the first moment
    store.games.defer_game(gid, {a: "refused"}, now=T0 + timedelta(seconds=30))
    [row] = store.seasons.season_availability(sid)
    assert row.unavailable_since == T0 and row.reason == "refused"
    assert store.seasons.pending_deferrals(sid) == {gid: 2}


def test_a_game_that_starts_clears_the_bots_unavailability(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    sid = season_with_limit(store, [[a, b, c], [a, c, d]], 60)
    first, second = store.seasons.next_pending(sid)
    store.games.defer_game(first, {a: "refused"}, now=T0)
    finish(store, second, [1, 2, 3])  # a game with a starts: a answered its health check
    [row] = store.seasons.season_availability(sid)
    assert row.unavailable_since is None and row.suspended_at is None
    # the next outage starts its own clock
    store.games.defer_game(first, {a: "refused"}, now=T0 + timedelta(hours=1))
    assert store.game_reads.get_game(first).status == GameStatus.PENDING  # type: ignore[union-attr]


def test_a_bot_down_longer_than_the_setting_is_suspended_and_its_games_not_played(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    sid = season_with_limit(store, [[a, b, c], [b, c, d], [a, c, d], [b, c, d]], 10)
    g0, g1, g2, g3 = store.seasons.next_pending(sid)
    finish(store, g1, [1, 2, 3])
    store.games.defer_game(g0, {a: "refused"}, now=T0)
    store.games.defer_game(g2, {a: "refused"}, now=T0 + timedelta(seconds=10))  # exactly the limit: not yet
    assert store.game_reads.get_game(g2).status == GameStatus.PENDING  # type: ignore[union-attr]
    deferral = store.games.defer_game(g0, {a: "refused"}, now=T0 + timedelta(seconds=11))
    assert deferral.status == GameStatus.NOT_PLAYED and deferral.suspended == ("a",)
    for gid in (g0, g2):
        game = store.game_reads.get_game(gid)
        assert game is not None and game.status == GameStatus.NOT_PLAYED and game.reason == "not_played"
        assert "a suspended from the season" in (game.detail or "") and game.attempts == 0
    assert store.game_reads.get_game(g3).status == GameStatus.PENDING  # type: ignore[union-attr]
    assert store.seasons.season_progress(sid)["not_played"] == 2
    [row] = store.seasons.season_availability(sid)
    assert row.suspended_at == T0 + timedelta(seconds=11)
    finish(store, g3, [3, 1, 2])
    assert store.seasons.get_season(sid).status == SeasonStatus.DONE  # type: ignore[union-attr]  # not played is final
    rows = {r.name: r for r in standings_of(store, sid)}
    assert rows["a"].suspended and rows["a"].games == 0 and not rows["b"].suspended
    assert a not in store.season_reads.ratings(sid) and store.season_reads.ratings(sid).keys() == {b, c, d}
    # a not-played game is never claimed or deferred again
    assert store.games.claim_game(g0, "w", 60) is None
    assert store.games.defer_game(g0, {a: "refused"}).status == GameStatus.NOT_PLAYED


def test_defer_game_on_a_game_that_is_not_pending_writes_nothing(store: Store, bots: list[int]) -> None:
    a, b, c, _ = bots
    sid = season_with_limit(store, [[a, b, c]], 60)
    gid = store.seasons.next_pending(sid)[0]
    finish(store, gid, [1, 2, 3])
    deferral = store.games.defer_game(gid, {a: "refused"}, now=T0)
    assert deferral.status == GameStatus.DONE and deferral.deferrals == 0
    assert store.seasons.season_availability(sid) == [] and store.marks.table_and_down(gid) is None


def test_table_and_down_of_a_pending_game_names_its_bots_endpoints(store: Store, bots: list[int]) -> None:
    a, b, c, _ = bots
    sid = season_with_limit(store, [[c, a, b]], 60)
    found = store.marks.table_and_down(store.seasons.next_pending(sid)[0])
    assert found is not None and found[1] == {}
    table = found[0]
    assert [(x.seat, x.name, x.endpoint) for x in table] == [
        (0, "c", "127.0.0.1:5002"), (1, "a", "127.0.0.1:5000"), (2, "b", "127.0.0.1:5001")]
    known, tables = store.seasons.pending_tables(sid)
    assert set(known) == {a, b, c} and tables == [frozenset({a, b, c})]


def test_a_bot_marked_down_during_a_game_is_read_with_every_table_of_it(store: Store, bots: list[int]) -> None:
    """A worker whose seat went unreachable marks the bot down for every worker: the next table
    read carries the mark, the first moment is kept, a claim of a game with it clears it."""
    a, b, c, d = bots
    sid = season_with_limit(store, [[a, b, c], [b, c, d], [a, c, d]], 60)
    g0, g1, g2 = store.seasons.next_pending(sid)
    table, marked = store.marks.table_and_down(g0)  # type: ignore[misc]
    assert [s.bot_id for s in table] == [a, b, c] and marked == {}
    store.marks.mark_down(sid, {a: "unreachable during game 7: refused"}, now=T0)
    store.marks.mark_down(sid, {a: "refused again"}, now=T0 + timedelta(seconds=5))  # another worker, later
    assert store.marks.table_and_down(g0)[1] == {a: "refused again"}  # type: ignore[index]
    assert store.marks.table_and_down(g2)[1] == {a: "refused again"}  # type: ignore[index]
    assert store.marks.table_and_down(g1)[1] == {}  # type: ignore[index]
    [row] = store.seasons.season_availability(sid)
    assert row.unavailable_since == T0 and row.suspended_at is None
    # its suspension counts from the mark
    store.games.defer_game(g0, {a: "refused"}, now=T0 + timedelta(seconds=61))
    assert store.game_reads.get_game(g0).status == GameStatus.NOT_PLAYED  # type: ignore[union-attr]
    store.marks.mark_down(sid, {a: "refused"}, now=T0 + timedelta(seconds=70))  # suspended: left as it is
    [row] = store.seasons.season_availability(sid)
    assert row.suspended_at is not None and row.reason == "refused"
    assert store.marks.table_and_down(g0) is None  # not pending any more


def test_a_claim_clears_a_mark_made_during_a_game(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    sid = season_with_limit(store, [[a, b, c], [a, c, d]], 60)
    g0, g1 = store.seasons.next_pending(sid)
    store.marks.mark_down(sid, {a: "refused"})
    assert store.marks.table_and_down(g1)[1] == {a: "refused"}  # type: ignore[index]
    finish(store, g0, [1, 2, 3])  # a game with a starts: a answered its health check
    assert store.marks.table_and_down(g1)[1] == {}  # type: ignore[index]
    [row] = store.seasons.season_availability(sid)
    assert row.unavailable_since is None


def test_concurrent_marks_of_the_same_bots_take_their_locks_in_one_order(store: Store, bots: list[int]) -> None:
    """Two workers mark the same bots at once: one defers a game whose bots did not answer at its start,
    the other marks them down after a game in flight lost them (``store.marks.mark_down``). Both take the
    season's lock before any bot's status row, so neither can hold one row while it waits for the other's
    (PostgreSQL once answered ``DeadlockDetected`` on the status rows' key); every round ends with both
    marks written."""
    import threading

    from sqlalchemy import delete

    from store.models import SeasonBotStatus

    a, b, c, d = bots
    sid = season_with_limit(store, [[a, b, c], [b, c, d]], 3600)
    gid = store.seasons.next_pending(sid)[0]
    errors: list[BaseException] = []
    for _ in range(100):
        with store.db.write_rows() as conn:  # neither is marked: both workers insert the bots' status rows
            conn.execute(delete(SeasonBotStatus).where(SeasonBotStatus.season_id == sid))
        start = threading.Barrier(2)

        def run(work) -> None:  # type: ignore[no-untyped-def]
            try:
                start.wait(10)
                work()
            except BaseException as e:  # noqa: BLE001 - reported below with the round
                errors.append(e)

        threads = [threading.Thread(target=run, args=(lambda: store.games.defer_game(gid, {a: "refused", b: "refused"}),)),
                   threading.Thread(target=run, args=(lambda: store.marks.mark_down(sid, {a: "lost", b: "lost"}),))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert errors == []
        marked = {r.name for r in store.seasons.season_availability(sid) if r.unavailable_since is not None}
        assert marked == {"a", "b"}
