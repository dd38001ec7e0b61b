"""``/api/v1/seasons``: seasons with progress, standings and crosstables."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException

from dashboard import services
from dashboard.deps import RefresherDep, SettingsDep, StoreDep
from dashboard.params import SeasonId
from dashboard.schemas import CrosstableOut, ErrorOut, FairnessOut, SeasonDetailOut, StandingOut, VerificationOut
from store.reads.seasons import SeasonSummary

router = APIRouter(prefix="/seasons", tags=["seasons"])
NOT_FOUND = {404: {"model": ErrorOut, "description": "no season with this id"}}


@router.get("", response_model=list[SeasonSummary], summary="All seasons with their progress, newest first")
def list_seasons(store: StoreDep) -> list[SeasonSummary]:
    return services.seasons(store)


@router.get("/{season_id}", response_model=SeasonDetailOut, responses=NOT_FOUND, summary="One season")
def get_season(season_id: SeasonId, store: StoreDep) -> SeasonDetailOut:
    return services.season_detail(store, season_id)


@router.get("/{season_id}/fairness", response_model=FairnessOut, responses=NOT_FOUND,
            summary="How the season's deals are made and verified: its commitment and, once it is over, its key")
def get_fairness(season_id: SeasonId, store: StoreDep) -> FairnessOut:
    return services.fairness(store, season_id)


@router.get("/{season_id}/verification", response_model=VerificationOut,
            responses={**NOT_FOUND, 409: {"model": ErrorOut, "description": "the season is not over: its key is not "
                                          "published yet"}},
            summary="Once the season is over: its key, every game's stored fields and the ratings, for verifying it")
def get_verification(season_id: SeasonId, store: StoreDep) -> VerificationOut:
    try:
        return services.verification(store, season_id)
    except services.NotOverYet as exc:
        raise HTTPException(409, str(exc)) from None


@router.get("/{season_id}/standings", response_model=list[StandingOut], responses=NOT_FOUND,
            summary="The season's standings, best first")
def get_standings(season_id: SeasonId, store: StoreDep, refresher: RefresherDep,
                  settings: SettingsDep) -> list[StandingOut]:
    return services.standings(store, refresher, season_id, settings.sync_limit)


@router.get("/{season_id}/crosstable", response_model=CrosstableOut, responses=NOT_FOUND,
            summary="Head-to-head results of the season's bots")
def get_crosstable(season_id: SeasonId, store: StoreDep, refresher: RefresherDep,
                   settings: SettingsDep) -> CrosstableOut:
    return services.crosstable(store, refresher, season_id, settings.sync_limit)
