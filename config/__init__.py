"""The platform's settings: one typed class, read from the environment (prefix ``CARDARENA_``)
by pydantic-settings, each default written here once.

Every part reads this module (the store's URL, the workers' leases and time limits, the
Arena's network policy and rate limit, the dashboard's pages); it imports nothing of the
platform, so it sits at the bottom of the layers (docs/design.md, *Layers*; config/README.md) and no part
has to import another to learn a setting. Command-line options override the settings.
Nothing reads settings at import time: call :func:`get_settings` (cached) where they are
needed, or build a :class:`Settings` with explicit values (tests, ``cardarena server``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """The store, the workers, the Arena and the dashboard, in that order.

    Store: ``db_url``: SQLAlchemy URL of the store (default: SQLite file ``var/cardarena.db`` under
    the working directory; PostgreSQL as ``postgresql+psycopg://user@host/db``);
    ``run_migrations``: bring the schema up to date on first use (the dashboard's store).

    Workers: ``broker_url``: Celery broker (``redis://host:6379/0``); empty runs games on the
    embedded local pool. ``lease_s``: seconds a claimed game's lease lasts; the worker
    renews it every third of that while it plays, so a killed worker's game is given
    to another worker by the sweeper about ``lease_s`` after the kill.
    ``games_per_process``: games each process of the embedded local pool referees at once
    (one thread each): a referee waits on its bots for most of a game, so a second game
    keeps the core busy meanwhile (``workers.local``).
    ``game_soft_limit_s``/``game_hard_limit_s``: Celery's time limits for one game, seconds
    (the soft one voids the attempt; the hard one kills the worker process).
    ``bot_transport``: how the referee calls bots: ``stream`` (one ActStream per bot per worker
    process where the bot serves it, else Act calls) or ``unary`` (one Act call per decision).

    Arena, bot submission (``arena.registry``): ``allowed_networks`` and ``denied_networks``
    are the network policy for bot endpoints, comma-separated CIDRs or the words
    ``loopback``, ``private``, ``link-local``, ``any``; an endpoint is accepted only if
    every address its host resolves to is in an allowed network and in no denied one.
    The default suits a local platform (bots on this machine or the LAN); a public
    deployment sets ``allowed_networks=any`` and ``denied_networks=loopback,private,link-local``.
    ``register_limit`` registrations per client address per ``register_window_s`` seconds.

    Hosted bots (``hosting``): ``hosting_dir``: the directory of the artifact cache, the Python runtime and the
    sockets (default ``var/hosting`` under the working directory; the sandbox's user ``nobody`` must be able
    to traverse it); every sandbox's limits: ``hosted_memory_mb`` (MiB, swap included), ``hosted_cpus`` (the
    same fixed CPU share for every bot, rules §4.12), ``hosted_pids`` (tasks), ``hosted_tmp_mb`` (its
    ``/tmp``, MiB); a submission's size: ``hosted_max_mb`` (MiB as submitted and as stored, compressed) and
    ``hosted_max_unpacked_mb`` (MiB unpacked; a built Python environment too); ``hosted_idle_s``: seconds
    without a game before a worker stops a bot; ``hosted_start_timeout_s``: seconds a bot has to answer
    its health check after it is started; ``hosted_copies``: copies of one bot a machine runs at most
    (0: one per core); ``hosted_output_kb``: KiB of a bot's stderr kept per game for its author;
    ``hosted_build_timeout_s``: seconds a Python environment's build may take; ``hosted_index_url``: the
    package index builds install from (empty: pip's default, PyPI).

    Dashboard: ``dashboard_url``: its address (``http://host:port``), which the pages printed by
    ``season list`` link to; ``cardarena server`` listens on its port unless ``--port`` says otherwise.
    ``refresh_s``: seconds between the home page's polls while a season runs.
    ``page_size``: games per page by default. ``latency_games``: how many of a bot's recent
    games its latency statistics read (each is a replay to decompress). ``sync_limit``:
    seasons with more final games fit their ratings, crosstables and rating histories in
    the background, showing the last result meanwhile.

    Raises pydantic's ``ValidationError`` for a value of the wrong type."""

    model_config = SettingsConfigDict(env_prefix="CARDARENA_", extra="ignore")

    # store
    db_url: str = "sqlite:///var/cardarena.db"
    run_migrations: bool = True
    # workers
    broker_url: str = ""
    lease_s: float = 10.0
    games_per_process: int = Field(default=2, ge=1)
    # a floor: workers.follower.game_time_limits raises both to fit every seat's whole thinking budget
    game_soft_limit_s: float = 900.0
    game_hard_limit_s: float = 960.0
    bot_transport: Literal["stream", "unary"] = "stream"
    # Arena; link-local is denied by default: it holds cloud metadata services (169.254.169.254)
    allowed_networks: str = "loopback,private"
    denied_networks: str = "link-local"
    # an entry check costs a validation game: bound what one address can make us do
    register_limit: int = 10
    register_window_s: float = 3600.0
    # hosted bots
    hosting_dir: str = "var/hosting"
    hosted_memory_mb: int = Field(default=512, ge=32)
    hosted_cpus: float = Field(default=1.0, gt=0.0)
    hosted_pids: int = Field(default=128, ge=8)
    hosted_tmp_mb: int = Field(default=64, ge=1)
    hosted_max_mb: int = Field(default=32, ge=1)
    hosted_max_unpacked_mb: int = Field(default=256, ge=1)
    hosted_idle_s: float = Field(default=120.0, gt=0.0)
    hosted_start_timeout_s: float = Field(default=10.0, gt=0.0)
    hosted_copies: int = Field(default=0, ge=0)
    hosted_output_kb: int = Field(default=64, ge=1)
    hosted_build_timeout_s: float = Field(default=300.0, gt=0.0)
    hosted_index_url: str = ""
    # dashboard
    dashboard_url: str = "http://127.0.0.1:8000"
    refresh_s: float = 3.0
    page_size: int = 50
    latency_games: int = 200
    sync_limit: int = 5000


@lru_cache
def get_settings() -> Settings:
    """The settings from the environment, read once per process (``get_settings.cache_clear()``
    after changing the environment)."""
    return Settings()
