"""A throwaway PostgreSQL cluster for the arena's tests: initdb in a temporary folder,
a unix socket there and no TCP port, trust authentication, stopped at exit.

PostgreSQL refuses to run as root, so as root it runs as the ``postgres`` user (Debian's
package makes it). Where PostgreSQL is missing the tests skip, except in CI
(``XACTIKA_REQUIRE_POSTGRES=1`` or ``CI=true``), where .ci/run installs it: there a
missing PostgreSQL fails them.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("XACTIKA_PG_BIN", "/usr/lib/postgresql/15/bin"))
_numbers = itertools.count(1)


def required() -> bool:
    return os.environ.get("XACTIKA_REQUIRE_POSTGRES") == "1" or os.environ.get("CI") == "true"


def unavailable(why: str) -> None:
    if required():
        pytest.fail(f"PostgreSQL is needed here: {why} (.ci/run installs Debian's postgresql)")
    pytest.skip(why)


def _as_owner(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


class Cluster:
    """One cluster for the test session; :meth:`database` makes a fresh database."""

    def __init__(self) -> None:
        if not (PG_BIN / "initdb").exists():
            unavailable(f"{PG_BIN}/initdb is missing")
        try:
            import psycopg  # noqa: F401  (the postgres extra)
        except ImportError:
            unavailable("psycopg is not installed (pip install 'xactika[postgres]')")
        self.dir = Path(tempfile.mkdtemp(prefix="xactika-pg-"))
        os.chmod(self.dir, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self.data = self.dir / "data"
        subprocess.run(_as_owner([str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust",
                                  "-U", "postgres", "-N", "-E", "UTF8"]),
                       check=True, capture_output=True)
        options = f"-k {self.dir} -c listen_addresses='' -F -c max_connections=200"
        subprocess.run(_as_owner([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options,
                                  "-l", str(self.dir / "log.txt"), "-w", "start"]),
                       check=True, capture_output=True)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@/{db}?host={self.dir}"

    def database(self) -> str:
        import psycopg

        name = f"arena{next(_numbers)}"
        with psycopg.connect(f"host={self.dir} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def sql(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(f"host={self.dir} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(statement)

    def stop(self) -> None:
        subprocess.run(_as_owner([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast",
                                  "-w", "stop"]), capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
