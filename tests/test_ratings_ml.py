"""Season ratings: maximum-likelihood Bradley-Terry with 95% intervals, and openskill.

Simulated seasons draw each game's ranking from a Plackett-Luce model with
known strengths (exponential races: the seat with the smallest Exp(e^theta)
time finishes first), whose pairwise margins are exactly Bradley-Terry.
"""

from __future__ import annotations

import math
import random

import pytest

from league.ratings.ratings_ml import (
    ANCHOR,
    SCALE,
    fit_bradley_terry,
    openskill_ratings,
    p_better_chain,
    pairwise_results,
)
from league.competition.standings import SeatOutcome, compute_standings, standings_json

#: True strengths in Elo points around 1500 (mean 1500).
TRUE_ELO = [1300.0, 1400.0, 1480.0, 1520.0, 1600.0, 1700.0]


def simulate(rng: random.Random, elo: list[float], games: int, sizes: tuple[int, ...] = (3, 4, 5, 6)):
    """``games`` rankings of random tables of bots 0..n-1 (bot ids = indexes)."""
    out = []
    for _ in range(games):
        seats = rng.sample(range(len(elo)), rng.choice(sizes))
        times = [rng.expovariate(math.exp((elo[b] - ANCHOR) / SCALE)) for b in seats]
        order = sorted(range(len(seats)), key=lambda i: times[i])
        places = [0] * len(seats)
        for place, i in enumerate(order, start=1):
            places[i] = place
        out.append((seats, places))
    return out


def test_pairwise_decomposition() -> None:
    # seats: bots 7, 3, 7, 5 with places 2, 1, 2, 4: the two seats of bot 7 make no result
    assert sorted(pairwise_results([7, 3, 7, 5], [2, 1, 2, 4])) == sorted([
        (3, 7, 1.0), (5, 7, 0.0), (3, 7, 1.0), (3, 5, 1.0), (5, 7, 0.0)])
    assert pairwise_results([1, 2], [1, 1]) == [(1, 2, 0.5)]
    with pytest.raises(ValueError):
        pairwise_results([1, 2], [1])
    with pytest.raises(ValueError):
        pairwise_results([1, 2], [0, 1])


def test_two_bots_by_hand() -> None:
    # 30 wins to 10 between two bots: theta difference = ln 3 (minus a tiny prior pull), mean 1500
    games = [([1, 2], [1, 2])] * 30 + [([1, 2], [2, 1])] * 10
    fit = fit_bradley_terry(games)
    diff = fit.rating[1] - fit.rating[2]
    assert diff == pytest.approx(SCALE * math.log(3), rel=0.01) and diff < SCALE * math.log(3)
    assert (fit.rating[1] + fit.rating[2]) / 2 == pytest.approx(1500)
    # two-player games are independent results: sd of the difference ~ 1 / sqrt(n p (1 - p))
    sd_diff = math.sqrt(fit.cov[1][1] + fit.cov[2][2] - 2 * fit.cov[1][2])
    assert sd_diff == pytest.approx(SCALE / math.sqrt(40 * 0.75 * 0.25), rel=0.05)
    assert fit.p_better(1, 2) == pytest.approx(1 - fit.p_better(2, 1))
    assert fit.p_better(1, 2) > 0.99


def test_recovers_the_order_of_known_strengths() -> None:
    fit = fit_bradley_terry(simulate(random.Random(11), TRUE_ELO, 1500))
    assert sorted(fit.bots, key=lambda b: fit.rating[b]) == list(range(len(TRUE_ELO)))
    for bot, true in enumerate(TRUE_ELO):
        low, high = fit.interval(bot)
        assert low <= true <= high and abs(fit.rating[bot] - true) < 60
    better = p_better_chain(sorted(fit.bots, key=lambda b: -fit.rating[b]), fit)
    assert better[5] > 0.99 and better[0] is None  # 1700 vs 1600; the weakest is last


def test_intervals_hold_the_true_ratings_about_95_percent_of_the_time() -> None:
    """Coverage over 150 simulated seasons of 100 games (900 intervals)."""
    rng = random.Random(2024)
    hits = naive_hits = total = 0
    for _ in range(150):
        games = simulate(rng, TRUE_ELO, 100)
        fit = fit_bradley_terry(games)
        naive = fit.cov_model
        for bot, true in enumerate(TRUE_ELO):
            low, high = fit.interval(bot)
            hits += low <= true <= high
            naive_hits += abs(fit.rating[bot] - true) <= 1.96 * math.sqrt(naive[bot][bot])
            total += 1
    coverage, naive_coverage = hits / total, naive_hits / total
    assert 0.90 <= coverage <= 0.98, coverage
    # treating a game's pairs as independent results would claim more certainty than there is
    assert naive_coverage < 0.90 < coverage, naive_coverage


