"""The incremental view encoder (referee.wire) against the from-scratch encoding, on every game.

For many random games of each game, at every decision, every seat's view is
encoded by one game-long :class:`~referee.wire.ViewEncoder` (seats in a
shuffled order, so the history cache is shared and revisited) and must give
the very bytes of ``encode_view(view).SerializeToString()``; the request the
referee sends must be the bytes of the whole ``ActRequest``.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message_factory import GetMessageClass

from cardarena.v1 import bot_pb2
from referee.chance import draw
from referee.driver import Driver
from referee.engine import IllegalAction
from referee.games import games, make_params, spec
from referee.games.conformance import conformance
from referee.wire import History, ViewCodec, ViewEncoder, act_header, act_request

GAMES = games()
#: Decisions checked per game: random games of the game's short parameters are played until this many.
DECISIONS = 2500
#: Random games at most per game (a game of very few decisions still ends the test).
MAX_GAMES = 1000


def _random_games(game: str, count: int, at_decision: Callable[[Any, Any, ViewEncoder, random.Random], None],
                  until: int | None = None) -> int:
    """Play up to ``count`` random games of ``game`` (no new game once ``until`` decisions are played), calling
    ``at_decision(state, rules, encoder, rng)`` at every decision before it is answered (one encoder per game);
    return the number of decisions."""
    gs = spec(game)
    policy = gs.random_action
    decisions = 0
    for seed in range(count):
        if until is not None and decisions >= until:
            break
        seats = gs.min_seats + seed % (gs.max_seats - gs.min_seats + 1)
        rules = gs.make_rules(make_params(game, gs.quick_params), seats)
        rng, state = random.Random(seed), rules.new_state()
        encoder = gs.view_codec.encoder()

        def decide(state: Any, asked: tuple[int, ...]) -> dict[int, Any]:
            nonlocal decisions
            at_decision(state, rules, encoder, rng)
            decisions += 1
            actions = {}
            for seat in asked:
                action = gs.decode_action(policy(gs.encode_view(rules.view(state, seat)), rng))
                try:
                    rules.check(state, seat, action)
                except IllegalAction:
                    action = rules.default_action(state, seat)
                actions[seat] = action
            return actions

        assert Driver(rules, partial(draw, rng), decide).run(state, 10**6)
    return decisions


@pytest.mark.parametrize("game", GAMES)
def test_incremental_views_are_the_bytes_of_a_from_scratch_encoding(game: str) -> None:
    gs = spec(game)

    def same_bytes(state: Any, rules: Any, encoder: ViewEncoder, rng: random.Random) -> None:
        order = list(range(rules.num_seats))
        rng.shuffle(order)
        for seat in order:
            view = rules.view(state, seat)
            assert encoder.encode(view) == gs.encode_view(view).SerializeToString(), (game, seat)

    assert _random_games(game, MAX_GAMES, same_bytes, until=DECISIONS) > 1000


@pytest.mark.parametrize("game", GAMES)
def test_one_encoder_across_games_still_gives_from_scratch_bytes(game: str) -> None:
    """A history that is no extension of the last one (another game's) is re-encoded, never spliced."""
    gs = spec(game)
    shared = gs.view_codec.encoder()
    n = 0

    def shared_encoder(state: Any, rules: Any, _encoder: ViewEncoder, _rng: random.Random) -> None:
        nonlocal n
        if n % 7 == 0:
            view = rules.view(state, n % rules.num_seats)
            assert shared.encode(view) == gs.encode_view(view).SerializeToString()
        n += 1

    _random_games(game, 3, shared_encoder)


@pytest.mark.parametrize("game", GAMES)
def test_the_request_is_the_bytes_of_the_whole_act_request(game: str) -> None:
    gs = spec(game)
    field = bot_pb2.ActRequest.DESCRIPTOR.fields_by_name[gs.proto_field]
    n = -1

    def whole_request(state: Any, rules: Any, encoder: ViewEncoder, _rng: random.Random) -> None:
        nonlocal n
        n += 1
        if n % 11:
            return
        seat = n % rules.num_seats
        view = rules.view(state, seat)
        clock = bot_pb2.Clock(deadline_ms=1000, time_bank_ms=9500 - n, budget_ms=120000 - n)
        header = bot_pb2.ActRequest(game_id=f"g-{n}", seat=seat, decision=n, clock=clock)
        whole = bot_pb2.ActRequest(game_id=f"g-{n}", seat=seat, decision=n, clock=clock,
                                   **{gs.proto_field: gs.encode_view(view)})
        assert act_request(header, field.number, encoder.encode(view)) == whole.SerializeToString()

    _random_games(game, 2, whole_request)


@pytest.mark.parametrize("game_id", ["", "g", "game-17", "partie-é-" + "x" * 200])
def test_the_header_written_directly_is_the_header_message(game_id: str) -> None:
    values = [0, 1, 127, 128, 1000, 16383, 16384, 9500, 120000, (1 << 32) - 1]
    rng = random.Random(5)
    for _ in range(400):
        seat, decision, deadline, bank, budget = (rng.choice(values) for _ in range(5))
        message = bot_pb2.ActRequest(game_id=game_id, seat=seat, decision=decision,
                                     clock=bot_pb2.Clock(deadline_ms=deadline, time_bank_ms=bank, budget_ms=budget))
        assert act_header(game_id, seat, decision, deadline, bank, budget) == message.SerializeToString()


@pytest.mark.parametrize("bad", [-1, 1 << 32])
def test_the_header_refuses_a_number_a_uint32_cannot_hold(bad: int) -> None:
    with pytest.raises(ValueError):
        act_header("g", 0, 0, 1000, bad, 5000)


def test_a_view_message_with_a_oneof_is_refused() -> None:
    codec = ViewCodec(bot_pb2.ActRequest, lambda v: {}, (History(spec(GAMES[0]).proto_field, lambda v: (), lambda x: x),))
    with pytest.raises(ValueError, match="oneofs"):
        codec.encoder()


def view_message(game: str) -> type:
    """The protocol view message class of ``game`` (its member of the ``view`` oneof)."""
    return GetMessageClass(bot_pb2.ActRequest.DESCRIPTOR.fields_by_name[spec(game).proto_field].message_type)


#: Edge values of the fields written directly (no message built), each game's own
#: (``Conformance.wire_edge_views``): zeros of fields with and without presence, the largest uint32, enum
#: numbers unknown to the enum (a negative one takes 10 bytes), strings beyond ASCII, repeated bools and
#: strings, empty repeated fields.
EDGE_VIEWS = [(view_message(g), values) for g in GAMES for values in conformance(g).wire_edge_views]


def _field(message_type, kind: int, repeated: bool = False) -> str:
    """The first field of ``message_type`` of protobuf type ``kind`` (repeated or not)."""
    return next(f.name for f in message_type.DESCRIPTOR.fields if f.type == kind and f.is_repeated == repeated)


def _unset(message_type) -> dict[str, object]:
    """Every field of ``message_type`` unset: () for a repeated one, None where protobuf knows presence, else its default."""
    return {f.name: (() if f.is_repeated else None if f.has_presence else f.default_value)
            for f in message_type.DESCRIPTOR.fields}


@pytest.mark.parametrize(("message_type", "values"), EDGE_VIEWS)
def test_fields_written_directly_are_the_bytes_protobuf_writes(message_type, values) -> None:
    view = {**_unset(message_type), **values}
    expected = message_type(**{k: v for k, v in view.items() if v is not None}).SerializeToString()
    assert ViewCodec(message_type, dict, ()).encoder().encode(view) == expected


def test_every_game_declares_edge_views() -> None:
    assert {message for message, _ in EDGE_VIEWS} == {view_message(g) for g in GAMES}


@pytest.mark.parametrize("game", GAMES)
def test_a_value_the_field_cannot_hold_is_refused(game: str) -> None:
    message_type = view_message(game)
    encoder = ViewCodec(message_type, dict, ()).encoder()
    number, strings = _field(message_type, FieldDescriptor.TYPE_UINT32), _field(message_type, FieldDescriptor.TYPE_STRING, True)
    for name, value in ((number, -1), (number, 2**32), (number, "10"), (strings, (3,))):
        with pytest.raises((TypeError, ValueError)):
            encoder.encode({**_unset(message_type), name: value})


class _Big(enum.IntEnum):
    """An IntEnum member far from zero: the engines hand enum fields their own IntEnum members."""

    FAR = 1_000_000_007
    BELOW = -1_000_000_009


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("member", list(_Big))
def test_an_int_enum_member_in_an_enum_field_is_written_as_its_number(member: _Big, game: str) -> None:
    # an int subclass is range-checked by comparison: ``in range(...)`` looks for it one number at a time
    message_type = view_message(game)
    name = _field(message_type, FieldDescriptor.TYPE_ENUM)
    view = {**_unset(message_type), name: member}
    expected = message_type(**{name: int(member)}).SerializeToString()
    assert ViewCodec(message_type, dict, ()).encoder().encode(view) == expected
