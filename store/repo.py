"""The store as one object: :class:`Store` composes the store's areas over one database handle.

Each area is a module with one job, and a class whose methods each run one
transaction and return plain frozen dataclasses (never ORM objects), so values
can cross processes and outlive the session. Callers name the area of every
operation (``store.games.finish_game(...)``), so a reader follows a call to
its definition; :class:`Store` has no operations of its own but :meth:`Store.close`.

- ``store.bots`` (:class:`~store.bots.Bots`): register, update, look up bots;
- ``store.seasons`` (:class:`~store.seasons.Seasons`): seasons, their schedules, pending
  games and keys;
- ``store.games`` (:class:`~store.lifecycle.GameLifecycle`): claim, lease, heartbeat,
  defer, void, store a result, cancel a season, retire a bot (rules §4.3, §4.9);
- ``store.marks`` (:class:`~store.availability.BotMarks`): the bots a season marks down,
  read with a game's table and marked by workers (rules §4.9);
- ``store.replays`` (:class:`~store.replays.Replays`): stored replays and live progress;
- ``store.chain`` (:class:`~store.chain.ChainReads`): each season's chain of stored records, its head and audit;
- ``store.ladders`` (:class:`~store.ladders.Ladders`): ladders, their epochs (seasons), entrants and rating history;
- ``store.compares`` (:class:`~store.compares.Compares`): the ladders' version A/B tests (rules §5.5);
- ``store.artifacts`` (:class:`~store.artifacts.Artifacts`): hosted bots' artifacts, builds, submissions and
  per-game output;
- ``store.game_reads``, ``store.season_reads``, ``store.bot_reads`` (:class:`~store.reads.games.GameReads`,
  :class:`~store.reads.seasons.SeasonReads`, :class:`~store.reads.bots.BotReads`): the read models of
  the dashboard, the CLI and the workers (games and their attempts, season results and ratings, bot pages).

The store computes no ratings: the league's :class:`~store.policy.LeaguePolicy`
given to :func:`open_store` rates a season in the transaction that makes a game
final (the module ``store.ratings``).
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
        self.season_reads = SeasonReads(self.db, policy)
        self.bot_reads = BotReads(self.db, policy)
        self.marks = BotMarks(self.db)
        self.chain = ChainReads(self.db, policy)
        self.ladders = Ladders(self.db, policy, self.seasons)
        self.compares = Compares(self.db)  # the ladders' version A/B tests (rules §5.5)
        self.artifacts = Artifacts(self.db)  # hosted bots' artifacts, builds, submissions and output

    def close(self) -> None:
        """Close the engine's pooled connections."""
        self.db.close()
