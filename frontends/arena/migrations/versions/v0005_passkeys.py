"""Passkeys: an account's WebAuthn credentials and the challenges given out, each bound
to the cookie it was asked with and used once (frontends/accounts/passkeys.py, spec/WEB.md
"Accounts and ratings").

Revision ID: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(700), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False,
                  index=True),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False))
    op.create_table(
        "passkey_challenges",
        sa.Column("binding", sa.String(80), primary_key=True),
        sa.Column("challenge", sa.String(100), nullable=False),
        sa.Column("expires", sa.Float, nullable=False))


def downgrade() -> None:
    op.drop_table("passkey_challenges")
    op.drop_table("passkeys")
