"""Shared fixtures. Tests import the installed package ``xactika.*``, never the folders."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

# Signing keys made on first use (spec/TAMPER.md section 6) go to a throwaway config
# folder, inherited by every subprocess: tests never touch the real home.
_CONFIG = tempfile.mkdtemp(prefix="xactika-test-config-")
os.environ["XDG_CONFIG_HOME"] = _CONFIG
os.environ["XDG_STATE_HOME"] = os.path.join(_CONFIG, "state")  # played games' short ids
atexit.register(shutil.rmtree, _CONFIG, True)

# CI runs on a 2-core machine: keep the default profile modest, let a dev raise it.
settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """A PostgreSQL cluster of the session's own (tests/pgkit.py)."""
    from pgkit import Cluster

    cluster = Cluster()
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def arena_db(request: pytest.FixtureRequest) -> str | None:
    """The arena's database: None (SQLite in the arena folder) or a fresh PostgreSQL one."""
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("pg_cluster").database())
