"""A bot's revision (``bots.revision``): one more at every update of its row.

A ladder's runner keeps the ladder's entrants between refills and reads them again only when a bot changed (a new
bot, a version declared, a game registered, a retirement, a capacity). Reading every bot at every refill to find out
cost more than the rest of the refill's reads; the count of bots and the sum of their revisions tell it in one row
(``store.ladders.Ladders.refill_view``). Rows from before start at 0.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("bots", sa.Column("revision", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    # plain DROP COLUMN (SQLite >= 3.35): a batch copy of "bots" would drop the table its seats refer to
    op.drop_column("bots", "revision")
