"""The policy for bots that do not answer at game start (rules §4.9).

Before a game starts every seat's bot must answer its health check, asked
for that game (an answer is not reused for later games). A game
with a seat that does not is *deferred*: back to pending, not an attempt, not
a fault, nothing rated, and tried again after :func:`defer_backoff_s`. The
bot is unavailable in the season from that moment until a game with it
starts again; so is a bot whose seat went unreachable during a game (and that
does not answer its health check just after). Every worker defers the games
of a bot the store marks unavailable without dialling it, and asks it again
at most every :data:`REPROBE_S` seconds. A bot unavailable for longer than the season's
``suspend_after_s`` is suspended from the season: its remaining games are
stored as not played (shown, never rated).
"""

from __future__ import annotations

#: Seconds a bot may stay unavailable before it is suspended from a season (the default).
SUSPEND_AFTER_S = 600.0
#: The range a season's ``suspend_after_s`` must lie in, seconds (up to a week).
SUSPEND_AFTER_RANGE_S = (1.0, 7 * 24 * 3600.0)
#: Seconds before a deferred game is tried again, first and at most.
DEFER_FIRST_S = 0.5
DEFER_MAX_S = 10.0
#: Deadline of the health check at game start, seconds.
HEALTH_TIMEOUT_S = 2.0
#: Seconds a worker reuses a bot's last health answer before asking again: none, a SERVING
#: answer holds for the game it was asked for (a game can be shorter than any reuse).
HEALTH_CACHE_S = 0.0
#: Seconds between two health checks of one worker process to a bot the store marks unavailable.
REPROBE_S = 0.5


def defer_backoff_s(deferrals: int) -> float:
    """Seconds to wait before the next try of a game deferred ``deferrals`` times (>= 1):
    0.5, 1, 2, 4, 8, then 10 s."""
    return min(DEFER_MAX_S, DEFER_FIRST_S * 2.0 ** max(0, deferrals - 1))


def suspend_after_s(config: dict | None) -> float:
    """The season's suspension threshold, seconds, from its scheduler ``config`` (the default
    for seasons created before the setting existed)."""
    return float((config or {}).get("suspend_after_s", SUSPEND_AFTER_S))


def check_suspend_after(seconds: float) -> float:
    """``seconds`` if it is in :data:`SUSPEND_AFTER_RANGE_S`; else raises ValueError saying the range."""
    low, high = SUSPEND_AFTER_RANGE_S
    if not low <= seconds <= high:
        raise ValueError(f"--suspend-after must be {low:g} to {high:g} seconds, not {seconds:g}")
    return seconds
