"""The stopping rule of sequential seasons (league.settling): by hand, and its error under repeated looks."""

from __future__ import annotations

import random

import pytest

from league.ratings_ml import fit_bradley_terry, p_better_chain
from league.settling import SettlingRule, StopReason, look
from tests.test_ratings_ml import simulate


def test_the_looks_spend_exactly_the_error_budget_whatever_the_batches() -> None:
    rule = SettlingRule(top=3, confidence=0.95, max_games=100)
    for looks in ([100], [10, 20, 40, 100], [1, 2, 3, 50, 99, 100], [30, 60, 90, 120]):
        before, spent = 0, 0.0
        for now in looks:
            spent += 2 * (1 - rule.threshold(before, now, rows=6))  # two adjacent pairs in the top 3
            before = now
        assert spent == pytest.approx(0.05)
    # one look at the whole budget: each of the 2 pairs gets half of alpha
    assert rule.threshold(0, 100, rows=6) == pytest.approx(1 - 0.025)
    # beyond the budget nothing is left to spend
    assert rule.threshold(100, 120, rows=6) == 1.0
    # a table of 2 rows has one pair to separate
    assert rule.threshold(0, 50, rows=2) == pytest.approx(1 - 0.025)
    with pytest.raises(ValueError):
        rule.threshold(10, 10, rows=6)


def test_a_look_settles_only_when_every_top_pair_is_past_the_threshold() -> None:
    rule = SettlingRule(top=3, confidence=0.9, max_games=100)
    # threshold after 50 of 100 games, from 0: 1 - 0.1 * 0.5 / 2 = 0.975
    assert look(rule, [0.99, 0.98, 0.51, None], 0, 50).stop is StopReason.SETTLED
    go_on = look(rule, [0.99, 0.97, 0.99, None], 0, 50)
    assert go_on.stop is None and go_on.weakest == 0.97 and go_on.threshold == pytest.approx(0.975)
    assert look(rule, [0.99, None, None], 0, 50).stop is None  # an unrated row never settles
    assert look(rule, [0.6, 0.6, None], 50, 100).stop is StopReason.BUDGET
    assert look(rule, [1.0, 1.0, None], 50, 100).stop is StopReason.SETTLED  # settled beats budget at the last look
    for bad in ({"top": 1}, {"confidence": 1.0}, {"confidence": 0.5}, {"max_games": 0}):
        with pytest.raises(ValueError):
            SettlingRule(**bad)  # type: ignore[arg-type]


def _wrong_stops(rule: SettlingRule, naive: bool, seasons: int, batch: int) -> int:
    """Sequential two-bot seasons of nearly equal bots (1505 against 1500, bot 1 better): how many
    stop "settled" with bot 0 on top, looking after every ``batch`` games."""
    rng, wrong = random.Random(5), 0
    for _ in range(seasons):
        games: list = []
        before = 0
        while len(games) < rule.max_games:
            games += simulate(rng, [1500.0, 1505.0], batch, sizes=(2,))
            fit = fit_bradley_terry(games)
            order = sorted(fit.bots, key=lambda b: -fit.rating[b])
            chain = p_better_chain(order, fit)
            if naive:
                stop = StopReason.SETTLED if chain[order[0]] >= rule.confidence else None
            else:
                stop = look(rule, [chain[b] for b in order], before, len(games)).stop
            before = len(games)
            if stop is StopReason.SETTLED:
                wrong += order[0] == 0
                break
    return wrong


def test_under_repeated_looks_wrong_stops_stay_within_the_budget_where_a_plain_check_does_not() -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=400)
    seasons = 200
    ours = _wrong_stops(rule, naive=False, seasons=seasons, batch=40)
    plain = _wrong_stops(rule, naive=True, seasons=seasons, batch=40)
    assert ours <= 0.05 * seasons  # the bound: at most 5% of seasons settle in the wrong order
    assert plain > 0.05 * seasons  # "stop when P > 0.95" after every batch is wrong more often than 5%
    assert plain > 2 * ours, (ours, plain)
