"""The JSON API's public output models (what ``/api/v1`` returns, documented in the OpenAPI schema).

These are output schemas only: the dashboard never writes. Where every field
of a read model is public, the API returns the read model itself (``store.reads``,
``league.ratings.elo.RatingPoint``: a public field is declared once, its description in
the field's metadata); a response that adds fields to one derives from it
(:class:`SeasonDetailOut`, :class:`GameDetailOut`). Models with private fields
(a bot's endpoint or token hash) get their own public model here (:class:`BotOut`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from pydantic.dataclasses import dataclass

from league.competition.ladder_board import LadderStanding
from league.competition.standings import StandingRow
from league.ratings.elo import RatingPoint
from store.reads.bots import BotProblem, BotSeason, FaultEntry, LatencyStats, OpponentStats, SeatStats, VersionStats
from store.reads.games import AttemptInfo, GameRow
from store.reads.ladders import EntrantHistory, EpochRow
from store.reads.seasons import CHAIN_HEAD, COMMITMENT, CrossCell, SeasonSummary
from store.seasons import BotAvailability, StoredGame

KEY = ("the season key, 32 bytes as 64 lowercase hex digits; published once the season is over (every game final), "
       "null until then. Each game's deal seed is HMAC-SHA256(key, 'game:<number>', or 'group:<rotation group>' in a "
       "duplicate season), its first 8 bytes big-endian, shifted right by one bit")


class ErrorOut(BaseModel):
    """An error: ``detail`` says what went wrong in one line."""

    detail: str


@dataclass(frozen=True, kw_only=True)
class SeasonDetailOut(SeasonSummary):
    """A season with its progress, parameters, time control, scheduler settings, and its key once it is over."""

    params: dict[str, Any]
    time_control: dict[str, Any]
    config: dict[str, Any]
    key: str | None = Field(description=KEY)
    verify: str = Field(description="the page that says how to verify the season's deals")
    score_unit: str = Field(description="tokens or points")
    higher_score_is_better: bool
    unavailable: list[BotAvailability] = Field(
        default_factory=list, description="bots that did not answer at some game start, and which are suspended")
    settling: dict[str, Any] | None = Field(
        None, description="a sequential season (--until-settled): top, confidence, max_games, batch_groups, stop "
                          "(settled, budget, or null while it goes on), games_used, games_scheduled, looks, pairs (each top "
                          "pair at the last look with its verdict: higher, lower, within_zone or open) "
                          "(league.competition.sequential.settling_json); null for a fixed-length season")


class FairnessOut(BaseModel):
    """How a season's deals are made and how to verify them (``league.integrity.fairness``)."""

    season_id: int
    season_name: str
    status: str
    reproducible: bool = Field(description="the key was derived from the organiser's --seed: anyone who knows "
                               "the seed knows every card")
    commitment: str | None = Field(description=COMMITMENT)
    key: str | None = Field(description=KEY)
    chance_scheme: str | None = Field(None, description="the chance scheme the games are dealt with, covered by the "
                                      "commitment (null: a season from before the scheme was committed)")
    chain_head: str | None = Field(None, description=CHAIN_HEAD)
    chain_length: int = Field(0, description="entries in the season's chain")
    scheme: list[str] = Field(description="the scheme, step by step")
    how_to_verify: list[str] = Field(description="how anyone can check the deals once the key is published")


class ChainEntryOut(BaseModel):
    """One entry of a season's chain: its position, kind, game number (null for others), canonical JSON text
    and hash (SHA-256 of the previous hash, a newline and the text)."""

    seq: int
    kind: str
    number: int | None
    entry: str
    hash: str


class VerificationOut(BaseModel):
    """Everything ``cardarena season verify NAME --api URL`` reads besides the season itself
    (``/api/v1/seasons/{id}``) and each replay's stored record (``/api/v1/replays/{id}/stored``):
    served once the season is over, when its key is published (``league.integrity.verify``)."""

    season_id: int
    key: str = Field(description=KEY)
    games: list[StoredGame] = Field(description="every game as stored, in schedule order: id, number, deal_group, "
                                    "seed, status, reason, detail, attempts [attempt, outcome, detail], seats [seat, "
                                    "bot id, place, score, change, faults, retired], replay (one is stored), token (the "
                                    "id its bots were sent, keyed from the key; null before keyed ids)")
    ratings: dict[int, float] = Field(description="the stored Elo rating of each bot id")
    chain: list[ChainEntryOut] = Field(default_factory=list, description="the season's chain of stored records, "
                                       "every entry in order (store.chain): checked against the fields above and "
                                       "against chain heads seen before")
    identities: dict[int, list[list[str | None]]] = Field(
        default_factory=dict, description="each game number's [bot name, seat version] per seat, as stored")


@dataclass(frozen=True, kw_only=True)
class StandingOut(StandingRow):
    """One bot's line in a season's standings (``league.competition.standings.StandingRow``), ranked by the
    season's maximum-likelihood rating once it is fitted, by Elo until then. The season-rating
    fields are null for a bot without a rated game, and while a large season's first fit runs."""

    rank: int = Field(description="1-based: by ml_rating where fitted, then Elo, games, name")
    ml_games: int | None = Field(None, description="done games the season ratings (ml_*, p_better) were fitted on; "
                                 "in a large running season they are refitted in the background and may lag")


class BotRef(BaseModel):
    """A bot's id and name."""

    id: int
    name: str


