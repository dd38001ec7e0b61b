"""Contract rummy with "take it" (rules §3).

Public: :data:`SPEC` (how the platform plays it), :class:`RummyParams`,
:class:`RummyRules`, and the meld checks :func:`is_set`, :func:`is_run`
and :func:`hand_points` (points of the cards left in a hand).
"""

from referee.games import DemoLineup, GameSpec
from referee.games.rummy import codec
from referee.games.rummy.audit import informed
from referee.games.rummy.bots import GreedyBot, random_action
from referee.games.rummy.luck import luck_terms
from referee.games.rummy.melds import Meld, MeldKind, RunEnd, hand_points, is_run, is_set
from referee.games.rummy.rules import (
    CONTRACTS,
    MAX_SEATS,
    MIN_SEATS,
    Decision,
    DrawSource,
    LayOff,
    NewMeld,
    RummyAction,
    RummyParams,
    RummyRules,
    RummyState,
    RummyView,
)

SPEC = GameSpec(
    name="rummy",
    params_type=RummyParams,
    make_rules=RummyRules,
    proto_field="rummy",
    encode_view=codec.encode_view,
    view_codec=codec.VIEW,
    decode_action=codec.decode_action,
    encode_action=codec.encode_action,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    score_unit="points",
    description="contract rummy with take it, seven deals",
    random_action=random_action,
    demo=DemoLineup((("greedy", 1), ("random", 1), ("greedy", 2), ("random", 2), ("greedy", 3), ("random", 3)), (3, 4, 5, 6), 100),
    rules_doc="docs/rules/rummy.md",
    bots=(GreedyBot,),
    luck_terms=luck_terms,
    opponents=("greedy", "random"),
    quick_params={"turn_limit": 40},
    validation_params={"turn_limit": 25},
    higher_score_is_better=False,
    default_budget_s=900.0,  # seconds (rules §4.1): a seat decides up to about 310 times in a long 6-seat game (rounds run to the turn limit when the live top card is the last draw)
    informed=informed,  # the duplicate audit's informed-play score (rules §0.6)
)

__all__ = [
    "CONTRACTS",
    "SPEC",
    "Decision",
    "DrawSource",
    "LayOff",
    "Meld",
    "MeldKind",
    "NewMeld",
    "RummyAction",
    "RummyParams",
    "RummyRules",
    "RummyState",
    "RummyView",
    "RunEnd",
    "hand_points",
    "is_run",
    "is_set",
]
