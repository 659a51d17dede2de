"""Several web processes on one database: each one's lobby tables, as its lobby lists
them, for the others to list too (frontends/web/cluster.py, spec/WEB.md "Past one
process").

Revision ID: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_tables",
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("process", sa.String(64), nullable=False),
        sa.Column("public", sa.Text, nullable=False),
        sa.Column("updated", sa.Float, nullable=False))


def downgrade() -> None:
    op.drop_table("web_tables")
