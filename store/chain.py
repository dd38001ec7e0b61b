"""A season's chain: every stored record hashed with the one before, so a change after it was shown shows.

The organiser holds the store and could rewrite a result, a status or a replay after
spectators saw it. So every record stored for a season is appended to the season's
chain, in the transaction that stores it (as certificate transparency logs do):

- entry 0, kind ``season``: the chain's format (``chain``: :data:`VERSION`; absent in chains
  of format 1), the season (name, game, parameters, time control, commitment, chance scheme)
  and its schedule (every game's number, deal group and the bot of each seat), written by
  ``store.seasons.Seasons.create_season``;
- kind ``schedule``: games added to the season (``extend_season``), listed the same way;
- kind ``game``: a game that became final (done, failed, not played; ``store.lifecycle``):
  its number, status, reason and detail, every attempt (number, outcome, detail), every
  seat's result (bot, place, score, change, faults, retired) and the SHA-256 of the
  stored replay's bytes (null without one); from format 2 also who sat at each seat
  (``bots``: each seat's bot name and the version it played, both checked against the rows
  now, so swapping two bots' names is caught) and where it was served from (``served``: each
  seat's endpoint, as its SHA-256 since the entries are public once the season is over and an
  endpoint is not, and its author, when the game ended, fixed by the chain; a bot may move or
  change its author later, so they are not compared with its row now);
- kind ``ratings`` (format 2, a ladder's open epoch): a snapshot of the ladder's ratings as stored
  (``store.ladders.Ladders.add_rating_points``): the rated games it covers and each entrant's games,
  rating and sd; ``ladder verify`` checks the stored history against these entries;
- kind ``close`` (format 2): the season finished (every game final and its key public: no
  game is ever added again), with its number of games and games per status. It is the
  chain's last entry: an entry after it, a finished season without it, or a count that is
  not the store's, is a problem, so a game appended to a finished season with its entries is
  caught, and one slipped in before a rewritten close changes the head everyone saw at the close.

An entry is the canonical JSON of those fields (:func:`entry_text`: keys sorted, no
spaces, ASCII), and its hash is ``SHA-256(previous hash + "\\n" + entry)`` in hex, the
previous hash of entry 0 being 64 zeros (``league.integrity.chain.link``, through the policy).
The season row keeps the last hash (``chain_head``, shown live on the season page and
in the API) and the number of entries. :meth:`ChainReads.audit` rebuilds every entry
from the rows as they are now and checks the links and the heads seen before: a row
changed, added or removed after its entry was stored no longer matches its entry; an
entry changed breaks the links after it; a chain rewritten to match no longer extends a
head anyone saw (``cardarena season verify --head``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, func, insert, select, update

from store.models import Bot, ChainEntry, Game, GameAttempt, GameSeat, GameStatus, Replay, Season, SeasonStatus

#: The previous hash of a season's first entry (64 zeros).
GENESIS = "0" * 64


@dataclass(frozen=True)
class Entry:
    """One stored chain entry: its position, kind, game number (None for other kinds), text and hash (the shape
    ``league.integrity.chain`` checks)."""

    seq: int
    kind: str
    number: int | None
    entry: str
    hash: str
from store.session import Database

#: The chain format written now: 2 adds the seats' identities to game entries and the close entry.
#: A chain without ``chain`` in its season entry is of format 1 and is checked under format 1's rules.
VERSION = 2
#: Statuses a game's chain entry is written at: it never changes again.
FINAL = (GameStatus.DONE, GameStatus.FAILED, GameStatus.NOT_PLAYED)


class Linker(Protocol):
    """What links an entry to the chain (``store.policy.LeaguePolicy.chain_link``), says when a done
    season is finished (``key_is_public``: its key may be published, so no game is added again), and checks a
    chain (``chain_format``, ``check_chain``: the league's checks, ``league.integrity.chain``; the store never
    imports the league)."""

    def chain_link(self, previous: str, entry: str) -> str:
        """The hash of ``entry`` after the entry hashed ``previous``: 64 hex digits."""
        ...

    def key_is_public(self, config: Mapping[str, Any]) -> bool:
        """Whether a done season with this scheduler ``config`` may publish its key."""
        ...

    def chain_format(self, entries: Sequence[Any]) -> int:
        """The chain format the season's ``entries`` state."""
        ...

    def check_chain(self, entries: Sequence[Any], season: Mapping[str, Any], games: Mapping[int, Mapping[str, Any]],
                    seats: Mapping[int, Sequence[int]], groups: Mapping[int, int | None], close: Mapping[str, Any],
                    finished: bool, head: tuple[str | None, int], heads: Sequence[str]) -> tuple[list[str], int, str | None]:
        """``(problems, heads seen, note)`` of the chain against the season as it is now."""
        ...


