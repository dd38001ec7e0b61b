"""The registered bots: register, update, look up, list, retire.

A bot is a gRPC endpoint (``host:port``) that plays some games, up to
``capacity`` games at once; retired bots are kept for history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from referee.games import check_name
from store.db import NameTaken, NotFound
from store.models import Bot, LadderEntrant, utcnow
from store.session import Database, updated_rows


@dataclass(frozen=True)
class BotInfo:
    """A registered bot (see ``store.models.Bot``). ``endpoint`` and ``token_hash`` are private
    (never in the public API); ``games`` are game names (``referee.games``)."""

    id: int
    name: str
    endpoint: str
    version: str
    author: str
    games: tuple[str, ...]
    capacity: int
    token_hash: str | None
    created_at: datetime
    retired_at: datetime | None
    described_name: str | None = None
    described_version: str | None = None
    described_capacity: int | None = None


def bot_info(b: Bot) -> BotInfo:
    """The BotInfo of a loaded row."""
    return BotInfo(b.id, b.name, b.endpoint, b.version, b.author, tuple(b.games), b.capacity,
                   b.token_hash, b.created_at, b.retired_at, b.described_name, b.described_version,
                   b.described_capacity)


def taken_message(name: str, taken: str) -> str:
    """The NameTaken message of ``name`` when the bot ``taken`` holds it (maybe in another case)."""
    if taken == name:
        return f"a bot named {name!r} is already registered"
    return f"a bot named {taken!r} is already registered: names are unique whatever their case"


def check_game_name(game: str) -> str:
    """``game`` (a game id, as the rows store it) when the registry has it; raises ValueError naming
    the known games otherwise (:func:`referee.games.check_name`: the name is checked, the game's
    package is not loaded)."""
    return str(check_name(game))


class Bots:
    """The bots' table over one :class:`~store.session.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def register_bot(
        self,
        name: str,
        endpoint: str,
        version: str,
        author: str,
        games: Sequence[str],
        capacity: int = 1,
        token_hash: str | None = None,
        described_name: str | None = None,
        described_version: str | None = None,
        described_capacity: int | None = None,
    ) -> int:
        """Register a bot; returns its id.

        ``endpoint`` is ``host:port``; ``games`` are game names (``referee.games``);
        ``capacity`` the number of games it accepts at once (>= 1); ``described_name`` /
        ``described_version`` / ``described_capacity`` what the endpoint's Describe declared (None: taken from its
        first check, ``workers.identity``).
        Raises NameTaken if the name is registered (in any case: ``Odds`` and ``odds`` are one name), ValueError for an empty
        name or endpoint, an unknown game or a capacity < 1.
        """
        if not name.strip() or not endpoint.strip():
            raise ValueError("a bot needs a name and an endpoint")
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        names = [check_game_name(g) for g in games]
        try:
            with self._db.write() as s:
                taken = s.scalar(select(Bot.name).where(func.lower(Bot.name) == name.lower()))
                if taken is not None:
                    raise NameTaken(taken_message(name, taken))
                bot = Bot(name=name, endpoint=endpoint, version=version, author=author, games=names,
                          capacity=capacity, token_hash=token_hash, described_name=described_name,
                          described_version=described_version, described_capacity=described_capacity)
                s.add(bot)
                s.flush()
                return bot.id
        except IntegrityError as e:  # a concurrent registration of the same name
            raise NameTaken(f"a bot named {name!r} is already registered") from e

    def update_bot(
        self,
        bot_id: int,
        *,
        endpoint: str | None = None,
        version: str | None = None,
        author: str | None = None,
        games: Sequence[str] | None = None,
        capacity: int | None = None,
        token_hash: str | None = None,
        described_name: str | None = None,
        described_version: str | None = None,
        described_capacity: int | None = None,
    ) -> BotInfo:
        """Change the given fields of a bot (``None``: unchanged); returns the bot as updated.

        A new endpoint, capacity or version takes effect at the next claim of each game (claims
        carry them); a game already claimed keeps the version it was claimed with. A new endpoint
        without ``described_name`` forgets what the old one declared: the new endpoint's first
        Describe is taken as the bot's identity (``workers.identity``).
        Raises NotFound for an unknown id, ValueError as :meth:`register_bot` does.
        """
        values: dict[str, Any] = {}
        if endpoint is not None:
            if not endpoint.strip():
                raise ValueError("a bot needs an endpoint")
            values["endpoint"] = endpoint
        if capacity is not None:
            if capacity < 1:
                raise ValueError(f"capacity must be >= 1, got {capacity}")
            values["capacity"] = capacity
        if games is not None:
            values["games"] = [check_game_name(g) for g in games]
        values |= {k: v for k, v in (("version", version), ("author", author), ("token_hash", token_hash),
                                     ("described_name", described_name), ("described_version", described_version),
                                     ("described_capacity", described_capacity))
                   if v is not None}
        with self._db.write() as s:
            if endpoint is not None and described_name is None:
                # another endpoint, no identity checked there: its first check takes it (workers.identity)
                current = s.scalar(select(Bot.endpoint).where(Bot.id == bot_id))
                if current is not None and current != endpoint:
                    values |= {"described_name": None, "described_version": described_version,
                               "described_capacity": described_capacity}
            if values and not updated_rows(s, update(Bot).where(Bot.id == bot_id).values(**values)):
                raise NotFound(f"no bot with id {bot_id}")
            bot = s.get(Bot, bot_id)
            if bot is None:
                raise NotFound(f"no bot with id {bot_id}")
            return bot_info(bot)

    def get_bot(self, bot_id: int) -> BotInfo | None:
        """The bot with this id, or None."""
        with self._db.read() as s:
            bot = s.get(Bot, bot_id)
            return bot_info(bot) if bot else None

    def versions_entered_since(self, bot_id: int, since: datetime) -> int:
        """How many versions of the bot entered a ladder (``ladder_entrants.joined_at``, the database's clock
        as written) at or after ``since``, each counted once however many ladders it entered: what the limit
        on new versions counts (``league.entry.identity.MAX_NEW_VERSIONS``, rules §5.2)."""
        with self._db.read_rows() as conn:
            return int(conn.scalar(select(func.count(func.distinct(LadderEntrant.version)))
                                   .where(LadderEntrant.bot_id == bot_id, LadderEntrant.joined_at >= since)) or 0)

    def name_taken(self, name: str) -> str | None:
        """The registered bot name equal to ``name`` whatever the case (names are unique case-folded,
        ``league.names``), or None when ``name`` is free."""
        with self._db.read() as s:
            return s.scalar(select(Bot.name).where(func.lower(Bot.name) == name.lower()))

    def get_bot_by_name(self, name: str) -> BotInfo | None:
        """The bot with this name, or None."""
        with self._db.read() as s:
            bot = s.scalar(select(Bot).where(Bot.name == name))
            return bot_info(bot) if bot else None

    def list_bots(self, *, include_retired: bool = True) -> list[BotInfo]:
        """All bots by id."""
        with self._db.read() as s:
            q = select(Bot).order_by(Bot.id)
            if not include_retired:
                q = q.where(Bot.retired_at.is_(None))
            return [bot_info(b) for b in s.scalars(q)]

    def retire_bot(self, bot_id: int, now: datetime | None = None) -> None:
        """Mark a bot retired (kept for history; not scheduled any more). Raises NotFound."""
        with self._db.write() as s:
            if not updated_rows(s, update(Bot).where(Bot.id == bot_id).values(retired_at=now or utcnow())):
                raise NotFound(f"no bot with id {bot_id}")
