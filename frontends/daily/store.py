"""The daily deal's tables in the site's database (frontends/arena/store.py's MetaData and
Alembic chain, migration 0003): one row a day with its secret seed, one row a play.

``daily_days.seed`` and ``nonce`` are secrets until the day's close; every query that
reads them is in frontends/daily/service.py, which serves them only after it.
"""

from __future__ import annotations

import sqlalchemy as sa

from xactika.frontends.arena.store import METADATA

daily_days = sa.Table(
    "daily_days", METADATA,
    sa.Column("day", sa.String(10), primary_key=True),  # YYYY-MM-DD, UTC
    sa.Column("seed", sa.Text, nullable=False),  # secret until the close
    sa.Column("nonce", sa.String(64), nullable=False),  # secret until the close
    sa.Column("commit", sa.String(64), nullable=False),  # public from the start
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("par", sa.Text, nullable=True))  # JSON per deal, computed after the close

daily_plays = sa.Table(
    "daily_plays", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("day", sa.String(10), sa.ForeignKey("daily_days.day"), nullable=False),
    sa.Column("deal", sa.Integer, nullable=False),
    sa.Column("player", sa.String(80), nullable=False),  # account:NAME or guest:HASH
    sa.Column("label", sa.String(40), nullable=False),  # the name on the leaderboard
    sa.Column("rated", sa.Boolean, nullable=False),  # begun before the close
    sa.Column("state", sa.String(16), nullable=False),  # playing, done, lost
    sa.Column("points", sa.Float, nullable=True),
    sa.Column("table_id", sa.Integer, nullable=True),
    sa.Column("record", sa.Text, nullable=True),  # the signed record, served after the close
    sa.Column("started", sa.Float, nullable=False),
    sa.Column("finished", sa.Float, nullable=True),
    sa.UniqueConstraint("day", "deal", "player", name="one_play_per_deal"),
    sa.Index("daily_plays_player", "player", "day"))
