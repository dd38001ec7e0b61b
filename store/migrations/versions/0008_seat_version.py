"""Versions per game and the identity an endpoint declared.

``game_seats.version`` records the version each seat's bot had when the game
was claimed, so a later ``bot update --version`` (or a new version declared by
Describe) relabels no past game. Seats stored before this migration keep NULL,
shown as "unknown": the bot's version at migration time would be a guess, and
exactly the relabelling this column ends.

``bots.described_name`` / ``described_version`` / ``described_capacity``: the
name, version and capacity the endpoint's Describe declared
(``workers.identity``). NULL for bots registered before; the first check after
the migration records what the endpoint answers.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("game_seats", sa.Column("version", sa.String(64), nullable=True))
    op.add_column("bots", sa.Column("described_name", sa.String(64), nullable=True))
    op.add_column("bots", sa.Column("described_version", sa.String(64), nullable=True))
    op.add_column("bots", sa.Column("described_capacity", sa.Integer(), nullable=True))


def downgrade() -> None:
    # Plain DROP COLUMN (SQLite >= 3.35): a batch table copy of "bots" would drop the old
    # table, and with foreign keys on that cascades to its seats.
    op.drop_column("bots", "described_capacity")
    op.drop_column("bots", "described_version")
    op.drop_column("bots", "described_name")
    op.drop_column("game_seats", "version")
