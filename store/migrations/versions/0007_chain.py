"""Tamper-evident seasons: a chain of every stored record, and the chance scheme fixed at creation.

``chain_entries`` holds each season's chain (``store.chain``): one entry per stored
record (the season and its schedule, games added, each game that became final),
each hashed with the previous entry's hash. ``seasons.chain_head`` and
``seasons.chain_length`` are the last hash and the number of entries, shown live.
``seasons.chance_scheme`` is the chance scheme the season's games are dealt with,
covered by its commitment (``league.integrity.fairness.commitment``); NULL for seasons
created before (their commitment covers the key alone). Existing seasons start
with an empty chain: only records stored from now on are chained.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("seasons", sa.Column("chance_scheme", sa.String(length=32), nullable=True))
    op.add_column("seasons", sa.Column("chain_head", sa.String(length=64), nullable=True))
    op.add_column("seasons", sa.Column("chain_length", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.create_table(
        "chain_entries",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=True),
        sa.Column("entry", sa.Text(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["season_id"], ["seasons.id"], name=op.f("fk_chain_entries_season_id_seasons"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("season_id", "seq", name=op.f("pk_chain_entries")),
    )


def downgrade() -> None:
    op.drop_table("chain_entries")
    op.drop_column("seasons", "chain_length")
    op.drop_column("seasons", "chain_head")
    op.drop_column("seasons", "chance_scheme")
