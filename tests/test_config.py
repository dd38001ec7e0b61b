"""The one settings module: the environment overrides each default, and every part reads the same values."""

from __future__ import annotations

import pytest

from arena.registry import RegistryConfig
from config import Settings, get_settings
from store.db import env_url


def test_the_environment_overrides_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in Settings.model_fields:
        monkeypatch.delenv(f"CARDARENA_{name.upper()}", raising=False)
    assert Settings().lease_s == 10.0 and Settings().db_url == "sqlite:///var/cardarena.db"
    monkeypatch.setenv("CARDARENA_LEASE_S", "2.5")
    monkeypatch.setenv("CARDARENA_REGISTER_LIMIT", "3")
    monkeypatch.setenv("CARDARENA_PAGE_SIZE", "7")
    settings = Settings()
    assert (settings.lease_s, settings.register_limit, settings.page_size) == (2.5, 3, 7)
    monkeypatch.setenv("CARDARENA_LEASE_S", "soon")
    with pytest.raises(ValueError, match="lease_s"):
        Settings()


def test_the_arena_and_the_store_read_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CARDARENA_DB_URL", raising=False)
    monkeypatch.setenv("CARDARENA_REGISTER_WINDOW_S", "60")
    get_settings.cache_clear()
    try:
        config = RegistryConfig.from_settings()
        assert (config.register_limit, config.register_window_s) == (Settings().register_limit, 60.0)
    finally:
        get_settings.cache_clear()
    assert env_url() is None  # the alembic CLI wants an explicit URL, not the default file
    monkeypatch.setenv("CARDARENA_DB_URL", "sqlite:///elsewhere.db")
    assert env_url() == "sqlite:///elsewhere.db"
