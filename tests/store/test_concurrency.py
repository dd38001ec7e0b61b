"""Claims and results from several processes at once (spawned, each with its own store)."""

from __future__ import annotations

import multiprocessing as mp
from collections import Counter
from collections.abc import Callable

from league.policy import POLICY
from store import GameStatus, Store, open_store
from tests.store.conftest import make_record

PROCESSES = 4


def _claim_all(url: str, game_ids: list[int], owner: str, finish: bool, start, out) -> None:  # type: ignore[no-untyped-def]
    """Try to claim every game, all processes in lockstep (a barrier before each game, so
    every claim collides with three others); finish the games won if ``finish``."""
    store = open_store(url, run_migrations=False, policy=POLICY)
    won = []
    for gid in game_ids:
        start.wait(60)
        claim = store.games.claim_game(gid, owner, 60)
        if claim is not None:
            won.append(gid)
            if finish:
                places = [1 + (claim.number + s) % len(claim.seats) for s in range(len(claim.seats))]
                assert store.games.finish_game(gid, claim.attempt, make_record(claim, places))
    out.put((owner, won))
    store.close()


def _run(url: str, game_ids: list[int], finish: bool) -> dict[str, list[int]]:
    ctx = mp.get_context("spawn")
    start, out = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [ctx.Process(target=_claim_all, args=(url, game_ids, f"p{i}", finish, start, out))
             for i in range(PROCESSES)]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(30)
    assert [p.exitcode for p in procs] == [0] * PROCESSES
    return results


def test_each_game_claimed_exactly_once(store: Store, db_url: str, bots: list[int],
                                        make_season: Callable[..., int]) -> None:
    sid = make_season([bots[i % 4:] + bots[:i % 4] for i in range(24)])
    ids = store.seasons.next_pending(sid, limit=100)
    won = _run(db_url, ids, finish=False)
    counts = Counter(gid for games in won.values() for gid in games)
    assert sum(1 for games in won.values() if games) > 1  # the claimers really competed
    assert sorted(counts) == ids and set(counts.values()) == {1}
    games = store.game_reads.list_games(sid, limit=100)
    assert all(g.status == GameStatus.RUNNING and g.attempts == 1 for g in games)
    owners = {g.id: g.lease_owner for g in games}
    assert all(owners[gid] == owner for owner, gs in won.items() for gid in gs)


def test_concurrent_finishes_rate_every_game_in_schedule_order(store: Store, db_url: str, bots: list[int],
                                                               make_season: Callable[..., int]) -> None:
    from league.ratings.elo import season_elo

    tables = [bots[i % 4:] + bots[:i % 4] for i in range(40)]
    sid = make_season(tables)
    ids = store.seasons.next_pending(sid, limit=100)
    _run(db_url, ids, finish=True)
    assert store.seasons.season_progress(sid)["done"] == 40
    places = [[1 + (n + s) % 4 for s in range(4)] for n in range(40)]
    assert store.season_reads.ratings(sid) == season_elo(zip(tables, places, strict=True))
