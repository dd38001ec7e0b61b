"""From store queries to the API's output models; shared by the JSON routers and the pages.

Every function raises ``store.NotFound`` for an unknown id (the app turns it
into a 404 with the message).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, fields, replace
from typing import Any, TypeVar

from pydantic import TypeAdapter

from dashboard import jobs
from dashboard.deps import Refresher
from dashboard.schemas import (
    BotDetailOut,
    BotOut,
    BotRef,
    ChainEntryOut,
    CrosstableOut,
    FairnessOut,
    GameDetailOut,
    GamePageOut,
    HostedOut,
    RatingHistoryOut,
    SeasonDetailOut,
    StandingOut,
    VerificationOut,
)
from dashboard.params import path_id
from league.competition.sequential import settling_json
from league.competition.standings import core_standings, rank_key
from league.names import did_you_mean
from referee.games import spec
from store import BotInfo, NotFound, Store
from store.artifacts import hosted_sha
from store.reads.games import GameFilter, GameRow
from store.reads.seasons import SeasonSummary

T = TypeVar("T")


def season_id_of(store: Store, ref: str) -> int:
    """The id of the season ``ref`` names: an id (all digits) or a season name. Raises NotFound with
    the close names of the seasons ("did you mean") for a name no season has."""
    if (number := path_id(ref, "season")) is not None:
        if store.seasons.get_season(number) is None:
            raise NotFound(f"no season with id {number}")
        return number
    season = store.seasons.get_season_by_name(ref)
    if season is None:
        raise NotFound(f"no season named {ref!r}" + did_you_mean(ref, [s.name for s in store.seasons.list_seasons()]))
    return season.id


def bot_id_of(store: Store, ref: str) -> int:
    """The id of the bot ``ref`` names: an id (all digits) or a bot name. Raises NotFound with the
    close names of the bots ("did you mean") for a name no bot has."""
    if (number := path_id(ref, "bot")) is not None:
        return number  # an unknown id is the page's own 404
    bot = store.bots.get_bot_by_name(ref)
    if bot is None:
        raise NotFound(f"no bot named {ref!r}"
                       + did_you_mean(ref, [b.name for b in store.bots.list_bots(include_retired=True)]))
    return bot.id


def seasons(store: Store, epochs: bool = True) -> list[SeasonSummary]:
    """Every season with its progress, newest first (``epochs=False``: not the ladders' epochs, which their ladder's
    page lists)."""
    return list(reversed(store.season_reads.season_summaries(epochs=epochs)))


def season_detail(store: Store, season_id: int) -> SeasonDetailOut:
    """A season with its settings and progress."""
    info = store.seasons.get_season(season_id)
    summary = store.season_reads.season_summaries(season_id)
    if info is None or not summary:
        raise NotFound(f"no season with id {season_id}")
    key = store.seasons.revealed_key(season_id)
    out = summary[0]
    return SeasonDetailOut(**_fields_of(out), params=info.params,
                           time_control=info.time_control, config=info.config, key=key.hex() if key else None,
                           verify=f"/seasons/{season_id}/fairness", **_score_kind(info.game),
                           unavailable=store.seasons.season_availability(season_id),
                           settling=settling_json(info.config, asdict(out.progress)))


def collusion_screened(game: str) -> bool:
    """Whether seasons of ``game`` (a game id) are screened for colluding bots: the game has a team-play scorer
    (``GameSpec.team_play``, ``league.integrity.collusion``)."""
    return spec(game).team_play is not None


def as_json(game: GameRow) -> Any:
    """A game row as the API's JSON (for a page's embedded data)."""
    return TypeAdapter(GameRow).dump_python(game, mode="json")


def _fields_of(value: Any) -> dict[str, Any]:
    """A dataclass's fields by name, values as they are (a derived response model takes them)."""
    return {f.name: getattr(value, f.name) for f in fields(value)}


