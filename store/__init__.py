"""The store: bots, seasons, games, results, replays and ratings (SQLAlchemy 2 + Alembic).

SQLite by default (``sqlite:///var/cardarena.db``), PostgreSQL by URL
(``postgresql+psycopg://user@host/dbname``), the same code on both::

    from store import open_store
    store = open_store("sqlite:///var/cardarena.db")
    claim = store.claim_game(game_id, owner="worker-1", lease_seconds=600)

Nothing connects at import time.
"""

from __future__ import annotations

from store.db import InvalidRecord, NameTaken, NotFound, SeasonExists, StoreError, StoreUnavailable
from store.models import AttemptOutcome, GameStatus, SeasonStatus
from store.repo import (
    MAX_ATTEMPTS,
    AttemptInfo,
    BotAvailability,
    BotInfo,
    BotsBusy,
    Claim,
    Deferral,
    GameInfo,
    SeasonInfo,
    SeatBot,
    SeatInfo,
    Store,
    VoidResult,
    open_store,
)

__all__ = [
    "MAX_ATTEMPTS", "AttemptInfo", "AttemptOutcome", "BotAvailability", "BotInfo", "BotsBusy", "Claim", "Deferral",
    "GameInfo", "GameStatus", "InvalidRecord",
    "NameTaken", "NotFound", "SeasonExists", "SeasonInfo", "SeasonStatus", "SeatBot", "SeatInfo",
    "Store", "StoreError", "StoreUnavailable", "VoidResult", "open_store",
]

