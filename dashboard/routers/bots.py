"""``/api/v1/bots``: bots, their statistics and rating histories."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from dashboard import services
from dashboard.deps import RefresherDep, SettingsDep, StoreDep
from dashboard.params import MAX_ID, BotRef, Limit, Offset, OptSeasonId
from dashboard.schemas import BotDetailOut, BotOut, ErrorOut, RatingHistoryOut

router = APIRouter(prefix="/bots", tags=["bots"])
NOT_FOUND = {404: {"model": ErrorOut, "description": "no bot (or season) with this id, or no bot with this name (the detail names close ones)"}}


@router.get("", response_model=list[BotOut], summary="Registered bots, by id")
def list_bots(store: StoreDep, limit: Limit = 100, offset: Offset = 0) -> list[BotOut]:
    return services.bots(store, limit, offset)


@router.get("/{bot}", response_model=BotDetailOut, responses=NOT_FOUND,
            summary="A bot with results by seat, opponents, latency and faults")
def get_bot(bot: BotRef, store: StoreDep, settings: SettingsDep, season_id: OptSeasonId = None) -> BotDetailOut:
    return services.bot_detail(store, services.bot_id_of(store, bot), season_id, settings.latency_games)


@router.get("/{bot}/ratings", response_model=RatingHistoryOut, responses=NOT_FOUND,
            summary="The bot's Elo after each of its games of a season")
def get_rating_history(
    bot: BotRef, store: StoreDep, refresher: RefresherDep, settings: SettingsDep,
    season_id: Annotated[int, Query(ge=1, le=MAX_ID, description="the season")],
) -> RatingHistoryOut:
    services.season_detail(store, season_id)  # 404 for an unknown season
    return services.rating_history(store, refresher, services.bot_id_of(store, bot), season_id, settings.sync_limit)
