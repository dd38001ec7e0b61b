"""Bots that are down: games deferred at game start, bots suspended from a season.

``games.deferrals`` counts how often a game was put off because a bot of its
table did not answer its health check at game start (not an attempt);
``season_bot_status`` records, per season and bot, since when the bot has not
answered and when it was suspended; the game status ``not_played`` marks the
games a suspended bot's table could not play (shown, never rated).

The status CHECK constraint gains ``not_played``. PostgreSQL replaces the
constraint. SQLite cannot alter a constraint, and a batch copy of ``games``
would drop the table (with foreign keys on, that cascades to its seats,
attempts and replays), so the constraint's text is widened in place in the
schema: the change only admits one more value, which no stored row can
violate (SQLite's documented way for changes that leave the stored rows
valid). Downgrade turns ``not_played`` games back into pending ones.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD = ("pending", "running", "done", "failed")
_NEW = (*_OLD, "not_played")
_CONSTRAINT = "ck_games_game_status"


def _in_list(values: Sequence[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def _set_status_values(old: Sequence[str], new: Sequence[str]) -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        before, after = f"status IN ({_in_list(old)})", f"status IN ({_in_list(new)})"
        sql = bind.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'games'").scalar_one()
        if before not in sql:
            raise RuntimeError(f"games.status constraint not as expected: {sql}")
        version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
        bind.exec_driver_sql("PRAGMA writable_schema = ON")
        bind.exec_driver_sql("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'games'",
                             (sql.replace(before, after),))
        bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
        bind.exec_driver_sql("PRAGMA writable_schema = OFF")
    else:
        op.drop_constraint(op.f(_CONSTRAINT), "games", type_="check")
        op.create_check_constraint(op.f(_CONSTRAINT), "games", f"status IN ({_in_list(new)})")


def upgrade() -> None:
    op.add_column("games", sa.Column("deferrals", sa.Integer(), server_default=sa.text("0"), nullable=False))
    op.create_table(
        "season_bot_status",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("unavailable_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("suspended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_season_bot_status_bot_id_bots")),
        sa.ForeignKeyConstraint(["season_id"], ["seasons.id"], name=op.f("fk_season_bot_status_season_id_seasons"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("season_id", "bot_id", name=op.f("pk_season_bot_status")),
    )
    _set_status_values(_OLD, _NEW)


def downgrade() -> None:
    op.execute("UPDATE games SET status = 'pending', reason = NULL, detail = NULL WHERE status = 'not_played'")
    _set_status_values(_NEW, _OLD)
    op.drop_table("season_bot_status")
    op.drop_column("games", "deferrals")
