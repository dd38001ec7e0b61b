"""The step driver (referee.driver): chance outcomes checked once for every game, decisions handed out."""

from __future__ import annotations

import copy
import random
from functools import partial
from typing import Any

import pytest

from referee.chance import Chance, draw
from referee.driver import BadStep, Driver, IllegalChance, answer_chance, check_chance
from referee.engine import Ask, DrawLot, Shuffle
from referee.games import games, make_params, spec
from tests.a_game import GAME, QUICK, SPEC

GAMES = games()


def _defaults(rules: Any) -> Any:
    return lambda state, seats: {s: rules.default_action(state, s) for s in seats}


def _bad_outcomes(request: Shuffle | DrawLot) -> list[Any]:
    """Outcomes that do not answer ``request``."""
    if isinstance(request, Shuffle):
        cards = list(request.cards)
        return [cards[1:], cards[:-1] + ["Xx"], cards + cards[:1], 0, "".join(cards)]
    outside = max(request.seats) + 1
    return [outside, -1, True, list(request.seats)]


@pytest.mark.parametrize("game", GAMES)
def test_every_chance_request_of_every_game_refuses_a_wrong_outcome(game: str) -> None:
    """The driver checks each outcome against its request before the rules see it: state unchanged."""
    gs = spec(game)
    rules = gs.make_rules(make_params(game), gs.min_seats)
    state, rng, seen = rules.new_state(), random.Random(5), set()
    driver = Driver(rules, partial(draw, rng), _defaults(rules))
    for _ in range(5_000):
        request = rules.step(state)
        if request is None:
            break
        if isinstance(request, (Shuffle, DrawLot)) and type(request) not in seen:
            seen.add(type(request))
            before = copy.deepcopy(state)
            for bad in _bad_outcomes(request):
                with pytest.raises(IllegalChance):
                    Driver(rules, lambda _request, bad=bad: bad, _defaults(rules)).step(state)
                assert state == before
        driver.step(state)
    assert Shuffle in seen


def test_check_chance_takes_a_shuffle_as_a_multiset() -> None:
    """Two packs repeat cards (rummy): the same cards, each as often, in any order."""
    request = Shuffle(("Ah", "Ah", "Jk", "2c"))
    check_chance(request, ["Jk", "Ah", "2c", "Ah"])
    check_chance(request, ("Ah", "2c", "Ah", "Jk"))
    for bad in (["Jk", "Jk", "2c", "Ah"], ["Ah", "Jk", "2c"], ["Ah", "Ah", "Jk", 2], None, b"AhAh"):
        with pytest.raises(IllegalChance, match="permutation of the 4 cards"):
            check_chance(request, bad)


def test_check_chance_takes_a_shuffle_of_one_pack_as_a_permutation() -> None:
    """No card repeats (one pack): every card once, in any order; a repeated or missing card is refused."""
    request = Shuffle(("Ah", "Kd", "Jk", "2c"))
    check_chance(request, ["Jk", "Ah", "2c", "Kd"])
    check_chance(request, ("2c", "Kd", "Ah", "Jk"))
    bad_ones = (["Ah", "Ah", "Jk", "2c"], ["Ah", "Kd", "Jk"], ["Ah", "Kd", "Jk", "2c", "2c"], ["Ah", "Kd", "Jk", "3c"],
                ["Ah", "Kd", "Jk", 2], ["Ah", "Kd", "Jk", ["2c"]], [], None, "AhKdJk2c", 4)
    for bad in bad_ones:
        with pytest.raises(IllegalChance, match="permutation of the 4 cards"):
            check_chance(request, bad)


def test_check_chance_takes_a_lot_as_one_of_its_seats() -> None:
    check_chance(DrawLot((1, 3)), 3)
    for bad in (0, 2, True, 3.0, "3"):
        with pytest.raises(IllegalChance, match=r"one of the seats \[1, 3\]"):
            check_chance(DrawLot((1, 3)), bad)


@pytest.mark.parametrize("game", GAMES)
def test_answer_chance_needs_a_pending_chance_request(game: str) -> None:
    """Chance answered up to the first decision: with a decision pending, an answer is refused, state unchanged."""
    gs = spec(game)
    rules = gs.make_rules(make_params(game), gs.min_seats)
    state, chance = rules.new_state(), Chance(1)
    while not isinstance(request := rules.step(state), Ask):
        assert request is not None, f"{game} ended before its first decision"
        answer_chance(rules, state, chance.answer(request))
    before = copy.deepcopy(state)
    with pytest.raises(IllegalChance, match="no chance request is pending"):
        answer_chance(rules, state, 1)
    assert state == before


def test_decisions_go_to_decide_and_the_game_ends() -> None:
    rules = SPEC.make_rules(make_params(GAME, QUICK), 3)
    asked: list[tuple[int, ...]] = []

    def decide(state: Any, seats: tuple[int, ...]) -> dict[int, Any]:
        asked.append(seats)
        return {s: rules.default_action(state, s) for s in seats}

    state = rules.new_state()
    assert Driver(rules, Chance(9).answer, decide).run(state, 100_000)
    assert asked and state.end_reason and rules.step(state) is None
    assert Driver(rules, Chance(9).answer, decide).step(state) is None


def test_a_step_the_driver_does_not_know_is_a_bad_step() -> None:
    class Broken:
        def step(self, state: Any) -> Any:
            return Ask(())

    with pytest.raises(BadStep, match="unknown step"):
        Driver(Broken(), Chance(1).answer, lambda state, seats: {}).step(object())  # type: ignore[arg-type]


def test_run_stops_at_the_step_limit() -> None:
    rules = SPEC.make_rules(make_params(GAME), 3)
    state = rules.new_state()
    assert not Driver(rules, Chance(2).answer, _defaults(rules)).run(state, 3)
    assert rules.step(state) is not None


def test_the_referee_stops_before_a_call_once_cancelled() -> None:
    """referee.play's ``cancelled`` hook runs before every decision and again the moment before each call goes
    out: a hook that says stop only at that second asking (a process stalled past its lease while it made the
    view) still stops the game before the bot is called."""
    from referee.bots import load_bot
    from referee.clients import InProcessBotClient
    from referee.referee import GameCancelled, play

    calls = 0
    bots = [load_bot("random", s) for s in range(3)]

    def counted(bot: Any) -> Any:
        def act(request: Any) -> Any:
            nonlocal calls
            calls += 1
            return bot.act(request)
        return act

    checks = 0

    def cancelled() -> bool:
        nonlocal checks
        checks += 1
        return checks > 11  # the 6th decision's second asking: its view made, its call not yet sent

    clients = [InProcessBotClient(counted(b)) for b in bots]
    with pytest.raises(GameCancelled, match="before decision 6"):
        play(SPEC, make_params(GAME), 3, 4, clients, cancelled=cancelled)
    assert (calls, checks) == (5, 12)
