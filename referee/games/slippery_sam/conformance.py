"""What the conformance checks (:mod:`referee.conformance`) need of Slippery Sam."""

from referee.games.conformance import Conformance

CONFORMANCE = Conformance(
    strong_bot="odds",
    short_params={"orbits": 1},
    season_params={"orbits": 1},
    wire_edge_views=({"tokens": (0, 1, 127, 128, 16384), "out": (False,) * 8, "orbit": 128},),
)
