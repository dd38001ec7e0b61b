"""Provably fair deals: a season key with its commitment, and deal groups.

``seasons.deal_key`` (the secret key, hex), ``seasons.commitment`` (its SHA-256,
public), ``seasons.reproducible`` (the key came from the organiser's seed; a secret
season stores seed 0). ``games.deal_group``: the games sharing a deal (the rotation
group in a duplicate season, else the game itself), with an index to find a group's
open games.

Only columns and an index are added: SQLite would rebuild a table to change a
column, and dropping ``seasons`` or ``games`` for the rebuild would cascade to
every game, seat and replay. So ``deal_group`` stays NULL-able (the store always
writes it; NULL would be a group of its own).

Seasons stored before this revision drew their game seeds from a public seed: they
get no key and no commitment and are marked reproducible; their games are each
their own deal group (they are not sealed).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMN (not batch mode, which may rebuild the table on SQLite)
    op.add_column("seasons", sa.Column("deal_key", sa.String(length=64), nullable=True))
    op.add_column("seasons", sa.Column("commitment", sa.String(length=64), nullable=True))
    op.add_column("seasons", sa.Column("reproducible", sa.Boolean(), server_default=sa.text("false"), nullable=False))
    op.execute("UPDATE seasons SET reproducible = true")
    op.add_column("games", sa.Column("deal_group", sa.Integer(), nullable=True))
    op.execute("UPDATE games SET deal_group = number")
    op.create_index("ix_games_season_id_deal_group_status", "games", ["season_id", "deal_group", "status"])


def downgrade() -> None:
    op.drop_index("ix_games_season_id_deal_group_status", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("deal_group")
    with op.batch_alter_table("seasons") as batch:
        batch.drop_column("reproducible")
        batch.drop_column("commitment")
        batch.drop_column("deal_key")
