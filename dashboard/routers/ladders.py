"""``/api/v1/ladders``: ladders, their standings with intervals, rating histories and games (rules §5)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from dashboard import ladders, services
from dashboard.deps import LadderCountsDep, RefresherDep, SettingsDep, StoreDep
from dashboard.params import MAX_ID, Limit
from dashboard.schemas import (ErrorOut, LadderAuditOut, LadderAuditRow, LadderDetailOut, LadderGamesOut,
                               LadderHistoryOut, LadderOut)

router = APIRouter(prefix="/ladders", tags=["ladders"])
NOT_FOUND = {404: {"model": ErrorOut, "description": "no ladder with this name (or no such bot in it)"}}
LadderName = Annotated[str, Path(min_length=1, max_length=128, description="the ladder's name")]
BotName = Annotated[str | None, Query(min_length=1, max_length=64, description="only this bot (its name)")]


@router.get("", response_model=list[LadderOut], summary="All ladders, by id")
def list_ladders(store: StoreDep) -> list[LadderOut]:
    return ladders.ladders(store)


@router.get("/{name}", response_model=LadderDetailOut, responses=NOT_FOUND,
            summary="A ladder's standings (95% intervals, placing), progress and newest epochs")
def get_ladder(name: LadderName, store: StoreDep, counts: LadderCountsDep,
               epochs: Annotated[int, Query(ge=0, le=1000, description="newest epochs listed")] = 10) -> LadderDetailOut:
    return ladders.ladder_detail(store, name, epochs, counts)


@router.get("/{name}/history", response_model=LadderHistoryOut, responses=NOT_FOUND,
            summary="Rating histories: every version of one bot, or the main table's best")
def get_history(name: LadderName, store: StoreDep, bot: BotName = None,
                points: Annotated[int, Query(ge=1, le=500, description="points per entrant at most")] = 60,
                entrants: Annotated[int, Query(ge=1, le=100, description="entrants without ?bot")] = 8,
                ) -> LadderHistoryOut:
    return ladders.history(store, name, bot, points, entrants)


@router.get("/{name}/games", response_model=LadderGamesOut, responses=NOT_FOUND,
            summary="The ladder's games, newest first (keyset pages: ?before=next_before)")
def get_games(name: LadderName, store: StoreDep, bot: BotName = None, limit: Limit = 50,
              before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="only games with a smaller id")] = None,
              ) -> LadderGamesOut:
    return ladders.games(store, name, limit, before, bot)


@router.get("/{name}/audit", response_model=LadderAuditOut, responses=NOT_FOUND,
            summary="The ladder's integrity audits: each version's luck audit and collusion flags (rules §5.6)")
def get_audit(name: LadderName, store: StoreDep, counts: LadderCountsDep, refresher: RefresherDep,
              settings: SettingsDep) -> LadderAuditOut:
    lad = ladders.ladder_detail(store, name, 0, counts)
    found = services.ladder_luck(store, refresher, lad.id, lad.progress, settings.sync_limit)
    rows = [LadderAuditRow(entrant_id=eid, **row) for eid, row in sorted((found or {}).items())]
    return LadderAuditOut(ladder=lad.name, computing=found is None, entrants=rows)

