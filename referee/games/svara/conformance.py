"""What the conformance checks (:mod:`referee.conformance`) need of svara."""

from typing import Any

from referee.games.conformance import Conformance, ReplayCase


def engine_table(state: Any) -> dict[str, Any]:
    """The hands, each seat's tokens outside the bank, and the bank."""
    hands = [list(c) for c in state.cards] or [[] for _ in range(state.num_seats)]
    return {"hands": hands, "scores": list(state.tokens), "pot": state.bank}


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
    replay_breaks=(
        # a see that does not charge the seat
        ("RS.pay(t, d.seat, d.amount); t.pot = { label: \"bank\", amount: d.bank };", "", "tokens add up"),
    ),
)
