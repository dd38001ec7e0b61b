"""Version A/B tests on ladders: ``ladder_compares``.

One row per compare of two entrants of a ladder (rules §5.5, ``league.competition.compare``):
its settings (indifference zone, confidence, budget), its status and verdict, the
estimate with its interval, the games fed, whether it follows the candidate's next
versions, and the sequential test's state as JSON.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ladder_compares",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("base_entrant_id", sa.Integer(), nullable=False),
        sa.Column("candidate_entrant_id", sa.Integer(), nullable=False),
        sa.Column("delta", sa.Float(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("max_games", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), server_default=sa.text("'running'"), nullable=False),
        sa.Column("games", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("difference", sa.Float(), nullable=True),
        sa.Column("low", sa.Float(), nullable=True),
        sa.Column("high", sa.Float(), nullable=True),
        sa.Column("follow", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("after_game", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["base_entrant_id"], ["ladder_entrants.id"],
                                name=op.f("fk_ladder_compares_base_entrant_id_ladder_entrants"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["candidate_entrant_id"], ["ladder_entrants.id"],
                                name=op.f("fk_ladder_compares_candidate_entrant_id_ladder_entrants"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"], name=op.f("fk_ladder_compares_ladder_id_ladders"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_compares")),
    )
    op.create_index(op.f("ix_ladder_compares_ladder_id"), "ladder_compares", ["ladder_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_ladder_compares_ladder_id"), table_name="ladder_compares")
    op.drop_table("ladder_compares")
