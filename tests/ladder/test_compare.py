"""Version A/B on a ladder over a real store (SQLite and PostgreSQL): compare tables seat both versions, a
duplicate ladder's compare tables are sealed deal groups fed whole, the test stops and its verdict is stored,
entrants leaving stop it, ``--auto`` follows the candidate's next version (the compare it replaces ends
``replaced``), and a compare against a superseded version's record answers from the ladder's ratings (rules §5.5)."""

from __future__ import annotations

import math
import random

import pytest

from referee.games import spec
from types import SimpleNamespace

from cli.main import main as cli_main
from league.competition.compare import RECORD_GAMES, CompareError, ComparePlanner, Look, plan, start_compare
from league.competition.ladder import LadderRunner, create_ladder, ladder_fit_and_counts, played_counts
from league.competition.matchmaking import Entrant, MatchState
from league.integrity import fairness
from league.ratings.ratings_ml import ANCHOR, SCALE
from store import Store
from tests.a_game import game_without_luck, other_game
from tests.store.conftest import finish


def ladder(store: Store, bots: list[int], *, duplicate: bool = False, tables=(4,), window: int = 4) -> int:
    for name in ("e", "f"):
        store.bots.register_bot(name, f"127.0.0.1:{5100 + len(name)}", "1.0", "tests", [game_without_luck()],
                           capacity=2)
    return create_ladder(store, "lad", spec(game_without_luck()), list(tables), duplicate=duplicate, window=window)


def play(store: Store, lid: int, elo: dict[int, float], rng: random.Random) -> int:
    """Finish every pending game: places drawn by Plackett-Luce from the bots' Elo (``elo``, default 1500)."""
    n = 0
    for epoch in store.ladders.epochs(lid):
        for gid in store.seasons.next_pending(epoch.id, limit=1000):
            seats = [s.bot_id for s in store.game_reads.get_game(gid).seats]
            times = [rng.expovariate(math.exp((elo.get(b, 1500.0) - ANCHOR) / SCALE)) for b in seats]
            order = sorted(range(len(seats)), key=times.__getitem__)
            places = [0] * len(seats)
            for place, i in enumerate(order, start=1):
                places[i] = place
            finish(store, gid, places)
            n += 1
    return n


def run_until_decided(store: Store, lid: int, cid: int, elo: dict[int, float], seed: int, rounds: int = 400):
    runner, rng = LadderRunner(store, lid), random.Random(seed)
    for _ in range(rounds):
        runner.refill()
        if not store.compares.get_compare(cid).running:
            return store.compares.get_compare(cid)
        play(store, lid, elo, rng)
    raise AssertionError(f"not decided in {rounds} rounds: {store.compares.get_compare(cid)}")


