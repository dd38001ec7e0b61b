"""Svara through the step driver (referee.driver): its first dealer drawn by lot, then the deal, then a
decision (rules §2.13, §2.4); moved here from the platform's driver tests, which check every game the same way."""

from __future__ import annotations

import copy

import pytest

from referee.chance import Chance
from referee.driver import IllegalChance, answer_chance
from referee.engine import Ask
from referee.games import make_params, spec


def test_answer_chance_needs_a_pending_chance_request() -> None:
    gs = spec("svara")
    rules = gs.make_rules(make_params("svara"), 3)
    state = rules.new_state()
    answer_chance(rules, state, 0)                      # the first dealer, by lot
    answer_chance(rules, state, Chance(1).answer(rules.step(state)))  # the deal
    assert isinstance(rules.step(state), Ask)
    before = copy.deepcopy(state)
    with pytest.raises(IllegalChance, match="no chance request is pending"):
        answer_chance(rules, state, 1)
    assert state == before
