"""The stopping rule of sequential seasons (league.settling): by hand, and its error under repeated looks."""

from __future__ import annotations

import math
import random

import pytest

from league.ratings_ml import fit_bradley_terry, p_better_chain
from league.settling import SettlingRule, StopReason, evidence, look
from tests.test_ratings_ml import simulate


def _binomial_limit(trials: int, p: float) -> float:
    """The most of ``trials`` events of chance ``p`` the tests accept: ``p`` plus three standard deviations."""
    return trials * p + 3 * math.sqrt(trials * p * (1 - p))


def test_the_evidence_of_a_pair_by_hand() -> None:
    rule = SettlingRule(top=3, confidence=0.95, max_games=100, indifference=50.0)
    assert rule.bound == pytest.approx(math.log(20))
    assert rule.normal_llr(50.0, 50.0) == pytest.approx(2.0)  # 2 x 50 x 50 / 50^2
    assert rule.normal_llr(120.0, 40.0) == pytest.approx(7.5)
    assert rule.normal_llr(10.0, 0.0) == math.inf and rule.normal_llr(0.0, 0.0) == 0.0


def test_the_profile_likelihood_ratio_agrees_with_the_normal_one_and_survives_a_clean_sweep() -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=10**6, indifference=50.0)
    games = simulate(random.Random(4), [1500.0, 1560.0], 400, sizes=(2,))
    fit = fit_bradley_terry(games)
    ours = evidence(rule, games, fit, [1, 0])[0]
    normal = rule.normal_llr(fit.rating[1] - fit.rating[0], math.sqrt(fit.cov_model[0][0] + fit.cov_model[1][1]
                                                                       - 2 * fit.cov_model[0][1]))
    assert ours == pytest.approx(normal, rel=0.05)  # two-seat games: the normal approximation is good
    # bot 0 ahead in every one of 12 games: the fit runs to the prior and the normal ratio sees nothing
    sweep = [([0, 1, 2], [1, 2, 3]) if k % 2 else ([2, 0, 1], [3, 1, 2]) for k in range(12)]
    fit = fit_bradley_terry(sweep)
    strong = evidence(rule, sweep, fit, [0, 1, 2])[0]
    sd = math.sqrt(max(c[0][0] + c[1][1] - 2 * c[0][1] for c in (fit.cov, fit.cov_model)))  # as the fit reports it
    assert rule.normal_llr(fit.rating[0] - fit.rating[1], sd) < 1.0 < rule.bound < strong  # 12 x log(p1 / p0) = 3.45
    assert evidence(rule, sweep, fit, [0, 1, 2])[1:] == [None, None]  # only the top pair is looked at
    assert evidence(rule, sweep, fit, [0, 9, 1])[0] is None  # an unrated bot


def test_a_look_settles_only_when_every_top_pair_is_past_the_bound() -> None:
    rule = SettlingRule(top=3, confidence=0.9, max_games=100, indifference=50.0)
    strong, weak = 6.25, 1.875  # against log(10) = 2.30
    settled = look(rule, [strong, strong, weak, None], 50)
    assert settled.stop is StopReason.SETTLED and settled.weakest == pytest.approx(6.25)
    go_on = look(rule, [strong, weak, strong, None], 50)
    assert go_on.stop is None and go_on.weakest == pytest.approx(1.875)
    assert go_on.threshold == pytest.approx(math.log(10))
    assert look(rule, [strong, None, None], 50).stop is None  # an unrated row never settles
    assert look(rule, [weak, weak, None], 100).stop is StopReason.BUDGET
    assert look(rule, [strong, strong, None], 100).stop is StopReason.SETTLED  # settled beats budget at the last look
    assert look(rule, [math.inf, math.inf, None], 10).weakest == 1e9  # kept finite for the season's JSON
    for bad in ({"top": 1}, {"confidence": 1.0}, {"confidence": 0.5}, {"max_games": 0}, {"indifference": 0.0},
                {"indifference": 2000.0}):
        with pytest.raises(ValueError):
            SettlingRule(**bad)  # type: ignore[arg-type]


def _gaussian_wrong_settles(diff: float, rule: SettlingRule, trials: int, looks: int, seed: int) -> tuple[int, float]:
    """Streams of per-game score differences ``N(diff, 200^2)`` (Elo points) looked at after every game:
    how many ever settle with the upper row really worse (the estimate shown above zero while
    ``diff`` < 0), and the mean games at the stop (``looks`` if never)."""
    rng, wrong, games = random.Random(seed), 0, 0
    for _ in range(trials):
        total, n = 0.0, 0
        for n in range(1, looks + 1):
            total += rng.gauss(diff, 200.0)
            mean, sd = total / n, 200.0 / math.sqrt(n)
            # the rows are shown best first: the pair's gap is |mean| in the order the mean says
            verdict = look(rule, [rule.normal_llr(abs(mean), sd), None], n)
            if verdict.stop is StopReason.SETTLED:
                wrong += mean > 0
                break
        games += n
    return wrong, games / trials


def test_at_the_boundary_of_the_zone_wrong_settles_stay_within_alpha_whatever_the_looks() -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=10**6, indifference=50.0)
    trials = 2000
    wrong, _ = _gaussian_wrong_settles(-50.0, rule, trials, looks=400, seed=1)  # lower row better by the zone
    assert wrong <= _binomial_limit(trials, 0.05), wrong
    # further outside the zone the error shrinks: at twice the zone at most alpha^2
    far, _ = _gaussian_wrong_settles(-100.0, rule, trials, looks=400, seed=2)
    assert far <= _binomial_limit(trials, 0.0025), far


def test_a_large_gap_is_decided_fast() -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=10**6, indifference=50.0)
    _, near = _gaussian_wrong_settles(-50.0, rule, 300, looks=2000, seed=3)
    wrong, far = _gaussian_wrong_settles(-200.0, rule, 300, looks=2000, seed=3)
    assert wrong == 0 and far < 10 and near > 3 * far, (near, far)  # about log(20) / (2 x 50 x 200 / 200^2) = 6 games


def _wrong_stops(rule: SettlingRule, naive: bool, seasons: int, batch: int, elo: list[float]) -> int:
    """Sequential two-bot seasons (bot 1 better): how many stop "settled" with bot 0 on top,
    fitting the ratings after every ``batch`` games."""
    rng, wrong = random.Random(5), 0
    for _ in range(seasons):
        games: list = []
        while len(games) < rule.max_games:
            games += simulate(rng, elo, batch, sizes=(2,))
            fit = fit_bradley_terry(games)
            order = sorted(fit.bots, key=lambda b: -fit.rating[b])
            chain = p_better_chain(order, fit)
            if naive:
                stop = StopReason.SETTLED if chain[order[0]] >= rule.confidence else None
            else:
                stop = look(rule, evidence(rule, games, fit, order), len(games)).stop
            if stop is StopReason.SETTLED:
                wrong += order[0] == 0
                break
    return wrong


def test_on_fitted_ratings_wrong_stops_at_the_zone_stay_within_alpha_where_a_plain_check_does_not() -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=400, indifference=50.0)
    seasons = 200
    at_zone = [1500.0, 1550.0]  # bot 1 better by exactly the zone
    ours = _wrong_stops(rule, naive=False, seasons=seasons, batch=10, elo=at_zone)
    assert ours <= _binomial_limit(seasons, 0.05), ours
    # nearly equal bots: "stop when P > 0.95" after every batch is wrong far more often than 5%
    plain = _wrong_stops(rule, naive=True, seasons=seasons, batch=40, elo=[1500.0, 1505.0])
    assert plain > 0.05 * seasons, plain
