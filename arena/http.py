"""``/api/v1/arena``: bot submission over HTTP, the same operations as the Arena gRPC service.

:func:`mount` adds the router to an app over a :class:`~arena.registry.Registry`;
``cardarena server`` mounts it on the dashboard's app, over the registry its Arena
gRPC service uses (one rate limit per client address for both front doors).

- ``POST /api/v1/arena/bots`` register (201, the token shown once)
- ``PATCH /api/v1/arena/bots/{name}`` new endpoint, version and/or games added (token)
- ``POST /api/v1/arena/bots/{name}/retire`` or ``DELETE /api/v1/arena/bots/{name}`` retire (token)
- ``GET /api/v1/arena/bots`` registered bots (no endpoints)
- ``GET /api/v1/arena/standings?season=NAME`` standings with rating intervals
- ``GET /api/v1/arena/ladders/{ladder}/bots/{bot}`` where a bot stands in a ladder (each version)
- ``GET /api/v1/arena/ladders/{ladder}/games?bot=&page_size=&page_token=`` a ladder's games, newest first
- ``PUT /api/v1/arena/bots/{name}/code?game=G`` submit a bot's code (the body: a .tar, .tar.gz or .zip); a new
  name registers a hosted bot (201, the token shown once), a registered bot's token submits a new version
- ``GET /api/v1/arena/bots/{name}/log`` a hosted bot's build log and submissions (token: its author only)
- ``GET /api/v1/arena/games/{game_id}/output?bot=NAME`` what a hosted bot wrote in a game (token: its author only)
- ``GET /arena/submit`` and ``GET /arena/logs``: the same in a browser (``arena.pages``)

The token goes in ``Authorization: Bearer <token>``. Every rule is in
:class:`arena.registry.Registry`; errors are ``{"detail": message, "code":
gRPC status name}`` (plus ``report`` when the entry checks failed) with the
HTTP status of ``arena.registry.HTTP_STATUS``: 422 malformed, 401 token
missing or wrong, 403 refused by the network policy, 409 name taken, 404 no
such bot, season or ladder, 400 entry checks failed or bot retired, 429 rate limit
(with ``Retry-After``), 503 store unavailable.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from arena.registry import HTTP_STATUS, ErrorKind, Registry, RegistryError
from league.entry.checks import EntryReport
from referee.games import names_text
from store import BotInfo
from store.artifacts import hosted_sha

router = APIRouter(prefix="/api/v1/arena", tags=["arena"])
T = TypeVar("T")


class RegisterIn(BaseModel):
    """A registration: the checks on each field are the registry's (one place for both front doors)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200, description="1-40 characters of [A-Za-z0-9_.-], starting with a letter or digit, "
                      "not all digits, not a path word such as api or static; unique whatever its case")
    endpoint: str = Field(max_length=300, description="host:port where the bot serves cardarena.v1.Bot")
    games: list[str] = Field(max_length=10, description=f"games to enter: {names_text()}")
    version: str = Field("", max_length=200, description="empty: Describe's version")


class UpdateIn(BaseModel):
    """A change: a new endpoint and/or version (empty leaves it), games to add (entry checks first)."""

    model_config = ConfigDict(extra="forbid")
    endpoint: str = Field("", max_length=300)
    version: str = Field("", max_length=200)
    games: list[str] = Field(default_factory=list, max_length=10,
                             description=f"games to add to the registration: {names_text()}")


def mount(app: FastAPI, registry: Registry) -> None:
    """Serve ``/api/v1/arena`` and the submission pages (``/arena/...``) on ``app``, every operation through
    ``registry``."""
    from arena.pages import router as pages

    app.state.arena_registry = registry
    app.include_router(router)
    app.include_router(pages)


def get_registry(request: Request) -> Registry:
    """The registry :func:`mount` gave the app. Tests override this dependency."""
    registry: Registry = request.app.state.arena_registry
    return registry


RegistryDep = Annotated[Registry, Depends(get_registry)]
Authorization = Annotated[str | None, Header(description="Bearer <token>")]


def bot_json(bot: BotInfo, *, owner: bool) -> dict[str, Any]:
    """A bot as JSON; the endpoint only for its owner."""
    return {"id": bot.id, "name": bot.name, **({"endpoint": bot.endpoint} if owner else {}),
            "version": bot.version, "author": bot.author, "games": list(bot.games), "capacity": bot.capacity,
            "created_at": bot.created_at.isoformat(), "retired": bot.retired_at is not None,
            "retired_at": bot.retired_at.isoformat() if bot.retired_at else None,
            "hosted": hosted_sha(bot.endpoint) is not None}


