"""The dashboard app: ``create_app(settings)`` assembles one router per area.

JSON API under ``/api/v1`` (seasons, ladders, bots, games, replays), HTML pages at the
root, static files under ``/static`` (each game's replay module under ``/static/games``).
Errors: an unknown id is a 404 with a message, bad parameters a 422, the replay of a sealed game (``dashboard.replays.Sealed``)
a 403 with a message and ``"sealed": true``, an unreachable store a 503; anything else is
logged and answered with a clean 500 (a bug to fix, never a stack trace).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from config import Settings, get_settings
from dashboard.deps import Refresher, StoreHolder
from dashboard.ladders import FinalCounts
from dashboard.replays import NoReplay, Sealed
from dashboard.routers import assets, bots, games, ladders, pages, replays, seasons
from dashboard.templating import render_error
from store import NotFound, StoreError

log = logging.getLogger("cardarena.dashboard")
STATIC_DIR = Path(__file__).resolve().parent / "static"
API_PREFIX = "/api/v1"


def create_app(settings: Settings | None = None) -> FastAPI:
    """The dashboard app; ``settings`` override the environment's (tests, ``cardarena server``)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        app.state.refresher.close()
        app.state.stores.close()

    app = FastAPI(
        title="cardarena dashboard",
        version="1",
        description="Seasons, ladders, standings, bots, games and replays of cardarena tournaments (read-only).",
        lifespan=lifespan,
        # FastAPI's /docs and /redoc pages load their scripts from a CDN; the dashboard serves
        # everything itself, so its API reference is the local page /api (from /openapi.json).
        docs_url=None,
        redoc_url=None,
    )
    app.state.stores = StoreHolder()
    app.state.refresher = Refresher()
    app.state.ladder_counts = FinalCounts()
    if settings is not None:
        app.dependency_overrides[get_settings] = lambda: settings
    api = APIRouter(prefix=API_PREFIX)
    for area in (seasons, ladders, bots, games, replays):
        api.include_router(area.router)
    app.include_router(api)
    app.include_router(pages.router)
    app.include_router(assets.router)  # before the mount: /static/games/<game>.js comes from the game's package
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    _add_error_handlers(app)
    return app


def _is_api(request: Request) -> bool:
    return request.url.path.startswith(API_PREFIX)


def _error(request: Request, status: int, detail: str) -> Response:
    if _is_api(request):
        return JSONResponse({"detail": detail}, status_code=status)
    return render_error(request, status, detail)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound) -> Response:
        return _error(request, 404, str(exc))

    @app.exception_handler(Sealed)
    async def sealed(request: Request, exc: Sealed) -> Response:
        if _is_api(request):
            return JSONResponse({"detail": str(exc), "sealed": True}, status_code=403)
        return render_error(request, 403, str(exc))

    @app.exception_handler(NoReplay)
    async def no_replay(request: Request, exc: NoReplay) -> Response:
        return _error(request, 404, str(exc))

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> Response:
        log.warning("store error on %s: %s", request.url.path, exc)
        return _error(request, 503, f"the store is unavailable: {exc}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if _is_api(request) or exc.status_code < 400:
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)
        return render_error(request, exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        if _is_api(request):
            return JSONResponse({"detail": _jsonable(exc.errors())}, status_code=422)
        problems = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ())[1:])}: {e.get('msg')}" for e in exc.errors())
        return render_error(request, 422, f"bad parameters: {problems}")

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s", request.url.path)
        return _error(request, 500, "internal error (logged)")


def _jsonable(errors: object) -> object:
    """Validation errors without the exception objects pydantic puts in ``ctx``."""
    from fastapi.encoders import jsonable_encoder

    return jsonable_encoder(errors, custom_encoder={Exception: str})


def app_from_env() -> FastAPI:
    """An app configured from the environment (for ``uvicorn dashboard.main:app_from_env --factory``)."""
    return create_app()
