"""The three-hypothesis test of a pair of bots (league.ratings.pair_test.pair_verdict): higher, lower, within the zone."""

from __future__ import annotations

import math
import random

import pytest

from league.ratings.bt_incremental import BTAccumulator
from league.ratings.pair_test import decide, pair_llr, pair_verdict, verdict_from_scores
from league.ratings.ratings_ml import fit_bradley_terry
from tests.test_ratings_ml import simulate


def test_the_decision_by_hand() -> None:
    bound = math.log(20)  # 95%
    assert decide(3.1, -9.0, 0.95) == "higher" and decide(-9.0, 3.1, 0.95) == "lower"
    assert decide(-3.1, -3.2, 0.95) == "within_zone"
    assert decide(-3.1, -2.9, 0.95) == "open" and decide(2.9, -8.0, 0.95) == "open"
    assert decide(bound, -bound, 0.95) == "higher"
    with pytest.raises(ValueError):
        decide(0.0, 0.0, 1.0)


def test_two_bots_by_hand_match_wald_on_the_win_rate() -> None:
    # 30 results, 15 each: l(c) of a binomial; at the zone p1 = 1 / (1 + 10^(-50/400))
    games = [([1, 2], [1, 2]), ([1, 2], [2, 1])] * 15
    fit = fit_bradley_terry(games)
    v = pair_verdict(games, fit, 1, 2, 50.0, 0.95)
    p1 = 1 / (1 + 10 ** (-50 / 400))
    wald = 15 * math.log(p1 / 0.5) + 15 * math.log((1 - p1) / 0.5)
    # the sandwich factor G / (G - 1) = 30 / 29 scales the ratios down by 3%
    assert v.llr_higher == pytest.approx(wald * 29 / 30, rel=0.005) and v.llr_lower == pytest.approx(wald * 29 / 30, rel=0.005)
    assert v.verdict == "open" and v.llr_zone == pytest.approx(-wald * 29 / 30, rel=0.005)
    assert v.llr_two_sided == pytest.approx(pair_llr(games, fit, 1, 2, 50.0), abs=1e-9)
    long = games * 12  # 360 results, 180 each: 12 x 0.30 = 3.6 > log(20)
    v = pair_verdict(long, fit_bradley_terry(long), 1, 2, 50.0, 0.95)
    assert v.verdict == "within_zone" and v.settled and v.strength == pytest.approx(v.llr_zone)
    assert pair_verdict(long, fit, 1, 9, 50.0, 0.95) is None and pair_verdict(long, fit, 1, 1, 50.0, 0.95) is None
    with pytest.raises(ValueError):
        pair_verdict(long, fit, 1, 2, 0.0, 0.95)


def _first_verdict(rng: random.Random, elo: list[float], delta: float, batch: int, most: int) -> tuple[str, int]:
    """A season of tables of 3 looked at every ``batch`` games: the first verdict of bots 0 and 1 other
    than open (in the order of bot 0 above bot 1), and the games it took; ("open", most) at the budget."""
    games: list = []
    while len(games) < most:
        games += simulate(rng, elo, batch, sizes=(3,))
        fit = fit_bradley_terry(games)
        v = pair_verdict(games, fit, 0, 1, delta, 0.95)
        if v.settled:
            return v.verdict, len(games)
    return "open", len(games)


def test_equal_bots_end_within_the_zone_and_unequal_ones_in_order() -> None:
    rng = random.Random(21)
    equal = [_first_verdict(rng, [1500.0, 1500.0, 1400.0], 100.0, 30, 1500) for _ in range(30)]
    tally = {k: sum(1 for v, _ in equal if v == k) for k in ("higher", "lower", "within_zone", "open")}
    assert tally["within_zone"] >= 25 and tally["higher"] + tally["lower"] <= 4, tally
    apart = [_first_verdict(rng, [1600.0, 1450.0, 1500.0], 100.0, 30, 1500) for _ in range(20)]
    assert sum(1 for v, _ in apart if v == "higher") >= 18 and not any(v == "lower" for v, _ in apart), apart
    reversed_ = [_first_verdict(rng, [1450.0, 1600.0, 1500.0], 100.0, 30, 1500) for _ in range(10)]
    assert sum(1 for v, _ in reversed_ if v == "lower") >= 9, reversed_


def test_the_accumulators_scores_give_the_same_verdict() -> None:
    games = simulate(random.Random(22), [1500.0, 1560.0, 1400.0, 1450.0], 400, sizes=(3, 4))
    fit = fit_bradley_terry(games)
    acc = BTAccumulator.rebuild(games)
    direct = pair_verdict(games, fit, 1, 0, 50.0, 0.95)
    via = verdict_from_scores(acc.scores(), acc.fit(), 1, 0, 50.0, 0.95)
    assert via.verdict == direct.verdict
    assert via.llr_higher == pytest.approx(direct.llr_higher, rel=1e-6)
    assert via.llr_lower == pytest.approx(direct.llr_lower, rel=1e-6)
