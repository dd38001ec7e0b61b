"""The JSON API's public output models (what ``/api/v1`` returns, documented in the OpenAPI schema).

These are output schemas only: the dashboard never writes. They are separate
from the store's dataclasses so the API can stay stable while the store
changes, and so nothing private (a bot's endpoint or token hash) leaks.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

COMMITMENT = ("SHA-256 of the season key's 32 raw bytes (not of its hex), as 64 lowercase hex digits; published "
              "from the season's creation (null: a season from before season keys, whose seed was public)")
KEY = ("the season key, 32 bytes as 64 lowercase hex digits; published once the season is over (every game final), "
       "null until then. Each game's deal seed is HMAC-SHA256(key, 'game:<number>', or 'group:<rotation group>' in a "
       "duplicate season), its first 8 bytes big-endian, shifted right by one bit")


class ErrorOut(BaseModel):
    """An error: ``detail`` says what went wrong in one line."""

    detail: str


class ProgressOut(BaseModel):
    """A season's games per status."""

    pending: int
    running: int
    done: int
    failed: int
    not_played: int = Field(0, description="games a bot suspended from the season could not play (never rated)")
    total: int


class SeasonOut(BaseModel):
    """A season with its progress."""

    id: int
    name: str
    game: str = Field(description="slippery-sam, svara or rummy")
    status: str = Field(description="scheduled, running or done")
    created_at: datetime
    finished_at: datetime | None
    progress: ProgressOut
    reproducible: bool = Field(description="the deals come from the organiser's --seed: anyone who knows the "
                               "seed knows every card (false: a secret key drawn at random)")
    commitment: str | None = Field(description=COMMITMENT)


class UnavailableBotOut(BaseModel):
    """A bot of the season that did not answer its health check at a game start (rules §4.9)."""

    bot_id: int
    name: str
    unavailable_since: datetime | None = Field(description="since when it has not answered; null once a game with it started again")
    reason: str | None = Field(description="why the last health check failed")
    suspended_at: datetime | None = Field(description="when it was suspended from the season (its remaining games not played)")


class SeasonDetailOut(SeasonOut):
    """A season with its parameters, time control, scheduler settings, and its key once it is over."""

    params: dict[str, Any]
    time_control: dict[str, Any]
    config: dict[str, Any]
    key: str | None = Field(description=KEY)
    verify: str = Field(description="the page that says how to verify the season's deals")
    score_unit: str = Field(description="tokens or points")
    higher_score_is_better: bool
    unavailable: list[UnavailableBotOut] = Field(
        default_factory=list, description="bots that did not answer at some game start, and which are suspended")
    settling: dict[str, Any] | None = Field(
        None, description="a sequential season (--until-settled): top, confidence, max_games, batch_groups, stop "
                          "(settled, budget, or null while it goes on), games_used, games_scheduled, looks "
                          "(league.sequential.settling_json); null for a fixed-length season")


class FairnessOut(BaseModel):
    """How a season's deals are made and how to verify them (``league.fairness``)."""

    season_id: int
    season_name: str
    status: str
    reproducible: bool = Field(description="the key was derived from the organiser's --seed: anyone who knows "
                               "the seed knows every card")
    commitment: str | None = Field(description=COMMITMENT)
    key: str | None = Field(description=KEY)
    scheme: list[str] = Field(description="the scheme, step by step")
    how_to_verify: list[str] = Field(description="how anyone can check the deals once the key is published")


class StandingOut(BaseModel):
    """One bot's line in a season's standings (``league.standings.StandingRow``), ranked by the
    season's maximum-likelihood rating once it is fitted, by Elo until then. The season-rating
    fields are null for a bot without a rated game, and while a large season's first fit runs."""

    rank: int = Field(description="1-based: by ml_rating where fitted, then Elo, games, name")
    bot_id: int
    name: str
    games: int = Field(description="rated seats (done games)")
    avg_place: float | None
    avg_change: float | None = Field(description="mean tokens or points change per game")
    faults: int
    retired: int = Field(0, description="done games in which the bot's seat was retired for faults (rules §4.2)")
    suspended: bool = Field(False, description="suspended from the season for not answering at game start (rules §4.9): "
                                               "its remaining games were not played")
    elo: float
    ml_rating: float | None = None
    ml_low: float | None = Field(None, description="lower end of the 95% interval of ml_rating")
    ml_high: float | None = Field(None, description="upper end of the 95% interval of ml_rating")
    p_better: float | None = Field(None, description="probability that this bot is better than the next one")
    ml_games: int | None = Field(None, description="done games the season ratings (ml_*, p_better) were fitted on; "
                                 "in a large running season they are refitted in the background and may lag")
    openskill_mu: float | None = Field(None, description="openskill Plackett-Luce mu (start 25)")
    openskill_sigma: float | None = Field(None, description="openskill Plackett-Luce sigma (start 25/3)")
    luck_change: float | None = Field(None, description="Slippery Sam: mean luck-adjusted token change per game "
                                      "(the change less each bet's result minus its expectation, rules §1.5)")
    luck_low: float | None = Field(None, description="lower end of the 95% interval of luck_change")
    luck_high: float | None = Field(None, description="upper end of the 95% interval of luck_change")


