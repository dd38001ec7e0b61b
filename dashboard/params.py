"""Path and query parameter types shared by the routers, with their bounds (bad values: 422)."""

from __future__ import annotations

from typing import Annotated

from fastapi import HTTPException, Path, Query

#: Ids are stored as signed 64-bit integers.
MAX_ID = 2**63 - 1
#: The largest page a list returns.
MAX_LIMIT = 500
#: The largest offset a list accepts.
MAX_OFFSET = 10_000_000

SeasonId = Annotated[int, Path(ge=1, le=MAX_ID, description="a season id")]
BotId = Annotated[int, Path(ge=1, le=MAX_ID, description="a bot id")]
#: A season in a path: its id (all digits) or its name (season names are never all digits).
SeasonRef = Annotated[str, Path(min_length=1, max_length=128, description="a season's id, or its name")]
#: A bot in a path: its id (all digits) or its name (bot names are never all digits).
BotRef = Annotated[str, Path(min_length=1, max_length=128, description="a bot's id, or its name")]
GameId = Annotated[int, Path(ge=1, le=MAX_ID, description="a game id")]
#: The id a game's bots were sent (``ActRequest.game_id``, ``league.integrity.fairness.game_token``): opaque,
#: never all digits, so it is never read as a game id here (whose routes take only digits). Another shape: 422.
ReceivedId = Annotated[str, Path(pattern=r"^g-[0-9a-f]{24}$", description=(
    "the id the game's bots were sent (ActRequest.game_id: g- and 24 hex digits, e.g. g-5f0c2a9e41d7b3c86a01e2ff)"))]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="page size")]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="items to skip")]
OptSeasonId = Annotated[int | None, Query(ge=1, le=MAX_ID, description="only this season")]
OptBotId = Annotated[int | None, Query(ge=1, le=MAX_ID, description="only games of this bot")]


def path_id(ref: str, what: str) -> int | None:
    """The id a path's ``ref`` is when it is all ASCII digits (404 outside 1 to :data:`MAX_ID`: no such id),
    else None (a name)."""
    if not (ref.isascii() and ref.isdigit()):
        return None
    number = int(ref)
    if not 1 <= number <= MAX_ID:
        raise HTTPException(404, f"no {what} with id {ref} (ids are 1 to {MAX_ID})")
    return number
