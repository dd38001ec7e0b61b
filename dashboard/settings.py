"""The dashboard's settings, read from the environment (prefix ``CARDARENA_``) by pydantic-settings.

Nothing is read at import time: :func:`get_settings` (cached) is a FastAPI
dependency, so tests override it or pass settings to ``create_app``.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic_settings import BaseSettings, SettingsConfigDict


class DashboardSettings(BaseSettings):
    """``db_url``: the store's SQLAlchemy URL (the same variable as the workers':
    ``CARDARENA_DB_URL``). ``refresh_s``: how often the home page polls while a
    season runs. ``page_size``: games per page by default. ``latency_games``:
    how many of a bot's recent games its latency statistics read (each is a replay
    to decompress). ``run_migrations``: bring the schema up to date on first use.
    ``sync_limit``: seasons with more final games fit their ratings, crosstables and
    rating histories in the background, showing the last result meanwhile."""

    model_config = SettingsConfigDict(env_prefix="CARDARENA_", extra="ignore")

    db_url: str = "sqlite:///var/cardarena.db"
    refresh_s: float = 3.0
    page_size: int = 50
    latency_games: int = 200
    run_migrations: bool = True
    sync_limit: int = 5000


@lru_cache
def get_settings() -> DashboardSettings:
    """The settings from the environment, read once per process."""
    return DashboardSettings()
