"""The HTML pages: home, season, ladders, ladder, bots, bot, games, replay (server-rendered; small JS where interactive)."""

from __future__ import annotations

import json
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from markupsafe import Markup

from dashboard import charts, ladders, services
from dashboard.crosstable import crosstable_html
from dashboard.deps import LadderCountsDep, RefresherDep, SettingsDep, StoreDep
from dashboard.params import MAX_ID, BotRef, GameId, ReceivedId, SeasonId, SeasonRef
from dashboard.replays import NoReplay, load_replay
from dashboard.templating import render
from store import GameStatus
from store.reads.games import GameFilter

router = APIRouter(include_in_schema=False)
FilterText = Annotated[str | None, Query(max_length=32)]
#: Epochs listed on a ladder's page (the API lists more with ?epochs=).
PAGE_EPOCHS = 5


@router.get("/", response_class=HTMLResponse)
def home(request: Request, store: StoreDep, settings: SettingsDep) -> HTMLResponse:
    """The ladders, then the seasons that are not a ladder's epochs (its ladder's page lists those), newest first."""
    return render(request, "home.html", seasons=services.seasons(store, epochs=False), ladders=ladders.ladders(store),
                  refresh_s=settings.refresh_s)


@router.get("/ladders", response_class=HTMLResponse)
def ladders_page(request: Request, store: StoreDep) -> HTMLResponse:
    return render(request, "ladders.html", ladders=ladders.ladders(store))


@router.get("/ladders/{name}", response_class=HTMLResponse)
def ladder_page(request: Request, name: Annotated[str, Path(min_length=1, max_length=128)], store: StoreDep,
                settings: SettingsDep, counts: LadderCountsDep, refresher: RefresherDep) -> HTMLResponse:
    """A ladder: standings from the stored rating snapshot, history chart, recent games, epochs, A/B results, and
    the luck audit over its whole record (``league.integrity.eprocess``; through the refresher, in the background
    for a large ladder)."""
    lad = ladders.ladder_detail(store, name, PAGE_EPOCHS, counts)
    luck = services.ladder_luck(store, refresher, lad.id, lad.progress, settings.sync_limit)
    reads = ladders.reads(store)
    hist = reads.history(lad.id, ladders.chart_rows(lad.standings), 60)
    chart = charts.series_chart([(f"{h.name}@{h.version}", [(p.games, p.rating, p.low, p.high) for p in h.points])
                                 for h in hist])
    recent = reads.games(lad.id, limit=20)
    main = [r for r in lad.standings if r.best]  # a row per bot ranked: its best version
    ranked = {r.bot_id for r in main}
    others: dict[int, list[Any]] = {}  # bot id -> its other versions, listed under its row, newest first
    for r in sorted(lad.standings, key=lambda r: -r.entrant_id):
        if r.bot_id in ranked and not r.best:
            others.setdefault(r.bot_id, []).append(r)
    retired = [r for r in lad.standings if r.bot_id not in ranked]  # unranked, their record kept
    return render(request, "ladder.html", ladder=lad, main=main, others=others, retired=retired, chart=chart,
                  recent=recent, refresh_s=settings.refresh_s, luck=luck)


@router.get("/api", response_class=HTMLResponse)
def api_page(request: Request) -> HTMLResponse:
    """The JSON API's reference, drawn from the app's OpenAPI schema (no external assets)."""
    schema = request.app.openapi()
    operations = [
        {"method": method.upper(), "path": path, **op}
        for path, item in schema["paths"].items() if path.startswith("/api/")
        for method, op in item.items() if method in ("get", "post", "put", "patch", "delete")
    ]
    return render(request, "api.html", operations=operations, info=schema["info"])


@router.get("/seasons/{season}", response_class=HTMLResponse)
def season_page(request: Request, season: SeasonRef, store: StoreDep, refresher: RefresherDep,
                settings: SettingsDep) -> HTMLResponse:
    """A season's page, by id or by name (``/seasons/my-second``)."""
    season_id = services.season_id_of(store, season)
    detail = services.season_detail(store, season_id)
    rows = services.standings(store, refresher, season_id, settings.sync_limit)
    cross = services.crosstable(store, refresher, season_id, settings.sync_limit, rows)
    cells = {(c.bot_id, c.opponent_id): c for c in cross.cells}
    has_ml = any(r.ml_rating is not None for r in rows)
    has_luck = any(r.luck_change is not None for r in rows)
    screened = services.collusion_screened(detail.game)  # the game's seasons are screened for colluding bots
    ml_games = max((r.ml_games for r in rows if r.ml_games is not None), default=None)
    final = detail.progress.done + detail.progress.failed
    ratings_pending = final > settings.sync_limit and ml_games != detail.progress.done
    return render(request, "season.html", season=detail, rows=rows, cross=cross, has_ml=has_ml, has_luck=has_luck,
                  crosstable=crosstable_html(cross.bots, cells, season_id) if cross.cells else None,
                  screened=screened, ml_games=ml_games, ratings_pending=ratings_pending, refresh_s=settings.refresh_s)


@router.get("/seasons/{season}/fairness", response_class=HTMLResponse)
def fairness_page(request: Request, season: SeasonRef, store: StoreDep) -> HTMLResponse:
    """How to verify the season's deals, with its commitment and, once it is over, its key."""
    return render(request, "fairness.html", fair=services.fairness(store, services.season_id_of(store, season)))


@router.get("/bots", response_class=HTMLResponse)
def bots_page(request: Request, store: StoreDep) -> HTMLResponse:
    return render(request, "bots.html", bots=services.bots(store, 10_000, 0))


