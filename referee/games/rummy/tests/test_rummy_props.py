"""Property tests of the contract-rummy engine: whole games by random and greedy bots.

A small in-test driver plays the referee's part (STYLE 10, first layer):
shuffles and draws by lot from ``random.Random(seed)``; each asked seat gets
its view as the wire bytes the referee sends (``referee.wire.ViewEncoder``,
the bytes of ``encode_view``'s message: ``tests/games/test_view_wire.py``),
parsed back; the policy answers, the answer is decoded and checked (an
illegal one is replaced by the default action) and all are applied together.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections import Counter
from collections.abc import Callable
from functools import partial

import pytest
from cardarena.v1 import rummy_pb2 as pb
from hypothesis import given, settings
from hypothesis import strategies as st

from botsdk.bot import Context
from referee.games.rummy.bots import GreedyBot, random_action
from referee.chance import draw
from referee.driver import Driver
from referee.engine import Ask, IllegalAction
from referee.games.rummy import RummyAction, RummyParams, RummyRules, RummyState, hand_points
from referee.games.rummy.codec import VIEW, decode_action, encode_view
from referee.games.rummy.rules import Decision, Phase, RoundEnd

Policy = Callable[[pb.RummyView, int, random.Random], pb.RummyAction]

#: Decisions a game may take at most: 7 rounds x turn_limit turns x (window + draw + play).
def _decision_bound(params: RummyParams) -> int:
    return 7 * params.turn_limit * 3 + 7


def random_policy(view: pb.RummyView, seat: int, rng: random.Random) -> pb.RummyAction:
    return random_action(view, rng)


_GREEDY = GreedyBot(seed=0)


def greedy_policy(view: pb.RummyView, seat: int, rng: random.Random) -> pb.RummyAction:
    return _GREEDY.rummy(view, Context("test", seat, 0, 1000, 10_000, 120_000, rng))


def conserved(rules: RummyRules, state: RummyState) -> bool:
    """Every card of the deck is in one place: the hands, the melds, the stock and the discard pile hold the deck's
    cards, each as often as the deck does (compared sorted: a game checks this after every step)."""
    held = [c for h in state.hands for c in h] + [c for m in state.melds for c in m.cards] + state.stock + state.pile
    held.sort()
    return held == _sorted_deck(tuple(rules.deck))


@functools.cache
def _sorted_deck(deck: tuple[str, ...]) -> list[str]:
    return sorted(deck)


def hidden_information_holds(rules: RummyRules, state: RummyState, seat: int, rng: random.Random) -> bool:
    """A seat's view must not change when the stock's order or the other hands' cards change.

    The changed state shares every other field with ``state`` (a shallow copy with its own hands and stock: a deep
    copy of a late round's state, its events included, took nine tenths of a checked game's time)."""
    other = copy.copy(state)
    other.hands, other.stock = [list(h) for h in state.hands], list(state.stock)
    rng.shuffle(other.stock)
    others = [s for s in range(rules.num_seats) if s != seat]
    pool = [c for s in others for c in other.hands[s]] + other.stock
    rng.shuffle(pool)
    for s in others:
        size = len(other.hands[s])
        other.hands[s], pool = pool[:size], pool[size:]
    other.stock = pool
    return rules.view(other, seat) == rules.view(state, seat)


def play(
    seed: int,
    seats: int,
    policy: Policy,
    params: RummyParams | None = None,
    checks: bool = True,
    conserve: bool = True,
) -> tuple[RummyRules, RummyState, int]:
    """Play one game to its end; returns (rules, final state, illegal answers replaced by defaults).

    ``checks``: compare every view with the hand and test hidden information
    now and then; ``conserve``: check that every card is accounted for after
    every action.
    """
    params = params or RummyParams()
    rules = RummyRules(params, seats)
    state = rules.new_state()
    rng = random.Random(seed)
    illegal = decisions = 0
    wire = VIEW.encoder()  # one per game

    def decide(state: RummyState, asked: tuple[int, ...]) -> dict[int, RummyAction]:
        nonlocal illegal, decisions
        decisions += 1
        assert decisions <= _decision_bound(params), "the game does not end"
        actions = {}
        for seat in asked:
            view = rules.view(state, seat)
            if checks:
                assert view.hand == tuple(sorted(state.hands[seat], key=_sort_key))
                default = rules.default_action(state, seat)
                rules.check(state, seat, default)  # default actions are always legal (rules §4.2)
                if view.decision is Decision.PLAY and state.taken_from_pile is None:
                    assert default.discard == state.drawn  # the card drawn this turn
                if decisions % 7 == 0:
                    assert hidden_information_holds(rules, state, seat, rng)
            action = decode_action(policy(pb.RummyView.FromString(wire.encode(view)), seat, rng))
            try:
                rules.check(state, seat, action)
            except IllegalAction:
                illegal += 1
                action = rules.default_action(state, seat)
            actions[seat] = action
        return actions

    driver = Driver(rules, partial(draw, rng), decide)
    while True:
        ended = len(state.round_ends)
        request = driver.step(state)
        if request is None:
            break
        if isinstance(request, Ask) and state.round_ends[ended:] == [RoundEnd.NO_CARD]:
            # rules §3.6, §3.9: a live top card is drawn; no card to draw means a dead (or no) top card
            assert not (state.pile and state.top_live)
        if conserve and state.round >= 1 and state.phase is not Phase.DEAL:
            assert conserved(rules, state)
    return rules, state, illegal


def _sort_key(card: str) -> tuple[int, int]:
    from referee.games.rummy.rules import hand_sort_key

    return hand_sort_key(card)


def check_result(rules: RummyRules, state: RummyState) -> None:
    """Scores are the hand counts: each round's points are the points of the hands left, 0 for the one out."""
    assert state.phase is Phase.OVER and len(state.round_points) == 7
    ends = [e for e in state.events if e.kind == "round_end"]
    assert len(ends) == 7
    for e, points in zip(ends, state.round_points):
        assert e.data["points"] == points
        assert points == [0 if s == e.data["out"] else hand_points(h) for s, h in enumerate(e.data["hands"])]
    json.dumps([(e.kind, e.data, e.visible_to) for e in state.events])  # the record stores events as JSON
    totals = [sum(p[s] for p in state.round_points) for s in range(rules.num_seats)]
    assert list(rules.scores(state)) == totals == list(rules.score_changes(state))
    assert [rules.rank_key(state, s) for s in range(rules.num_seats)] == [(-t,) for t in totals]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(3, 6), limit=st.integers(1, 30), take_it_limit=st.sampled_from([None, 0, 1, 3]))
