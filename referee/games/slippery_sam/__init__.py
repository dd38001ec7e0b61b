"""Slippery Sam ("Shoot"), a banking game (rules §1).

Public: :data:`SPEC` (how the platform plays it; its reference bots are in
:mod:`.bots`, its luck estimator in :mod:`.luck`), :class:`SlipperySamParams`,
:class:`SlipperySamRules` and :func:`beats`.
"""

from referee.games import DemoLineup, GameSpec
from referee.games.slippery_sam import codec
from referee.games.slippery_sam.bots import OddsBot, random_action
from referee.games.slippery_sam.luck import events_luck, luck_terms
from referee.games.slippery_sam.rules import (
    MAX_SEATS,
    MIN_SEATS,
    SlipperySamAction,
    SlipperySamParams,
    SlipperySamRules,
    SlipperySamState,
    SlipperySamView,
    beats,
)

SPEC = GameSpec(
    name="slippery-sam",
    params_type=SlipperySamParams,
    make_rules=SlipperySamRules,
    proto_field="slippery_sam",
    encode_view=codec.encode_view,
    view_codec=codec.VIEW,
    decode_action=codec.decode_action,
    encode_action=codec.encode_action,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    score_unit="tokens",
    description="Slippery Sam (Shoot), a banking game",
    random_action=random_action,
    demo=DemoLineup((("odds", 1), ("random", 1), ("odds", 2), ("random", 2), ("odds", 3), ("random", 3)), (3, 4, 5, 6), 200),
    rules_doc="docs/rules/slippery-sam.md",
    bots=(OddsBot,),
    opponents=("odds", "random"),
    quick_params={"orbits": 1},
    validation_params={"orbits": 2},
    luck=events_luck,
    luck_terms=luck_terms,
    default_budget_s=120.0,  # seconds (rules §4.1): a seat decides about 29 times in a long 8-seat game
)

__all__ = [
    "SPEC",
    "SlipperySamAction",
    "SlipperySamParams",
    "SlipperySamRules",
    "SlipperySamState",
    "SlipperySamView",
    "beats",
]
