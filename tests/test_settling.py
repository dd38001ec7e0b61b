"""The stopping rule of sequential seasons (league.ratings.settling): by hand, and its error under repeated looks.

The rule is the three-hypothesis test (higher / lower / within the zone) since equal bots must settle too:
the looks below take verdicts (league.ratings.pair_test.PairVerdict) where they took the two-sided ratio."""

from __future__ import annotations

import math
import random

import pytest

from league.ratings.pair_test import PairVerdict, decide, pair_llr
from league.ratings.ratings_ml import fit_bradley_terry, p_better_chain
from league.ratings.settling import SettlingRule, StopReason, look, verdicts
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
    ours = pair_llr(games, fit, 1, 0, rule.indifference)
    normal = rule.normal_llr(fit.rating[1] - fit.rating[0], math.sqrt(fit.cov_model[0][0] + fit.cov_model[1][1]
                                                                       - 2 * fit.cov_model[0][1]))
    assert ours == pytest.approx(normal, rel=0.05)  # two-seat games: the normal approximation is good
    # bot 0 ahead in every one of 12 games: the fit runs to the prior and the normal ratio sees nothing
    sweep = [([0, 1, 2], [1, 2, 3]) if k % 2 else ([2, 0, 1], [3, 1, 2]) for k in range(12)]
    fit = fit_bradley_terry(sweep)
    strong = verdicts(rule, sweep, fit, [0, 1, 2])
    sd = math.sqrt(max(c[0][0] + c[1][1] - 2 * c[0][1] for c in (fit.cov, fit.cov_model)))  # as the fit reports it
    # 12 wins: 12 x log(p1 / 0.5) = 1.61 for +zone against equal, short of log(20); the two-sided ratio 3.45 was past it
    assert rule.normal_llr(fit.rating[0] - fit.rating[1], sd) < 1.0 < strong[0].llr_higher < rule.bound
    assert rule.bound < strong[0].llr_two_sided and strong[0].verdict == "open"
    assert len(strong) == 1  # only the top pair is looked at
    assert verdicts(rule, sweep, fit, [0, 9, 1]) == [None]  # an unrated bot
    longer = [g for _ in range(2) for g in sweep]  # 24 wins: 3.2 > log(20)
    assert verdicts(rule, longer, fit_bradley_terry(longer), [0, 1, 2])[0].verdict == "higher"


def _verdict(up: float, down: float, confidence: float = 0.9) -> PairVerdict:
    return PairVerdict(0, 1, decide(up, down, confidence), up, down, math.log(1 / (1 - confidence)))


def test_a_look_settles_only_when_every_top_pair_is_settled() -> None:
    rule = SettlingRule(top=3, confidence=0.9, max_games=100, indifference=50.0)
    higher, zone, unsure = _verdict(6.25, -9.0), _verdict(-2.5, -3.0), _verdict(1.875, -4.0)  # against log(10) = 2.30
    assert (higher.verdict, zone.verdict, unsure.verdict) == ("higher", "within_zone", "open")
    settled = look(rule, [higher, zone], 50)
    assert settled.stop is StopReason.SETTLED and settled.weakest == pytest.approx(2.5)
    assert [p["verdict"] for p in settled.as_json()["pairs"]] == ["higher", "within_zone"]
    go_on = look(rule, [higher, unsure], 50)
    assert go_on.stop is None and go_on.weakest == pytest.approx(1.875)
    assert go_on.threshold == pytest.approx(math.log(10))
    assert look(rule, [higher, None], 50).stop is None  # an unrated row never settles
    assert look(rule, [unsure, unsure], 100).stop is StopReason.BUDGET
    assert look(rule, [higher, zone], 100).stop is StopReason.SETTLED  # settled beats budget at the last look
    assert look(rule, [_verdict(math.inf, -math.inf), higher], 10).weakest == pytest.approx(6.25)
    assert _verdict(math.inf, -math.inf).as_json()["llr_higher"] == 1e9  # kept finite for the season's JSON
    for bad in ({"top": 1}, {"confidence": 1.0}, {"confidence": 0.5}, {"max_games": 0}, {"indifference": 0.0},
                {"indifference": 2000.0}):
        with pytest.raises(ValueError):
            SettlingRule(**bad)  # type: ignore[arg-type]


