"""The season's stored ratings: written in the transaction that makes a game final, rated by the league.

The store keeps a checkpoint (``seasons.rated_through``, ``ratings.base_elo`` and
``base_games``): games up to it are final (done, failed or not played, never re-run),
so only the published games after it are handed to the league's
:meth:`LeaguePolicy.rate` (``store.policy``) with the checkpoint ratings.

Invariant: every game numbered up to the checkpoint is final, and no game of a deal
group with a game still pending or running is numbered up to it. It holds because
the checkpoint only moves to just before the first such group's first game (below,
in the season's lock); a final game never runs again; and games are only ever added
after the season's last one, in deal groups of their own (``Seasons.extend_season``
refuses a group the season already has). So the first game of an open group is
either the first open game or a sealed game between the checkpoint and it, and
every query here reads the games after the checkpoint (about the games in flight)
or probes an index, never the whole season: a finish costs the same at any season size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from store.models import Game, GameSeat, GameStatus, Rating, Season
from store.policy import LeaguePolicy, Rated
from store.sealing import sealed

# The statements of a rewrite, built once (a rewrite runs in every transaction that makes a game final).
#: The season's first pending and first running game and its last game: index probes
#: (``ix_games_season_id_status_number``, ``uq_games_season_id_number``).
_BOUNDS = select(
    select(func.min(Game.number))
    .where(Game.season_id == bindparam("season_id"), Game.status == GameStatus.PENDING).scalar_subquery(),
    select(func.min(Game.number))
    .where(Game.season_id == bindparam("season_id"), Game.status == GameStatus.RUNNING).scalar_subquery(),
    select(func.max(Game.number)).where(Game.season_id == bindparam("season_id")).scalar_subquery(),
)
#: The first game after the checkpoint and before the first open game that is sealed (in a deal group
#: with a game still to be played): one probe of ``ix_games_season_id_deal_group_status`` per game.
_FIRST_SEALED = select(func.min(Game.number)).where(
    Game.season_id == bindparam("season_id"), Game.number > bindparam("after"), Game.number < bindparam("before"),
    sealed(Game))
_STORED = select(Rating.bot_id, Rating.base_elo, Rating.base_games).where(Rating.season_id == bindparam("season_id"))
#: ``(id, number, sealed)`` of the done games after the checkpoint, in schedule order: a range of
#: ``ix_games_season_id_status_number``. A done game is published (``store.sealing.published``) unless
#: sealed (another game of its deal group is still to be played): one index probe per row.
_DONE_AFTER = (select(Game.id, Game.number, sealed(Game))
               .where(Game.season_id == bindparam("season_id"), Game.status == GameStatus.DONE,
                      Game.number > bindparam("after"))
               .order_by(Game.number))
#: ``(game id, bot, place)`` of the given games' seats, by primary key. Read apart from ``_DONE_AFTER``
#: rather than joined to it: a planner that expects the done games after the checkpoint to be a good
#: part of the season (PostgreSQL, from its column statistics) reads every seat of the season to join.
_SEATS = (select(GameSeat.game_id, GameSeat.bot_id, GameSeat.place)
          .where(GameSeat.game_id.in_(bindparam("game_ids", expanding=True)))
          .order_by(GameSeat.game_id, GameSeat.seat))
_VALUES = {"elo": bindparam("r_elo"), "games": bindparam("r_games"), "base_elo": bindparam("r_base_elo"),
           "base_games": bindparam("r_base_games"), "updated_at": bindparam("r_now")}
_UPDATE = (update(Rating).where(Rating.season_id == bindparam("r_season"), Rating.bot_id == bindparam("r_bot"))
           .values(_VALUES))
_INSERT = insert(Rating).values(season_id=bindparam("r_season"), bot_id=bindparam("r_bot"), **_VALUES)
_DELETE = delete(Rating).where(Rating.season_id == bindparam("r_season"), Rating.bot_id == bindparam("r_bot"))
_CHECKPOINT = update(Season).where(Season.id == bindparam("season_id")).values(rated_through=bindparam("checkpoint"))


@dataclass(frozen=True)
class Rewrite:
    """What :func:`rewrite_ratings` left: the season's checkpoint (``seasons.rated_through``) and
    whether a game of the season is still pending or running (False: the season is played out)."""

    rated_through: int
    open_games: bool


def rewrite_ratings(conn: Connection, season_id: int, rated_through: int, now: datetime,
                    policy: LeaguePolicy) -> Rewrite:
    """Make the season's ratings equal to the league's rating over all its published games
    (done and not sealed: ``store.sealing``) in schedule order, in the caller's transaction
    (which holds the season's lock); ``rated_through`` is the season's checkpoint as stored.

    The checkpoint then moves to just before the first game of a deal group with a
    game still pending or running (every sealed game is after it).
    """
    first_pending, first_running, last = conn.execute(_BOUNDS, {"season_id": season_id}).one()
    first_open = min((n for n in (first_pending, first_running) if n is not None), default=None)
    if first_open is None:  # nothing left to play: nothing is sealed
        first_open = (last if last is not None else -1) + 1
    elif first_open > rated_through + 1:  # a final game between the checkpoint and it may be sealed
        sealed_first = conn.scalar(_FIRST_SEALED, {"season_id": season_id, "after": rated_through,
                                                  "before": first_open})
        first_open = sealed_first if sealed_first is not None else first_open
    stored = conn.execute(_STORED, {"season_id": season_id}).all()
    base: dict[int, Rated] = {bot: (elo, n) for bot, elo, n in stored if n > 0}
    published = [(game_id, number) for game_id, number, is_sealed
                 in conn.execute(_DONE_AFTER, {"season_id": season_id, "after": rated_through}) if not is_sealed]
    games: dict[int, tuple[int, list[int], list[int]]] = {game_id: (number, [], []) for game_id, number in published}
    if games:
        for game_id, bot, place in conn.execute(_SEATS, {"game_ids": list(games)}):
            games[game_id][1].append(bot)
            games[game_id][2].append(cast(int, place))  # set for every seat of a done game
    current, checkpoint = policy.rate(base, list(games.values()), first_open)  # in schedule order
    _store_ratings(conn, season_id, {bot for bot, _, _ in stored}, current, checkpoint, now)
    if first_open - 1 > rated_through:
        rated_through = first_open - 1
        conn.execute(_CHECKPOINT, {"season_id": season_id, "checkpoint": rated_through})
    return Rewrite(rated_through, first_pending is not None or first_running is not None)


def _store_ratings(conn: Connection, season_id: int, stored: set[int], current: dict[int, Rated],
                   checkpoint: dict[int, Rated], now: datetime) -> None:
    """The season's rating rows become exactly ``current`` (with the ``checkpoint`` ratings as base):
    the bots' rows updated in place, rows added for new bots, rows of bots no longer rated removed."""
    rows = [{"r_season": season_id, "r_bot": bot, "r_elo": elo, "r_games": n, "r_now": now,
             "r_base_elo": checkpoint[bot][0], "r_base_games": checkpoint[bot][1]}
            for bot, (elo, n) in sorted(current.items())]
    if known := [row for row in rows if row["r_bot"] in stored]:
        conn.execute(_UPDATE, known)
    if new := [row for row in rows if row["r_bot"] not in stored]:
        conn.execute(_INSERT, new)
    if gone := sorted(stored - set(current)):
        conn.execute(_DELETE, [{"r_season": season_id, "r_bot": bot} for bot in gone])


def stored_ratings(s: Session, season_id: int) -> dict[int, float]:
    """The season's stored Elo ratings ``{bot_id: elo}`` (bots with a rated game)."""
    return dict(s.execute(select(Rating.bot_id, Rating.elo).where(Rating.season_id == season_id)).all())