class ChainHolder(Protocol):
    """The locked season a transaction appends to (``store.seasons.LockedSeason``)."""

    id: int
    chain_head: str | None
    chain_length: int


def finished(status: Any, config: Mapping[str, Any] | None, linker: Linker) -> bool:
    """Whether a season of ``status`` and scheduler ``config`` is finished: done, and its key public
    (``Linker.key_is_public``: not a sequential season between batches, not an open ladder epoch).
    A finished season accepts no new game (``store.seasons.Seasons.extend_locked``)."""
    return str(status) == SeasonStatus.DONE.value and linker.key_is_public(config or {})


@dataclass(frozen=True)
class ChainHead:
    """A season's chain head: the last entry's hash (None: no entry yet) and the number of entries."""

    head: str | None
    length: int


@dataclass
class ChainAudit:
    """What :meth:`ChainReads.audit` found: the head and length, the number of entries checked,
    and each problem in one line (naming the entry, the game and what does not match)."""

    head: str | None
    length: int
    problems: list[str]
    heads_seen: int = 0
    note: str | None = None


def entry_text(entry: Mapping[str, Any]) -> str:
    """The canonical JSON of an entry: keys sorted, no spaces, ASCII only."""
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def replay_digest(blob: bytes | None) -> str | None:
    """SHA-256 (hex) of a stored replay's bytes, None without one."""
    return None if blob is None else hashlib.sha256(blob).hexdigest()


def season_entry(season: Season | Mapping[str, Any], games: Sequence[tuple[int, int, Sequence[int]]]) -> dict[str, Any]:
    """Entry 0 of a season: its published fields and its schedule ``(number, deal group, bots)``."""
    get = season.get if isinstance(season, Mapping) else lambda k: getattr(season, k)
    return {"kind": "season", "chain": VERSION, "name": get("name"), "game": get("game"), "params": get("params"),
            "time_control": get("time_control"), "commitment": get("commitment"),
            "chance_scheme": get("chance_scheme"), "games": [[n, g, list(b)] for n, g, b in games]}


def schedule_entry(games: Sequence[tuple[int, int, Sequence[int]]]) -> dict[str, Any]:
    """The entry of games added to a season: ``(number, deal group, bots)`` each."""
    return {"kind": "schedule", "games": [[n, g, list(b)] for n, g, b in games]}


_GAME_ROW = select(Game.number, Game.status, Game.reason, Game.detail).where(Game.id == bindparam("c_game"))
_ATTEMPT_ROWS = (select(GameAttempt.attempt, GameAttempt.outcome, GameAttempt.detail)
                 .where(GameAttempt.game_id == bindparam("c_game")).order_by(GameAttempt.attempt))
_SEAT_ROWS = (select(GameSeat.bot_id, GameSeat.place, GameSeat.score, GameSeat.change, GameSeat.faults,
                     GameSeat.retired).where(GameSeat.game_id == bindparam("c_game")).order_by(GameSeat.seat))
_SEAT_WHO = (select(Bot.name, GameSeat.version, Bot.endpoint, Bot.author).join(Bot, Bot.id == GameSeat.bot_id)
             .where(GameSeat.game_id == bindparam("c_game")).order_by(GameSeat.seat))
#: The chain format of a season: its season entry's text begins ``{"chain":N,`` (keys sorted) from format 2.
_FORMAT_PREFIX = select(func.substr(ChainEntry.entry, 1, 16)).where(ChainEntry.season_id == bindparam("c_season"),
                                                                   ChainEntry.seq == 0)
_GAME_STATUSES = (select(Game.status, func.count()).where(Game.season_id == bindparam("c_season"))
                  .group_by(Game.status))
_REPLAY_BLOB = select(Replay.record).where(Replay.game_id == bindparam("c_game"))
_ADD = insert(ChainEntry)
_SEASON_FIELDS = (Season.name, Season.game, Season.params, Season.time_control, Season.commitment,
                  Season.chance_scheme, Season.chain_head, Season.chain_length, Season.status, Season.config)
_SET_HEAD = (update(Season).where(Season.id == bindparam("c_season"))
             .values(chain_head=bindparam("c_head"), chain_length=bindparam("c_length")))
#: PostgreSQL: an entry added (:func:`link`'s parameters), as a data-modifying WITH of another statement
_ADD_ENTRY = insert(ChainEntry).values(
    season_id=bindparam("c_season"), seq=bindparam("c_seq"), kind=bindparam("c_kind"), number=bindparam("c_number"),
    entry=bindparam("c_entry"), hash=bindparam("c_hash")).cte("added_entry")
#: PostgreSQL: the entry added and the head moved in one statement, one round trip
_ADD_AND_SET_HEAD = _SET_HEAD.add_cte(_ADD_ENTRY)


