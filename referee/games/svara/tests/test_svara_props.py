"""Random-play properties of the Svara engine (rules §2; STYLE item 10, first layer).

The step driver (``referee.driver``) plays whole games: chance from one
generator (``referee.chance.draw``), Ask -> for each asked seat:
encode_view(view) -> policy -> decode_action -> check -> apply.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from functools import partial

import pytest
from cardarena.v1 import svara_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from botsdk.bot import Context
from referee.games.svara.bots import PointsBot, random_action
from referee.chance import draw
from referee.driver import Driver
from referee.engine import Ask, IllegalAction
from referee.games.svara import Decision, Phase, SvaraMove, SvaraMoveAction, SvaraParams, SvaraRules, SvaraState
from referee.games.svara.codec import decode_action, encode_view

Policy = Callable[[svara_pb2.SvaraView, random.Random], svara_pb2.SvaraAction]
MAX_STEPS = 200_000


def svara_play(
    rules: SvaraRules,
    seed: int,
    policy: Policy = random_action,
    on_step: Callable[[SvaraRules, SvaraState], None] | None = None,
) -> SvaraState:
    """Play one game to the end; checks conservation of tokens after every step."""
    state = rules.new_state()
    rng = random.Random(seed)
    total = sum(state.tokens) + state.bank

    def decide(state: SvaraState, asked: tuple[int, ...]) -> dict[int, SvaraMoveAction]:
        actions = {}
        for seat in asked:
            action = decode_action(policy(encode_view(rules.view(state, seat)), rng))
            rules.check(state, seat, action)
            actions[seat] = action
        return actions

    driver = Driver(rules, partial(draw, rng), decide)
    for _ in range(MAX_STEPS):
        if on_step is not None:
            on_step(rules, state)
        if driver.step(state) is None:
            return state
        assert sum(state.tokens) + state.bank == total
        assert min(state.tokens) >= 0 and state.bank >= 0
    raise AssertionError(f"game with seed {seed} did not end in {MAX_STEPS} steps")


def check_final(rules: SvaraRules, state: SvaraState) -> None:
    n = state.num_seats
    assert state.phase is Phase.OVER
    assert state.bank == 0  # the bank always ends in someone's hands
    assert sum(state.tokens) == n * rules.params.starting_tokens
    assert sum(rules.score_changes(state)) == 0
    assert rules.scores(state) == tuple(state.tokens)
    assert state.hand_number <= rules.params.hands
    assert state.end_reason == "hands" or sum(not o for o in state.out) < 2
    wins = sum(1 for e in state.events if e.kind in ("win", "split"))
    assert wins == state.hand_number


def always_propose_accept(view: svara_pb2.SvaraView, rng: random.Random) -> svara_pb2.SvaraAction:
    moves = set(view.legal.moves)
    for move in (svara_pb2.SVARA_MOVE_PROPOSE, svara_pb2.SVARA_MOVE_ACCEPT):
        if move in moves:
            return svara_pb2.SvaraAction(move=move)
    return random_action(view, rng)


def points_policy(view: svara_pb2.SvaraView, rng: random.Random) -> svara_pb2.SvaraAction:
    ctx = Context(game_id="t", seat=0, decision=0, deadline_ms=1000, time_bank_ms=0, budget_ms=0, rng=rng)
    return PointsBot().svara(view, ctx)


def mixed_policy(view: svara_pb2.SvaraView, rng: random.Random) -> svara_pb2.SvaraAction:
    return points_policy(view, rng) if rng.random() < 0.5 else random_action(view, rng)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(3, 8), hands=st.integers(1, 8),
       circuits=st.integers(1, 4), svaras=st.integers(0, 3), min_stake=st.integers(1, 30),
       spread=st.integers(0, 80), tokens=st.integers(0, 400))
def test_tokens_conserved_and_games_end(seed: int, seats: int, hands: int, circuits: int, svaras: int,
                                        min_stake: int, spread: int, tokens: int) -> None:
    params = SvaraParams(min_stake=min_stake, max_stake=min_stake + spread, starting_tokens=min_stake + tokens,
                         hands=hands, circuits=circuits, svaras_per_bank=svaras)
    rules = SvaraRules(params, seats)
    check_final(rules, svara_play(rules, seed))


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(3, 8), svaras=st.integers(0, 3))
def test_games_end_when_everyone_proposes_and_accepts(seed: int, seats: int, svaras: int) -> None:
    rules = SvaraRules(SvaraParams(hands=6, svaras_per_bank=svaras), seats)
    state = svara_play(rules, seed, always_propose_accept)
    check_final(rules, state)
    if svaras:
        assert any(e.kind == "proposal_accepted" for e in state.events)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(3, 8))
def test_points_bot_plays_legal_games(seed: int, seats: int) -> None:
    rules = SvaraRules(SvaraParams(hands=6), seats)
    check_final(rules, svara_play(rules, seed, mixed_policy))


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_thousand_random_games() -> None:
    for seed in range(1000):
        rules = SvaraRules(SvaraParams(hands=5), 3 + seed % 6)
        check_final(rules, svara_play(rules, seed))


def test_replay_is_deterministic() -> None:
    rules = SvaraRules(SvaraParams(hands=10), 5)
    first = svara_play(rules, 1234)
    second = svara_play(rules, 1234)
    assert first == second


def _hidden_information(rules: SvaraRules, state: SvaraState) -> None:
    """No view holds another seat's cards before they are shown; an unlooked seat sees none of its own."""
    public: set[str] = {rules.params.szacha, state.bottom_card}
    for e in state.events:
        if e.kind == "show":
            public.update(e.data["cards"])
    for seat in range(state.num_seats):
        view = rules.view(state, seat)
        message = encode_view(view)
        if not state.looked[seat]:
            assert not view.hand and not message.hand
        else:
            assert tuple(message.hand) == state.cards[seat]
        visible = set(message.hand) | {c for shown in message.shown for c in shown.cards}
        visible |= {message.szacha, message.bottom_card} - {""}
        for shown in view.shown:
            assert set(shown.cards) <= public
        for other in range(state.num_seats):
            if other == seat:
                continue
            leaked = (set(state.cards[other]) & visible) - public
            assert not leaked, (seat, other, leaked)


