"""The store as one object: :class:`Store` composes the store's areas over one database handle.

Each area is a module with one job, and a class whose methods each run one
transaction and return plain frozen dataclasses (never ORM objects), so values
can cross processes and outlive the session:

- ``store.bots`` (:class:`~store.bots.Bots`): register, update, look up, retire bots;
- ``store.seasons`` (:class:`~store.seasons.Seasons`): seasons, their schedules and keys;
- ``store.lifecycle`` (:class:`~store.lifecycle.GameLifecycle`): claim, lease, heartbeat,
  defer, void, store a result (rules §4.3, §4.9);
- ``store.availability`` (:class:`~store.availability.BotMarks`): the bots a season marks down,
  read with a game's table and marked by workers (rules §4.9);
- ``store.replays`` (:class:`~store.replays.Replays`): stored replays and live progress;
- ``store.chain`` (:class:`~store.chain.ChainReads`): each season's chain of stored records, its head and audit;
- ``store.ladders`` (:class:`~store.ladders.Ladders`): ladders, their epochs (seasons), entrants and rating history;
- ``store.compares`` (:class:`~store.compares.Compares`): the ladders' version A/B tests (rules §5.5);
- ``store.artifacts`` (:class:`~store.artifacts.Artifacts`): hosted bots' artifacts, builds, submissions and
  per-game output;
- ``store.reads`` (:class:`~store.reads.games.GameReads`, :class:`~store.reads.seasons.SeasonReads`,
  :class:`~store.reads.bots.BotReads`): the read models of the dashboard, the CLI and the workers.

The store computes no ratings: the league's :class:`~store.policy.LeaguePolicy`
given to :func:`open_store` rates a season in the transaction that makes a game
final (``store.ratings``). :class:`Store` also offers every area's operations
under their own names (``store.claim_game(...)`` is ``store.games.claim_game(...)``).
"""

from __future__ import annotations

from sqlalchemy import Engine

from store import db
from store.artifacts import Artifacts
from store.availability import BotMarks
from store.bots import Bots
from store.chain import ChainReads
from store.compares import Compares
from store.ladders import Ladders
from store.lifecycle import GameLifecycle
from store.policy import LeaguePolicy
from store.reads.bots import BotReads
from store.reads.games import GameReads
from store.reads.seasons import SeasonReads
from store.replays import Replays
from store.seasons import Seasons
from store.session import Database


def open_store(url: str, *, policy: LeaguePolicy, run_migrations: bool = True) -> Store:
    """Open the store at ``url`` and (unless ``run_migrations=False``) bring its schema
    to the latest Alembic migration; ``policy`` is the league's (``league.policy.POLICY``).

    SQLite files and their directory are created on first use; many processes
    may open (and migrate) the same database at once. ``run_migrations=False``
    suits worker processes of a pool whose parent already migrated.
    Raises StoreUnavailable (a StoreError) with a one-line message for a
    malformed URL, a missing driver, an unreachable or unusable database, or a
    failed migration.
    """
    engine = db.create_store_engine(url)
    if run_migrations:
        try:
            db.migrate(engine)
        except BaseException:
            engine.dispose()
            raise
    return Store(engine, policy)


class Store:
    """The store over one Engine. Thread- and process-safe: share it within a process,
    open one per process (``open_store``) across processes."""

    def __init__(self, engine: Engine, policy: LeaguePolicy) -> None:
        self.engine = engine
        self.db = Database(engine)
        self.bots = Bots(self.db)
        self.seasons = Seasons(self.db, policy)
        self.games = GameLifecycle(self.db, policy)
        self.replays = Replays(self.db)
        self.game_reads = GameReads(self.db)
        self.season_reads = SeasonReads(self.db)
        self.bot_reads = BotReads(self.db)
        self.marks = BotMarks(self.db)
        self.chain = ChainReads(self.db, policy)
        self.ladders = Ladders(self.db, policy, self.seasons)
        self.compares = Compares(self.db)  # the ladders' version A/B tests (rules §5.5)
        self.artifacts = Artifacts(self.db)  # hosted bots (no alias below: callers name the area)
        # bots
        self.register_bot = self.bots.register_bot
        self.update_bot = self.bots.update_bot
        self.get_bot = self.bots.get_bot
        self.get_bot_by_name = self.bots.get_bot_by_name
        self.list_bots = self.bots.list_bots
        self.retire_bot = self.games.retire_bot  # and out of every ladder, in one transaction (rules §5.3)
        # seasons
        self.create_season = self.seasons.create_season
        self.extend_season = self.seasons.extend_season
        self.get_season = self.seasons.get_season
        self.get_season_by_name = self.seasons.get_season_by_name
        self.revealed_key = self.seasons.revealed_key
        self.schedule_key = self.seasons.schedule_key
        self.season_deals = self.seasons.season_deals
        self.list_seasons = self.seasons.list_seasons
        self.season_progress = self.seasons.season_progress
        self.next_pending = self.seasons.next_pending
        self.pending_attempts = self.seasons.pending_attempts
        self.pending_tables = self.seasons.pending_tables
        self.pending_deferrals = self.seasons.pending_deferrals
        self.season_availability = self.seasons.season_availability
        self.set_paused = self.seasons.set_paused
        self.delete_season = self.seasons.delete_season
        self.cancel_season = self.games.cancel_season
        self.stored_games = self.seasons.stored_games
        self.chain_head = self.chain.chain_head
        self.chain_audit = self.chain.audit
        # the life of a game
        self.claim_game = self.games.claim_game
        self.claim_within_capacity = self.games.claim_within_capacity
        self.defer_game = self.games.defer_game
        self.table_and_down = self.marks.table_and_down
        self.mark_down = self.marks.mark_down
        self.renew_lease = self.games.renew_lease
        self.finish_game = self.games.finish_game
        self.void_game = self.games.void_game
        self.release_expired = self.games.release_expired
        # replays
        self.get_replay = self.replays.get_replay
        self.season_records = self.replays.season_records
        self.live_record = self.replays.live_record
        # reads
        self.get_game = self.game_reads.get_game
        self.list_games = self.game_reads.list_games
        self.attempts = self.game_reads.attempts
        self.ratings = self.season_reads.ratings
        self.season_results = self.season_reads.season_results

    def close(self) -> None:
        """Close the engine's pooled connections."""
        self.db.close()