def test_random_play_conserves_cards_and_scores_hands(seed: int, seats: int, limit: int, take_it_limit: int | None) -> None:
    rules, state, illegal = play(seed, seats, random_policy, RummyParams(turn_limit=limit, take_it_limit=take_it_limit))
    assert illegal == 0
    check_result(rules, state)


@pytest.mark.slow  # left out of `make check`; `make test` runs it
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(3, 6))
def test_greedy_play_conserves_cards_and_scores_hands(seed: int, seats: int) -> None:
    rules, state, illegal = play(seed, seats, greedy_policy)
    assert illegal == 0
    check_result(rules, state)


def test_replay_is_deterministic() -> None:
    _, first, _ = play(11, 4, random_policy, RummyParams(turn_limit=20), checks=False)
    _, second, _ = play(11, 4, random_policy, RummyParams(turn_limit=20), checks=False)
    assert first.events == second.events


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_300_random_games_without_an_error() -> None:
    """Every tenth game with the default turn limit (long rounds, rebuilt stocks), the rest with 30 turns."""
    ends: Counter[str] = Counter()
    rebuilds = 0
    for seed in range(300):
        params = RummyParams() if seed % 10 == 0 else RummyParams(turn_limit=30)
        rules, state, illegal = play(seed, 3 + seed % 4, random_policy, params, checks=False)
        assert illegal == 0
        check_result(rules, state)
        ends.update(e.value for e in state.round_ends)
        rebuilds += sum(1 for e in state.events if e.kind == "rebuild")
    # rules §3.6, §3.9: the top card of the pile is live when a turn begins (it was just discarded), so
    # with the stock empty it is drawn and a round never ends for want of a card
    assert set(ends) == {"went_out", "turn_limit"} and rebuilds > 0


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_300_greedy_games_without_an_error() -> None:
    went_out = Counter()
    for seed in range(300):
        rules, state, illegal = play(seed, 3 + seed % 4, greedy_policy, checks=False)
        assert illegal == 0
        check_result(rules, state)
        for rnd, end in enumerate(state.round_ends, start=1):
            went_out[rnd] += end.value == "went_out"
    # greedy bots end most rounds by going out (rules §3.9), round 7 included
    for rnd in range(1, 8):
        assert went_out[rnd] >= 0.8 * 300, (rnd, went_out[rnd])


def test_defaults_only_game_ends_by_the_turn_limit() -> None:
    """Default actions (rules §4.2) never meld: every round runs to the turn limit."""
    rules = RummyRules(RummyParams(turn_limit=15), 5)
    state = rules.new_state()
    rng = random.Random(3)
    defaults = Driver(rules, partial(draw, rng), lambda state, asked: {s: rules.default_action(state, s) for s in asked})
    assert defaults.run(state, 10**6)
    assert [e.value for e in state.round_ends] == ["turn_limit"] * 7
    check_result(rules, state)


@pytest.mark.parametrize("seats", [3, 6])
def test_views_hold_no_hidden_cards(seats: int) -> None:
    """No view holds another's hand or the stock: every card string in it is public or the seat's own."""
    rules = RummyRules(RummyParams(turn_limit=25), seats)
    state = rules.new_state()
    rng = random.Random(seats)

    def decide(state: RummyState, asked: tuple[int, ...]) -> dict[int, RummyAction]:
        actions = {}
        for seat in range(seats):
            message = encode_view(rules.view(state, seat))
            shown = Counter(message.hand) + Counter(c for m in message.melds for c in m.cards)
            assert not Counter(message.hand) - Counter(state.hands[seat])
            public = Counter(c for m in state.melds for c in m.cards) + Counter(state.hands[seat])
            assert not shown - public
            assert message.discard_top in ("", state.pile[-1] if state.pile else "")
        for seat in asked:
            actions[seat] = decode_action(random_action(encode_view(rules.view(state, seat)), rng))
            try:
                rules.check(state, seat, actions[seat])
            except IllegalAction:
                actions[seat] = rules.default_action(state, seat)
        return actions

    assert Driver(rules, partial(draw, rng), decide).run(state, 10**6)