def with_entry(statement: Any) -> Any:
    """PostgreSQL: ``statement`` (an INSERT, UPDATE or DELETE of other tables) that also appends a chain entry and
    moves the season's head, in one round trip: executed with :func:`link`'s parameters besides its own."""
    return statement.add_cte(_ADD_ENTRY, _SET_HEAD.cte("moved_head"))


def link(season: ChainHolder, linker: Linker, entry: Mapping[str, Any], number: int | None = None) -> dict[str, Any]:
    """The parameters that append ``entry`` to the locked season's chain (``c_*``, of :func:`with_entry`'s
    statements), the season's head moved to it: the caller executes them in the same transaction."""
    text = entry_text(entry)
    head = linker.chain_link(season.chain_head or GENESIS, text)
    seq = season.chain_length
    season.chain_head, season.chain_length = head, seq + 1
    return {"c_season": season.id, "c_seq": seq, "c_kind": entry["kind"], "c_number": number, "c_entry": text,
            "c_hash": head, "c_head": head, "c_length": seq + 1}


def chain_format(conn: Connection, season_id: int) -> int:
    """The format of the season's chain (1: before :data:`VERSION` 2, or no chain yet)."""
    prefix = conn.scalar(_FORMAT_PREFIX, {"c_season": season_id}) or ""
    match = re.match(r'\{"chain":(\d+),', prefix)
    return int(match.group(1)) if match else 1


def game_entry(conn: Connection, game_id: int, digest: str | None | bool = True,
               version: int = VERSION) -> tuple[int, dict[str, Any]]:
    """``(number, entry)`` of a game from its rows as they are in ``conn``'s transaction. ``digest``: the
    replay's SHA-256 when the caller has it, None when it has no replay, True to read it; ``version``: the
    chain's format (format 1 has no ``bots`` and ``served``)."""
    game = conn.execute(_GAME_ROW, {"c_game": game_id}).one()
    if digest is True:
        digest = replay_digest(conn.scalar(_REPLAY_BLOB, {"c_game": game_id}))
    attempts = [[a, None if o is None else str(o), d] for a, o, d in conn.execute(_ATTEMPT_ROWS, {"c_game": game_id})]
    seats = [[bot, place, score, change, faults, None if retired is None else bool(retired)]
             for bot, place, score, change, faults, retired in conn.execute(_SEAT_ROWS, {"c_game": game_id})]
    entry = {"kind": "game", "number": game.number, "status": str(game.status), "reason": game.reason,
             "detail": game.detail, "attempts": attempts, "seats": seats, "replay": digest}
    if version >= 2:
        who = conn.execute(_SEAT_WHO, {"c_game": game_id}).all()
        entry["bots"] = [[name, seat_version] for name, seat_version, _, _ in who]
        entry["served"] = [[endpoint_digest(endpoint), author] for _, _, endpoint, author in who]
    return game.number, entry


def endpoint_digest(endpoint: str) -> str:
    """SHA-256 (hex) of a bot's endpoint, as a game entry chains it: the chain's entries are public once a season
    is over, and an endpoint is not (a bot's address is kept from the other bots)."""
    return hashlib.sha256(endpoint.encode()).hexdigest()


def ratings_entry(games: int, points: Sequence[tuple[int, int, float, float]]) -> dict[str, Any]:
    """The entry of a ladder's rating snapshot after ``games`` rated games: ``(entrant id, its games, rating,
    sd)`` of each entrant written (``store.ladders.Ladders.add_rating_points``)."""
    return {"kind": "ratings", "games": games, "points": [[e, p, r, sd] for e, p, r, sd in points]}


def close_entry(conn: Connection, season_id: int) -> dict[str, Any]:
    """The ``close`` entry of a finished season: its number of games and games per status."""
    statuses = {str(status): n for status, n in conn.execute(_GAME_STATUSES, {"c_season": season_id})}
    return {"kind": "close", "games": sum(statuses.values()), "statuses": dict(sorted(statuses.items()))}


def close_if_finished(conn: Connection, season: ChainHolder, linker: Linker, status: Any,
                      config: Mapping[str, Any] | None) -> bool:
    """Append the ``close`` entry to a season of chain format 2 that just finished (:func:`finished`);
    True if it was appended. Called in the transaction that finishes it: the last game made final, the
    sequential season stopped, the ladder epoch closed."""
    if not finished(status, config, linker) or chain_format(conn, season.id) < 2:
        return False
    append(conn, season, linker, close_entry(conn, season.id))
    return True


