"""Sealed games: a deal is not shown while another game with the same cards is still to be played.

The games of a deal group (``games.deal_group``: the rotations of one table in a
duplicate season; every other game is a group of its own) share one deal seed. A
game is *sealed* while another game of its group is pending or running: its
replay, live events, seat results and seed are withheld (the dashboard says
"sealed until its duplicate group is played"), since they would show the cards
of a game still to be played. Its result is not counted in the standings, ratings,
head-to-head or per-bot statistics either (:func:`published`), so that they do not
change, game by game, with the results of a sealed group. Outside duplicate
seasons nothing is ever sealed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, case, exists, func, select, tuple_
from sqlalchemy.orm import aliased

from store.models import Game, GameStatus

#: Statuses of a game whose cards are still to be played.
OPEN = (GameStatus.PENDING, GameStatus.RUNNING)
#: What the pages and the API say of a sealed game.
SEALED_MESSAGE = "sealed until its duplicate group is played"


def sealed(game: Any = Game) -> ColumnElement[bool]:
    """SQL: true for a row of ``game`` (the ``Game`` entity or an alias of it) while another
    game of its deal group is pending or running (one probe of ``ix_games_season_id_deal_group_status``)."""
    other = aliased(Game)
    return exists().where(other.season_id == game.season_id, other.deal_group == game.deal_group,
                          other.id != game.id, other.status.in_(OPEN))


def sealed_groups(season_id: int | None = None) -> Select[Any]:
    """SQL: ``(season_id, deal_group)`` of the groups (of one season, or all) with a game still
    to be played and a game already final: the groups whose final games are sealed. A few in
    flight at a time; computed once per statement (not per row, as :func:`sealed` is). It reads
    only the games still to be played (``ix_games_status_lease_expires_at``) and probes each one's
    group for a final game (``ix_games_season_id_deal_group_status``), so its cost follows the games
    in flight, not the games stored: grouping every stored game instead made each per-bot aggregate
    of a ladder of 200,000 games take about 0.6 s."""
    g, final = aliased(Game), aliased(Game)
    q = (select(g.season_id, g.deal_group).distinct()
         .where(g.deal_group.is_not(None), g.status.in_(OPEN),
                exists().where(final.season_id == g.season_id, final.deal_group == g.deal_group,
                               final.status.not_in(OPEN))))
    return q.where(g.season_id == season_id) if season_id is not None else q


def published(game: Any = Game, season_id: int | None = None) -> ColumnElement[bool]:
    """SQL: a done game that is not sealed: its result counts in standings, ratings, head-to-head
    and per-bot statistics (a sealed game's result joins them when its group's last game is stored).
    ``season_id``: the query reads only that season's games (a smaller :func:`sealed_groups`)."""
    return (game.status == GameStatus.DONE) & (
        game.deal_group.is_(None) | tuple_(game.season_id, game.deal_group).not_in(sealed_groups(season_id)))