def fairness(store: Store, season_id: int) -> FairnessOut:
    """How the season's deals are made and verified, with its commitment and (once over) its key."""
    season = season_detail(store, season_id)
    duplicate = bool(season.config.get("duplicate", False))
    label = "'group:<g>' with g the number of the table's rotation group (all its rotations share the deal)" \
        if duplicate else "'game:<n>' with n the game's number in the schedule (from 0)"
    chance = season.chance_scheme or "none: a season from before the scheme was committed, the key alone"
    scheme = [
        "At its creation the season drew a secret key of 32 bytes" + (
            " from the organiser's --seed (a reproducible season: anyone who knows the seed knows every card)"
            if season.reproducible else " at random") + ", and published its commitment: the SHA-256 of the key's "
        f"32 raw bytes followed by the name of its chance scheme ({chance}), in hex. The scheme is fixed with the "
        "key: no game can be dealt again under another scheme.",
        f"Each game's deal seed is HMAC-SHA256(key, label) with the label {label}; the seed is the first 8 bytes "
        "of the HMAC read as a big-endian unsigned integer, shifted right by one bit (63 bits).",
        "The referee answers every shuffle and draw by lot of the game from a stream of its own derived from the "
        "game's seed and the deal's number (referee/chance.py; referee/replay.py re-derives them), so the n-th "
        "deal of a game is the same cards whatever happened before it.",
        "A game's seed is shown only with its stored replay; in a duplicate season, only once every game of its "
        "rotation group is played. The key is published when every game of the season is final (for a season "
        "played until settled, once it has stopped).",
        "A game voided by a platform failure is run again with its chance drawn from a seed derived from the game's "
        "seed and the attempt (referee/chance.py attempt_seed), so a rerun never deals the cards a voided attempt "
        "showed; the replay records its attempt.",
        "Every record stored for the season (the season and its schedule, then each game as it becomes final: its "
        "status, reason, attempts, results and the hash of its replay) is appended to the season's chain, each entry "
        "hashed with the one before; the chain head below changes as games are stored.",
    ]
    steps = [
        "Wait until the season is over: the key below is empty until then.",
        "Check that SHA-256(bytes.fromhex(key)) equals the commitment.",
        "For every game, compute its seed from the key as above and compare it with the seed of the game "
        "(/api/v1/games/{id}) and of its replay (/api/v1/replays/{id}: record.seed).",
        "Re-run every replay from its seed, its attempt and its recorded answers: the shuffles, events, views sent, "
        "faults, places and scores must come out the same, and so must the stored results and ratings; a game with "
        "no replay must be failed (three voided attempts) or not played (a bot of its table suspended).",
        "Keep the chain heads you see here; the verification checks that the season's chain still extends each of "
        "them, so a result changed or removed after you saw a head is caught.",
        f"Anyone can do all of this, the chain included, from this site's public API alone, with no database: "
        f"cardarena season verify {season.name} --api <this site's address, e.g. http://host:8000> --head <a head "
        f"you saw>; it reads /api/v1/seasons/{season.id}, /api/v1/seasons/{season.id}/verification (with the "
        "chain's entries) and each game's /api/v1/replays/{id}/stored (the record as stored, its views and answers "
        "as the bytes sent).",
        f"The organiser's store does all of this in one command: cardarena season verify "
        f"{season.name} --head <a head you saw>",
    ]
    return FairnessOut(season_id=season.id, season_name=season.name, status=season.status,
                       reproducible=season.reproducible, commitment=season.commitment, key=season.key,
                       chance_scheme=season.chance_scheme, chain_head=season.chain_head,
                       chain_length=season.chain_length, scheme=scheme, how_to_verify=steps)


class NotOverYet(LookupError):
    """The season's key is not published yet (the API answers 409 with the message)."""


def verification(store: Store, season_id: int) -> VerificationOut:
    """Every stored field ``league.integrity.verify`` checks of the season's games, with its key and ratings.
    Raises NotFound for an unknown season, NotOverYet while its key is not published."""
    season = season_detail(store, season_id)
    if season.key is None:
        raise NotOverYet(f"season {season.name!r} is not over: its games and key are served for verifying once "
                         "every game is final")
    return VerificationOut(season_id=season_id, key=season.key, games=store.seasons.stored_games(season_id),
                           ratings=store.season_reads.ratings(season_id),
                           chain=[ChainEntryOut(seq=e.seq, kind=e.kind, number=e.number, entry=e.entry, hash=e.hash)
                                  for e in store.chain.entries(season_id)],
                           identities=store.chain.identities(season_id))


def _job(store: Store, fn: Callable[[str, int], T], season_id: int) -> tuple[Callable[..., T], tuple[Any, ...]] | None:
    """``fn`` with the store's URL (password included) for a worker process; None for an
    in-memory database, which another process cannot open (computed in a thread then)."""
    url = store.engine.url
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return None
    return fn, (url.render_as_string(hide_password=False), season_id)


def _wait(done: tuple[int, int], sync_limit: int) -> bool:
    """Compute derived results during the request for seasons up to ``sync_limit`` final games."""
    return done[0] + done[1] <= sync_limit


