"""Ladders: always-on competitions played in epochs, their entrants and their rating history.

``ladders`` holds each ladder (game, parameters, time control, settings) and the
ratings fit's checkpoint (``fit_checkpoint``, ``fit_through``) kept for the
incremental refit. An epoch of a ladder is a season (``seasons.ladder_id``,
``seasons.epoch``, unique together), with its own key, commitment and chain, so
claims, workers, sealing, audit and verification are the seasons' own.
``ladder_entrants`` holds one row per bot version entered (rules §5.2);
``ladder_ratings`` each entrant's rating snapshots (its history).

``seasons.ladder_id`` has no foreign key constraint: SQLite cannot add one to an
existing table without copying it, and a batch copy of ``seasons`` would cascade
to its games through their foreign keys. The store writes it only with a ladder's id.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ladders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("time_control", sa.JSON(), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), server_default=sa.text("'open'"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("fit_checkpoint", sa.Text(), nullable=True),
        sa.Column("fit_through", sa.Integer(), server_default=sa.text("-1"), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladders")),
        sa.UniqueConstraint("name", name=op.f("uq_ladders_name")),
    )
    op.create_table(
        "ladder_entrants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.String(length=64), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("superseded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_ladder_entrants_bot_id_bots")),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"], name=op.f("fk_ladder_entrants_ladder_id_ladders"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_entrants")),
        sa.UniqueConstraint("ladder_id", "bot_id", "version", name=op.f("uq_ladder_entrants_ladder_id_bot_id_version")),
    )
    op.create_table(
        "ladder_ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("entrant_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("sd", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["entrant_id"], ["ladder_entrants.id"],
                                name=op.f("fk_ladder_ratings_entrant_id_ladder_entrants"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"], name=op.f("fk_ladder_ratings_ladder_id_ladders"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_ratings")),
        sa.UniqueConstraint("entrant_id", "games", name=op.f("uq_ladder_ratings_entrant_id_games")),
    )
    op.create_index(op.f("ix_ladder_ratings_ladder_id"), "ladder_ratings", ["ladder_id"], unique=False)
    op.add_column("seasons", sa.Column("ladder_id", sa.Integer(), nullable=True))
    op.add_column("seasons", sa.Column("epoch", sa.Integer(), nullable=True))
    op.create_index("ix_seasons_ladder_id_epoch", "seasons", ["ladder_id", "epoch"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_seasons_ladder_id_epoch", table_name="seasons")
    op.execute("DELETE FROM seasons WHERE ladder_id IS NOT NULL")
    op.drop_column("seasons", "epoch")
    op.drop_column("seasons", "ladder_id")
    op.drop_index(op.f("ix_ladder_ratings_ladder_id"), table_name="ladder_ratings")
    op.drop_table("ladder_ratings")
    op.drop_table("ladder_entrants")
    op.drop_table("ladders")
