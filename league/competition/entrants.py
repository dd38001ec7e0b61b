"""A ladder's entrants: which entrant (a bot at one version, rules §5.2) each seat of a game was.

Read by the ladder runner (``league.competition.ladder``: its fit and matchmaking), its version A/B
tests (``league.competition.compare``) and its board (``league.competition.ladder_board``), each over
the store's ``store.ladders.EntrantInfo`` rows and a game's seats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def entrant_index(entrants: Sequence[Any]) -> tuple[dict[tuple[int, str], int], dict[int, int]]:
    """``({(bot id, version): entrant id}, {bot id: its latest entrant id})`` of ``store.ladders.EntrantInfo``s:
    a bot's latest entrant is its active one, else (retired) its last."""
    by_version = {(e.bot_id, e.version): e.id for e in entrants}
    latest: dict[int, int] = {}
    for e in sorted(entrants, key=lambda e: (e.active, e.id)):
        latest[e.bot_id] = e.id
    return by_version, latest


def seat_entrants(seats: Sequence[tuple[int, str | None, int | None]], by_version: Mapping[tuple[int, str], int],
                  latest: Mapping[int, int]) -> list[int] | None:
    """The entrant of each seat of a ladder game: by the version it played, or before a claim the bot's
    latest entrant; None if a seat has no entrant."""
    out = []
    for bot, version, _ in seats:
        entrant = by_version.get((bot, version)) if version is not None else latest.get(bot)
        if entrant is None:
            return None
        out.append(entrant)
    return out