def test_compare_tables_seat_both_versions_and_take_their_share(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid = ladder(store, bots, window=8)
    cid = start_compare(store, lid, "a@1.0", "b", delta=100.0)
    runner = LadderRunner(store, lid)
    assert runner.refill().added > 0
    games = store.ladders.ladder_games(lid)
    assert len(games) == 3  # six bots of capacity 2: three tables of 4
    assert {a, b} <= {bot for bot, _, _ in games[0].seats}  # the refill's first table is the compare's
    assert all(len(g.seats) == 4 and len({bot for bot, _, _ in g.seats}) == 4 for g in games)
    info = store.compares.get_compare(cid)
    assert (info.base, info.candidate, info.status, info.games) == ("a@1.0", "b@1.0", "running", 0)


def test_the_planner_gives_compares_their_share_and_respects_room_and_budget() -> None:
    rng, state = random.Random(1), MatchState()
    candidates = [Entrant(i, 1500.0, 100.0, room=10) for i in range(1, 9)]
    look = Look(SimpleNamespace(id=1, base_entrant_id=1, candidate_entrant_id=2), left=3)
    planner = ComparePlanner([look], duplicate=False)
    tables = []
    for _ in range(8):
        table = planner.table(candidates, [3, 4], state, rng)
        tables.append(table)
        if table:
            state.record(table)
    assert [t is not None for t in tables] == [True, False, True, False, True, False, False, False]  # budget 3
    assert all({1, 2} <= set(t) and len(set(t)) == len(t) for t in tables if t)
    without_room = [Entrant(1, 1500.0, 100.0, room=0), *candidates[1:]]
    assert ComparePlanner([look]).table([e for e in without_room if e.room], [3], state, rng) is None


def test_duplicate_compare_tables_are_sealed_groups_fed_whole(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid = ladder(store, bots, duplicate=True, tables=(3,), window=3)
    cid = start_compare(store, lid, "a", "b", delta=100.0)
    runner = LadderRunner(store, lid)
    runner.refill()
    group = store.compares.compare_games(lid, (a, b), 0)
    assert len(group) == 3 and len({(g.season_id, g.deal_group) for g in group}) == 1
    tables = [tuple(bot for bot, _, _ in g.seats) for g in group]
    assert len({store.game_reads.get_game(g.id).seed for g in group}) == 1  # one deal for every rotation
    assert sorted(tables) == sorted(tuple(tables[0][(p - r) % 3] for p in range(3)) for r in range(3))
    finish(store, group[0].id, [1, 2, 3])
    runner.refill()
    assert store.compares.get_compare(cid).games == 0  # a group with a game still to play is sealed: not fed
    for g in group[1:]:
        finish(store, g.id, [1, 2, 3])
    runner.refill()
    assert store.compares.get_compare(cid).games == 3
    LadderRunner(store, lid).refill()  # another runner looks too: no game is fed twice
    runner.refill()
    assert store.compares.get_compare(cid).games == 3


@pytest.mark.parametrize(("gap", "want"), [(400.0, "better"), (-400.0, "worse"), (0.0, "within_zone")])
def test_the_test_stops_with_its_verdict_stored(store: Store, bots: list[int], gap: float, want: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # the epochs' keys from a seeded stream, so the tables (and so the verdict, a sequential test with error
    # rates) are the same in every run: a fresh secret key each run made this test fail now and then
    keys = random.Random(1)
    monkeypatch.setattr(fairness, "new_key", lambda: keys.randbytes(32))
    a, b, c, d = bots
    lid = ladder(store, bots, duplicate=want == "within_zone", window=8)
    cid = start_compare(store, lid, "a", "b", delta=100.0)
    done = run_until_decided(store, lid, cid, {b: 1500.0 + gap}, seed=7)
    assert done.status == want and done.finished_at is not None and done.games > 0
    assert done.low < done.difference < done.high
    if want != "within_zone":
        assert (done.difference > 0) == (want == "better")
    # decided: no more compare tables, and the games it used stay as stored while the ladder goes on
    runner = LadderRunner(store, lid)
    for _ in range(3):
        play(store, lid, {}, random.Random(1))
        assert runner.refill().added > 0
        assert plan(store, lid, store.ladders.entrants(lid), runner.settings).running == []
    assert store.compares.get_compare(cid).games == done.games
    assert [c.as_json()["verdict"] for c in store.compares.list_compares(lid)] == [done.verdict]


def test_the_budget_stops_an_undecided_compare(store: Store, bots: list[int]) -> None:
    lid = ladder(store, bots)
    cid = start_compare(store, lid, "a", "b", delta=50.0, max_games=6)
    done = run_until_decided(store, lid, cid, {}, seed=3)
    assert (done.status, done.games, done.verdict) == ("budget", 6, "undecided at its budget")


def test_a_new_version_stops_a_compare_and_auto_follows_the_next(store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid = ladder(store, bots)
    plain = start_compare(store, lid, "c", "d")
    auto = start_compare(store, lid, "a", "b", follow=True)
    runner, rng = LadderRunner(store, lid), random.Random(5)
    runner.refill()
    play(store, lid, {}, rng)
    store.bots.update_bot(b, version="2.0")
    store.bots.update_bot(d, version="2.0")
    runner.refill()
    compares = {x.id: x for x in store.compares.list_compares(lid)}
    assert compares[plain].status == "stopped" and "d@1.0" in compares[plain].state["why"]
    nxt = [x for x in compares.values() if x.id not in (plain, auto)]
    assert len(nxt) == 1 and (nxt[0].base, nxt[0].candidate, nxt[0].follow, nxt[0].running) == \
        ("a@1.0", "b@2.0", True, True)
    # the version --auto replaced ends "replaced", naming its follower: not "stopped" as if something went wrong
    assert (compares[auto].status, compares[auto].follow, compares[auto].finished_at is not None) == \
        ("replaced", False, True)
    assert compares[auto].state["why"] == f"replaced by compare #{nxt[0].id} of b@2.0"
    assert compares[auto].verdict == "replaced by the next version's compare"
    runner.refill()  # a second look starts nothing more
    assert len(store.compares.list_compares(lid)) == 3
    assert store.compares.stop_compare(nxt[0].id, "stopped by its author")
    assert not store.compares.get_compare(nxt[0].id).follow


def test_bad_compares_get_one_line(store: Store, bots: list[int]) -> None:
    lid = ladder(store, bots)
    game = game_without_luck()
    store.bots.register_bot("other", "127.0.0.1:5999", "1.0", "tests", [other_game(game)], capacity=1)
    for base, cand, kw, words in [
            ("a@0.9", "b", {}, "serves version 1.0 now, not 0.9"), ("zz", "b", {}, "no bot named 'zz'"),
            ("a", "a@1.0", {}, "named twice"), ("a", "b", {"delta": 0.0}, "indifference zone"),
            ("a", "other", {}, f"not registered for {game}"), ("a", "b c", {}, "bad entrant"),
            ("a", "b", {"max_games": 0}, "max_games")]:
        with pytest.raises(CompareError, match=words):
            start_compare(store, lid, base, cand, **kw)
    assert store.compares.list_compares(lid) == []


def upgrade_in_place(store: Store, bots: list[int], elo: dict[int, float], rng: random.Random, games: int) -> int:
    """A ladder where ``b`` plays as 1.0 until that version has ``games`` rated games, then declares 2.0 behind
    the same endpoint (its 1.0 is superseded: a record). Returns the ladder's id."""
    b = bots[1]
    lid = ladder(store, bots)
    runner = LadderRunner(store, lid)
    runner.refill()
    old = next(e.id for e in store.ladders.entrants(lid) if e.bot_id == b)
    while played_counts(store, lid).get(old, 0) < games:
        play(store, lid, elo, rng)
        runner.refill()
    runner.refill()
    play(store, lid, elo, rng)  # nothing pending: every game of 1.0 done before 2.0 is declared
    store.bots.update_bot(b, version="2.0")
    return lid


@pytest.mark.parametrize(("gap", "want"), [(400.0, "better"), (-400.0, "worse")])
def test_a_compare_against_a_record_answers_from_the_ladders_ratings(
        store: Store, bots: list[int], db_url: str, gap: float, want: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    keys = random.Random(2)  # seeded epoch keys: the same tables, so the same answer, in every run
    monkeypatch.setattr(fairness, "new_key", lambda: keys.randbytes(32))
    a, b, c, d = bots
    elo = {a: 1600.0, c: 1400.0}  # b (1.0) 1500: a field of known strengths
    lid = upgrade_in_place(store, bots, elo, random.Random(3), RECORD_GAMES)
    elo[b] = 1500.0 + gap  # 2.0 is clearly stronger, or clearly weaker, than the 1.0 it replaced
    fit = lambda: ladder_fit_and_counts(store, lid)  # noqa: E731
    cid = start_compare(store, lid, "b@1.0", "b", delta=100.0, fit=fit)
    info = store.compares.get_compare(cid)
    assert (info.base, info.candidate, info.against_record, info.as_json()["against"]) == \
        ("b@1.0", "b@2.0", True, "record")
    assert info.state["record_games"] >= RECORD_GAMES
    # it schedules no table of its own: the candidate plays ordinary ladder tables
    runner = LadderRunner(store, lid)
    assert plan(store, lid, store.ladders.entrants(lid), runner.settings, fit=fit).running == []
    done = run_until_decided(store, lid, cid, elo, seed=4)
    assert done.status == want and done.finished_at is not None and done.games > 0
    assert (done.difference > 0) == (want == "better") and done.low < done.difference < done.high
    assert (done.state["p_better"] > 0.5) == (want == "better")
    assert done.games <= played_counts(store, lid)[info.candidate_entrant_id]  # the candidate's rated games
    if db_url.startswith("sqlite"):  # the command says what the answer is and how it differs from a live one
        code = cli_main(["ladder", "compare", "lad", "b@1.0", "b", "--db", db_url])
        out = capsys.readouterr().out
        assert code in (0, None) and f"compare #{cid}" in out and "against the record of b@1.0" in out
        assert f"{done.verdict} in {done.games} game(s)" in out
        assert "common opponents over different periods" in out and "weaker evidence" in out
        assert cli_main(["ladder", "compares", "lad", "--db", db_url]) in (0, None)
        listed = capsys.readouterr().out
        assert "b@1.0 (its record)" in listed and "common opponents" in listed


def test_a_record_needs_enough_games_and_a_live_candidate(store: Store, bots: list[int], db_url: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    lid = upgrade_in_place(store, bots, {}, random.Random(5), 4)
    fit = lambda: ladder_fit_and_counts(store, lid)  # noqa: E731
    with pytest.raises(CompareError, match=rf"b@1.0 is no longer played and has \d+ rated game\(s\) on ladder "
                                           rf"'lad': a compare against a record needs at least {RECORD_GAMES}"):
        start_compare(store, lid, "b@1.0", "b", fit=fit)
    with pytest.raises(CompareError, match="serves version 2.0 now, not 1.0"):
        start_compare(store, lid, "a", "b@1.0", fit=fit)  # only the base may be a record
    with pytest.raises(CompareError, match="0.9 has no record on ladder 'lad'"):
        start_compare(store, lid, "b@0.9", "b", fit=fit)
    if db_url.startswith("sqlite"):  # the command's one line
        code = cli_main(["ladder", "compare", "lad", "b@1.0", "b", "--db", db_url])
        err = capsys.readouterr().err
        assert code == 2 and "needs at least" in err and len(err.strip().splitlines()) == 1, err
    assert store.compares.list_compares(lid) == []


def test_a_compare_against_a_record_stops_when_its_candidate_retires_and_auto_keeps_the_record(
        store: Store, bots: list[int]) -> None:
    a, b, c, d = bots
    lid = upgrade_in_place(store, bots, {}, random.Random(6), RECORD_GAMES)
    fit = lambda: ladder_fit_and_counts(store, lid)  # noqa: E731
    auto = start_compare(store, lid, "b@1.0", "b", delta=10.0, fit=fit, follow=True)
    plain = start_compare(store, lid, "b@1.0", "c", delta=10.0, fit=fit)
    runner = LadderRunner(store, lid)
    runner.refill()
    store.bots.update_bot(b, version="3.0")
    store.bots.retire_bot(c)
    runner.refill()
    compares = {x.id: x for x in store.compares.list_compares(lid)}
    assert compares[plain].status == "stopped" and "c@1.0 left the ladder" in compares[plain].state["why"]
    nxt = [x for x in compares.values() if x.id not in (plain, auto)]
    assert compares[auto].status == "replaced"
    assert len(nxt) == 1 and (nxt[0].base, nxt[0].candidate, nxt[0].against_record, nxt[0].running) == \
        ("b@1.0", "b@3.0", True, True)