def _normal_verdict(rule: SettlingRule, diff: float, sd: float) -> PairVerdict:
    """The verdict for an estimated difference ``diff`` normal with standard error ``sd`` (Elo points):
    ``l(c) = -(diff - c)^2 / (2 sd^2)``, so ``l(+delta) - l(0) = (delta diff - delta^2 / 2) / sd^2``."""
    d = rule.indifference
    up, down = (d * diff - d * d / 2) / sd ** 2, (-d * diff - d * d / 2) / sd ** 2
    return PairVerdict(0, 1, decide(up, down, rule.confidence), up, down, rule.bound)


def _gaussian_wrong_settles(diff: float, rule: SettlingRule, trials: int, looks: int, seed: int,
                            zone: list[int] | None = None) -> tuple[int, float]:
    """Streams of per-game score differences ``N(diff, 200^2)`` (Elo points) looked at after every game:
    how many ever settle "higher" with the upper row really worse (the estimate shown above zero while
    ``diff`` < 0), and the mean games at the stop (``looks`` if never); ``zone`` counts the
    "within the zone" stops."""
    rng, wrong, games = random.Random(seed), 0, 0
    for _ in range(trials):
        total, n = 0.0, 0
        for n in range(1, looks + 1):
            total += rng.gauss(diff, 200.0)
            mean, sd = total / n, 200.0 / math.sqrt(n)
            # the rows are shown best first: the pair's gap is |mean| in the order the mean says
            verdict = look(rule, [_normal_verdict(rule, abs(mean), sd)], n)
            if verdict.stop is StopReason.SETTLED:
                if verdict.pairs[0].verdict == "within_zone":
                    if zone is not None:
                        zone.append(n)
                else:
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
    # two bots the zone apart are called "within the zone" in at most alpha of the streams
    zone: list[int] = []
    _gaussian_wrong_settles(50.0, rule, trials, looks=2000, seed=4, zone=zone)
    assert len(zone) <= _binomial_limit(trials, 0.05), len(zone)


def test_equal_bots_settle_within_the_zone() -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=10**6, indifference=50.0)
    trials, zone = 1000, []
    wrong, used = _gaussian_wrong_settles(0.0, rule, trials, looks=2000, seed=6, zone=zone)
    # "higher" for equal bots: at most alpha (the rows are shown in the order the estimate says)
    assert wrong <= _binomial_limit(trials, 0.05), wrong
    assert len(zone) >= 0.9 * trials, len(zone)
    # about 2 log(20) / (50 / 200)^2 = 96 games, every stream settled long before the 2,000 looks
    assert 50 < sorted(zone)[len(zone) // 2] < 200 and used < 300, used


def test_a_large_gap_is_decided_fast() -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=10**6, indifference=50.0)
    _, near = _gaussian_wrong_settles(-50.0, rule, 300, looks=2000, seed=3)
    wrong, far = _gaussian_wrong_settles(-200.0, rule, 300, looks=2000, seed=3)
    # "higher" against "equal": about log(20) / ((50 x 200 - 50^2 / 2) / 200^2) = 14 games (the two-sided test
    # of +zone against -zone needed 6, but could not tell equal bots apart)
    assert wrong == 0 and far < 20 and near > 3 * far, (near, far)


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
                stop = look(rule, verdicts(rule, games, fit, order), len(games)).stop
            if stop is StopReason.SETTLED:
                wrong += order[0] == 0 and (naive or verdicts(rule, games, fit, order)[0].verdict == "higher")
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
