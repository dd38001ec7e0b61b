"""Provably fair deals: a season key with its commitment, and deal groups.

``seasons.deal_key`` (the secret key, hex), ``seasons.commitment`` (its SHA-256,
public), ``seasons.reproducible`` (the key came from the organiser's seed), and
``seasons.seed`` becomes NULL-able (a secret season has no seed).
``games.deal_group``: the games sharing a deal (the rotation group in a duplicate
season, else the game itself), with an index to find a group's open games.

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
    with op.batch_alter_table("seasons") as batch:
        batch.add_column(sa.Column("deal_key", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("commitment", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("reproducible", sa.Boolean(), server_default=sa.text("false"), nullable=False))
    with op.batch_alter_table("seasons") as batch:
        batch.alter_column("seed", existing_type=sa.BigInteger(), nullable=True)
    op.execute("UPDATE seasons SET reproducible = true")
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("deal_group", sa.Integer(), nullable=True))
    op.execute("UPDATE games SET deal_group = number")
    with op.batch_alter_table("games") as batch:
        batch.alter_column("deal_group", existing_type=sa.Integer(), nullable=False)
        batch.create_index("ix_games_season_id_deal_group_status", ["season_id", "deal_group", "status"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_season_id_deal_group_status")
        batch.drop_column("deal_group")
    op.execute("UPDATE seasons SET seed = 0 WHERE seed IS NULL")
    with op.batch_alter_table("seasons") as batch:
        batch.alter_column("seed", existing_type=sa.BigInteger(), nullable=False)
    with op.batch_alter_table("seasons") as batch:
        batch.drop_column("reproducible")
        batch.drop_column("commitment")
        batch.drop_column("deal_key")
