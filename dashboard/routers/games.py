"""``/api/v1/games``: the filterable, paginated list of games, and one game."""

from __future__ import annotations

import enum
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.exceptions import RequestValidationError

from dashboard import services
from dashboard.deps import StoreDep
from dashboard.params import GameId, Limit, Offset, OptBotId, OptSeasonId, ReceivedId
from dashboard.schemas import ErrorOut, GameDetailOut, GamePageOut
from store import GameStatus
from store.reads.games import GameFilter

router = APIRouter(prefix="/games", tags=["games"])


class Result(enum.StrEnum):
    """A game's outcome for the bot filtered on: it placed first, or not."""

    WIN = "win"
    LOSS = "loss"


@router.get("", response_model=GamePageOut, responses={422: {"description": "bad filters"}},
            summary="Games, newest first, filtered and paginated")
def list_games(
    store: StoreDep,
    season_id: OptSeasonId = None,
    bot_id: OptBotId = None,
    status: Annotated[GameStatus | None, Query(description="pending, running, done or failed")] = None,
    fault: Annotated[bool | None, Query(description="only games with (true) or without (false) a fault")] = None,
    result: Annotated[Result | None, Query(description="win or loss of the bot given by bot_id")] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> GamePageOut:
    if result is not None and bot_id is None:
        raise RequestValidationError([{"type": "missing", "loc": ("query", "bot_id"),
                                       "msg": "the result filter needs bot_id", "input": None}])
    flt = GameFilter(season_id, bot_id, status, fault, result.value if result else None)
    return services.games(store, flt, limit, offset)


@router.get("/{game_id:int}", response_model=GameDetailOut,
            responses={404: {"model": ErrorOut, "description": "no game with this id"}}, summary="One game")
def get_game(game_id: GameId, store: StoreDep) -> GameDetailOut:
    return services.game_detail(store, game_id)


@router.get("/{received_id}", response_model=GameDetailOut,
            responses={404: {"model": ErrorOut, "description": "no such game, or not over yet (alike)"}},
            summary="One game, by the id its bots received (ActRequest.game_id), once it is over")
def get_received_game(received_id: ReceivedId, store: StoreDep) -> GameDetailOut:
    return services.game_detail(store, services.received_game_id(store, received_id))
