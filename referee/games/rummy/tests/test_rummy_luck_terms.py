"""Contract rummy's standardised luck terms for the luck audit (referee.games.rummy.luck.luck_terms): in [-1, 1],
mean zero over honest play (random and greedy bots), and positive for a bot that knows the stock's next card."""

from __future__ import annotations

import math
import random
from typing import Any

from botsdk.bot import Context
from cardarena.v1 import rummy_pb2
from referee.games import make_params, spec
from referee.games.rummy.bots import GreedyBot, deficiency
from referee.games.rummy.luck import luck_terms
from referee.playout import Playout

GAME = "rummy"


def play_rummy(seed: int, knower: int | None = None, seats: int = 4) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One quick game (seat 0 greedy, the others random; seat ``knower`` greedy that, at a draw with a live
    discard, reads the engine's stock and takes the stock card when it brings the hand closer to the contract,
    else the discard). Returns the events and the parameters."""
    gs = spec(GAME)
    params = make_params(GAME, gs.quick_params)
    rules = gs.make_rules(params, seats)
    state = rules.new_state()

    def greedy(seat: int, knows: bool) -> Any:
        bot = GreedyBot()

        def decide(view: Any, rng: random.Random) -> Any:
            if knows and view.decision == rummy_pb2.RUMMY_DECISION_DRAW and state.stock:
                hand = list(view.hand)
                sets, runs = _contract(state)
                top = state.stock[1] if state.callers else state.stock[0]
                good = deficiency([*hand, top], sets, runs) < deficiency(hand, sets, runs)
                src = rummy_pb2.RUMMY_DRAW_SOURCE_STOCK if good else rummy_pb2.RUMMY_DRAW_SOURCE_DISCARD_PILE
                return rummy_pb2.RummyAction(draw=src)
            return bot.rummy(view, Context("test", seat, 0, 0, 0, 0, rng))
        return decide

    policies = [greedy(s, True) if s == knower else greedy(s, False) if s == 0 else gs.random_action
                for s in range(seats)]
    Playout(rules, gs, random.Random(seed), policies).play(state)
    return [{"kind": e.kind, "data": dict(e.data), "visible_to": None} for e in state.events], vars(params)


def _contract(state: Any) -> tuple[int, int]:
    for e in reversed(state.events):
        if e.kind == "round":
            return e.data["sets"], e.data["runs"]
    return 2, 0


def test_honest_terms_are_bounded_with_mean_zero() -> None:
    xs: list[float] = []
    for seed in range(60):
        events, params = play_rummy(seed)
        for seat_terms in luck_terms(events, 4, params):
            assert all(-1.0 <= x <= 1.0 for x in seat_terms)
            xs.extend(seat_terms)
    n, mean = len(xs), math.fsum(xs) / len(xs)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    assert n > 300
    assert abs(mean) < 4 * sd / math.sqrt(n), (mean, sd, n)


def test_a_rebuild_that_keeps_the_old_top_card_measures_it_against_the_old_part_alone() -> None:
    """rules §3.12: one stock card left, the pile goes under it: the top card is that card for sure, so a draw
    then makes no term (no luck), and a drawn card is checked against the top part."""
    ev = lambda kind, **data: {"kind": kind, "data": data, "visible_to": None}  # noqa: E731
    from referee.games.rummy.rules import deck
    cards = list(deck(4))
    hands = [cards[0:7], cards[7:14], cards[14:21]]
    upcard, rest = cards[21], cards[22:]
    events = [ev("round", round=1, dealer=2, sets=2, runs=0, hand_size=7),
              *[ev("hand", seat=s, cards=h) for s, h in enumerate(hands)], ev("upcard", card=upcard)]
    for c in rest[:-1]:  # everyone draws from the stock and discards it, until one card is left
        events += [ev("draw", seat=0, source="stock"), ev("drawn_card", seat=0, card=c),
                   ev("discard", seat=0, card=c)]
    events += [ev("rebuild", cards=len(rest) - 1, stock=len(rest)), ev("draw", seat=1, source="stock"),
               ev("drawn_card", seat=1, card=rest[-1])]
    terms = luck_terms(events, 3, {"jokers": 4})
    assert terms[1] == ()  # the last old card was certain: no term
    bad = events[:-1] + [ev("drawn_card", seat=1, card=rest[0])]  # a pile card is under the old one
    import pytest
    with pytest.raises(ValueError):
        luck_terms(bad, 3, {"jokers": 4})


def test_a_bot_that_knows_the_stock_gets_positive_terms() -> None:
    mine: list[float] = []
    for seed in range(30):
        events, params = play_rummy(seed, knower=1)
        mine.extend(luck_terms(events, 4, params)[1])
    n, mean = len(mine), math.fsum(mine) / len(mine)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in mine) / (n - 1))
    assert n > 50
    assert mean > 0.03 and mean > 5 * sd / math.sqrt(n), (mean, sd, n)  # clearly positive (an honest seat's is 0)
