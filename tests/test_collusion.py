"""The collusion screen (``league.integrity.collusion``): the pair test on synthetic games, and simulated Svara
seasons: a hand-sharing pair is flagged on both bots, an honest season is not, a framer does not get its target
flagged."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bench.bench_collusion import Colluder, Named, Team, attack, simulate_season
from league.integrity.collusion import AGAINST, TEAM, CollusionGame, screen_season, team_values
from referee.games import PairMove, TeamPlay

BOTS = 5


def synthetic(games: int, colluding: dict[tuple[int, int], float], seed: int = 0) -> list[CollusionGame]:
    """``games`` games of 5 bots, every ordered pair with 20 moves a game in two strata; the move toward B of a
    pair (A, B) in ``colluding`` follows B's fit with that weight (negative: against it), else it is independent."""
    rng = random.Random(seed)
    out = []
    for n in range(games):
        seats = list(range(BOTS))
        rng.shuffle(seats)
        moves = []
        for a in range(BOTS):
            for b in range(BOTS):
                if a == b:
                    continue
                w = colluding.get((seats[a], seats[b]), 0.0)
                for k in range(20):
                    fit = float(rng.random() < 0.5)
                    noise = rng.choice((-1.0, 0.0, 1.0))
                    move = (2 * fit - 1) * (1 if w > 0 else -1) if rng.random() < abs(w) else noise
                    moves.append(PairMove(a, b, f"s{k % 2}", move, fit))
        flows = tuple(tuple(0.0 for _ in range(BOTS)) for _ in range(BOTS))
        out.append(CollusionGame(n, tuple(seats), TeamPlay(tuple(moves), flows)))
    return out


def test_a_covariance_within_a_stratum_ignores_the_level_of_moves_and_fits() -> None:
    moves = (PairMove(0, 1, "x", 1.0, 1.0), PairMove(0, 1, "x", 0.0, 0.0), PairMove(0, 1, "y", 5.0, 1.0),
             PairMove(0, 1, "y", 5.0, 0.0))
    flows = ((0.0, 0.0), (0.0, 0.0))
    values = team_values([CollusionGame(7, (3, 4), TeamPlay(moves, flows))])
    assert values[(3, 4)] == {0: pytest.approx(0.5)}  # (0.5 * 0.5) * 2 in stratum x, 0 in y (move constant)
    assert values[(4, 3)] == {0: 0.0}


def test_a_pair_whose_moves_fit_each_others_cards_is_flagged_on_both() -> None:
    screen = screen_season(synthetic(40, {(0, 1): 0.3, (1, 0): 0.3}))
    assert [(f.name, f.bots) for f in screen.flags] == [(TEAM, (0, 1))]
    lines = screen.messages({0: "a", 1: "b"})
    assert lines[0][0].startswith("team play with b: ") and lines[1][0].startswith("team play with a: ")
    assert "40 games; largest in games" in lines[0][0]


def test_moves_that_fit_in_one_direction_only_flag_nobody() -> None:
    """The intersection-union test: a bot that plays toward another cannot get it flagged."""
    screen = screen_season(synthetic(40, {(0, 1): 0.5}))
    one_way = [t for t in screen.tests if t.name == TEAM and (t.bot, t.other) == (0, 1)]
    assert one_way and one_way[0].significant(screen.alpha)  # the direction is seen...
    assert screen.flags == ()  # ...but it takes both


def test_moves_against_anothers_cards_flag_the_mover_alone() -> None:
    screen = screen_season(synthetic(40, {(2, 3): -0.5}))
    assert [(f.name, f.bots) for f in screen.flags] == [(AGAINST, (2,))]


def test_a_direction_needs_its_own_sum_to_stand_out_as_well() -> None:
    screen = screen_season(synthetic(40, {(0, 1): 0.3, (1, 0): 0.3}))
    test = next(t for t in screen.tests if t.name == TEAM and (t.bot, t.other) == (0, 1))
    assert test.significant(screen.alpha)
    assert not replace(test, z=1.2).significant(screen.alpha)  # stands out from the others, not from zero
    assert replace(test, z=1.2).p_alone == pytest.approx(0.1151, abs=1e-4)


def test_independent_moves_flag_nobody() -> None:
    for seed in range(3):
        assert screen_season(synthetic(40, {}, seed)).flags == ()


def test_the_level_is_split_over_the_pairs_and_the_ordered_pairs() -> None:
    screen = screen_season(synthetic(12, {}))
    assert screen.alpha == pytest.approx(0.01 / (10 + 20))
    with pytest.raises(ValueError):
        screen_season([], family_alpha=1.0)


GAMES = 100


@pytest.mark.slow
def test_a_hand_sharing_pair_in_a_svara_season_is_flagged_on_both() -> None:
    season = simulate_season(attack("soft", Team(), True), seed=11, games=GAMES)
    screen = screen_season(season.games)
    assert {b for f in screen.flags if f.name == TEAM for b in f.bots} == {0, 1}


@pytest.mark.slow
def test_the_same_pair_not_sharing_and_a_framers_target_are_not_flagged() -> None:
    honest = simulate_season(attack("soft", Team(), False), seed=11, games=GAMES)
    assert screen_season(honest.games).flags == ()
    framed = simulate_season([Colluder(Team(), 1, mode="framer"), *[Named("points") for _ in range(4)]], 12, GAMES)
    assert not screen_season(framed.games).flags_of(1)
