"""Version A/B statistics (league.ratings.abtest): better, worse or within the zone, and the games used."""

from __future__ import annotations

import math
import random

import pytest

from league.ratings.abtest import ABTest, record_result
from league.ratings.ratings_ml import ANCHOR, SCALE, MLRatings


def _tables(rng: random.Random, elo: list[float], tables: int, seats: int = 4) -> list:
    """Tables seating bots 0 and 1 (the versions) and ``seats - 2`` of the others; Plackett-Luce places."""
    out = []
    for _ in range(tables):
        table = [0, 1, *rng.sample(range(2, len(elo)), seats - 2)]
        rng.shuffle(table)
        times = [rng.expovariate(math.exp((elo[b] - ANCHOR) / SCALE)) for b in table]
        order = sorted(range(seats), key=times.__getitem__)
        places = [0] * seats
        for place, i in enumerate(order, start=1):
            places[i] = place
        out.append((table, places))
    return out


def _run(seed: int, gap: float, max_games: int = 20_000) -> tuple[str, int]:
    rng = random.Random(seed)
    elo = [1500.0, 1500.0 + gap, 1400.0, 1450.0, 1550.0, 1600.0]
    test = ABTest(old=0, new=1, delta=100.0, max_games=max_games)
    while (result := test.update(_tables(rng, elo, 16))).stop is None:
        pass
    return result.verdict, result.games


def test_the_answers_on_simulated_versions() -> None:
    better = [_run(s, 150.0) for s in range(12)]
    equal = [_run(100 + s, 0.0) for s in range(12)]
    worse = [_run(200 + s, -150.0) for s in range(6)]
    assert sum(v == "better" for v, _ in better) >= 11, better
    assert sum(v == "within_zone" for v, _ in equal) >= 10, equal
    assert all(v == "worse" for v, _ in worse), worse
    # far apart is decided faster than equal (about 2 log(40) / (100 / 173.7)^2 = 22 of information)
    assert sorted(g for _, g in better)[6] < sorted(g for _, g in equal)[6]


def test_a_decided_test_uses_no_more_games_and_the_budget_leaves_it_open() -> None:
    rng = random.Random(3)
    elo = [1500.0, 1800.0, 1400.0, 1450.0, 1550.0, 1600.0]
    test = ABTest(old=0, new=1, delta=100.0)
    while (result := test.update(_tables(rng, elo, 16))).stop is None:
        pass
    assert result.verdict == "better" and result.stop == "decided" and result.llr_better >= result.threshold
    assert result.interval[0] < result.difference < result.interval[1] and result.difference > 100
    assert test.update(_tables(rng, elo, 16)) is result and test.stats.games == result.games
    verdict, used = _run(7, 0.0, max_games=32)
    assert (verdict, used) == ("open", 32)
    first = ABTest(old=0, new=1).update([([2, 3], [1, 2])])  # neither version played yet
    assert first.verdict == "open" and first.difference is None and first.stop is None


def test_bad_settings_are_refused() -> None:
    for bad in ({"new": 0}, {"delta": 0.0}, {"delta": 2000.0}, {"confidence": 1.0}, {"confidence": 0.5},
                {"max_games": 0}):
        with pytest.raises(ValueError):
            ABTest(**{"old": 0, "new": 1, **bad})  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ABTest(old=0, new=1).update([([0, 1], [1])])


def test_the_ab_bench_runs_small(capsys) -> None:
    from bench.ladder_ab import SCALE, ahead, main, strength_gap

    assert ahead(0.0, 1.0) == pytest.approx(0.5) and strength_gap(50.0, 0.0) * SCALE == pytest.approx(50.0)
    # luck dilutes skill: more strength is needed for the same chance of finishing ahead
    assert ahead(strength_gap(50.0, 1.0), 1.0) == pytest.approx(1 / (1 + 10 ** (-50 / 400)), abs=1e-6)
    assert strength_gap(50.0, 1.0) * SCALE > 60
    assert main(["--trials", "2", "--max-games", "48", "--zone", "100"]) == 0
    out = capsys.readouterr().out
    assert out.count("separate deals") == 3 and out.count("duplicate") == 3


def _fit(diff: float, sd_each: float) -> MLRatings:
    """A fit of entrants 1 (1500) and 2 (1500 + ``diff``), independent, each with standard error ``sd_each``."""
    cov = {1: {1: sd_each ** 2, 2: 0.0}, 2: {1: 0.0, 2: sd_each ** 2}}
    return MLRatings((1, 2), {1: 1500.0, 2: 1500.0 + diff}, cov, 100, 50)


@pytest.mark.parametrize(("diff", "sd_each", "want"), [
    (200.0, 35.0, "better"), (-200.0, 35.0, "worse"), (0.0, 7.0, "within_zone"), (0.0, 30.0, "open"),
    (60.0, 35.0, "open")])
def test_the_answer_against_a_record_is_the_normal_ratio_of_the_fits_difference(diff: float, sd_each: float,
                                                                               want: str) -> None:
    """Rules §5.5 item 7: up = (delta D - delta^2 / 2) / s^2 and its mirror, against log(1 / alpha)."""
    fit = _fit(diff, sd_each)
    r = record_result(fit, 1, 2, 100.0, 0.975, games=40, max_games=5000)
    var = 2 * sd_each ** 2
    assert r.verdict == want and r.difference == pytest.approx(diff)
    assert r.llr_better == pytest.approx((100.0 * diff - 5000.0) / var)
    assert r.llr_worse == pytest.approx((-100.0 * diff - 5000.0) / var)
    assert r.stop == ("decided" if want != "open" else None)
    assert record_result(fit, 1, 3, 100.0, 0.975, games=40, max_games=40).stop == "budget"  # 3 unrated: no answer
