"""What the conformance checks (:mod:`referee.conformance`) need of svara."""

from referee.games.conformance import Conformance

CONFORMANCE = Conformance(
    strong_bot="points",
    short_params={"hands": 3},
    season_params={"hands": 6},
    deals_params={"hands": 6},
)
