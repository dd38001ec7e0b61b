"""A running game's public progress for spectators: ``games.live_record``.

JSON written by the worker's lease heartbeat while a game is played (the
public events and faults so far, ``referee.live.LiveView.snapshot``) and
cleared when the attempt ends (stored, voided or released). Nothing in it
is secret: hands, views, answers and chance outcomes are never written there.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("live_record", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("live_record")
