"""The incremental Bradley-Terry fit (league.ratings.bt_incremental) against the full fit of the same games."""

from __future__ import annotations

import json
import math
import random

import pytest

from league.ratings.bt_incremental import BTAccumulator
from league.ratings.linalg import inverse, matmul
from league.ratings.ratings_ml import fit_bradley_terry
from tests.test_ratings_ml import TRUE_ELO, simulate


def _with_seat_luck(rng: random.Random, games: list, luck: float) -> list:
    """Games whose places move together: each game re-ranked with a shared swing for its first seat
    (the correlated pairs the sandwich is for)."""
    out = []
    for seats, places in games:
        if rng.random() < luck:
            places = [1 if k == 0 else p + (p < places[0]) for k, p in enumerate(places)]
        out.append((seats, places))
    return out


def _incremental(games: list, batch: int, through_json: bool = False):
    acc = BTAccumulator()
    fit = None
    for k in range(0, len(games), batch):
        acc.add_many(games[k:k + batch])
        if through_json:
            acc = BTAccumulator.from_json(acc.to_json())
        fit = acc.fit()
    return acc, fit


def test_ratings_are_the_full_fit_and_intervals_within_two_percent() -> None:
    rng = random.Random(11)
    games = _with_seat_luck(rng, simulate(rng, TRUE_ELO + [1550.0, 1450.0], 1500), 0.3)
    full = fit_bradley_terry(games)
    _, inc = _incremental(games, 50)
    assert inc.bots == full.bots and inc.games == full.games and inc.results == full.results
    for b in full.bots:
        assert inc.rating[b] == pytest.approx(full.rating[b], abs=1e-6)
        assert inc.sd(b) == pytest.approx(full.sd(b), rel=0.02)
        assert math.sqrt(inc.cov[b][b]) == pytest.approx(math.sqrt(full.cov[b][b]), rel=0.02)
        assert inc.cov_model[b][b] == pytest.approx(full.cov_model[b][b], rel=1e-6)
        lo, hi = inc.interval(b)
        flo, fhi = full.interval(b)
        assert lo == pytest.approx(flo, abs=0.5) and hi == pytest.approx(fhi, abs=0.5)
    for a, b in ((0, 1), (3, 4), (5, 7)):
        assert inc.p_better(a, b) == pytest.approx(full.p_better(a, b), abs=0.01)
    # the sandwich is really wider than the model's here (the test can tell a missing meat)
    assert max(full.cov[b][b] / full.cov_model[b][b] for b in full.bots) > 1.1


def test_one_batch_is_the_full_fit_exactly_and_order_does_not_matter() -> None:
    rng = random.Random(12)
    games = _with_seat_luck(rng, simulate(rng, TRUE_ELO, 600), 0.3)
    full = fit_bradley_terry(games)
    _, once = _incremental(games, len(games))
    for b in full.bots:
        assert once.rating[b] == pytest.approx(full.rating[b], abs=1e-6)
        for c in full.bots:
            assert once.cov[b][c] == pytest.approx(full.cov[b][c], rel=1e-6, abs=1e-6)
    shuffled = list(games)
    random.Random(1).shuffle(shuffled)
    _, forward = _incremental(games, 40)
    _, backward = _incremental(shuffled, 25)
    for b in full.bots:
        assert forward.rating[b] == pytest.approx(backward.rating[b], abs=1e-6)
        assert forward.sd(b) == pytest.approx(backward.sd(b), rel=0.02)


def test_the_checkpoint_round_trips_through_json_with_pending_games() -> None:
    rng = random.Random(13)
    games = simulate(rng, TRUE_ELO, 300)
    acc, fit = _incremental(games, 60, through_json=True)
    _, plain = _incremental(games, 60)
    assert fit == plain
    acc.add([0, 1, 2], [2, 1, 3])  # pending: kept in the checkpoint until the next fit
    text = acc.to_json()
    again = BTAccumulator.from_json(text)
    assert again.to_json() == text and again.pending == [((0, 1, 2), (2, 1, 3))]
    assert again.fit() == acc.fit()
    assert json.loads(text)["games"] == 301
    for bad in ("[]", "{}", '{"format": 99}', "not json", '{"format": 1, "pairs": [[1]]}'):
        with pytest.raises(ValueError, match="not a Bradley-Terry checkpoint"):
            BTAccumulator.from_json(bad)


def test_bad_games_add_nothing_and_self_play_is_no_result() -> None:
    acc = BTAccumulator()
    with pytest.raises(ValueError):
        acc.add([1, 2], [1])
    with pytest.raises(ValueError):
        acc.add([1, 2], [0, 1])
    acc.add([5, 5], [1, 2])  # a bot against itself tells nothing
    assert acc.games == 0 and acc.pairs == {} and acc.fit().bots == ()
    acc.add([1, 2], [1, 1])
    assert acc.pairs == {(1, 2): [0.5, 1.0]} and acc.scores() == {(1, 2): 0.5, (2, 1): 0.5}
    with pytest.raises(ValueError):
        BTAccumulator(prior_sd_elo=0.0)


def test_a_new_bot_joins_a_warm_fit() -> None:
    rng = random.Random(14)
    games = simulate(rng, TRUE_ELO, 400)
    acc = BTAccumulator.rebuild(games)
    newcomer = [([6, b], [1, 2] if k % 3 else [2, 1]) for k, b in enumerate([0, 1, 2, 3, 4, 5] * 10)]
    acc.add_many(newcomer)
    fit = acc.fit()
    full = fit_bradley_terry(games + newcomer)
    assert 6 in fit.bots and fit.rating[6] == pytest.approx(full.rating[6], abs=1e-6)
    assert fit.sd(6) == pytest.approx(full.sd(6), rel=0.05)


def test_the_linear_algebra_by_hand() -> None:
    a = [[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]]
    ident = matmul(a, inverse(a))
    for i in range(3):
        for j in range(3):
            assert ident[i][j] == pytest.approx(1.0 if i == j else 0.0, abs=1e-12)


def test_the_scale_bench_runs_small(capsys) -> None:
    from bench.ladder_scale import main

    assert main(["--entrants", "6", "--games", "300", "--new", "20", "--check", "200"]) == 0
    out = capsys.readouterr().out
    assert "standings refit" in out and "320 games rated" in out and "against the full fit of 200 games" in out
