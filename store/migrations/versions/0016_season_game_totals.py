"""A folded season's games by status (``season_game_totals``), and a bot's games of any status in one
(``bot_season_totals.seated``).

The season list (the home page, ``/api/v1/seasons``) shows every season's games per status. At a million games (a
ladder of 1,000 epochs) counting them took 0.4 s a page. A finished season never changes (``store.chain.finished``),
so its counts are kept when it is folded (``store.reads.totals``, beside the per-bot totals of migration 0015), and the
list counts only the seasons not folded. A bot's game list counted its ~40,000 games the same way; ``seated`` keeps
its games of any status per folded season (``games`` counts the done ones). The seasons folded already are counted
here once.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table("season_game_totals",
                    sa.Column("season_id", sa.Integer, sa.ForeignKey("seasons.id", ondelete="CASCADE"),
                              primary_key=True),
                    sa.Column("status", sa.String(16), primary_key=True),
                    sa.Column("cancelled", sa.Boolean, primary_key=True),
                    sa.Column("games", sa.BigInteger, nullable=False))
    op.execute("INSERT INTO season_game_totals (season_id, status, cancelled, games) "
               "SELECT g.season_id, g.status, CASE WHEN g.reason = 'cancelled' THEN true ELSE false END, count(*) "
               "FROM games g JOIN folded_seasons f ON f.season_id = g.season_id "
               "GROUP BY g.season_id, g.status, CASE WHEN g.reason = 'cancelled' THEN true ELSE false END")
    op.add_column("bot_season_totals", sa.Column("seated", sa.BigInteger, nullable=False, server_default="0"))
    op.execute("UPDATE bot_season_totals SET seated = agg.n FROM ("
               "SELECT s.bot_id, g.season_id, count(*) AS n FROM game_seats s JOIN games g ON g.id = s.game_id "
               "JOIN folded_seasons f ON f.season_id = g.season_id GROUP BY s.bot_id, g.season_id) AS agg "
               "WHERE agg.bot_id = bot_season_totals.bot_id AND agg.season_id = bot_season_totals.season_id")


def downgrade() -> None:
    with op.batch_alter_table("bot_season_totals") as batch:
        batch.drop_column("seated")
    op.drop_table("season_game_totals")