class CrosstableOut(BaseModel):
    """Head-to-head results of a season: bots in standings order, one cell per ordered pair that met."""

    season_id: int
    bots: list[BotRef]
    cells: list[CrossCell]
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
    hosted: bool = Field(False, description="true: its code was submitted and the platform runs it in a sandbox "
                                            "on its workers (its version is the SHA-256 of its files); false: its "
                                            "author serves it at an endpoint")


class HostedOut(BaseModel):
    """A hosted bot's current submission (its build log is its author's only: ``/arena/logs``)."""

    sha256: str = Field(description="SHA-256 of its files (a canonical tar): its identity and version")
    size: int = Field(description="bytes stored (compressed)")
    unpacked_size: int = Field(description="bytes of its files")
    submitted_at: datetime = Field(description="when this version was submitted (UTC)")
    submissions: int = Field(description="submissions of the bot so far, this one included")


class BotDetailOut(BotOut):
    """A bot with its seasons, results by seat, opponents, latency and recent faults
    (every one of them over one season when ``season_id`` is given, else over all)."""

    season_id: int | None
    seasons: list[BotSeason]
    seats: list[SeatStats]
    versions: list[VersionStats] = Field(description="results per version played (recorded per game)")
    problems: list[BotProblem] = Field(description="the bot's outages per season (not answering, or its endpoint "
                                       "serves another bot; suspended or not): open ones first (the season is not "
                                       "over: its games with the bot are put off now), then closed ones (history, "
                                       "with until and duration_s)")
    opponents: list[OpponentStats]
    latency: LatencyStats
    faults: list[FaultEntry]
    submission: HostedOut | None = Field(None, description="a hosted bot's current submission; null for a remote bot")


class RatingHistoryOut(BaseModel):
    """A bot's Elo after each of its done games of a season, in schedule order."""

    bot_id: int
    season_id: int
    points: list[RatingPoint]
    computing: bool = Field(description="a newer history is being computed (large seasons)")


class GamePageOut(BaseModel):
    """One page of a game list: ``total`` games match the filters."""

    total: int
    limit: int
    offset: int
    items: list[GameRow]


@dataclass(frozen=True, kw_only=True)
class GameDetailOut(GameRow):
    """A game with its attempts (claims by workers)."""

    attempts: list[AttemptInfo]


class ReplayOut(BaseModel):
    """A game's replay. For a finished game ``record`` is the whole ``GameRecord`` with every
    decision's view, answer and action decoded to JSON. While the game runs
    (``public_only``), only public events are included: no private events, views,
    answers, chance outcomes or results."""

    game: GameRow
    public_only: bool
    record: dict[str, Any]


# ---------------------------------------------------------------------------- ladders (rules §5)


class LadderOut(BaseModel):
    """A ladder with its settings and where it stands (``store.reads.ladders.LadderSummary``)."""

    id: int
    name: str
    game: str
    status: str
    created_at: datetime
    entrants: int = Field(description="bots ranked: every bot of the ladder not retired, one row each (its best "
                          "version), as many as its active entrants (the version each plays now)")
    epoch: int | None = Field(description="the open epoch's number")
    rated_games: int = Field(description="rated games at the latest rating snapshot (0: none yet)")


class LadderAuditRow(BaseModel):
    """One entrant's integrity audits on a ladder (rules §5.6)."""

    entrant_id: int
    name: str
    version: str
    luck_wealth: float | None = Field(description="its luck test martingale over the ladder's whole record (1 at the "
                                      "start); null for a game without luck terms")
    luck_bar: float | None = Field(description="the wealth at which it is flagged: 1/alpha_k for the k-th version "
                                   "entered")
    audit: list[str] = Field(description="the luck audit's flag, if it is flagged")
    collusion: list[str] = Field(description="the collusion screen's flags, each line naming its epoch and the "
                                 "partner's version (a game with a team-play scorer; epochs screened once over)")


class LadderAuditOut(BaseModel):
    """A ladder's integrity audits: the luck audit and the collusion screen (rules §5.6; docs/fair-play.md)."""

    ladder: str
    computing: bool = Field(description="true while they are first computed in the background: ask again")
    entrants: list[LadderAuditRow] = Field(description="the versions with a luck audit or a flag, by entrant id")


class LadderDetailOut(LadderOut):
    """A ladder's page data: its settings, standings with 95% intervals, epochs and progress. The ratings
    are the runner's latest snapshot (``rated_games``), never refitted on a request."""

    params: dict[str, Any]
    time_control: dict[str, Any]
    config: dict[str, Any]
    placement_games: int = Field(description="games a new entrant plays before its rating leaves placement")
    progress: dict[str, int] = Field(description="games per status over all epochs, with total")
    standings: list[LadderStanding] = Field(description="the ranking (best=true: each bot's best version, one row "
                                            "per bot not retired), then the bots' other versions, then retired "
                                            "bots' versions (unranked)")
    epochs_total: int = Field(description="epochs in all")
    epochs: list[EpochRow] = Field(description="the newest epochs first; a key only once its epoch is closed and "
                                   "its games are final")
    compares: list[dict[str, Any]] = Field(default_factory=list, description="version A/B results (ladder compare)")


class LadderHistoryOut(BaseModel):
    """Ratings of a ladder's entrants after so many rated games, sampled for a chart."""

    ladder: str
    rated_games: int
    entrants: list[EntrantHistory]


class LadderGamesOut(BaseModel):
    """A page of a ladder's games, newest first; ``next_before`` pages on (null: no more)."""

    ladder: str
    items: list[GameRow]
    next_before: int | None = Field(description="pass as ?before= for the next page")
