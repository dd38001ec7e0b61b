"""Each game's replay module at ``/static/games/<game>.js`` (see :mod:`dashboard.game_assets`)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

from dashboard.game_assets import replay_module

router = APIRouter(include_in_schema=False)


@router.get("/static/games/{game}.js")
def game_replay_module(game: str) -> Response:
    """The game's replay module as JavaScript; 404 for an unknown game or one without a module."""
    try:
        module = replay_module(game)
    except ValueError as exc:
        raise HTTPException(404, str(exc)) from None
    if not module.is_file():
        raise HTTPException(404, f"game {game!r} has no replay module")
    return Response(module.read_bytes(), media_type="text/javascript",
                    headers={"Cache-Control": "no-cache"})
