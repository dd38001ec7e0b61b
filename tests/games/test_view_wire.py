"""The incremental view encoder (referee.wire) against the from-scratch encoding, on every game.

For many random games of each game, at every decision, every seat's view is
encoded by one game-long :class:`~referee.wire.ViewEncoder` (seats in a
shuffled order, so the history cache is shared and revisited) and must give
the very bytes of ``encode_view(view).SerializeToString()``; the request the
referee sends must be the bytes of the whole ``ActRequest``.
"""

from __future__ import annotations

import random

import pytest

from cardarena.v1 import bot_pb2
from referee.engine import Ask, DrawLot, IllegalAction, Shuffle
from referee.games import games, make_params, spec
from referee.wire import History, ViewCodec, act_request

GAMES = games()
#: Decisions checked per game: random games of the game's short parameters are played until this many.
DECISIONS = 2500
#: Random games at most per game (a game of very few decisions still ends the test).
MAX_GAMES = 1000


def _random_games(game: str, count: int):
    """Yield (state, rules, asked seats) at every decision of ``count`` random games, with the game's encoder."""
    gs = spec(game)
    policy = gs.random_action
    for seed in range(count):
        seats = gs.min_seats + seed % (gs.max_seats - gs.min_seats + 1)
        rules = gs.make_rules(make_params(game, gs.quick_params), seats)
        rng, state = random.Random(seed), rules.new_state()
        encoder = gs.view_codec.encoder()
        while (step := rules.step(state)) is not None:
            if isinstance(step, Shuffle):
                rules.apply_chance(state, rng.sample(step.cards, len(step.cards)))
                continue
            if isinstance(step, DrawLot):
                rules.apply_chance(state, rng.choice(step.seats))
                continue
            assert isinstance(step, Ask)
            yield state, rules, encoder, rng
            actions = {}
            for seat in step.seats:
                action = gs.decode_action(policy(gs.encode_view(rules.view(state, seat)), rng))
                try:
                    rules.check(state, seat, action)
                except IllegalAction:
                    action = rules.default_action(state, seat)
                actions[seat] = action
            rules.apply(state, actions)


@pytest.mark.parametrize("game", GAMES)
def test_incremental_views_are_the_bytes_of_a_from_scratch_encoding(game: str) -> None:
    gs = spec(game)
    decisions = 0
    for state, rules, encoder, rng in _random_games(game, MAX_GAMES):
        if decisions == DECISIONS:
            break
        order = list(range(rules.num_seats))
        rng.shuffle(order)
        for seat in order:
            view = rules.view(state, seat)
            assert encoder.encode(view) == gs.encode_view(view).SerializeToString(), (game, decisions, seat)
        decisions += 1
    assert decisions > 1000


@pytest.mark.parametrize("game", GAMES)
def test_one_encoder_across_games_still_gives_from_scratch_bytes(game: str) -> None:
    """A history that is no extension of the last one (another game's) is re-encoded, never spliced."""
    gs = spec(game)
    shared = gs.view_codec.encoder()
    for n, (state, rules, _, _) in enumerate(_random_games(game, 3)):
        if n % 7 == 0:
            view = rules.view(state, n % rules.num_seats)
            assert shared.encode(view) == gs.encode_view(view).SerializeToString()


@pytest.mark.parametrize("game", GAMES)
def test_the_request_is_the_bytes_of_the_whole_act_request(game: str) -> None:
    gs = spec(game)
    field = bot_pb2.ActRequest.DESCRIPTOR.fields_by_name[gs.proto_field]
    for n, (state, rules, encoder, _) in enumerate(_random_games(game, 2)):
        if n % 11:
            continue
        seat = n % rules.num_seats
        view = rules.view(state, seat)
        clock = bot_pb2.Clock(deadline_ms=1000, time_bank_ms=9500 - n, budget_ms=120000 - n)
        header = bot_pb2.ActRequest(game_id=f"g-{n}", seat=seat, decision=n, clock=clock)
        whole = bot_pb2.ActRequest(game_id=f"g-{n}", seat=seat, decision=n, clock=clock,
                                   **{gs.proto_field: gs.encode_view(view)})
        assert act_request(header, field.number, encoder.encode(view)) == whole.SerializeToString()


def test_a_view_message_with_a_oneof_is_refused() -> None:
    codec = ViewCodec(bot_pb2.ActRequest, lambda v: {}, (History("slippery_sam", lambda v: (), lambda x: x),))
    with pytest.raises(ValueError, match="oneofs"):
        codec.encoder()
