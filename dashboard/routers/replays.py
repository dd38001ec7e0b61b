"""``/api/v1/replays``: a game's record as it may be shown now, and its download."""

from __future__ import annotations

import json

from typing import Any

from fastapi import APIRouter, HTTPException, Response

from dashboard.deps import StoreDep
from dashboard.params import GameId
from dashboard.replays import load_replay
from dashboard.schemas import ErrorOut, ReplayOut

router = APIRouter(prefix="/replays", tags=["replays"])
NOT_FOUND = {404: {"model": ErrorOut, "description": "no such game, or no replay yet"},
             403: {"model": ErrorOut, "description": "sealed until its duplicate group is played: another game "
                   "with the same deal is pending or running (the body says so, with \"sealed\": true)"}}


@router.get("/{game_id}", response_model=ReplayOut, responses=NOT_FOUND,
            summary="A game's replay (public events only while it runs)")
def get_replay(game_id: GameId, store: StoreDep) -> ReplayOut:
    data = load_replay(store, game_id)
    return ReplayOut(game=data.game, public_only=data.public_only, record=data.record)


@router.get("/{game_id}/stored", responses=NOT_FOUND, response_model=dict[str, Any],
            summary="A finished game's record exactly as stored (views, answers and actions as base64 protobuf bytes)")
def get_stored_replay(game_id: GameId, store: StoreDep) -> dict[str, Any]:
    """The record ``cardarena season verify --api`` re-checks: ``GameRecord.to_json()``, each decision's
    ``view``, ``answer`` and ``action`` the bytes sent or received, base64. 404 while the game runs."""
    data = load_replay(store, game_id)  # 404 for no game or no replay, 403 while sealed
    record = None if data.public_only else store.replays.get_replay(game_id)
    if record is None:
        raise HTTPException(404, f"game {game_id} has no stored record yet (status {data.game.status})")
    return record.to_json()


@router.get("/{game_id}/download", responses={**NOT_FOUND, 200: {"content": {"application/json": {}},
                                                                  "description": "the record as a JSON file"}},
            response_class=Response, summary="Download a game's replay as a JSON file")
def download_replay(game_id: GameId, store: StoreDep) -> Response:
    data = load_replay(store, game_id)
    body = json.dumps({"game_id": game_id, "public_only": data.public_only, "record": data.record}, indent=1)
    return Response(body, media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="game-{game_id}.json"'})
