"""Ratings checkpoint: seasons.rated_through, ratings.base_elo/base_games; the games
status index also orders by number.

Recomputing a season's Elo from scratch after every result costs O(games) per
result, O(games^2) per season (measured: 70 ms per result at 3000 done games
on SQLite). With a checkpoint (the Elo after the longest prefix of the schedule
in which every game is final) a recompute replays only the games after it.
Existing rows get "no checkpoint" (-1), so the next result recomputes in full.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seasons") as batch:
        batch.add_column(sa.Column("rated_through", sa.Integer(), server_default=sa.text("-1"), nullable=False))
    # One column per batch: two in one SQLite batch can raise CircularDependencyError,
    # depending on the process's string hash order (a known Alembic batch-mode issue).
    with op.batch_alter_table("ratings") as batch:
        batch.add_column(sa.Column("base_elo", sa.Float(), server_default=sa.text("1500"), nullable=False))
    with op.batch_alter_table("ratings") as batch:
        batch.add_column(sa.Column("base_games", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.drop_index("ix_games_season_id_status", table_name="games")
    op.create_index("ix_games_season_id_status_number", "games", ["season_id", "status", "number"])


def downgrade() -> None:
    op.drop_index("ix_games_season_id_status_number", table_name="games")
    op.create_index("ix_games_season_id_status", "games", ["season_id", "status"])
    # Plain DROP COLUMN (SQLite >= 3.35): a batch table copy of "seasons" would
    # drop the old table, and with foreign keys on that cascades to its games.
    op.drop_column("ratings", "base_games")
    op.drop_column("ratings", "base_elo")
    op.drop_column("seasons", "rated_through")
