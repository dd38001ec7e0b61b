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
    embedded local pool. ``lease_s``: seconds a worker holds a claimed game before
    the sweeper may give it to another worker."""

    model_config = SettingsConfigDict(env_prefix="CARDARENA_")

    db_url: str = "sqlite:///var/cardarena.db"
    broker_url: str = ""
    lease_s: float = 600.0


@lru_cache
def get_settings() -> Settings:
    """The settings from the environment, read once per process."""
    return Settings()
