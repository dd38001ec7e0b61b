"""Opaque game ids: ``games.token``, the id a game's bots are sent, with a unique index.

The id a bot is sent with every Act was ``<season id>/<number>``, which told it where it stood in
the schedule (in a duplicate season, the deal group and the rotation). A game's id is now keyed
from its season's key (``league.integrity.fairness.game_token``), written with the game; the
dashboard finds a final game by it.

Games stored before this revision keep NULL: their bots were sent ``<season id>/<number>``, which
their replays hold, and the worker sends that id again to a game of theirs still to be played
(the store cannot derive a keyed id: it never imports the league).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMN (not batch mode, which may rebuild the table on SQLite)
    op.add_column("games", sa.Column("token", sa.String(length=32), nullable=True))
    op.create_index("ix_games_token", "games", ["token"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_games_token", table_name="games")
    op.drop_column("games", "token")
