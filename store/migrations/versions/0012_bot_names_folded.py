"""Bot names unique whatever their case: a unique index on ``lower(bots.name)``.

``odds-1`` and ``ODDS-1`` would stand side by side in the standings as two bots that read alike,
so a name is taken in every case (``league.names``). The store compares names case-folded before
it registers one; this index closes the race of two registrations at once.

A store that already holds two names equal but for case keeps them: the index is then not
created (a warning names them), and the store's own check still refuses a third.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_bots_name_folded"


def upgrade() -> None:
    clashes = op.get_bind().execute(sa.text(
        "SELECT lower(name) FROM bots GROUP BY lower(name) HAVING count(*) > 1")).scalars().all()
    if clashes:
        logging.getLogger("alembic").warning(
            "bot names equal but for case: %s; the index %s is not created (new names are still refused in "
            "any case)", ", ".join(sorted(clashes)), INDEX)
        return
    op.create_index(INDEX, "bots", [sa.text("lower(name)")], unique=True)


def downgrade() -> None:
    op.execute(sa.text(f"DROP INDEX IF EXISTS {INDEX}"))
