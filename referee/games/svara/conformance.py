"""What the conformance checks (:mod:`referee.conformance`) need of svara."""

import random
from typing import Any

from cardarena.v1 import svara_pb2
from referee.games.conformance import Conformance, RefusalProbe, ReplayCase


def engine_table(state: Any) -> dict[str, Any]:
    """The hands, each seat's tokens outside the bank, and the bank."""
    hands = [list(c) for c in state.cards] or [[] for _ in range(state.num_seats)]
    return {"hands": hands, "scores": list(state.tokens), "pot": state.bank}


def illegal_answer(view: svara_pb2.SvaraView) -> svara_pb2.SvaraAction | None:
    """The first of SEE, JOIN and ACCEPT that ``view.legal.moves`` does not list (rules §2.18, §2.20, §2.21,
    §2.6), or None when all three are legal."""
    legal = set(view.legal.moves)
    for move in (svara_pb2.SVARA_MOVE_SEE, svara_pb2.SVARA_MOVE_JOIN, svara_pb2.SVARA_MOVE_ACCEPT):
        if move not in legal:
            return svara_pb2.SvaraAction(move=move)
    return None


def random_answers(view: svara_pb2.SvaraView, rng: random.Random) -> list[svara_pb2.SvaraAction]:
    """Every move (1..9) with a random amount of 0..300 tokens: most not legal at the view (rules §2.5-2.9,
    §2.17-2.21)."""
    return [svara_pb2.SvaraAction(move=m, amount=rng.randint(0, 300)) for m in range(1, 10)]


CONFORMANCE = Conformance(
    strong_bot="points",
    short_params={"hands": 3},
    season_params={"hands": 6},
    deals_params={"hands": 6},
    wire_edge_views=(
        {"dealer": 0, "proposer": 0, "bank": 0, "szacha": "", "looked": False, "in_play": ()},
        {"dealer": 7, "bank": 2**32 - 1, "decision": -1, "szacha": "6c", "looked": True,
         "in_play": (True, False, True), "hand": ("Ah", "6c", "Td")},
    ),
    # fields whose absence means "none" (proto3 optional)
    presence_fields=(("SvaraView", "dealer"), ("SvaraView", "proposer")),
    replay_cases=(
        ReplayCase(("random", "points", "random"), {"hands": 12, "starting_tokens": 120, "svaras_per_bank": 3}, range(1, 4)),
        ReplayCase(("points", "random", "random", "points", "random", "random"), {"hands": 8, "starting_tokens": 200},
                   range(4, 6)),
        ReplayCase(("random",) * 8, {"hands": 6, "min_stake": 20, "starting_tokens": 100}, range(6, 7)),
        # seed 13: a tie split at once
        ReplayCase(("random", "random", "points", "random"), {"hands": 25, "svaras_per_bank": 0}, range(13, 14)),
    ),
    replay_events=frozenset({"ante", "bottom_penalty", "deal", "dealt", "stake", "see", "fold", "show", "win", "split",
                             "svara", "join", "decline", "no_betting", "proposal_accepted", "out", "game_over"}),
    engine_table=engine_table,
    illegal_answer=illegal_answer,
    refusal_probe=RefusalProbe(random_answers, games=8, kinds=2),
    replay_opening=("dealt", None),
    replay_new_deal=frozenset({"hand", "svara", "out"}),  # a new deal (rules §2.4, §2.8)
    replay_breaks=(
        # a see that does not charge the seat
        ("RS.pay(t, d.seat, d.amount); t.pot = { label: \"bank\", amount: d.bank };", "", "tokens add up"),
    ),
)
