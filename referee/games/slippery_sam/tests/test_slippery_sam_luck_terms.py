"""Slippery Sam's standardised luck terms for the luck audit (referee.games.slippery_sam.luck.luck_terms):
in [-1, 1], the largest bet they divide by is the one the rules allowed, mean zero over honest random
play, and clearly positive for a bot that knows the stack card before it is turned."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from cardarena.v1 import slippery_sam_pb2
from referee.games import make_params, spec
from referee.games.slippery_sam.luck import luck_terms, settled_bets
from referee.games.slippery_sam.rules import beats
from referee.playout import Playout

GAME = "slippery-sam"


def play_sam(seed: int, knower: int | None = None, seats: int = 4) -> tuple[Any, list[tuple[int, int]]]:
    """One quick game with random bots, seat ``knower`` (if any) betting the most when its hand beats the
    next stack card and 1 token otherwise (it reads the engine's stack: a seed predictor). Returns the
    record-like ``(events, params)`` pair and each bet's ``(seat, max_amount its view showed)``."""
    gs = spec(GAME)
    params = make_params(GAME, gs.quick_params)
    rules = gs.make_rules(params, seats)
    state = rules.new_state()
    shown: list[tuple[int, int]] = []

    def seat_policy(seat: int) -> Any:
        def decide(view: Any, rng: random.Random) -> Any:
            if view.decision == slippery_sam_pb2.SLIPPERY_SAM_DECISION_BET:
                shown.append((seat, view.max_amount))
                if seat == knower:
                    win = beats(list(view.hand), state.stack[0])
                    return slippery_sam_pb2.SlipperySamAction(amount=view.max_amount if win else view.min_amount)
            return gs.random_action(view, rng)
        return decide

    Playout(rules, gs, random.Random(seed), [seat_policy(s) for s in range(seats)]).play(state)
    return (_events(state), vars(params)), shown


def _events(state: Any) -> list[dict[str, Any]]:
    return [{"kind": e.kind, "data": dict(e.data), "visible_to": None} for e in state.events]


def test_the_largest_bet_is_the_one_the_view_allowed_and_terms_are_bounded() -> None:
    bets = 0
    for seed in range(20):
        (events, params), shown = play_sam(seed)
        settled = list(settled_bets(events, 4, params))
        assert [(s, m) for s, _, m, _ in settled] == shown
        bets += len(settled)
        for seat_terms in luck_terms(events, 4, params):
            assert all(-1.0 <= x <= 1.0 for x in seat_terms)
    assert bets > 50


def test_honest_terms_have_mean_zero() -> None:
    """Random bots over 300 quick games: the mean term is within 4 standard errors of 0."""
    xs = []
    for seed in range(300):
        (events, params), _ = play_sam(1000 + seed)
        for seat_terms in luck_terms(events, 4, params):
            xs.extend(seat_terms)
    n, mean = len(xs), math.fsum(xs) / len(xs)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    assert n > 1000
    assert abs(mean) < 4 * sd / math.sqrt(n), (mean, sd, n)


def test_a_bot_that_knows_the_stack_gets_positive_terms() -> None:
    mine, others = [], []
    for seed in range(40):
        (events, params), _ = play_sam(seed, knower=1)
        terms = luck_terms(events, 4, params)
        mine.extend(terms[1])
        others.extend(x for s in (0, 2, 3) for x in terms[s])
    assert math.fsum(mine) / len(mine) > 0.1
    assert abs(math.fsum(others) / len(others)) < 0.05


def test_without_starting_tokens_the_kitty_bounds_the_bet() -> None:
    (events, params), _ = play_sam(3)
    for seat, amount, most, _ in settled_bets(events, 4, None):
        assert amount <= most
    assert all(-1 <= x <= 1 for t in luck_terms(events, 4) for x in t)


def test_the_bets_luck_is_the_estimators() -> None:
    """settled_bets counts the beaten stack cards by bit masks: its terms are bet_luck's (the players' sums,
    less the dealer's share, are events_luck's)."""
    from referee.games.slippery_sam.luck import events_luck
    for seed in range(10):
        (events, params), _ = play_sam(seed)
        mine = [0.0] * 4
        for seat, _, _, luck in settled_bets(events, 4, params):
            mine[seat] += luck
        dealers = [0.0] * 4
        dealer = -1
        it = iter(settled_bets(events, 4, params))
        for e in events:
            if e["kind"] == "deal":
                dealer = e["data"]["dealer"]
            elif e["kind"] == "turn":
                dealers[dealer] -= next(it)[3]
        expected = events_luck(events, 4)
        assert [m + d for m, d in zip(mine, dealers)] == [pytest.approx(x, abs=1e-9) for x in expected]
