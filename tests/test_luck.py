"""Luck-adjusted scores (league.ratings.luck) of a game with a luck estimator: on real records, and unbiased by
simulation; the estimator's own terms by hand are its game's tests (``referee/games/<game>/tests/``)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from botsdk.bot import Context
from league.ratings.luck import NoLuckEstimator, adjusted_changes, luck_adjusted_by_bot, mean_interval, seat_luck
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.games import GameName, make_params, spec
from referee.games.conformance import conformance
from referee.playout import Playout
from referee.record import GameRecord, SeatResult
from referee.referee import play
from tests.a_game import game_with


@pytest.fixture
def lucky() -> GameName:
    """A game with a luck estimator."""
    return game_with(lambda s: s.luck is not None, "with a luck estimator")


def _record_of(game: GameName, events: list[dict], changes: list[int]) -> GameRecord:
    results = [SeatResult(seat=s, place=1, score=0, change=c, faults=0, retired=False) for s, c in enumerate(changes)]
    return GameRecord(game=game, params={}, num_seats=len(changes), seed=0, game_id="g", reason="completed",
                      detail="", results=results, events=events)


def test_a_game_without_an_estimator_is_refused() -> None:
    game = game_with(lambda s: s.luck is None, "without a luck estimator")
    record = _record_of(game, [], [0, 0, 0])
    with pytest.raises(NoLuckEstimator):
        seat_luck(spec(game), record)
    with pytest.raises(NoLuckEstimator):
        adjusted_changes(spec(game), record)


def test_mean_interval() -> None:
    s = mean_interval([1.0, 3.0])
    assert s.mean == 2.0 and s.games == 2
    assert s.high - s.mean == pytest.approx(1.959963984540054 * math.sqrt(2.0 / 2))
    assert mean_interval([4.0]).low is None
    with pytest.raises(ValueError):
        mean_interval([])


def test_on_real_records_the_luck_is_zero_sum_and_the_adjusted_changes_keep_the_tokens(lucky: GameName) -> None:
    """The game's strong reference bot and random ones, short games at 4 seats: the luck is the game's estimator's
    on the record, sums to zero, and the adjusted change of each seat is its change less its luck."""
    gs, strong = spec(lucky), conformance(lucky).strong_bot
    params = make_params(lucky, gs.quick_params)
    luck_seen = 0
    for seed in range(3):
        bots = [load_bot(strong), load_bot("random", seed), load_bot(strong), load_bot("random", seed + 1)]
        record = play(gs, params, 4, seed, [InProcessBotClient(b.act) for b in bots], game_id=f"g{seed}")
        luck = seat_luck(gs, record)
        assert gs.luck is not None and luck == gs.luck(record.events, 4)
        luck_seen += sum(1 for x in luck if abs(x) > 1)
        assert sum(luck) == pytest.approx(0, abs=1e-9)
        changes = {r.seat: r.change for r in record.results}
        assert adjusted_changes(gs, record) == pytest.approx(tuple(changes[s] - luck[s] for s in range(4)))
        assert sum(adjusted_changes(gs, record)) == pytest.approx(sum(r.change for r in record.results), abs=1e-9)
        summary = luck_adjusted_by_bot(gs, [([10, 11, 12, 13], record)])
        assert set(summary) == {10, 11, 12, 13} and all(s.games == 1 for s in summary.values())
    assert luck_seen > 0  # the random bots' large bets are luck


def _bot_policy(game: GameName, name: str, seat: int) -> Callable[[Any, random.Random], Any]:
    """The reference bot ``name`` in ``seat`` as a ``(view, rng) -> action`` policy (``referee.playout``)."""
    bot, field = load_bot(name), spec(game).proto_field
    return lambda view, rng: bot.decide(field, view, Context("in-process", seat, 0, 0, 0, 0, rng))


def _simulate(game: GameName, seed: int, policies) -> GameRecord:  # type: ignore[no-untyped-def]
    """One short game through the rules with a policy per seat (no referee, no RPC), as a record."""
    gs = spec(game)
    rules = gs.make_rules(make_params(game, gs.quick_params), len(policies))
    rng, state = random.Random(seed), rules.new_state()
    Playout(rules, gs, rng, policies).play(state)
    events = [{"kind": e.kind, "data": e.data, "visible_to": e.visible_to} for e in state.events]
    return _record_of(game, events, list(rules.score_changes(state)))


def test_by_simulation_the_mean_adjustment_is_zero_within_its_interval_and_the_variance_falls(lucky: GameName) -> None:
    # seat 0 plays the strong reference bot, seats 1-3 random: 400 games; the adjustment (actual minus adjusted) of seat 0
    gs = spec(lucky)
    policies = [_bot_policy(lucky, conformance(lucky).strong_bot, 0), gs.random_action, gs.random_action, gs.random_action]
    actual, adjusted = [], []
    for seed in range(400):
        record = _simulate(lucky, seed, policies)
        actual.append(float(record.results[0].change))
        adjusted.append(adjusted_changes(gs, record)[0])
    adjustment = mean_interval([a - b for a, b in zip(actual, adjusted)])
    assert adjustment.low <= 0.0 <= adjustment.high, adjustment
    raw, adj = mean_interval(actual), mean_interval(adjusted)
    # the same strength is estimated with a narrower interval
    assert (adj.high - adj.low) < 0.8 * (raw.high - raw.low), (raw, adj)