def test_hidden_information_over_random_games() -> None:
    for seed in range(150):
        rules = SvaraRules(SvaraParams(hands=3), 3 + seed % 6)
        svara_play(rules, seed, random_action, _hidden_information)


@pytest.mark.parametrize("policy", [random_action, points_policy])
def test_every_answer_is_legal(policy: Policy) -> None:
    """The reference policies only answer legal moves (the driver's check() would raise)."""
    for seed in range(40):
        rules = SvaraRules(SvaraParams(hands=4), 3 + seed % 6)
        check_final(rules, svara_play(rules, seed, policy))


def test_referee_plays_and_replay_verifies() -> None:
    """Through the platform: the referee plays PointsBot and RandomBot in-process; the record replays exactly."""
    from referee.bots import RandomBot
    from referee.clients import InProcessBotClient
    from referee.games import make_params, spec
    from referee.referee import play
    from referee.replay import verify

    bots = [PointsBot(seed=1), RandomBot(seed=2), PointsBot(seed=3), RandomBot(seed=4)]
    clients = [InProcessBotClient(bot.act) for bot in bots]
    record = play(spec("svara"), make_params("svara", {"hands": 4}), len(bots), 77, clients)
    assert not record.faults
    assert sum(r.score for r in record.results) == 4 * 1000
    verify(record)


def _legal_consistency(rules: SvaraRules, state: SvaraState) -> None:
    """Every listed move passes check(), every other move fails; stake bounds are exact; views are frozen."""
    request = rules.step(state)
    if not isinstance(request, Ask):
        return
    for seat in request.seats:
        legal = rules.view(state, seat).legal
        for move in SvaraMove:
            action = SvaraMoveAction(move, legal.stake_min if move is SvaraMove.STAKE else 0)
            if move in legal.moves:
                rules.check(state, seat, action)
            else:
                with pytest.raises(IllegalAction):
                    rules.check(state, seat, action)
        if SvaraMove.STAKE in legal.moves:
            rules.check(state, seat, SvaraMoveAction(SvaraMove.STAKE, legal.stake_max))
            for bad in (legal.stake_min - 1, legal.stake_max + 1):
                with pytest.raises(IllegalAction):
                    rules.check(state, seat, SvaraMoveAction(SvaraMove.STAKE, bad))
        assert rules.default_action(state, seat).move in legal.moves
    for seat in range(state.num_seats):
        if seat not in request.seats:
            assert rules.view(state, seat).decision is Decision.NONE
            with pytest.raises(IllegalAction):
                rules.check(state, seat, SvaraMoveAction(SvaraMove.FOLD))


def test_legal_moves_agree_with_check() -> None:
    for seed in range(60):
        rules = SvaraRules(SvaraParams(hands=3, starting_tokens=60 + seed * 7), 3 + seed % 6)
        svara_play(rules, seed, random_action, _legal_consistency)


def test_clone_and_serialise_mid_game() -> None:
    """A deep copy taken mid-game plays on identically; every event is JSON-serialisable."""
    rules = SvaraRules(SvaraParams(hands=6), 5)
    snapshots: list[tuple[SvaraState, random.Random]] = []
    base = svara_play(rules, 99)
    # Re-run, copying the state and the generator at every 50th step, and finish each copy.
    state = rules.new_state()
    rng = random.Random(99)
    driver = _random_driver(rules, rng)
    step_no = 0
    while rules.step(state) is not None:
        if step_no % 50 == 0:
            snapshots.append((copy.deepcopy(state), copy.deepcopy(rng)))
        driver.step(state)
        step_no += 1
    assert state == base
    for snap, snap_rng in snapshots:
        assert _random_driver(rules, snap_rng).run(snap, MAX_STEPS)
        assert snap == base
    json.dumps([{"kind": e.kind, "data": e.data, "visible_to": e.visible_to} for e in base.events])


def _random_driver(rules: SvaraRules, rng: random.Random) -> Driver:
    """Steps as :func:`svara_play` takes them, with the same use of the generator."""
    return Driver(rules, partial(draw, rng), lambda state, asked: {
        s: decode_action(random_action(encode_view(rules.view(state, s)), rng)) for s in asked})