def test_small_seasons_do_not_claim_more_than_they_know() -> None:
    """300 seasons of 4 three-seat games among 4 bots: the sandwich alone, fitted on 4 games,
    held the true ratings 77% of the time and 17% of its "P(better) > 95%" claims were wrong."""
    rng = random.Random(7)
    elo = TRUE_ELO[:4]
    hits = total = confident = wrong = 0
    for _ in range(300):
        fit = fit_bradley_terry(simulate(rng, elo, 4, sizes=(3,)))
        shift = 1500 - sum(elo[b] for b in fit.bots) / len(fit.bots)  # ratings have mean 1500
        for bot in fit.bots:
            low, high = fit.interval(bot)
            hits += low <= elo[bot] + shift <= high
            total += 1
        for a in fit.bots:
            for b in fit.bots:
                p = fit.p_better(a, b)
                if a < b and (p > 0.95 or p < 0.05):
                    confident += 1
                    wrong += (p > 0.5) != (elo[a] > elo[b])
    assert hits / total >= 0.93, hits / total
    assert confident > 30 and wrong / confident <= 0.10, (wrong, confident)


def test_two_player_seasons_cover_too() -> None:
    rng = random.Random(5)
    hits = total = 0
    for _ in range(100):
        fit = fit_bradley_terry(simulate(rng, TRUE_ELO, 150, sizes=(2,)))
        for bot, true in enumerate(TRUE_ELO):
            low, high = fit.interval(bot)
            hits += low <= true <= high
            total += 1
    assert 0.90 <= hits / total <= 0.98, hits / total


def test_results_in_any_order_give_the_same_ratings() -> None:
    games = simulate(random.Random(3), TRUE_ELO, 300)
    fit = fit_bradley_terry(games)
    for seed in range(3):
        shuffled = list(games)
        random.Random(seed).shuffle(shuffled)
        again = fit_bradley_terry(shuffled)
        assert again.rating == fit.rating and again.cov == fit.cov  # exactly, not approximately


def test_an_undefeated_bot_stays_finite_with_a_wide_interval() -> None:
    games = [([1, 2, 3], [1, 2, 3]), ([1, 3, 2], [1, 3, 2]), ([2, 3, 1], [2, 3, 1])] * 3
    fit = fit_bradley_terry(games)
    assert all(math.isfinite(fit.rating[b]) and math.isfinite(fit.sd(b)) for b in (1, 2, 3))
    assert fit.rating[1] > fit.rating[2] > fit.rating[3]
    low, high = fit.interval(1)
    assert high - low > 500  # the data cannot say how much better it is
    assert fit_bradley_terry([]).bots == ()


def test_openskill_orders_known_strengths_and_is_deterministic() -> None:
    games = simulate(random.Random(8), TRUE_ELO, 600)
    skill = openskill_ratings(games)
    assert skill == openskill_ratings(games)
    mus = [skill[b][0] for b in range(len(TRUE_ELO))]
    assert mus[0] < mus[2] < mus[4] and mus[1] < mus[3] < mus[5]
    assert all(0 < skill[b][1] < 25 / 3 for b in skill)
    # a bot in two seats of one game gets one rating
    assert set(openskill_ratings([([1, 1, 2], [1, 3, 2])])) == {1, 2}


def test_standings_rows_carry_the_season_ratings() -> None:
    games = simulate(random.Random(9), TRUE_ELO[:4], 80, sizes=(3, 4))
    outcomes = [SeatOutcome(b, p, 0, 0) for seats, places in games for b, p in zip(seats, places, strict=True)]
    names = {b: f"bot{b}" for b in range(4)} | {9: "idle"}
    rows = compute_standings(outcomes, names, {b: 1500.0 + b for b in range(4)}, games)
    # ranked by the ML rating (not by the Elo given, bot3 > bot2 > bot1 > bot0); idle, unrated, last
    assert [r.name for r in rows][4:] == ["idle"] and {r.name for r in rows[:4]} == {f"bot{b}" for b in range(4)}
    assert [r.ml_rating for r in rows[:4]] == sorted((r.ml_rating for r in rows[:4]), reverse=True)
    for r in rows[:4]:
        assert r.ml_low < r.ml_rating < r.ml_high and r.openskill_sigma > 0
    assert all(r.p_better is not None and 0.5 <= r.p_better <= 1 for r in rows[:3])
    assert rows[3].p_better is None  # the next row (idle) has no rating
    idle = rows[4]
    assert (idle.ml_rating, idle.p_better, idle.openskill_mu) == (None, None, None)
    data = standings_json(rows)
    assert set(data[0]) >= {"ml_rating", "ml_low", "ml_high", "p_better", "openskill_mu", "openskill_sigma"}
    assert data[0]["ml_rating"] == round(rows[0].ml_rating, 1)


def test_season_ratings_are_remembered_and_never_stale() -> None:
    from league.ratings.ratings_ml import season_ratings

    games = simulate(random.Random(12), TRUE_ELO, 50)
    first = season_ratings(games)
    assert season_ratings([(list(b), list(p)) for b, p in games]) is first  # same games: the cached result
    more = season_ratings(games + [([0, 5], [1, 2])])
    assert more is not first and more[0].rating != first[0].rating
    assert first[0].rating == fit_bradley_terry(games).rating and first[1] == openskill_ratings(games)
