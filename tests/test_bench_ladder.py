"""The ladder benchmark (``bench.bench_ladder``): its simulation and its measurements, on tiny ladders.

The mechanics only (the races follow the Plackett-Luce chances, the new entrant's fit finds its
rating, the subcommands run and report gaps within the bounds); the figures are the bench's.
"""

from __future__ import annotations

import math
import random
import re

import pytest

from bench import bench_ladder as bl
from league.competition.matchmaking import pair_gap_bound, seat_gap_bound


def test_a_race_follows_the_plackett_luce_chances() -> None:
    """P(a ahead of b) = 1 / (1 + 10^((r_b - r_a) / 400)) at a table of 4, whoever else sits."""
    rng = random.Random(1)
    ratings = [1700.0, 1500.0, 1300.0, 1600.0]
    ahead = sum(p[0] < p[1] for p in (bl.race(ratings, rng) for _ in range(20_000)))
    expected = 1.0 / (1.0 + 10 ** ((1500.0 - 1700.0) / 400.0))
    assert abs(ahead / 20_000 - expected) < 0.015
    places = bl.race(ratings, rng)
    assert sorted(places) == [1, 2, 3, 4]


def test_the_new_entrants_fit_finds_its_rating_and_narrows() -> None:
    """Against opponents of known ratings, the maximum-likelihood fit lands within its 95% interval of
    the true rating, and its sd shrinks as games come in."""
    rng = random.Random(2)
    true = 1620.0
    opponents = [1400.0 + 25.0 * i for i in range(16)]
    new = bl.Newcomer()
    sds = []
    for g in range(400):
        seats = rng.sample(opponents, 3)
        places = bl.race([true, *seats], rng)
        new.games.append([(r, 1.0 if places[0] < q else 0.0) for r, q in zip(seats, places[1:], strict=True)])
        if g in (9, 99, 399):
            new.fit()
            sds.append(new.sd)
    assert sds[0] > sds[1] > sds[2]
    assert abs(new.rating - true) < 1.96 * new.sd
    assert 10.0 < new.sd < 40.0


def test_the_rank_interval_counts_the_ratings_inside_the_rating_interval() -> None:
    others = [1000.0, 1100.0, 1200.0, 1300.0]
    assert bl.rank_interval(1150.0, 10.0, others) == (3, 3)
    lo, hi = bl.rank_interval(1150.0, 60.0, others)  # 95% interval 1032..1268 holds 1100 and 1200
    assert (lo, hi) == (2, 4)


def test_placement_runs_both_matchmakers_and_reports_the_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    assert bl.main(["placement", "--sizes", "8", "--trials", "3", "--seed", "t"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"N=8 +ladder +placed \d/3", out) and re.search(r"N=8 +uniform +placed \d/3", out)
    ratios = re.findall(r"ratio ladder/uniform, (ladder tables|own games): ([\d.]+) \[([\d.]+), ([\d.]+)\]", out)
    assert [r[0] for r in ratios] == ["ladder tables", "own games"]
    for _, est, lo, hi in ratios:
        assert float(lo) <= float(est) <= float(hi)
    # the ladder seats its new entrant at nearly every table; uniform tables only now and then
    tables = float(ratios[0][1])
    assert tables < 1.0


def test_coverage_measures_gaps_within_the_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    assert bl.main(["coverage", "--sizes", "8", "--games", "900", "--seed", "t"]) == 0
    out = capsys.readouterr().out
    pair_gap, bound = map(int, re.search(r"worst pair gap (\d+) tables \(bound (\d+)", out).groups())  # type: ignore[union-attr]
    seat_gap, seat_bound = map(int, re.search(r"worst seat gap (\d+) \(bound (\d+)", out).groups())  # type: ignore[union-attr]
    assert bound == pair_gap_bound(9, 4) and seat_bound == seat_gap_bound(9, 4)
    assert 0 < pair_gap <= bound and 0 < seat_gap <= seat_bound
    assert "choose_table median" in out and "a bound was broken" not in out


def test_coverage_measures_uniform_tables_too(capsys: pytest.CaptureFixture[str]) -> None:
    got = bl.run_coverage_one("uniform", 8, 600, "u")
    assert got.worst_pair_gap > 0 and 0 < got.lowest_share <= 1.0 and len(got.call_ms) == 600
    assert math.isfinite(sum(got.call_ms))


def test_bad_sizes_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bl.main(["coverage", "--sizes", "3"])
    assert "at least 5" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bl.main(["placement", "--sizes", "x"])
    assert "whole numbers" in capsys.readouterr().err
