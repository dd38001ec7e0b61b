"""What the conformance checks (:mod:`referee.conformance`) need of svara."""

from referee.games.conformance import Conformance

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
)