def report_json(report: EntryReport | None) -> dict[str, Any] | None:
    """An entry report as JSON (None stays None)."""
    if report is None:
        return None
    median, p99, worst = report.latency()
    return {"passed": report.passed,
            "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail} for c in report.checks],
            "decisions": len(report.latencies_ms),
            "latency_ms": {"median": round(median, 3), "p99": round(p99, 3), "max": round(worst, 3)},
            "transport": report.transport,
            "faults": [{"decision": f.decision, "kind": f.kind.value, "detail": f.detail, "answer": f.answer}
                       for f in report.faults]}


def _token(authorization: str | None) -> str:
    if not authorization:
        return ""
    scheme, _, value = authorization.strip().partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


def _answer(call: Callable[[], T], render: Callable[[T], Any], status: int = 200) -> JSONResponse:
    """Run ``call``; its result rendered with ``status``, or the RegistryError as its HTTP error."""
    try:
        result = call()
    except RegistryError as exc:
        body: dict[str, Any] = {"detail": exc.message, "code": exc.kind.value}
        headers = {}
        if exc.report is not None:
            body["report"] = report_json(exc.report)
        if exc.log:
            body["log"] = exc.log
        if exc.kind is ErrorKind.RESOURCE_EXHAUSTED and exc.retry_after_s is not None:
            headers["Retry-After"] = str(math.ceil(exc.retry_after_s))
        if exc.kind is ErrorKind.UNAUTHENTICATED:
            headers["WWW-Authenticate"] = "Bearer"
        return JSONResponse(body, status_code=HTTP_STATUS[exc.kind], headers=headers)
    return JSONResponse(render(result), status_code=status)


@router.post("/bots", status_code=201, summary="Register a bot (entry checks first; the token is shown once)")
def register_bot(body: RegisterIn, request: Request, registry: RegistryDep) -> JSONResponse:
    client = request.client.host if request.client else ""
    return _answer(lambda: registry.register(body.name, body.endpoint, body.games, body.version, client=client),
                   lambda r: {"bot": bot_json(r.bot, owner=True), "token": r.token, "report": report_json(r.report)},
                   status=201)


@router.patch("/bots/{name}", summary="Point a bot at a new endpoint, set its version and/or add games (token)")
def update_bot(name: str, body: UpdateIn, request: Request, registry: RegistryDep,
               authorization: Authorization = None) -> JSONResponse:
    client = request.client.host if request.client else ""
    return _answer(lambda: registry.update(name, _token(authorization), body.endpoint, body.version, client=client,
                                                   games=body.games),
                   lambda r: {"bot": bot_json(r.bot, owner=True), "report": report_json(r.report)})


@router.post("/bots/{name}/retire", summary="Retire a bot (token)")
def retire_bot(name: str, registry: RegistryDep, authorization: Authorization = None) -> JSONResponse:
    return _answer(lambda: registry.retire(name, _token(authorization)), lambda b: {"bot": bot_json(b, owner=True)})


@router.delete("/bots/{name}", summary="Retire a bot (token); its games stay in history")
def delete_bot(name: str, registry: RegistryDep, authorization: Authorization = None) -> JSONResponse:
    return retire_bot(name, registry, authorization)


@router.get("/bots", summary="Registered bots (public: no endpoints)")
def list_bots(registry: RegistryDep, include_retired: bool = False) -> JSONResponse:
    return _answer(lambda: registry.list_bots(include_retired), lambda bots: [bot_json(b, owner=False) for b in bots])


@router.get("/standings", summary="A season's standings with 95% rating intervals")
def get_standings(registry: RegistryDep, season: Annotated[str, Query(max_length=200)]) -> JSONResponse:
    from league.competition.standings import standings_json

    return _answer(lambda: registry.standings(season),
                   lambda r: {"season": r[0].name, "game": r[0].game, "reproducible": r[0].reproducible,
                              "commitment": r[0].commitment, "standings": standings_json(r[1])})


def _ladder_row_json(row: Any) -> dict[str, Any]:  # league.competition.ladder_board.LadderStanding
    return {k: getattr(row, k) for k in ("version", "status", "latest", "rank", "games", "placing", "rating", "low",
                                         "high")}


@router.get("/ladders/{ladder}/bots/{bot}", summary="Where a bot stands in a ladder: each version's rank, rating "
            "with its 95% interval, games and placing")
