"""Slippery Sam under random play: conservation, termination, hidden information (rules §1.7)."""

from __future__ import annotations

import pytest

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.slippery_sam.bots import random_action
from referee.chance import draw
from referee.driver import Driver
from referee.engine import Shuffle
from referee.games.slippery_sam import SPEC, SlipperySamParams, SlipperySamRules
from referee.games.slippery_sam.rules import Phase


def play_random(seed: int, seats: int, tokens: int = 300, orbits: int = 2, on_decision=None) -> tuple[SlipperySamRules, object]:
    """Play one game with random legal bets through the protocol codec; check tokens after every step."""
    rules = SlipperySamRules(SlipperySamParams(starting_tokens=tokens, orbits=orbits), seats)
    rng = random.Random(seed)
    state = rules.new_state()
    total = tokens * seats

    def decide(state: object, asked: tuple[int, ...]) -> dict[int, object]:
        assert len(asked) == 1
        seat = asked[0]
        message = SPEC.encode_view(rules.view(state, seat))
        if on_decision:
            on_decision(rules, state, seat, message)
        action = SPEC.decode_action(random_action(message, rng))
        rules.check(state, seat, action)
        return {seat: action}

    def only_shuffles(request: object) -> list[str]:
        assert isinstance(request, Shuffle)
        return draw(rng, request)

    driver = Driver(rules, only_shuffles, decide)
    for _ in range(10_000):
        if driver.step(state) is None:
            break
        assert sum(state.tokens) + state.kitty == total
        assert all(t >= 0 for t in state.tokens) and state.kitty >= 0
    else:
        raise AssertionError("game did not end")
    return rules, state


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(3, 8), extra=st.integers(0, 500), orbits=st.integers(1, 3))
def test_tokens_are_conserved_and_every_game_ends(seed: int, seats: int, extra: int, orbits: int) -> None:
    rules, state = play_random(seed, seats, tokens=10 * seats + extra, orbits=orbits)
    assert state.phase is Phase.OVER
    assert sum(rules.scores(state)) == (10 * seats + extra) * seats
    assert sum(rules.score_changes(state)) == 0


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_a_thousand_random_games() -> None:
    reasons = set()
    for seed in range(1000):
        seats = 3 + seed % 6
        _, state = play_random(seed, seats, tokens=10 * seats + (seed % 7) * 40)
        reasons.add(state.end_reason)
    # the random games reach every way a game can end
    assert reasons >= {"orbits played", "fewer than two seats not out"}


def _cards_of_deal(state) -> tuple[dict[int, set[str]], set[str]]:
    return {s: set(h) for s, h in enumerate(state.hands)}, set(state.stack)


def test_views_hold_only_what_the_seat_may_see() -> None:
    checked = 0

    def check(rules, state, seat, message) -> None:
        nonlocal checked
        hands, stack = _cards_of_deal(state)
        shot_seats = {s for s, _ in state.shots}
        # own cards: exactly the seat's hand, or none for the dealer
        assert list(message.hand) == (state.hands[seat] if seat in state.players else [])
        # turned cards: exactly those turned in this deal; never an unturned stack card
        assert list(message.turned) == state.turned
        assert not set(message.turned) & stack
        # other seats' cards appear only where a shoot showed them
        for shot in message.shots:
            assert shot.seat in shot_seats and list(shot.cards) == state.hands[shot.seat]
        for other, cards in hands.items():
            if other != seat and other not in shot_seats:
                assert not cards & set(message.hand)
                assert not cards & {c for s in message.shots for c in s.cards}
        checked += 1

    for seed in range(200):
        play_random(seed, 3 + seed % 6, on_decision=check)
    assert checked > 5000


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_views_sent_by_the_referee_hold_no_hidden_cards() -> None:
    """What the referee actually sent (the replay's views) against the hidden events of the game."""
    from referee.bots import load_bot
    from referee.clients import InProcessBotClient
    from referee.referee import play
    from referee.replay import expand

    checked = 0
    for seed in range(60):
        seats = 3 + seed % 6
        bots = [load_bot("random" if s % 2 else "odds", seed + s) for s in range(seats)]
        record = play(SPEC, SlipperySamParams(), seats, seed, [InProcessBotClient(b.act) for b in bots])
        data = expand(record)
        events = data["events"]
        for decision in data["decisions"]:
            seat, before = decision["seat"], events[: decision["event_index"]]
            deal_start = max((i for i, e in enumerate(before) if e["kind"] == "deal"), default=-1)
            this_deal = before[deal_start + 1:] if deal_start >= 0 else []
            hands = {e["data"]["seat"]: set(e["data"]["cards"]) for e in this_deal if e["kind"] == "hand"}
            shot = {e["data"]["seat"] for e in this_deal if e["kind"] == "shoot"}
            turned = [e["data"]["card"] for e in this_deal if e["kind"] == "turn"]
            view = decision["view"]
            shown = set(view.get("hand", [])) | {c for s in view.get("shots", []) for c in s["cards"]}
            for other, cards in hands.items():
                if other != seat and other not in shot:
                    assert not cards & shown, (seed, decision["decision"], other)
            if view["decision"] == "SLIPPERY_SAM_DECISION_KITTY":
                # a new dealer, before any deal of his: no cards of his own, nothing turned
                assert view["hand"] == [] and view["turned"] == [] and view["shots"] == []
            else:
                assert set(view["hand"]) == hands[seat]
                # nothing of the stack but the cards already turned in this deal
                assert view.get("turned", []) == turned
            checked += 1
    assert checked > 1000


def test_views_carry_the_starting_tokens() -> None:
    """rules §1.1: a bot knows the starting tokens (its token change) from the view."""
    seen: list[object] = []
    play_random(1, 4, tokens=450, orbits=1, on_decision=lambda rules, state, seat, message: seen.append(message))
    assert seen and all(m.starting_tokens == 450 and m.orbits == 1 for m in seen)  # type: ignore[attr-defined]