@router.get("/bots/{bot}", response_class=HTMLResponse)
def bot_page(request: Request, bot: BotRef, store: StoreDep, refresher: RefresherDep, settings: SettingsDep,
             season_id: FilterText = None) -> HTMLResponse:
    sid = _opt_int(season_id, "season_id")
    bot_id = services.bot_id_of(store, bot)
    detail = services.bot_detail(store, bot_id, sid, settings.latency_games)
    entrants = ladders.bot_entrants(store, bot_id)
    # one rating per page: a bot in a ladder is shown by the ladder's rating history (each version a line);
    # a season's Elo (an epoch's own, labelled as such) only when that season is chosen, or for a bot in no ladder
    ladder_charts: list[tuple[Any, Markup, list[tuple[str, list[ladders.RatingMove]]]]] = []
    if sid is None and entrants:
        reads = ladders.reads(store)
        for lad, rows, _ in entrants:
            hist_rows = reads.history(lad.id, rows, 60)
            moves = [(f"{h.name}@{h.version}", ladders.rating_moves(h.points)) for h in hist_rows]
            ladder_charts.append((lad, charts.series_chart(
                [(f"{h.name}@{h.version}", [(p.games, p.rating, p.low, p.high) for p in h.points]) for h in hist_rows]),
                [(who, m) for who, m in moves if m]))
    chart_season = sid if sid is not None else (detail.seasons[0].id if detail.seasons and not entrants else None)
    history: Markup = Markup('<p class="muted">Not seated in any season yet.</p>')
    if chart_season is not None:
        ratings = services.rating_history(store, refresher, bot_id, chart_season, settings.sync_limit)
        history = charts.line_chart([p.elo for p in ratings.points])
        if ratings.computing:
            history += Markup('<p class="muted small">Updating: a newer history is being computed.</p>')
    hist = charts.histogram(detail.latency.edges, detail.latency.bins)
    # the chosen season's audit of this bot (its standings row: the luck audit's wealth and any flag)
    audit_row = None
    if sid is not None:
        audit_row = next((r for r in services.standings(store, refresher, sid, settings.sync_limit)
                          if r.bot_id == bot_id), None)
    return render(request, "bot.html", bot=detail, history=history, chart_season=chart_season, latency_chart=hist,
                  ladder_entrants=entrants, ladder_charts=ladder_charts, audit_row=audit_row)


@router.get("/games", response_class=HTMLResponse)
def games_page(
    request: Request, store: StoreDep, settings: SettingsDep,
    season_id: FilterText = None, bot_id: FilterText = None, status: FilterText = None,
    fault: FilterText = None, result: FilterText = None,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
) -> HTMLResponse:
    flt = GameFilter(
        season_id=_opt_int(season_id, "season_id"),
        bot_id=_opt_int(bot_id, "bot_id"),
        status=GameStatus(s) if (s := _opt_choice(status, "status", GameStatus)) else None,
        fault={"yes": True, "no": False, None: None}[_opt_choice(fault, "fault", ("yes", "no"))],
        result=_opt_choice(result, "result", ("win", "loss")),
    )
    if flt.result is not None and flt.bot_id is None:
        raise HTTPException(422, "choose a bot to filter by win or loss")
    size = settings.page_size
    data = services.games(store, flt, size, (page - 1) * size)
    query = {k: v for k, v in (("season_id", season_id), ("bot_id", bot_id), ("status", status),
                               ("fault", fault), ("result", result)) if v}
    pages = max(1, -(-data.total // size))

    def link(p: int) -> str:
        return "/games?" + urlencode({**query, "page": p})

    return render(request, "games.html", data=data, query=query, page=page, pages=pages,
                  prev_url=link(page - 1) if page > 1 else None, next_url=link(page + 1) if page < pages else None,
                  seasons=store.season_reads.season_names(), bots=services.bots(store, 10_000, 0))


@router.get("/games/{game_id:int}", response_class=HTMLResponse)
def replay_page(request: Request, game_id: GameId, store: StoreDep) -> HTMLResponse:
    try:
        data = load_replay(store, game_id)
    except NoReplay as exc:
        game = store.game_reads.game_row(game_id)
        return render(request, "replay.html", game=game, public_only=True, record=None, message=str(exc),
                      replay_json=Markup("null"))
    game = data.game
    payload: dict[str, Any] = {"game": services.as_json(game), "public_only": data.public_only,
                               "record": data.record}
    return render(request, "replay.html", game=game, public_only=data.public_only, record=data.record,
                  message=None, replay_json=_script_json(payload), hosted=services.hosted_seats(store, game))


@router.get("/games/{received_id}")
def received_game_page(received_id: ReceivedId, store: StoreDep) -> RedirectResponse:
    """The replay of the game whose bots were sent ``received_id`` (a line of a bot's log), once it is over;
    404 before, as for an unknown id."""
    return RedirectResponse(f"/games/{services.received_game_id(store, received_id)}", status_code=307)


def _script_json(value: Any) -> Markup:
    """JSON safe to put inside a ``<script type="application/json">`` element."""
    text = json.dumps(value, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _opt_int(value: str | None, name: str) -> int | None:
    """A filter's integer from a form field ("" or absent: no filter); 422 if not a valid id."""
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except ValueError:
        raise HTTPException(422, f"{name} must be a whole number, got {value!r}") from None
    if not 1 <= number <= MAX_ID:
        raise HTTPException(422, f"{name} must be a positive id, got {value!r}")
    return number


def _opt_choice(value: str | None, name: str, choices: Any) -> Any:
    """A filter's choice from a form field ("" or absent: no filter); 422 if not one of ``choices``."""
    if value is None or value == "":
        return None
    allowed = [getattr(c, "value", c) for c in choices]
    if value not in allowed:
        raise HTTPException(422, f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value
