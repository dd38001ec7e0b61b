"""A season's standings table, computed from stored per-seat results (a pure function).

The store loads the season's rated seat results and Elo ratings and calls
:func:`compute_standings`; the dashboard and the CLI show the rows, or
:func:`standings_json` of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from league.elo import START


@dataclass(frozen=True)
class SeatOutcome:
    """One rated seat result: the bot in the seat and what it got (see ``SeatResult``)."""

    bot_id: int
    place: int
    change: int
    faults: int


@dataclass(frozen=True)
class StandingRow:
    """One bot's line in a season's standings.

    ``games`` counts the bot's rated seats (a bot seated twice in one game counts
    twice); ``avg_place`` is the mean place (1 = best; ``None`` before any game);
    ``avg_change`` the mean score change per game (tokens or points, as the game
    counts them); ``faults`` the total over its games; ``elo`` its rating.
    """

    bot_id: int
    name: str
    games: int
    avg_place: float | None
    avg_change: float | None
    faults: int
    elo: float


def compute_standings(
    outcomes: Iterable[SeatOutcome],
    names: Mapping[int, str],
    elo: Mapping[int, float],
) -> list[StandingRow]:
    """Standings rows for every bot in ``names``, best Elo first (ties: more games, then name).

    ``outcomes`` are the season's rated seat results; ``names`` maps every bot of
    the season (including bots with no finished game yet) to its name; ``elo`` the
    season's ratings (a missing bot shows the starting rating).
    Raises KeyError if an outcome's bot is missing from ``names``.
    """
    acc: dict[int, list[int]] = {bot: [0, 0, 0, 0] for bot in names}  # games, places, change, faults
    for o in outcomes:
        a = acc[o.bot_id] if o.bot_id in names else _missing(o.bot_id)
        a[0] += 1
        a[1] += o.place
        a[2] += o.change
        a[3] += o.faults
    rows = [
        StandingRow(
            bot_id=bot,
            name=names[bot],
            games=g,
            avg_place=places / g if g else None,
            avg_change=change / g if g else None,
            faults=faults,
            elo=elo.get(bot, START),
        )
        for bot, (g, places, change, faults) in acc.items()
    ]
    rows.sort(key=lambda r: (-r.elo, -r.games, r.name))
    return rows


def _missing(bot_id: int) -> list[int]:
    raise KeyError(f"bot {bot_id} has results but no name")


def standings_json(rows: Iterable[StandingRow]) -> list[dict[str, Any]]:
    """The rows as JSON-ready dicts, with ``rank`` (1-based) added and Elo rounded to 0.1."""
    return [
        {"rank": i, **asdict(r), "elo": round(r.elo, 1)}
        for i, r in enumerate(rows, start=1)
    ]
