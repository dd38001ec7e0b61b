"""Luck-adjusted Slippery Sam scores (league.luck): the luck term by hand, on real records, and unbiased by simulation."""

from __future__ import annotations

import math
import random

import pytest

from referee.bots import load_bot
from referee.games.slippery_sam.bots import OddsBot, odds_policy, random_action
from league.luck import NoLuckEstimator, adjusted_changes, luck_adjusted_by_bot, mean_interval, seat_luck
from referee.games.slippery_sam.luck import bet_luck
from referee.clients import InProcessBotClient
from referee import playout
from referee.games import make_params, spec
from referee.record import GameRecord, SeatResult
from referee.referee import play

SAM = spec("slippery-sam")


def test_bet_luck_by_hand() -> None:
    # Ah 2c 3d against a stack of Kh 5c 4s Qd: only Kh is beaten (rules §1.5), p = 1/4
    hand, stack = ["Ah", "2c", "3d"], ["Kh", "5c", "4s", "Qd"]
    won, lost = bet_luck(hand, stack, 8, True), bet_luck(hand, stack, 8, False)
    assert won == pytest.approx(8 - 8 * (2 * 0.25 - 1)) == pytest.approx(12)
    assert lost == pytest.approx(-4)
    assert 0.25 * won + 0.75 * lost == pytest.approx(0)  # zero mean over the stack's cards
    assert bet_luck(["Ah"], ["Kh"], 5, True) == 0  # a sure win is no luck
    with pytest.raises(ValueError):
        bet_luck(hand, [], 1, True)


def _record_of(events: list[dict], changes: list[int]) -> GameRecord:
    results = [SeatResult(seat=s, place=1, score=0, change=c, faults=0, retired=False) for s, c in enumerate(changes)]
    return GameRecord(game="slippery-sam", params={}, num_seats=len(changes), seed=0, game_id="g", reason="completed",
                      detail="", results=results, events=events)


def test_a_scripted_deal_gives_the_player_plus_and_the_dealer_minus() -> None:
    ev = lambda kind, **data: {"kind": kind, "data": data, "visible_to": None}  # noqa: E731
    # dealer 0; seat 1 holds Ah 2c 3d and wins 8 tokens on Kh; seat 2 holds 4h 5h 6h and loses 2 on 7c
    events = [ev("deal", dealer=0, deal=1, players=[1, 2]), ev("hand", seat=1, cards=["Ah", "2c", "3d"]),
              ev("hand", seat=2, cards=["4h", "5h", "6h"]), ev("bet", seat=1, amount=8, shoot=False),
              ev("turn", seat=1, card="Kh", won=True, kitty=12), ev("bet", seat=2, amount=2, shoot=False),
              ev("turn", seat=2, card="7c", won=False, kitty=14)]
    luck = seat_luck(_record_of(events, [-6, 8, -2]))
    stack1 = 46  # 52 cards less the two hands
    # seat 1 beats the hearts below the ace not in a hand (2h 3h 7h-Kh: 9) and 2d below its 3d: p = 10/46
    assert luck[1] == pytest.approx(8 - 8 * (2 * 10 / stack1 - 1))
    # seat 2's hearts beat 2h 3h (not Ah); Kh is turned: 45 cards left, 2 beaten
    assert luck[2] == pytest.approx(-2 - 2 * (2 * 2 / 45 - 1))
    assert luck[0] == pytest.approx(-luck[1] - luck[2])
    assert adjusted_changes(_record_of(events, [-6, 8, -2])) == pytest.approx((-6 - luck[0], 8 - luck[1], -2 - luck[2]))


def test_other_games_and_inconsistent_events_are_refused() -> None:
    record = _record_of([], [0, 0, 0])
    record.game = "svara"
    with pytest.raises(NoLuckEstimator):
        seat_luck(record)
    bad = _record_of([{"kind": "bet", "data": {"seat": 1, "amount": 1, "shoot": False}, "visible_to": None}], [0, 0, 0])
    with pytest.raises(ValueError):
        seat_luck(bad)


def test_mean_interval() -> None:
    s = mean_interval([1.0, 3.0])
    assert s.mean == 2.0 and s.games == 2
    assert s.high - s.mean == pytest.approx(1.959963984540054 * math.sqrt(2.0 / 2))
    assert mean_interval([4.0]).low is None
    with pytest.raises(ValueError):
        mean_interval([])


def test_on_real_records_the_luck_is_zero_sum_and_the_adjusted_changes_keep_the_tokens() -> None:
    params = make_params("slippery-sam", {"orbits": 1})
    lucky = 0
    for seed in range(3):
        bots = [OddsBot(), load_bot("random", seed), OddsBot(), load_bot("random", seed + 1)]
        record = play(SAM, params, 4, seed, [InProcessBotClient(b.act) for b in bots], game_id=f"g{seed}")
        luck = seat_luck(record)
        lucky += sum(1 for x in luck if abs(x) > 1)
        assert sum(luck) == pytest.approx(0, abs=1e-9)
        assert sum(adjusted_changes(record)) == pytest.approx(sum(r.change for r in record.results), abs=1e-9)
        summary = luck_adjusted_by_bot([([10, 11, 12, 13], record)])
        assert set(summary) == {10, 11, 12, 13} and all(s.games == 1 for s in summary.values())
    assert lucky > 0  # the random bots' large bets are luck


def _simulate(seed: int, policies) -> GameRecord:
    """One game through the rules with a policy per seat (no referee, no RPC), as a record."""
    rules = SAM.make_rules(make_params("slippery-sam", {"orbits": 1}), len(policies))
    rng, state = random.Random(seed), rules.new_state()
    while playout.step(rules, SAM, state, rng, policies) is not None:
        pass
    events = [{"kind": e.kind, "data": e.data, "visible_to": e.visible_to} for e in state.events]
    return _record_of(events, list(rules.score_changes(state)))


def test_by_simulation_the_mean_adjustment_is_zero_within_its_interval_and_the_variance_falls() -> None:
    # seat 0 plays odds, seats 1-3 random: 400 games; the adjustment (actual minus adjusted) of seat 0
    policies = [odds_policy(0), random_action, random_action, random_action]
    actual, adjusted = [], []
    for seed in range(400):
        record = _simulate(seed, policies)
        actual.append(float(record.results[0].change))
        adjusted.append(adjusted_changes(record)[0])
    adjustment = mean_interval([a - b for a, b in zip(actual, adjusted)])
    assert adjustment.low <= 0.0 <= adjustment.high, adjustment
    raw, adj = mean_interval(actual), mean_interval(adjusted)
    # the same strength is estimated with a narrower interval
    assert (adj.high - adj.low) < 0.8 * (raw.high - raw.low), (raw, adj)