class BotRef(BaseModel):
    """A bot's id and name."""

    id: int
    name: str


class CrossCellOut(BaseModel):
    """``bot_id``'s record against ``opponent_id`` over the done games where both sat."""

    bot_id: int
    opponent_id: int
    games: int
    wins: int
    draws: int
    losses: int


class CrosstableOut(BaseModel):
    """Head-to-head results of a season: bots in standings order, one cell per ordered pair that met."""

    season_id: int
    bots: list[BotRef]
    cells: list[CrossCellOut]
    games: int | None = Field(description="done games the cells cover (None: not computed yet)")
    computing: bool = Field(description="a newer crosstable is being computed (large seasons)")


class BotOut(BaseModel):
    """A registered bot (its endpoint and token are not public)."""

    id: int
    name: str
    version: str
    author: str
    games: list[str]
    capacity: int
    created_at: datetime
    retired_at: datetime | None


class BotSeasonOut(BaseModel):
    """A season a bot sits in: its done games there and its Elo."""

    id: int
    name: str
    game: str
    status: str
    games: int
    elo: float | None


class SeatStatsOut(BaseModel):
    """A bot's done games of one game from one seat position (rows by game, then seat)."""

    seat: int
    games: int
    avg_place: float
    avg_change: float = Field(description="mean score change per game, in ``score_unit`` of ``game``")
    wins: int
    faults: int
    game: str = Field(description="the game these games were of (a mean change is never taken across games)")
    score_unit: str = Field(description="what avg_change counts: tokens or points")
    higher_score_is_better: bool = Field(description="False for rummy points (lower is better)")


class OpponentOut(BaseModel):
    """A bot's head-to-head record against one opponent."""

    opponent_id: int
    name: str
    games: int
    wins: int
    draws: int
    losses: int


class LatencyOut(BaseModel):
    """Decision latency (ms) over the bot's recent games, with a histogram:
    ``bins[i]`` answers took ``[edges[i], edges[i+1])`` ms (the last bin holds the tail)."""

    games: int
    count: int
    median_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    edges: list[float]
    bins: list[int]


class FaultOut(BaseModel):
    """One fault: the game, seat, decision, kind, why, and the answer that caused it."""

    game_id: int
    season_id: int
    seat: int
    decision: int
    kind: str
    detail: str
    answer: dict[str, Any] | None


class BotDetailOut(BotOut):
    """A bot with its seasons, results by seat, opponents, latency and recent faults
    (every one of them over one season when ``season_id`` is given, else over all)."""

    season_id: int | None
    seasons: list[BotSeasonOut]
    seats: list[SeatStatsOut]
    opponents: list[OpponentOut]
    latency: LatencyOut
    faults: list[FaultOut]


class RatingPointOut(BaseModel):
    """The bot's Elo right after one of its games (``number`` in the season's schedule)."""

    game_id: int
    number: int
    elo: float


class RatingHistoryOut(BaseModel):
    """A bot's Elo after each of its done games of a season, in schedule order."""

    bot_id: int
    season_id: int
    points: list[RatingPointOut]
    computing: bool = Field(description="a newer history is being computed (large seasons)")


class SeatOut(BaseModel):
    """A seat of a game and its result (``None`` until done)."""

    seat: int
    bot_id: int
    bot_name: str
    place: int | None
    score: int | None
    change: int | None
    faults: int | None
    retired: bool | None


class GameOut(BaseModel):
    """A game: season, number in the schedule, status, how it ended, seats."""

    id: int
    season_id: int
    season_name: str
    game: str
    number: int
    status: str = Field(description="pending, running, done or failed")
    reason: str | None
    started_at: datetime | None
    finished_at: datetime | None
    seats: list[SeatOut]
    sealed: bool = Field(False, description="another game with the same deal (its duplicate group) is still to be "
                         "played: results, reason, seed, replay and live events are withheld until then")
    sealed_message: str | None = Field(None, description="says so when sealed")
    seed: int | None = Field(None, description="the deal seed: shown with the stored replay of a done game that is "
                             "not sealed, else null")


class GamePageOut(BaseModel):
    """One page of a game list: ``total`` games match the filters."""

    total: int
    limit: int
    offset: int
    items: list[GameOut]


class AttemptOut(BaseModel):
    """One attempt at a game (a claim by a worker)."""

    attempt: int
    worker: str
    started_at: datetime
    ended_at: datetime | None
    outcome: str | None
    detail: str | None


class GameDetailOut(GameOut):
    """A game with its attempts."""

    attempts: list[AttemptOut]


class ReplayOut(BaseModel):
    """A game's replay. For a finished game ``record`` is the whole ``GameRecord`` with every
    decision's view, answer and action decoded to JSON. While the game runs
    (``public_only``), only public events are included: no private events, views,
    answers, chance outcomes or results."""

    game: GameOut
    public_only: bool
    record: dict[str, Any]