def get_ladder_standing(ladder: Annotated[str, Path(max_length=128)], bot: Annotated[str, Path(max_length=64)],
                        registry: RegistryDep) -> JSONResponse:
    return _answer(lambda: registry.ladder_standing(ladder, bot),
                   lambda v: {"ladder": v.ladder.name, "game": v.ladder.game, "bot": v.current.name,
                              "table_size": v.table_size, "placement_games": v.placement_games,
                              "rated_games": v.rated_games, "current": _ladder_row_json(v.current),
                              "versions": [_ladder_row_json(r) for r in v.versions]})


@router.get("/ladders/{ladder}/games", summary="A ladder's games newest first (only a bot's with ?bot=); "
            "page on with ?page_token=next_page_token")
def list_ladder_games(ladder: Annotated[str, Path(max_length=128)], registry: RegistryDep,
                      bot: Annotated[str, Query(max_length=64)] = "", page_size: Annotated[int, Query(ge=0)] = 0,
                      page_token: Annotated[str, Query(max_length=40)] = "") -> JSONResponse:
    from dataclasses import asdict

    return _answer(lambda: registry.ladder_games(ladder, bot, page_size, page_token),
                   lambda r: {"games": [jsonable_encoder(asdict(g)) for g in r[0]], "next_page_token": r[1]})


async def _body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it passes ``limit`` bytes (counted as it arrives)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            return None
    return bytes(data)


def submitted_json(done: Any) -> dict[str, Any]:  # arena.submissions.Submitted
    """A stored submission as JSON (the token only for a new bot)."""
    return {"bot": bot_json(done.bot, owner=True), **({"token": done.token} if done.token else {}),
            "report": report_json(done.report), "sha256": done.sha256, "size": done.size,
            "unpacked_size": done.unpacked_size, "changed": done.changed, "installed": done.installed,
            "build_log": done.log}


@router.put("/bots/{name}/code", status_code=201, summary="Submit a bot's code (the body: .tar, .tar.gz or .zip with "
            "cardarena.toml); a new name registers a hosted bot, a token submits a new version")
async def submit_code(name: Annotated[str, Path(max_length=64)], request: Request, registry: RegistryDep,
                      game: Annotated[list[str], Query(max_length=10)] = [],  # noqa: B006 - FastAPI's way
                      authorization: Authorization = None) -> JSONResponse:
    from starlette.concurrency import run_in_threadpool

    limit = registry.hosting_config().artifact_limits.max_bytes
    data = await _body(request, limit)
    if data is None:
        return JSONResponse({"detail": f"the archive is larger than {limit} bytes (the platform's limit)",
                             "code": ErrorKind.INVALID_ARGUMENT.value}, status_code=413)
    client = request.client.host if request.client else ""
    token = _token(authorization)

    def call() -> JSONResponse:
        return _answer(lambda: registry.submit(name, game, data, token, client), submitted_json,
                       status=200 if token else 201)

    return await run_in_threadpool(call)


def build_json(found: Any) -> dict[str, Any]:  # arena.submissions.BuildLog
    """A hosted bot's build and submissions as JSON (its author's view)."""
    build = found.build
    return {"bot": bot_json(found.bot, owner=True), "sha256": build.code_sha256 if build else None,
            "manifest": build.manifest if build else None, "installed": build.installed if build else [],
            "build_log": build.log if build else None, "built_at": build.built_at.isoformat() if build else None,
            "submissions": [{"sha256": x.code_sha256, "submitted_at": x.submitted_at.isoformat(), "size": x.size,
                             "unpacked_size": x.unpacked_size} for x in found.submissions]}


@router.get("/bots/{name}/log", summary="A hosted bot's build log and submissions (token: its author only)")
def get_build_log(name: Annotated[str, Path(max_length=64)], registry: RegistryDep,
                  authorization: Authorization = None) -> JSONResponse:
    return _answer(lambda: registry.build_log(name, _token(authorization)), build_json)


@router.get("/games/{game_id}/output", summary="What a hosted bot wrote in a game, once it is done and not "
            "sealed (token: its author only)")
def get_game_output(game_id: Annotated[int, Path(ge=1, le=2**62)], bot: Annotated[str, Query(max_length=64)],
                    registry: RegistryDep, authorization: Authorization = None) -> JSONResponse:
    return _answer(lambda: registry.game_output(bot, _token(authorization), game_id),
                   lambda outputs: {"game_id": game_id, "bot": bot,
                                    "outputs": [{"seat": o.seat, "text": o.text, "truncated": o.truncated}
                                                for o in outputs]})
