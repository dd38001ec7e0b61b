"""The generic harness run on every registered game (OpenSpiel's basic_tests, STYLE 10).

For each game: random play through the protocol codec ends within a step
bound; every asked seat's view says it is asked; a copy of the state taken
mid-game and the original continue identically; the referee's record
re-runs exactly (replay verification); places are a valid ranking; and no
action the rules reject ever changes the state.
"""

from __future__ import annotations

import copy
import random

import pytest

from botsdk.bot import Bot
from referee.clients import InProcessBotClient
from referee import playout
from referee.engine import Ask, IllegalAction
from referee.games import games, make_params, spec
from referee.referee import play
from referee.replay import verify

GAMES = games()
STEP_BOUND = 200_000


def _policy(game: str):
    return spec(game).random_action


def _small_params(game: str):
    return make_params(game, spec(game).quick_params)


def _advance(rules, state, rng, policy, gs) -> bool:
    """One step of random play; False when the game is over."""
    return playout.step(rules, gs, state, rng, policy) is not None


@pytest.mark.parametrize("game", GAMES)
def test_random_play_ends_and_a_mid_game_copy_continues_identically(game: str) -> None:
    gs, policy = spec(game), _policy(game)
    for seed in range(6):
        seats = gs.min_seats + seed % (gs.max_seats - gs.min_seats + 1)
        rules = gs.make_rules(_small_params(game), seats)
        rng, state, steps = random.Random(seed), rules.new_state(), 0
        fork_at, fork = 40 + seed * 7, None
        while _advance(rules, state, rng, policy, gs):
            steps += 1
            assert steps < STEP_BOUND
            if steps == fork_at:
                fork = (copy.deepcopy(state), copy.deepcopy(rng))
        assert state.end_reason, "the rules say why the game ended"
        if fork:
            twin, twin_rng = fork
            while _advance(rules, twin, twin_rng, policy, gs):
                pass
            assert twin.events == state.events and rules.scores(twin) == rules.scores(state)


@pytest.mark.parametrize("game", GAMES)
def test_illegal_answers_never_change_the_state(game: str) -> None:
    gs, policy = spec(game), _policy(game)
    rules = gs.make_rules(_small_params(game), gs.min_seats)
    rng, state = random.Random(7), rules.new_state()
    probes = 0
    while probes < 200 and _advance(rules, state, rng, policy, gs):
        step = rules.step(state)
        if isinstance(step, Ask):
            asked = step.seats[0]
            others = [s for s in range(rules.num_seats) if s not in step.seats]
            before = copy.deepcopy(state)
            if others:
                with pytest.raises(IllegalAction):
                    rules.check(state, others[0], rules.default_action(state, asked))
            with pytest.raises(IllegalAction):
                rules.apply(state, {})
            assert state == before
            probes += 1


class _RandomInProcess(Bot):
    def __init__(self, seed: int, game: str) -> None:
        super().__init__(seed)
        setattr(self, spec(game).proto_field, lambda view, ctx: _policy(game)(view, ctx.rng))


@pytest.mark.parametrize("game", GAMES)
def test_refereed_games_replay_exactly_and_rank_validly(game: str) -> None:
    gs = spec(game)
    for seed in range(3):
        seats = gs.min_seats + seed
        bots = [_RandomInProcess(seed * 10 + s, game) for s in range(seats)]
        record = play(gs, _small_params(game), seats, seed, [InProcessBotClient(b.act) for b in bots], game_id=f"g{seed}")
        verify(record)
        places = sorted(r.place for r in record.results)
        assert places[0] == 1 and all(1 <= p <= seats for p in places)
        assert record.faults == [] and all(d.called for d in record.decisions)
