"""``/api/v1/seasons``: seasons with progress, standings and crosstables."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from dashboard import services
from dashboard.deps import RefresherDep, SettingsDep, StoreDep
from dashboard.params import SeasonRef
from dashboard.schemas import CrosstableOut, ErrorOut, FairnessOut, SeasonDetailOut, StandingOut, VerificationOut
from store.reads.seasons import SeasonSummary

router = APIRouter(prefix="/seasons", tags=["seasons"])
NOT_FOUND = {404: {"model": ErrorOut, "description": "no season with this id or name (the detail names close ones)"}}


@router.get("", response_model=list[SeasonSummary], summary="All seasons with their progress, newest first")
def list_seasons(store: StoreDep, epochs: Annotated[bool, Query(
        description="false: leave out the ladders' epochs (each ladder's page and API list its own)")] = True,
                 ) -> list[SeasonSummary]:
    return services.seasons(store, epochs)


@router.get("/{season}", response_model=SeasonDetailOut, responses=NOT_FOUND, summary="One season, by id or by name")
def get_season(season: SeasonRef, store: StoreDep) -> SeasonDetailOut:
    return services.season_detail(store, services.season_id_of(store, season))


@router.get("/{season}/fairness", response_model=FairnessOut, responses=NOT_FOUND,
            summary="How the season's deals are made and verified: its commitment and, once it is over, its key")
def get_fairness(season: SeasonRef, store: StoreDep) -> FairnessOut:
    return services.fairness(store, services.season_id_of(store, season))


@router.get("/{season}/verification", response_model=VerificationOut,
            responses={**NOT_FOUND, 409: {"model": ErrorOut, "description": "the season is not over: its key is not "
                                          "published yet"}},
            summary="Once the season is over: its key, every game's stored fields and the ratings, for verifying it")
def get_verification(season: SeasonRef, store: StoreDep) -> VerificationOut:
    try:
        return services.verification(store, services.season_id_of(store, season))
    except services.NotOverYet as exc:
        raise HTTPException(409, str(exc)) from None


@router.get("/{season}/standings", response_model=list[StandingOut], responses=NOT_FOUND,
            summary="The season's standings, best first")
def get_standings(season: SeasonRef, store: StoreDep, refresher: RefresherDep,
                  settings: SettingsDep) -> list[StandingOut]:
    return services.standings(store, refresher, services.season_id_of(store, season), settings.sync_limit)


@router.get("/{season}/crosstable", response_model=CrosstableOut, responses=NOT_FOUND,
            summary="Head-to-head results of the season's bots")
def get_crosstable(season: SeasonRef, store: StoreDep, refresher: RefresherDep,
                   settings: SettingsDep) -> CrosstableOut:
    return services.crosstable(store, refresher, services.season_id_of(store, season), settings.sync_limit)
