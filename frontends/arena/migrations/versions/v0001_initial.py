"""The first arena schema: ladders, entrants, sets of games, finished games, runs.

Revision ID: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False))
    op.create_table(
        "ladders",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False, unique=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("mode", sa.String(40), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False))
    op.create_table(
        "entrants",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False, unique=True),
        sa.Column("skeleton", sa.String(40), nullable=False, unique=True),
        sa.Column("owner", sa.String(40), nullable=False, index=True),
        sa.Column("cmd", sa.Text, nullable=False),
        sa.Column("dir", sa.Text, nullable=True),
        sa.Column("house", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False))
    op.create_table(
        "sets",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("ladder_id", sa.Integer, sa.ForeignKey("ladders.id"), nullable=False),
        sa.Column("lineup", sa.Text, nullable=False),
        sa.Column("qualifying", sa.Boolean, nullable=False),
        sa.Column("state", sa.String(16), nullable=False, index=True),
        sa.Column("claimed_by", sa.String(120), nullable=True),
        sa.Column("lease_until", sa.Float, nullable=True),
        sa.Column("created", sa.Float, nullable=False))
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("set_id", sa.Integer, sa.ForeignKey("sets.id"), nullable=False),
        sa.Column("rotation", sa.Integer, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("finished", sa.Float, nullable=False),
        sa.UniqueConstraint("set_id", "rotation", name="one_game_per_rotation"))
    op.create_table(
        "runs",
        sa.Column("id", sa.String(120), primary_key=True),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("stopped", sa.Float, nullable=True))


def downgrade() -> None:
    for table in ("runs", "games", "sets", "entrants", "ladders", "meta"):
        op.drop_table(table)
