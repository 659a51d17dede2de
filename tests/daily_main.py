"""``xactika web`` with the daily deal on a SQLite site database in ``--out`` (the browser
tests' server: the accounts' ``--site`` is not needed to try the daily deal's pages)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from xactika.frontends.arena.store import open_store
from xactika.frontends.daily import store as _tables  # noqa: F401  (the daily's tables)
from xactika.frontends.daily.service import Daily
from xactika.frontends.web import app

DB = "daily.db"


def main() -> int:
    out = Path(sys.argv[sys.argv.index("--out") + 1])
    engine = open_store(f"sqlite:///{(out.parent / DB).resolve()}")  # never in --out
    made = app.create_app

    def with_daily(*args: Any, **kwargs: Any) -> app.WebApp:
        return made(*args, daily=Daily(engine), **kwargs)

    app.create_app = with_daily  # type: ignore[assignment]
    from xactika.frontends.cli import main as cli

    return int(cli(sys.argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
