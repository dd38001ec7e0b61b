"""The luck audit's test martingale (league.integrity.eprocess): wealth by hand, valid under honest
(mean-zero) sequences over whole lives, quick to reject a biased one, the group factor of a deal's
rotations, the levels of a season and a ladder, and units ordered as they became final."""

from __future__ import annotations

import math
import random

import pytest

from league.integrity.eprocess import (FAMILY_ALPHA, LAMBDAS, EProcess, Unit, ladder_alpha, luck_audit,
                                       season_alpha, units_of)


def test_wealth_by_hand() -> None:
    p = EProcess((0.5,))
    assert p.add([[1.0, -0.5]]) == pytest.approx(1.5 * 0.75)
    p = EProcess((0.5, 0.25))
    w = p.add([[1.0]])
    assert w == pytest.approx((1.5 + 1.25) / 2)
    with pytest.raises(ValueError):
        p.add([[1.5]])
    with pytest.raises(ValueError):
        EProcess((1.0,))


def test_group_factor_is_the_mean_of_the_rotations_products() -> None:
    p = EProcess((0.5,))
    assert p.add([[1.0], [-1.0]]) == pytest.approx((1.5 + 0.5) / 2)
    assert p.games == 2 and p.units == 1 and p.terms == 2


def test_honest_sequences_rarely_reach_the_threshold_over_their_whole_life() -> None:
    """2000 honest bots, each 400 units of skewed mean-zero terms (+0.9 w.p. 0.1, -0.1 otherwise):
    the share whose wealth ever reached 1/alpha = 20 stays under alpha = 5% (Ville); the
    largest wealth is typically small."""
    rng = random.Random(7)
    alpha, hits = 0.05, 0
    for _ in range(2000):
        p = EProcess()
        for _ in range(400):
            p.add([[0.9 if rng.random() < 0.1 else -0.1 for _ in range(3)]], 1 / alpha)
        hits += p.crossed_at is not None
    assert hits / 2000 <= alpha


def test_a_biased_sequence_is_rejected() -> None:
    rng = random.Random(1)
    p = EProcess()
    for _ in range(300):
        p.add([[max(-1.0, min(1.0, rng.gauss(0.1, 0.3))) for _ in range(5)]], 1000.0)
    assert p.crossed_at is not None and p.crossed_at[0] < 300


def test_a_remembering_bot_in_a_deal_group_is_caught_by_its_later_rotations() -> None:
    """First rotation honest (mean 0), later rotations knowing (+0.5): the group factor grows."""
    rng = random.Random(2)
    units = [Unit(g, 3, {1: [[rng.choice((-0.3, 0.3)) for _ in range(8)],
                             [0.5] * 8, [0.5] * 8],
                         2: [[rng.choice((-0.3, 0.3)) for _ in range(8)] for _ in range(3)]})
             for g in range(24)]
    audits = luck_audit(units, {1: season_alpha(2), 2: season_alpha(2)})
    assert audits[1].flagged and not audits[2].flagged
    assert audits[1].games == 72 and audits[1].units == 24 and audits[1].terms == 24 * 24
    assert "luck: wealth" in audits[1].message() and "games" in audits[1].message()


def test_levels() -> None:
    assert season_alpha(4) == pytest.approx(FAMILY_ALPHA / 4)
    total = math.fsum(ladder_alpha(k) for k in range(1, 200_000))
    assert total < FAMILY_ALPHA and total == pytest.approx(FAMILY_ALPHA, rel=1e-4)
    with pytest.raises(ValueError):
        ladder_alpha(0)
    with pytest.raises(ValueError):
        luck_audit([], {1: 1.5})
    assert len(LAMBDAS) == 7 and all(0 < lam < 1 for lam in LAMBDAS)


def test_units_are_ordered_as_they_became_final_and_groups_are_one_unit() -> None:
    games = [
        (1, 1, 30.0, [10, 11], [[0.1], [0.2]]),
        (2, 2, 10.0, [11, 10], [[0.3], [0.4]]),
        (3, 2, 20.0, [10, 11], [[0.5], [0.6]]),
        (4, 4, None, [10, 11], [[], []]),
        (5, 5, 5.0, [10, 10], [[0.7], [0.8]]),
    ]
    units = units_of(games)
    assert [u.key for u in units] == [5, 2, 1, 4]
    assert units[0].terms == {10: ((0.7, 0.8),)}
    assert units[1].games == 2 and units[1].terms[10] == ((0.4,), (0.5,))
    with pytest.raises(ValueError):
        units_of([(1, 1, 0.0, [1, 2], [[0.1]])])