def append(conn: Connection, season: ChainHolder, linker: Linker, entry: Mapping[str, Any],
           number: int | None = None) -> str:
    """Append ``entry`` to the locked season's chain in ``conn``'s transaction; returns the new head."""
    at = link(season, linker, entry, number)
    if conn.dialect.name == "postgresql":
        conn.execute(_ADD_AND_SET_HEAD, at)
    else:
        conn.execute(_ADD, {"season_id": at["c_season"], "seq": at["c_seq"], "kind": at["c_kind"],
                            "number": number, "entry": at["c_entry"], "hash": at["c_hash"]})
        conn.execute(_SET_HEAD, at)
    return at["c_head"]


def append_games(conn: Connection, season: ChainHolder, linker: Linker, game_ids: Iterable[int],
                 digest: str | None | bool = True) -> None:
    """Append the entries of games that just became final, in the order given."""
    ids = list(game_ids)
    version = chain_format(conn, season.id) if ids else VERSION
    for game_id in ids:
        number, entry = game_entry(conn, game_id, digest, version)
        append(conn, season, linker, entry, number)


class ChainReads:
    """A season's chain over one :class:`~store.session.Database`; ``linker`` recomputes the links."""

    def __init__(self, db: Database, linker: Linker) -> None:
        self._db = db
        self._linker = linker

    def chain_head(self, season_id: int) -> ChainHead:
        """The season's chain head and length (``ChainHead(None, 0)`` for an unknown season)."""
        with self._db.read_rows() as conn:
            row = conn.execute(select(Season.chain_head, Season.chain_length).where(Season.id == season_id)).one_or_none()
        return ChainHead(None, 0) if row is None else ChainHead(row.chain_head, row.chain_length)

    def entries(self, season_id: int) -> list[Entry]:
        """The season's chain entries in order (``league.integrity.chain.Entry``): public once it is over,
        for ``season verify --api`` (``/api/v1/seasons/{id}/verification``)."""
        with self._db.read_rows() as conn:
            return [Entry(r.seq, r.kind, r.number, r.entry, r.hash) for r in conn.execute(
                select(ChainEntry.seq, ChainEntry.kind, ChainEntry.number, ChainEntry.entry, ChainEntry.hash)
                .where(ChainEntry.season_id == season_id).order_by(ChainEntry.seq))]

    def identities(self, season_id: int) -> dict[int, list[list[str | None]]]:
        """``{game number: [[bot name, seat version] per seat]}`` of the season's games as stored now: what a
        game entry of chain format 2 chains as ``bots``."""
        out: dict[int, list[list[str | None]]] = {}
        with self._db.read_rows() as conn:
            for number, name, version in conn.execute(
                    select(Game.number, Bot.name, GameSeat.version).join(GameSeat, GameSeat.game_id == Game.id)
                    .join(Bot, Bot.id == GameSeat.bot_id).where(Game.season_id == season_id)
                    .order_by(Game.number, GameSeat.seat)):
                out.setdefault(number, []).append([name, version])
        return out

    def audit(self, season_id: int, heads: Sequence[str] = ()) -> ChainAudit:
        """Check the season's chain (module docstring) against its rows as they are now and against
        ``heads`` (hashes of this chain seen before: each must be the hash of one of its entries);
        the checks are ``league.integrity.chain.check_chain``'s, which ``season verify --api`` runs too."""
        with self._db.read_rows() as conn:
            season = dict(conn.execute(select(*_SEASON_FIELDS).where(Season.id == season_id)).one()._mapping)
            rows = conn.execute(select(ChainEntry.seq, ChainEntry.kind, ChainEntry.number, ChainEntry.entry,
                                       ChainEntry.hash).where(ChainEntry.season_id == season_id)
                                .order_by(ChainEntry.seq)).all()
            entries = [Entry(r.seq, r.kind, r.number, r.entry, r.hash) for r in rows]
            games = {gid: (number, status) for gid, number, status in conn.execute(
                select(Game.id, Game.number, Game.status).where(Game.season_id == season_id))}
            seats: dict[int, list[int]] = {}
            groups = dict(conn.execute(select(Game.number, Game.deal_group).where(Game.season_id == season_id)).all())
            for number, bot in conn.execute(select(Game.number, GameSeat.bot_id).join(GameSeat, GameSeat.game_id == Game.id)
                                            .where(Game.season_id == season_id).order_by(Game.number, GameSeat.seat)):
                seats.setdefault(number, []).append(bot)
            version = self._linker.chain_format(entries)
            rebuilt = {number: game_entry(conn, gid, True, version)[1] for gid, (number, status) in games.items()
                       if GameStatus(status) in FINAL}
            close, done = close_entry(conn, season_id), finished(season["status"], season["config"], self._linker)
        problems, seen, note = self._linker.check_chain(entries, season, rebuilt, seats, groups, close, done,
                                                        (season["chain_head"], season["chain_length"]), heads)
        return ChainAudit(season["chain_head"], season["chain_length"], problems, seen, note)
