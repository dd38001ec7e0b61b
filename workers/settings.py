"""The platform's settings, read from the environment (prefix ``CARDARENA_``) by pydantic-settings.

Command-line options override them. Nothing reads settings at import time:
call :func:`get_settings` (cached) where they are needed.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """``db_url``: SQLAlchemy URL of the store (default: SQLite file ``var/cardarena.db`` under the
    working directory; PostgreSQL as ``postgresql+psycopg://user@host/db``).
    ``broker_url``: Celery broker (``redis://host:6379/0``); empty runs games on the
    embedded local pool. ``lease_s``: seconds a claimed game's lease lasts; the worker
    renews it every third of that while it plays, so a killed worker's game is given
    to another worker by the sweeper about ``lease_s`` after the kill.
    ``game_soft_limit_s``/``game_hard_limit_s``: Celery's time limits for one game
    (the soft one voids the attempt; the hard one kills the worker process).

    Bot submission (``league.registry``): ``allowed_networks`` and ``denied_networks``
    are the network policy for bot endpoints, comma-separated CIDRs or the words
    ``loopback``, ``private``, ``link-local``, ``any``; an endpoint is accepted only if
    every address its host resolves to is in an allowed network and in no denied one.
    The default suits a local platform (bots on this machine or the LAN); a public
    deployment sets ``allowed_networks=any`` and ``denied_networks=loopback,private,link-local``.
    ``register_limit`` registrations per client address per ``register_window_s`` seconds."""

    model_config = SettingsConfigDict(env_prefix="CARDARENA_")

    db_url: str = "sqlite:///var/cardarena.db"
    broker_url: str = ""
    lease_s: float = 10.0
    # a floor: workers.follower.game_time_limits raises both to fit every seat's whole thinking budget
    game_soft_limit_s: float = 900.0
    game_hard_limit_s: float = 960.0
    # link-local is denied by default: it holds cloud metadata services (169.254.169.254)
    allowed_networks: str = "loopback,private"
    denied_networks: str = "link-local"
    # an entry check costs a validation game: bound what one address can make us do
    register_limit: int = 10
    register_window_s: float = 3600.0


@lru_cache
def get_settings() -> Settings:
    """The settings from the environment, read once per process."""
    return Settings()
