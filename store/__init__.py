"""The store: bots, seasons, games, results, replays and ratings (SQLAlchemy 2 + Alembic).

SQLite by default (``sqlite:///var/cardarena.db``), PostgreSQL by URL
(``postgresql+psycopg://user@host/dbname``), the same code on both::

    from league.policy import POLICY
    from store import open_store
    store = open_store("sqlite:///var/cardarena.db", policy=POLICY)
    claim = store.games.claim_game(game_id, owner="worker-1", lease_seconds=600)

Persistence only: the store never imports the league; the league's policy
(``store.policy``) rates seasons inside the store's transactions. Nothing
connects at import time.
"""

from __future__ import annotations

from store.bots import BotInfo
from store.db import InvalidRecord, NameTaken, NotFound, SeasonExists, StoreError, StoreUnavailable
from store.lifecycle import MAX_ATTEMPTS, BotsBusy, Cancellation, Claim, Deferral, VoidResult
from store.models import CANCELLED, AttemptOutcome, GameStatus, SeasonStatus
from store.policy import LeaguePolicy
from store.reads.games import AttemptInfo, GameInfo, SeatInfo
from store.repo import Store, open_store
from store.seasons import PROGRESS_KEYS, BotAvailability, SeasonInfo, SeatBot, season_state

__all__ = [
    "CANCELLED", "MAX_ATTEMPTS", "PROGRESS_KEYS", "AttemptInfo", "Cancellation", "AttemptOutcome", "BotAvailability", "BotInfo", "BotsBusy", "Claim", "Deferral",
    "GameInfo", "GameStatus", "InvalidRecord", "LeaguePolicy",
    "NameTaken", "NotFound", "SeasonExists", "SeasonInfo", "SeasonStatus", "SeatBot", "SeatInfo",
    "Store", "StoreError", "StoreUnavailable", "VoidResult", "open_store", "season_state",
]
