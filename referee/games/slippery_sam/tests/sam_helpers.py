"""Helpers for scripted Slippery Sam deals."""

from __future__ import annotations

from referee.games.slippery_sam import SlipperySamAction, SlipperySamRules, SlipperySamState
from referee.games.slippery_sam.rules import PACK


def jack_order(first_jack_position: int) -> list[str]:
    """A pack order whose first jack is at ``first_jack_position`` (0-based)."""
    non_jacks = [c for c in PACK if c[0] != "J"]
    jacks = [c for c in PACK if c[0] == "J"]
    return non_jacks[:first_jack_position] + jacks + non_jacks[first_jack_position:]


def deal_order(players: list[int], hands: dict[int, list[str]], stack_top: list[str]) -> list[str]:
    """A pack order that deals ``hands`` (one card at a time, in ``players`` order) then puts ``stack_top`` on the stack."""
    order = [hands[players[i % len(players)]][i // len(players)] for i in range(3 * len(players))]
    order += stack_top
    order += [c for c in PACK if c not in order]
    return order


def act(rules: SlipperySamRules, state: SlipperySamState, amount: int) -> None:
    """Apply ``amount`` for whichever seat is asked."""
    (seat,) = rules.step(state).seats  # type: ignore[union-attr]
    rules.apply(state, {seat: SlipperySamAction(amount)})
