"""``xactika web`` with the daily deal on a site database: SQLite beside ``--out``, or
the URL in ``$XACTIKA_TEST_SITE_DB`` (with ``--shard K/N`` the lobby's list is shared
through it as well: frontends/web/cluster.py). The browser and proxy tests' server;
after the merge with the accounts, ``--site`` gives the web its database."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from xactika.frontends.arena.store import open_store
from xactika.frontends.daily import store as _tables  # noqa: F401  (the daily's tables)
from xactika.frontends.daily.service import Daily
from xactika.frontends.web import app

DB = "daily.db"
URL = "XACTIKA_TEST_SITE_DB"


def main() -> int:
    out = Path(sys.argv[sys.argv.index("--out") + 1])
    url = os.environ.get(URL)
    engine = open_store(url or f"sqlite:///{(out.parent / DB).resolve()}")  # never in --out
    made = app.create_app

    def with_daily(*args: Any, **kwargs: Any) -> app.WebApp:
        return made(*args, daily=Daily(engine), **kwargs)  # a --shard K/N shares the lobby

    app.create_app = with_daily  # type: ignore[assignment]
    from xactika.frontends.cli import main as cli

    return int(cli(sys.argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
