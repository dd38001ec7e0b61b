"""What the conformance checks (:mod:`referee.conformance`) need of Slippery Sam."""

from typing import Any

from cardarena.v1 import slippery_sam_pb2
from referee.games.conformance import Conformance, ReplayCase


def engine_table(state: Any) -> dict[str, Any]:
    """The hands, each seat's tokens outside the kitty, and the kitty."""
    hands = [list(h) for h in state.hands] or [[] for _ in range(state.num_seats)]
    return {"hands": hands, "scores": list(state.tokens), "pot": state.kitty}


def illegal_answer(view: slippery_sam_pb2.SlipperySamView) -> slippery_sam_pb2.SlipperySamAction:
    """One token more than the view allows: a kitty or a bet outside its legal range (rules §1.3, §1.5)."""
    return slippery_sam_pb2.SlipperySamAction(amount=view.max_amount + 1)


CONFORMANCE = Conformance(
    strong_bot="odds",
    short_params={"orbits": 1},
    season_params={"orbits": 1},
    wire_edge_views=({"tokens": (0, 1, 127, 128, 16384), "out": (False,) * 8, "orbit": 128},),
    replay_cases=(
        ReplayCase(("random", "odds", "random"), {"orbits": 2, "starting_tokens": 60}, range(1, 4)),
        ReplayCase(("odds", "random", "random", "odds", "random"), {"orbits": 2, "starting_tokens": 100}, range(4, 6)),
        ReplayCase(("random",) * 8, {"orbits": 1, "starting_tokens": 80}, range(6, 7)),
    ),
    replay_events=frozenset({"kitty", "deal", "hand", "bet", "shoot", "turn", "turn_end", "skip", "out", "game_over"}),
    engine_table=engine_table,
    replay_checks=frozenset({"dealer-holds-nothing"}),
    illegal_answer=illegal_answer,
    replay_breaks=(
        # a turn's end that leaves the hands (the next dealer drawn with old cards)
        ("t.dealer = null;\n        RS.clearHands(t);\n", "t.dealer = null;\n", "the dealer, seat"),
        # the kitty still shown after it went back to the dealer
        ("t.scores[d.dealer] += d.returned; t.pot = null;", "t.scores[d.dealer] += d.returned;", "tokens add up"),
    ),
)
