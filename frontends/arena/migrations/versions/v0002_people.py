"""People who come back: accounts, their sessions, ratings per game and mode, and the
rated tables those ratings come from (frontends/accounts/store.py, spec/WEB.md).

Revision ID: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("key", sa.String(160), nullable=False, unique=True),
        sa.Column("hash", sa.Text, nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("created", sa.Float, nullable=False))
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False,
                  index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False))
    op.create_table(
        "rated_games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("record", sa.Text, nullable=False, unique=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("mode", sa.String(40), nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("finished", sa.Float, nullable=False),
        sa.Column("applied", sa.Boolean, nullable=False))
    op.create_table(
        "ratings",
        sa.Column("player", sa.String(80), primary_key=True),
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("mode", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False))
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player", sa.String(80), nullable=False, index=True),
        sa.Column("rated_game_id", sa.Integer, sa.ForeignKey("rated_games.id"),
                  nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("mode", sa.String(40), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.UniqueConstraint("player", "rated_game_id", name="one_entry_per_game"))


def downgrade() -> None:
    for table in ("rating_history", "ratings", "rated_games", "sessions", "accounts"):
        op.drop_table(table)
