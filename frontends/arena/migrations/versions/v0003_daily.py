"""The daily deal: a row a day (its secret seed, its public commitment, its par) and a row
a play (frontends/daily/store.py, spec/WEB.md "The daily deal").

Revision ID: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "daily_days",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("nonce", sa.String(64), nullable=False),
        sa.Column("commit", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("par", sa.Text, nullable=True))
    op.create_table(
        "daily_plays",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("day", sa.String(10), sa.ForeignKey("daily_days.day"), nullable=False),
        sa.Column("deal", sa.Integer, nullable=False),
        sa.Column("player", sa.String(80), nullable=False),
        sa.Column("label", sa.String(40), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("points", sa.Float, nullable=True),
        sa.Column("table_id", sa.Integer, nullable=True),
        sa.Column("record", sa.Text, nullable=True),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
        sa.UniqueConstraint("day", "deal", "player", name="one_play_per_deal"))
    op.create_index("daily_plays_player", "daily_plays", ["player", "day"])


def downgrade() -> None:
    op.drop_index("daily_plays_player", "daily_plays")
    op.drop_table("daily_plays")
    op.drop_table("daily_days")