def ladder_luck(store: Store, refresher: Refresher, ladder_id: int, progress: Mapping[str, int],
                sync_limit: int) -> dict[int, dict[str, Any]] | None:
    """The integrity audits of a ladder (``dashboard.jobs.ladder_luck_of``: per entrant its luck audit's wealth, bar
    and flag, and its collusion screen flags), computed during the request up to ``sync_limit`` final games, else in
    the background (None until the first result); ``{}`` for a game with neither luck terms nor a team-play scorer."""
    game = spec(store.ladders.get_ladder(ladder_id).game)
    if game.luck_terms is None and game.team_play is None:
        return {}
    done = (progress.get("done", 0), progress.get("failed", 0))
    value, _ = refresher.get(("ladder-luck", ladder_id), done, lambda: jobs.ladder_luck_of(store, ladder_id),
                             wait=_wait(done, sync_limit), job=_job(store, jobs.ladder_luck, ladder_id))
    return value


def standings(store: Store, refresher: Refresher, season_id: int, sync_limit: int) -> list[StandingOut]:
    """The season's standings in ``league.competition.standings.rank_key`` order (by the ML rating once it
    is fitted, by Elo until then). The SQL columns are current (recomputed when a
    game becomes final, ~0.3 s at 100,000 games, else served from the refresher); the season
    ratings (maximum likelihood with interval, P(better), openskill) come from
    ``league.competition.standings.standings_of`` through the refresher (``ml_games``: the done games they cover)."""
    done = store.season_reads.done_count(season_id)  # first: a result stored meanwhile only makes the rows newer
    rows, _ = refresher.get(("core", season_id), done, lambda: _core(store, season_id), wait=True)
    if rows is None:  # wait=True always computes
        raise RuntimeError("standings were not computed")

    extras, version = refresher.get(("standings", season_id), done, lambda: jobs.season_ratings_of(store, season_id),
                                    wait=_wait(done, sync_limit), job=_job(store, jobs.season_ratings, season_id))
    suspended = {a.bot_id for a in store.seasons.season_availability(season_id) if a.suspended_at is not None}
    out = []
    for row in rows:
        extra = (extras or {}).get(row["bot_id"], {})
        ml_games = version[0] if version is not None and extra.get("ml_rating") is not None else None  # type: ignore[index]
        out.append(StandingOut(**{**extra, **row, "ml_games": ml_games, "suspended": row["bot_id"] in suspended}))
    # the SQL rows come by Elo; ranked as the store ranks them once the season ratings are in
    out.sort(key=rank_key)
    return [replace(row, rank=rank) for rank, row in enumerate(out, start=1)]


def _core(store: Store, season_id: int) -> list[dict[str, Any]]:
    """The standings columns summed in SQL (``league.competition.standings.core_standings``), best Elo first."""
    return core_standings(store.season_reads.seat_totals(season_id))


def crosstable(store: Store, refresher: Refresher, season_id: int, sync_limit: int,
               rows: list[StandingOut] | None = None) -> CrosstableOut:
    """Head-to-head results, bots in standings order (``rows``, if the caller has them)."""
    rows = rows if rows is not None else [StandingOut(**r) for r in _core(store, season_id)]
    done = store.season_reads.done_count(season_id)
    cells, version = refresher.get(("crosstable", season_id), done, lambda: store.season_reads.crosstable(season_id),
                                   wait=_wait(done, sync_limit))
    return CrosstableOut(season_id=season_id, bots=[BotRef(id=r.bot_id, name=r.name) for r in rows],
                         cells=cells or [],
                         games=version[0] if version is not None else None,  # type: ignore[index]
                         computing=version != done)


def _bot_out(bot: BotInfo) -> BotOut:
    return BotOut(id=bot.id, name=bot.name, version=bot.version, author=bot.author, games=list(bot.games),
                  capacity=bot.capacity, created_at=bot.created_at, retired_at=bot.retired_at,
                  hosted=hosted_sha(bot.endpoint) is not None)


def hosted_seats(store: Store, game: GameRow) -> list[Any]:
    """The seats of ``game`` played by hosted bots (whose authors may read what they wrote there)."""
    hosted = {b.id for b in (store.bots.get_bot(i) for i in {s.bot_id for s in game.seats})
              if b is not None and hosted_sha(b.endpoint) is not None}
    return [s for s in game.seats if s.bot_id in hosted]


