"""Elo (league.ratings.elo) by hand, standings, and ratings that do not depend on finish order."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.competition.standings import SeatOutcome, compute_standings, core_standings, standings_json, standings_of
from league.ratings.elo import START, K, expected, season_elo, update
from store import Store
from tests.a_game import game_without_luck
from tests.store.conftest import finish, make_record, quick_params

# ------------------------------------------------------------ pure Elo


def test_three_seats_from_1500() -> None:
    # Every E = 1/(1 + 10^0) = 0.5; K/(n-1) = 32/2 = 16.
    # 1st: 16 * ((1 - .5) + (1 - .5)) = +16; 2nd: 16 * ((0 - .5) + (1 - .5)) = 0; 3rd: 16 * (-.5 - .5) = -16.
    assert update({}, [10, 20, 30], [1, 2, 3]) == {10: 1516.0, 20: 1500.0, 30: 1484.0}


def test_draws() -> None:
    # Two equal bots drawing: S = E = 0.5, nothing moves.
    assert update({1: 1500.0, 2: 1500.0}, [1, 2], [1, 1]) == {1: 1500.0, 2: 1500.0}
    # Places (1, 1, 3) from 1500: the two winners draw with each other (0) and beat the third (+.5 each):
    # 16 * (0 + .5) = +8 each; the third 16 * (-.5 - .5) = -16.
    assert update({}, [1, 2, 3], [1, 1, 3]) == {1: 1508.0, 2: 1508.0, 3: 1484.0}
    # A draw between unequal bots moves points to the weaker: 1600 vs 1400, E_1600 = 1/(1+10^(-0.5)) = 0.75975;
    # 32 * (0.5 - 0.75975) = -8.312.
    r = update({1: 1600.0, 2: 1400.0}, [1, 2], [1, 1])
    assert r[1] == pytest.approx(1600 - 8.312, abs=1e-3) and r[2] == pytest.approx(1400 + 8.312, abs=1e-3)


def test_two_players_is_ordinary_elo() -> None:
    # 1400 beats 1600: E_1400 = 1/(1 + 10^(200/400)) = 1/(1 + 3.16228) = 0.24025; +32 * 0.75975 = +24.312.
    r = update({1: 1600.0, 2: 1400.0}, [1, 2], [2, 1])
    assert r[2] == pytest.approx(1424.312, abs=1e-3) and r[1] == pytest.approx(1575.688, abs=1e-3)
    assert expected(1400, 1600) == pytest.approx(0.24025, abs=1e-5)


def test_updates_are_simultaneous_and_input_untouched() -> None:
    before = {1: 1500.0, 2: 1500.0, 3: 1500.0}
    after = update(before, [1, 2, 3], [1, 2, 3])
    assert before == {1: 1500.0, 2: 1500.0, 3: 1500.0}
    # Seat 2 is computed against seat 1's rating before the game (1500), not after (1516): exactly 0.
    assert after[2] == 1500.0


def test_one_bot_in_two_seats_gains_only_from_others() -> None:
    # Bot 7 in seats 0 and 2, bot 8 in seat 1; places 1, 2, 3. Seat 0: 16 * (.5 + .5) = +16;
    # seat 2: 16 * (-.5 - .5) = -16; bot 7 gets both: 0. Bot 8 (2nd) beat seat 2, lost to seat 0: 0.
    assert update({}, [7, 8, 7], [1, 2, 3]) == {7: 1500.0, 8: 1500.0}
    # Places 1, 3, 1: bot 7's seats draw together (cancels) and each beat bot 8: 7 gets +8 + 8, 8 gets -16.
    assert update({}, [7, 8, 7], [1, 3, 1]) == {7: 1516.0, 8: 1484.0}


def test_single_seat_and_bad_input() -> None:
    assert update({}, [5], [1]) == {5: START}
    with pytest.raises(ValueError):
        update({}, [1, 2], [1])
    with pytest.raises(ValueError):
        update({}, [1, 2], [0, 1])


def test_season_elo_in_order() -> None:
    games = [([1, 2, 3], [1, 2, 3]), ([2, 3, 1], [1, 1, 3])]
    assert season_elo(games) == update(update({}, *games[0]), *games[1])
    assert season_elo([]) == {}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6)), min_size=2, max_size=8),
       st.dictionaries(st.integers(0, 5), st.floats(800, 2200), max_size=6))
def test_points_are_conserved_and_bounded(seats: list[tuple[int, int]], ratings: dict[int, float]) -> None:
    bots = [b for b, _ in seats]
    places = [p for _, p in seats]
    after = update(ratings, bots, places)
    before = {b: ratings.get(b, START) for b in after}
    assert sum(after.values()) == pytest.approx(sum(before.values()), abs=1e-6)
    per_seat_max = K  # a seat gains at most K (beats everyone it was expected to lose to)
    for b in after:
        assert abs(after[b] - before[b]) <= per_seat_max * bots.count(b) + 1e-9


# ----------------------------------------------------------- standings


def test_compute_standings_pure() -> None:
    outcomes = [SeatOutcome(1, 1, 30, 0), SeatOutcome(2, 2, -10, 3, retired=True), SeatOutcome(1, 3, -20, 2)]
    rows = compute_standings(outcomes, {1: "one", 2: "two", 3: "idle"}, {1: 1490.0, 2: 1510.0})
    assert [(r.name, r.games, r.avg_place, r.avg_change, r.faults, r.retired, r.elo) for r in rows] == [
        ("two", 1, 2.0, -10.0, 3, 1, 1510.0), ("idle", 0, None, None, 0, 0, 1500.0), ("one", 2, 2.0, 5.0, 2, 0, 1490.0)]
    # without games (no season ratings) the rows are ranked by Elo
    assert standings_json(rows)[0] == {"rank": 1, "bot_id": 2, "name": "two", "games": 1, "avg_place": 2.0,
                                       "avg_change": -10.0, "faults": 3, "retired": 1, "elo": 1510.0,
                                       # no games given: no season ratings (league.ratings.ratings_ml)
                                       "ml_rating": None, "ml_low": None, "ml_high": None, "p_better": None,
                                       "openskill_mu": None, "openskill_sigma": None, "suspended": False,
                                       # no luck summaries given (league.ratings.luck: Slippery Sam only)
                                       "luck_change": None, "luck_low": None, "luck_high": None, "audit": [],
                                       # no luck audits given (league.integrity.eprocess)
                                       "luck_wealth": None, "luck_bar": None}


def test_store_standings_by_hand(store: Store, bots: list[int], make_season: Callable[..., int]) -> None:
    a, b, c, d = bots
    sid = make_season([[a, b, c], [c, b, a], [a, b, d]])
    g0, g1, _ = store.seasons.next_pending(sid)
    finish(store, g0, [1, 2, 3], changes=[30, 0, -30], faults=[0, 0, 3])  # a 1516, b 1500, c 1484; c retired
    finish(store, g1, [1, 1, 3], changes=[20, 20, -40])                   # c and b draw, both beat a
    # Game 1 from (a 1516, b 1500, c 1484), seats (c, b, a), places (1, 1, 3); K/(n-1) = 16:
    #   c: 16 * [(.5 - E(1484,1500)) + (1 - E(1484,1516))], b: 16 * [(.5 - E(1500,1484)) + (1 - E(1500,1516))],
    #   a: 16 * [(0 - E(1516,1484)) + (0 - E(1516,1500))].
    e = expected
    want = {
        a: 1516 + 16 * ((0 - e(1516, 1484)) + (0 - e(1516, 1500))),
        b: 1500 + 16 * ((0.5 - e(1500, 1484)) + (1 - e(1500, 1516))),
        c: 1484 + 16 * ((0.5 - e(1484, 1500)) + (1 - e(1484, 1516))),
    }
    got = store.season_reads.ratings(sid)
    assert got == pytest.approx(want, abs=1e-9)
    # E(1484,1500) = 0.47698, E(1484,1516) = 0.45399, E(1516,1484) = 0.54601, E(1516,1500) = 0.52302:
    # a = 1516 - 16 * 1.06903 = 1498.90; b = 1500 + 16 * (-.02302 + .52302) = 1508.00; c = 1493.10.
    assert got[a] == pytest.approx(1498.90, abs=0.01)
    assert got[b] == pytest.approx(1508.00, abs=0.01)
    assert got[c] == pytest.approx(1493.10, abs=0.01)
    rows = standings_of(store, sid)  # game 2 is still pending: d has no game and shows the start, 1500
    # Pairwise over both games: b-a 1-1, b-c 1.5-0.5, a-c 1-1, so the ML rating ranks b, a, c;
    # d has no rated game, so no ML rating: after them, though its Elo (1500) is above a's and c's.
    assert [r.name for r in rows] == ["b", "a", "c", "d"]
    assert rows[0].ml_rating > rows[1].ml_rating > rows[2].ml_rating and rows[3].ml_rating is None
    assert rows[0].p_better >= 0.5 and rows[1].p_better >= 0.5 and rows[2].p_better is None
    by = {r.name: r for r in rows}
    assert by["a"].games == 2 and by["a"].avg_place == 2.0 and by["a"].avg_change == -5.0
    assert by["c"].faults == 3 and by["c"].retired == 1 and by["c"].avg_place == 2.0
    assert by["a"].retired == by["b"].retired == by["d"].retired == 0
    # the dashboard's SQL aggregate agrees, bot by bot
    core = {r["name"]: r for r in core_standings(store.season_reads.seat_totals(sid))}
    assert {n: (r["games"], r["faults"], r["retired"]) for n, r in core.items()} == {
        r.name: (r.games, r.faults, r.retired) for r in rows}
    assert by["d"].games == 0 and by["d"].elo == 1500.0 and by["d"].avg_place is None
    assert [x["rank"] for x in standings_json(standings_of(store, sid))] == [1, 2, 3, 4]


def _season_with_finish_order(store: Store, make_season: Callable[..., int], tables: list[list[int]],
                              places: list[list[int]], order: list[int], name: str) -> dict[int, float]:
    sid = make_season(tables, name=name)
    ids = store.seasons.next_pending(sid, limit=len(tables))
    claims = [store.games.claim_game(gid, "w", 60) for gid in ids]  # all running at once, like a pool
    for i in order:
        claim = claims[i]
        assert claim is not None
        assert store.games.finish_game(claim.game_id, claim.attempt, make_record(claim, places[i]))
    return store.season_reads.ratings(sid)


def test_ratings_do_not_depend_on_finish_order(store: Store, bots: list[int],
                                               make_season: Callable[..., int]) -> None:
    rng = random.Random(7)
    tables = [rng.sample(bots, 3) for _ in range(12)]
    places = [rng.choice([[1, 2, 3], [3, 1, 2], [2, 2, 1], [1, 1, 1], [2, 3, 1]]) for _ in tables]
    in_order = _season_with_finish_order(store, make_season, tables, places, list(range(12)), "ordered")
    shuffled = list(range(12))
    rng.shuffle(shuffled)
    assert shuffled != list(range(12))
    out_of_order = _season_with_finish_order(store, make_season, tables, places, shuffled, "shuffled")
    assert out_of_order == in_order  # identical floats, not just close
    assert in_order == season_elo(zip(tables, places, strict=True))


def _done_games_in_order(store: Store, sid: int) -> list[tuple[list[int], list[int]]]:
    games = store.game_reads.list_games(sid, status="done", limit=10_000)
    return [([s.bot_id for s in g.seats], [s.place for s in g.seats]) for g in games]  # type: ignore[misc]


def _rotation_groups(rng: random.Random, bots: list[int], games: int) -> tuple[list[list[int]], list[int]]:
    """Tables of 2 to 4 seats, each played in every rotation as one deal group (a duplicate season)."""
    tables: list[list[int]] = []
    groups: list[int] = []
    while len(tables) < games:
        table = rng.sample(bots, rng.choice([2, 3, 4]))
        for r in range(len(table)):
            tables.append(table[r:] + table[:r])
            groups.append(len(set(groups)) if r == 0 else groups[-1])
    return tables[:games], groups[:games]


def _checkpoint(store: Store, sid: int) -> int:
    from sqlalchemy import select

    from store.models import Season

    with store.engine.connect() as conn:
        return conn.execute(select(Season.rated_through).where(Season.id == sid)).scalar_one()


@pytest.mark.parametrize("duplicate", [False, True], ids=["own-deals", "duplicate-groups"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ratings_equal_a_full_replay_under_any_interleaving(store: Store, bots: list[int],
                                                            make_season: Callable[..., int], seed: int,
                                                            duplicate: bool) -> None:
    """Claims, finishes, voids and failures in random order, some games held running for
    long (the ratings checkpoint cannot pass them), games claimed out of schedule order: after
    every step the stored Elo is exactly (==) Elo over the published games in schedule order,
    computed here from scratch (done games, in a duplicate season only those whose deal group
    has no game left to play: a group closes late, by a finish or a failure, and its games
    join the ratings then), and the checkpoint is exactly where a from-scratch computation puts
    it (just before the first game of a group with a game still to be played)."""
    rng = random.Random(seed)
    if duplicate:
        tables, groups = _rotation_groups(rng, bots, 30)
        game = game_without_luck()
        sid = store.seasons.create_season(f"dup-{seed}", game, quick_params(game), {"deadline_ms": 1000}, 42,
                                  {"duplicate": True}, [(1000 + i, t) for i, t in enumerate(tables)],
                                  deal_groups=groups)
    else:
        sid = make_season([rng.sample(bots, rng.choice([2, 3, 4])) for _ in range(30)])
        groups = list(range(30))
    open_claims: dict[int, object] = {}
    while store.seasons.season_progress(sid)["pending"] + len(open_claims):
        pending = store.seasons.next_pending(sid, limit=8)
        if pending and (len(open_claims) < 6 or rng.random() < 0.3):
            claim = store.games.claim_game(rng.choice(pending), "w", 60)
            assert claim is not None
            open_claims[claim.game_id] = claim
        else:
            gid = rng.choice(sorted(open_claims))
            claim = open_claims.pop(gid)
            if rng.random() < 0.25:
                store.games.void_game(gid, claim.attempt, "flaky platform")  # type: ignore[attr-defined]
            else:
                n = len(claim.seats)  # type: ignore[attr-defined]
                places = [rng.randint(1, n) for _ in range(n)]
                assert store.games.finish_game(gid, claim.attempt, make_record(claim, places))  # type: ignore[arg-type]
        games = store.game_reads.list_games(sid, limit=10_000)
        assert [g.number for g in games] == list(range(30))
        open_groups = {groups[g.number] for g in games if g.status in ("pending", "running")}
        published = [([s.bot_id for s in g.seats], [s.place for s in g.seats]) for g in games
                     if g.status == "done" and groups[g.number] not in open_groups]
        assert store.season_reads.ratings(sid) == season_elo(published)  # type: ignore[arg-type]
        first_open = min((g.number for g in games if groups[g.number] in open_groups), default=30)
        assert _checkpoint(store, sid) == first_open - 1
    progress = store.seasons.season_progress(sid)
    assert progress["done"] + progress["failed"] == 30
    assert store.seasons.get_season(sid).status == "done"  # type: ignore[union-attr]
    assert _checkpoint(store, sid) == 29


def test_checkpoint_waits_for_a_game_still_running(store: Store, bots: list[int],
                                                  make_season: Callable[..., int]) -> None:
    def checkpoint() -> int:
        return _checkpoint(store, sid)

    sid = make_season([bots[:3]] * 4)
    g = store.seasons.next_pending(sid)
    slow = store.games.claim_game(g[0], "slow", 600)
    assert slow is not None
    finish(store, g[1], [1, 2, 3])
    finish(store, g[2], [3, 2, 1])
    assert checkpoint() == -1  # game 0 still running: nothing is final before it
    assert store.games.finish_game(g[0], slow.attempt, make_record(slow, [2, 1, 3]))
    assert checkpoint() == 2  # games 0-2 final, 3 pending
    finish(store, g[3], [1, 1, 3])
    assert checkpoint() == 3
    assert store.season_reads.ratings(sid) == season_elo(_done_games_in_order(store, sid))


def test_standings_are_ranked_by_the_season_rating_not_the_order_of_finishing() -> None:
    """Elo in schedule order favours the bot that won late; the ML rating weighs every game alike."""
    names = {1: "early", 2: "late"}
    early_wins, late_wins = ([1, 2], [1, 2]), ([1, 2], [2, 1])
    games = [early_wins] * 6 + [late_wins] * 5  # early is 6-5 up, but late won the last five
    outcomes = [SeatOutcome(bot, place, 0, 0) for bots_, places in games for bot, place in zip(bots_, places, strict=True)]
    elo = season_elo(games)
    assert elo[2] > elo[1]  # the online rating puts the late winner ahead
    rows = compute_standings(outcomes, names, elo, games)
    assert [r.name for r in rows] == ["early", "late"] and rows[0].ml_rating > rows[1].ml_rating
    assert rows[0].p_better > 0.5 and rows[1].p_better is None
    assert [r["rank"] for r in standings_json(rows)] == [1, 2]
