"""Hosted bots: ``artifacts``, ``hosted_builds``, ``bot_submissions`` and ``game_outputs``.

A hosted bot's code and its built Python environment are stored as content-addressed artifacts
(``artifacts``: the SHA-256 of a canonical tar, its Zstandard bytes, ``hosting.artifact``), so every
worker fetches one by its hash. ``hosted_builds`` fixes how a code artifact runs (its manifest, its
environment, the packages installed and the build log); ``bot_submissions`` lists each bot's
submissions (a hosted bot's endpoint is ``hosted:<sha256>`` and its version the hash);
``game_outputs`` keeps what a hosted bot wrote in each game, for its author.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "artifacts",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("unpacked_size", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_artifacts")),
    )
    op.create_table(
        "hosted_builds",
        sa.Column("code_sha256", sa.String(length=64), nullable=False),
        sa.Column("env_sha256", sa.String(length=64), nullable=True),
        sa.Column("manifest", sa.JSON(), nullable=False),
        sa.Column("installed", sa.JSON(), nullable=False),
        sa.Column("log", sa.Text(), nullable=False),
        sa.Column("built_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["code_sha256"], ["artifacts.sha256"],
                                name=op.f("fk_hosted_builds_code_sha256_artifacts")),
        sa.ForeignKeyConstraint(["env_sha256"], ["artifacts.sha256"], name=op.f("fk_hosted_builds_env_sha256_artifacts")),
        sa.PrimaryKeyConstraint("code_sha256", name=op.f("pk_hosted_builds")),
    )
    op.create_table(
        "bot_submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("code_sha256", sa.String(length=64), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_bot_submissions_bot_id_bots"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["code_sha256"], ["hosted_builds.code_sha256"],
                                name=op.f("fk_bot_submissions_code_sha256_hosted_builds")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_submissions")),
    )
    op.create_index(op.f("ix_bot_submissions_bot_id"), "bot_submissions", ["bot_id"], unique=False)
    op.create_table(
        "game_outputs",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_game_outputs_bot_id_bots")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_game_outputs_game_id_games"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_outputs")),
    )


def downgrade() -> None:
    op.drop_table("game_outputs")
    op.drop_index(op.f("ix_bot_submissions_bot_id"), table_name="bot_submissions")
    op.drop_table("bot_submissions")
    op.drop_table("hosted_builds")
    op.drop_table("artifacts")