def _hosted(store: Store, bot: BotInfo) -> HostedOut | None:
    """A hosted bot's current submission (None for a remote bot)."""
    sha = hosted_sha(bot.endpoint)
    if sha is None:
        return None
    submissions = store.artifacts.submissions(bot.id)
    current = next((x for x in submissions if x.code_sha256 == sha), None)
    if current is None:
        return None
    return HostedOut(sha256=sha, size=current.size, unpacked_size=current.unpacked_size,
                     submitted_at=current.submitted_at, submissions=len(submissions))


def bots(store: Store, limit: int, offset: int) -> list[BotOut]:
    """A page of the registered bots, by id."""
    return [_bot_out(b) for b in store.bots.list_bots()[offset:offset + limit]]


def get_bot(store: Store, bot_id: int) -> BotInfo:
    """The bot, or NotFound."""
    bot = store.bots.get_bot(bot_id)
    if bot is None:
        raise NotFound(f"no bot with id {bot_id}")
    return bot


def bot_detail(store: Store, bot_id: int, season_id: int | None, latency_games: int) -> BotDetailOut:
    """A bot's page data; statistics over ``season_id`` if given (NotFound if no such season)."""
    bot = get_bot(store, bot_id)
    if season_id is not None and store.seasons.get_season(season_id) is None:
        raise NotFound(f"no season with id {season_id}")
    reads = store.bot_reads
    return BotDetailOut(
        **_bot_out(bot).model_dump(),
        season_id=season_id,
        seasons=reads.bot_seasons(bot_id),
        seats=reads.results_by_seat(bot_id, season_id),
        versions=reads.results_by_version(bot_id, season_id),
        problems=reads.problems(bot_id),
        opponents=reads.opponents(bot_id, season_id),
        latency=reads.latency_stats(bot_id, latency_games, season_id=season_id),
        faults=reads.fault_log(bot_id, season_id=season_id),
        submission=_hosted(store, bot),
    )


def _score_kind(game: str) -> dict[str, Any]:
    """What a game's scores count (``score_unit``) and whether more is better, from the game's spec
    (``GameSpec.score_unit``, ``higher_score_is_better``). Raises ValueError for a game the registry does not hold."""
    gs = spec(game)
    return {"score_unit": gs.score_unit, "higher_score_is_better": gs.higher_score_is_better}


def rating_history(store: Store, refresher: Refresher, bot_id: int, season_id: int,
                   sync_limit: int) -> RatingHistoryOut:
    """The bot's Elo after each of its done games of the season (all bots' histories are
    computed together, through the refresher)."""
    get_bot(store, bot_id)
    done = store.season_reads.done_count(season_id)
    histories, version = refresher.get(("ratings", season_id), done, lambda: jobs.rating_histories_of(store, season_id),
                                       wait=_wait(done, sync_limit),
                                       job=_job(store, jobs.rating_histories, season_id))
    points = (histories or {}).get(bot_id, [])
    return RatingHistoryOut(bot_id=bot_id, season_id=season_id, computing=version != done,
                            points=points)


def games(store: Store, flt: GameFilter, limit: int, offset: int) -> GamePageOut:
    """A page of games matching the filter, newest first. Raises ValueError for ``result`` without a bot."""
    total, rows = store.game_reads.game_rows(flt, limit=limit, offset=offset)
    return GamePageOut(total=total, limit=limit, offset=offset, items=rows)


def game_detail(store: Store, game_id: int) -> GameDetailOut:
    """A game with its seats and attempts."""
    row: GameRow = store.game_reads.game_row(game_id)
    return GameDetailOut(**_fields_of(row), attempts=store.game_reads.attempts(game_id))


#: What a lookup by a received id answers when it finds no final game: the same for an unknown id and for a
#: game still to be played (it does not repeat the id, so no page shows a pending game's id).
NO_RECEIVED_GAME = ("no final game with this id: a game is found by the id its bots received once it is over "
                    "and no rotation of its deal is still to be played")


def received_game_id(store: Store, received_id: str) -> int:
    """The game whose bots were sent ``received_id`` (the ``game_id`` of their requests, opaque), once final
    and not sealed: its id here. Raises NotFound (404, :data:`NO_RECEIVED_GAME`) before then and for an
    unknown id alike: a bot cannot learn from the pages which game of the schedule it is playing."""
    game_id = store.game_reads.final_game_by_token(received_id)
    if game_id is None:
        raise NotFound(NO_RECEIVED_GAME)
    return game_id
