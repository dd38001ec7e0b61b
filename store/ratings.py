"""The season's stored ratings: written in the transaction that makes a game final, rated by the league.

The store keeps a checkpoint (``seasons.rated_through``, ``ratings.base_elo`` and
``base_games``): games up to it are final (done or failed, never re-run), so only
the published games after it are handed to the league's :meth:`LeaguePolicy.rate`
(``store.policy``) with the checkpoint ratings. Cost: the games after the
checkpoint, about the games in flight.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session, aliased

from store.models import Game, GameSeat, Rating, Season
from store.policy import LeaguePolicy, Rated
from store.sealing import OPEN, published


def rewrite_ratings(s: Session, season: Season, now: datetime, policy: LeaguePolicy) -> None:
    """Make the season's ratings equal to the league's rating over all its published games
    (done and not sealed: ``store.sealing``) in schedule order, in the caller's transaction
    (which holds the season's lock).

    The checkpoint then moves to just before the first game of a deal group with a
    game still pending or running (every sealed game is after it).
    """
    open_groups = aliased(Game)  # a sealed game's result waits for its deal group (store.sealing)
    first_open = s.scalar(select(func.min(Game.number)).where(
        Game.season_id == season.id, Game.status.in_(OPEN) | Game.deal_group.in_(select(open_groups.deal_group).where(
            open_groups.season_id == season.id, open_groups.status.in_(OPEN)))))
    if first_open is None:
        first_open = (s.scalar(select(func.max(Game.number)).where(Game.season_id == season.id)) or 0) + 1
    old = season.rated_through
    base: dict[int, Rated] = {bot: (elo, n) for bot, elo, n in s.execute(
        select(Rating.bot_id, Rating.base_elo, Rating.base_games)
        .where(Rating.season_id == season.id, Rating.base_games > 0))}
    rows = s.execute(
        select(Game.number, GameSeat.bot_id, GameSeat.place)
        .join(GameSeat, GameSeat.game_id == Game.id)
        .where(Game.season_id == season.id, published(season_id=season.id), Game.number > old)
        .order_by(Game.number, GameSeat.seat)
    ).all()
    games: list[tuple[int, list[int], list[int]]] = []
    for number, bot, place in rows:
        if not games or games[-1][0] != number:
            games.append((number, [], []))
        games[-1][1].append(bot)
        games[-1][2].append(cast(int, place))  # set for every seat of a done game
    current, checkpoint = policy.rate(base, games, first_open)
    s.execute(delete(Rating).where(Rating.season_id == season.id))
    if current:
        s.execute(insert(Rating), [
            {"season_id": season.id, "bot_id": bot, "elo": elo, "games": n, "updated_at": now,
             "base_elo": checkpoint[bot][0], "base_games": checkpoint[bot][1]}
            for bot, (elo, n) in sorted(current.items())
        ])
    season.rated_through = max(old, first_open - 1)


def stored_ratings(s: Session, season_id: int) -> dict[int, float]:
    """The season's stored Elo ratings ``{bot_id: elo}`` (bots with a rated game)."""
    return dict(s.execute(select(Rating.bot_id, Rating.elo).where(Rating.season_id == season_id)).all())
