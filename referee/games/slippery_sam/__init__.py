"""Slippery Sam ("Shoot"), a banking game (rules §1).

Public: :data:`SPEC` (how the platform plays it), :class:`SlipperySamParams`,
:class:`SlipperySamRules` and :func:`beats`.
"""

from referee.engine import GameName
from referee.games import GameSpec
from referee.games.slippery_sam import codec
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
    name=GameName.SLIPPERY_SAM,
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
