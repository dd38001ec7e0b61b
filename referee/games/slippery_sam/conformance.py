"""What the conformance checks (:mod:`referee.conformance`) need of Slippery Sam."""

import random
from typing import Any

from cardarena.v1 import slippery_sam_pb2
from referee.games.conformance import Conformance, RefusalProbe, ReplayCase


def engine_table(state: Any) -> dict[str, Any]:
    """The hands, each seat's tokens outside the kitty, and the kitty."""
    hands = [list(h) for h in state.hands] or [[] for _ in range(state.num_seats)]
    return {"hands": hands, "scores": list(state.tokens), "pot": state.kitty}


def illegal_answer(view: slippery_sam_pb2.SlipperySamView) -> slippery_sam_pb2.SlipperySamAction:
    """One token more than the view allows: a kitty or a bet outside its legal range (rules §1.3, §1.5)."""
    return slippery_sam_pb2.SlipperySamAction(amount=view.max_amount + 1)


def random_answers(view: slippery_sam_pb2.SlipperySamView, rng: random.Random) -> list[slippery_sam_pb2.SlipperySamAction]:
    """Six amounts of 0..1000 tokens: most outside the kitty's or the bet's range (rules §1.3, §1.5)."""
    return [slippery_sam_pb2.SlipperySamAction(amount=rng.randint(0, 1000)) for _ in range(6)]


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
    refusal_probe=RefusalProbe(random_answers, games=8, kinds=2),
    replay_opening=("deal", "hand"),
    replay_new_deal=frozenset({"deal", "turn_end"}),  # a new deal (rules §1.4, §1.9)
    replay_breaks=(
        # a turn's end that leaves the hands (the next dealer drawn with old cards)
        ("t.dealer = null;\n        RS.clearHands(t);\n", "t.dealer = null;\n", "the dealer, seat"),
        # the kitty still shown after it went back to the dealer
        ("t.scores[d.dealer] += d.returned; t.pot = null;", "t.scores[d.dealer] += d.returned;", "tokens add up"),
    ),
)
