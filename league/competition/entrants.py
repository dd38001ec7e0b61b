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


def best_entrants(entrants: Sequence[Any], rating: Mapping[int, float], games: Mapping[int, int],
                  placement_games: int) -> dict[int, int]:
    """``{bot id: its row in the ladder's ranking}`` of ``store.ladders.EntrantInfo``s (rules §5.4): a bot is
    known by its best version, the highest ``rating`` (``{entrant id: rating}``) among its versions that
    have played ``placement_games`` (``games``: ``{entrant id: done games}``), or its latest version while
    none has. A retired bot (its latest entrant retired) has no row: it leaves the ranking and stays in
    the history."""
    _, latest = entrant_index(entrants)
    by_id = {e.id: e for e in entrants}
    out: dict[int, int] = {}
    for bot_id, last in latest.items():
        if by_id[last].retired_at is not None:
            continue
        placed = [e for e in entrants if e.bot_id == bot_id and e.id in rating
                  and games.get(e.id, 0) >= placement_games]
        out[bot_id] = max(placed, key=lambda e: (rating[e.id], e.id)).id if placed else last
    return out
