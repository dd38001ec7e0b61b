"""What the conformance checks (:mod:`referee.conformance`) need of rummy."""

import random
from collections.abc import Mapping, Sequence
from typing import Any

from cardarena.v1 import rummy_pb2
from referee.games.conformance import Conformance, RefusalProbe, ReplayCase


def engine_table(state: Any) -> dict[str, Any]:
    """The hands, each seat's points, nothing in the middle (0), and the discard pile, stock and melds."""
    n = state.num_seats
    dealt = bool(state.hands)
    return {"hands": [list(h) for h in state.hands] or [[] for _ in range(n)],
            "scores": list(state.totals) or [0] * n, "pot": 0, "pile": list(state.pile),
            "stock": len(state.stock) if dealt else None,
            "melds": {str(m.id): " ".join(m.cards) for m in state.melds}}


def forced_top_card_draws(case: Mapping[str, Any]) -> int:
    """Draws of the discard pile's live top card with the stock empty (rules §3.6): the
    engine's stock was empty where it last stopped before the draw."""
    settled = sorted(int(k) for k in case["truth"]["settled"])
    count = 0
    for i, e in enumerate(case["record"]["events"]):
        if e["kind"] == "draw" and e["data"]["source"] == "discard_pile":
            before = max(k for k in settled if k <= i)
            count += case["truth"]["settled"][before]["stock"] == 0
    return count


def forced_top_card_drawn(cases: Sequence[Mapping[str, Any]]) -> str | None:
    """The replay cases reach a forced draw of the live top card, or say they do not."""
    return None if sum(forced_top_card_draws(c) for c in cases) > 0 else "no forced draw of the live top card (rules §3.6)"


def illegal_answer(view: rummy_pb2.RummyView) -> rummy_pb2.RummyAction | None:
    """At a PLAY, the discard of a card the hand does not hold (rules §3.7, §3.28); at a DRAW whose discard pile
    has no live top card, a draw from the pile (rules §3.6); None otherwise (every CALL answer is legal)."""
    if view.decision == rummy_pb2.RUMMY_DECISION_PLAY:
        held = set(view.hand)
        card = next(r + s for r in "A23456789TJQK" for s in "shdc" if r + s not in held)
        return rummy_pb2.RummyAction(discard=card)
    if view.decision == rummy_pb2.RUMMY_DECISION_DRAW and not (view.discard_top and view.discard_live):
        return rummy_pb2.RummyAction(draw=rummy_pb2.RUMMY_DRAW_SOURCE_DISCARD_PILE)
    return None


def random_answers(view: rummy_pb2.RummyView, rng: random.Random) -> list[rummy_pb2.RummyAction]:
    """Twelve actions of random calls, draws, melds of held cards, lay-offs and discards: most not legal at the
    view (rules §3.5-3.8, §3.28)."""
    hand = list(view.hand) or ["Ah"]
    out = []
    for _ in range(12):
        action = rummy_pb2.RummyAction(call=rng.random() < 0.5, draw=rng.choice([1, 2]))
        for _ in range(rng.choice([0, 0, 1, 2, 3])):
            action.go_down.add(kind=rng.choice([1, 2]), cards=rng.sample(hand, min(len(hand), rng.randint(1, 5))))
        for _ in range(rng.choice([0, 0, 1, 2])):
            action.lay_offs.add(meld_id=rng.randint(0, len(view.melds) + 1), end=rng.choice([0, 1, 2]),
                                cards=rng.sample(hand, min(len(hand), rng.randint(1, 2))))
        action.discard = rng.choice([*hand, "", "Ah", "Jk"])
        out.append(action)
    return out


CONFORMANCE = Conformance(
    strong_bot="greedy",
    short_params={"turn_limit": 30},
    season_params={"turn_limit": 25},
    deals_params={"turn_limit": 40},
    wire_edge_views=(
        {"take_it_limit": 0, "take_its_left": None, "discard_top": "é", "decision": 99, "scores": (0, 300, 2**31), "hand": ()},
    ),
    # fields whose absence means "none" (proto3 optional)
    presence_fields=(("RummyView", "take_it_limit"), ("RummyView", "take_its_left"), ("RummyLayOff", "meld_id")),
    replay_cases=(
        ReplayCase(("greedy", "greedy", "random"), {"turn_limit": 40}, range(1, 3)),
        ReplayCase(("random", "random", "random"), {"turn_limit": 110}, range(9, 10)),
        ReplayCase(("greedy", "random", "greedy", "random"), {"turn_limit": 30, "take_it_limit": 3}, range(3, 4)),
        ReplayCase(("greedy",) * 5 + ("random",), {"turn_limit": 25}, range(4, 5)),
        # long rounds that empty the stock: the live top card drawn without a decision (rules §3.6)
        ReplayCase(("random",) * 5, {"turn_limit": 100}, range(1, 2)),
    ),
    replay_events=frozenset({"round", "hand", "upcard", "draw", "drawn_card", "take_it", "penalty_card", "rebuild",
                             "discard", "go_down", "lay_off", "round_end", "game_over"}),
    replay_holds=forced_top_card_drawn,
    engine_table=engine_table,
    illegal_answer=illegal_answer,
    refusal_probe=RefusalProbe(random_answers, games=4, kinds=8),
    replay_checks=frozenset({"cards-add-up"}),
    replay_opening=("upcard", None),
    replay_new_deal=frozenset({"round"}),  # a new deal (rules §3.3)
    replay_breaks=(
        # a penalty card not counted
        ("t.stock -= 1; t.hands[d.seat].hidden += 1; showPile(t);", "", "cards on the table add up"),
    ),
)
