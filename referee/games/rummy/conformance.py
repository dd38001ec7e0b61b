"""What the conformance checks (:mod:`referee.conformance`) need of rummy."""

from referee.games.conformance import Conformance

CONFORMANCE = Conformance(
    strong_bot="greedy",
    short_params={"turn_limit": 30},
    season_params={"turn_limit": 25},
    deals_params={"turn_limit": 40},
    wire_edge_views=(
        {"take_it_limit": 0, "take_its_left": None, "discard_top": "é", "decision": 99, "scores": (0, 300, 2**31), "hand": ()},
    ),
)
