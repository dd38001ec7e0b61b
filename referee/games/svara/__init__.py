"""Svara (Seka), the Polish 3-card betting game with the wild szacha (rules §2).

Exports :data:`SPEC` for the game registry, the parameters
(:class:`SvaraParams`), the engine (:class:`SvaraRules`) and the pure
scoring function :func:`hand_points`. The rules as implemented, with every
choice made where the rules were silent, are in ``docs/rules/svara.md``.
"""

from __future__ import annotations

from referee.games import DemoLineup, GameSpec
from referee.games.svara.audit import held_fit, informed
from referee.games.svara.bots import PointsBot, random_action
from referee.games.svara.codec import VIEW, decode_action, encode_action, encode_view
from referee.games.svara.points import MAX_POINTS, hand_points
from referee.games.svara.rules import (
    MAX_SEATS,
    MIN_SEATS,
    PACK,
    Decision,
    Phase,
    SvaraLegal,
    SvaraMove,
    SvaraMoveAction,
    SvaraParams,
    SvaraRules,
    SvaraState,
    SvaraView,
)
from referee.games.svara.team import team_play


def make_rules(params: SvaraParams, num_seats: int) -> SvaraRules:
    """The rules for ``params`` at a table of ``num_seats`` (3..8; BadParameters otherwise)."""
    return SvaraRules(params, num_seats)


SPEC = GameSpec(
    name="svara",
    params_type=SvaraParams,
    make_rules=make_rules,
    proto_field="svara",
    encode_view=encode_view,
    view_codec=VIEW,
    decode_action=decode_action,
    encode_action=encode_action,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    score_unit="tokens",
    description="Svara (Seka), a 3-card betting game with the wild szacha",
    random_action=random_action,
    demo=DemoLineup((("points", 1), ("random", 1), ("points", 2), ("random", 2), ("points", 3), ("random", 3)), (3, 4, 5, 6), 200),
    rules_doc="docs/rules/svara.md",
    bots=(PointsBot,),
    opponents=("points", "random"),
    quick_params={"hands": 4},
    validation_params={"hands": 10},
    default_budget_s=300.0,  # seconds (rules §4.1): a seat decides about 126 times in a long 8-seat game
    informed=informed,  # the duplicate audit's informed-play score (rules §0.6)
    held_fit=held_fit,  # the duplicate audit's held-hands test (rules §0.6)
    team_play=team_play,
)

__all__ = [
    "MAX_POINTS",
    "PACK",
    "SPEC",
    "Decision",
    "Phase",
    "SvaraLegal",
    "SvaraMove",
    "SvaraMoveAction",
    "SvaraParams",
    "SvaraRules",
    "SvaraState",
    "SvaraView",
    "hand_points",
    "make_rules",
]
