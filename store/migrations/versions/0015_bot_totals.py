"""Per-bot totals of finished seasons: ``folded_seasons``, ``bot_totals``, ``bot_season_totals``,
``bot_opponent_totals``.

A bot's page and API read its results by seat, by version, by season and against each opponent. At a million games
(a ladder of 1,000 epochs) that was five aggregates over some 40,000 seats each, 1.0 to 1.8 s. A finished season
never changes (it takes no new game, ``store.chain.finished``), so its per-bot results are folded once into these
tables (``store.reads.totals``), and a page sums those rows and reads only the seasons not finished yet. The tables
start empty: the first read folds every finished season.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table("folded_seasons",
                    sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.id", ondelete="CASCADE"),
                              primary_key=True))
    op.create_table("bot_totals",
                    sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id", ondelete="CASCADE"), primary_key=True),
                    sa.Column("game", sa.String(64), primary_key=True),
                    sa.Column("seat", sa.Integer, primary_key=True),
                    sa.Column("version", sa.String(64), primary_key=True),
                    *(sa.Column(c, sa.BigInteger, nullable=False)
                      for c in ("games", "place_sum", "change_sum", "wins", "faults", "first_game")))
    op.create_table("bot_season_totals",
                    sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id", ondelete="CASCADE"), primary_key=True),
                    sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.id", ondelete="CASCADE"),
                              primary_key=True),
                    sa.Column("games", sa.BigInteger, nullable=False))
    op.create_table("bot_opponent_totals",
                    sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id", ondelete="CASCADE"), primary_key=True),
                    sa.Column("opponent_id", sa.Integer, sa.ForeignKey("bots.id", ondelete="CASCADE"),
                              primary_key=True),
                    *(sa.Column(c, sa.BigInteger, nullable=False) for c in ("games", "wins", "draws")))


def downgrade() -> None:
    for table in ("bot_opponent_totals", "bot_season_totals", "bot_totals", "folded_seasons"):
        op.drop_table(table)
