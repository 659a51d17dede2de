"""xactika.core.accel (JAX, the ``accel`` extra) against the core: each check of
tests/accel_checks.py, run in one spawned process that JAX is loaded in, never here.

JAX is multithreaded, and a process that has loaded it must not fork (JAX warns that it
"will likely lead to a deadlock"); the rest of the suite forks, in this process: the
match's and audit's workers (frontends/parallel/processes.py), the terminals of the pty
tests. So the checks run in a process started by ``spawn`` (a fresh interpreter, nothing
forked), which keeps JAX's compiled programs between them, and this process never
imports JAX (the last test says so).
"""

from __future__ import annotations

import ast
import concurrent.futures
import importlib
import importlib.util
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("jax") is None:
    pytest.skip("JAX (the accel extra) is not installed", allow_module_level=True)

CHECKS_FILE = Path(__file__).with_name("accel_checks.py")
ARGS: dict[str, list[tuple[Any, ...]]] = {
    "check_a_mask_joined_from_blocks_is_the_mask_gathered_by_move_id": [("bid",), ("win",)],
}
"""The arguments a check takes, one run each; a check not here takes none."""


def _checks() -> list[tuple[str, tuple[Any, ...]]]:
    """Every ``check_*`` function of accel_checks.py, read without importing it (which
    would load JAX here), with each of its arguments."""
    tree = ast.parse(CHECKS_FILE.read_text(encoding="utf-8"))
    names = [node.name for node in tree.body
             if isinstance(node, ast.FunctionDef) and node.name.startswith("check_")]
    return [(name, args) for name in names for args in ARGS.get(name, [()])]


def _call(name: str, args: tuple[Any, ...]) -> None:
    """In the JAX process: run one check (its AssertionError comes back to the test)."""
    getattr(importlib.import_module("accel_checks"), name)(*args)


@pytest.fixture(scope="module")
def in_jax_process() -> Iterator[Callable[[str, tuple[Any, ...]], None]]:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")  # the spawned process inherits it
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
        yield lambda name, args: pool.submit(_call, name, args).result()


@pytest.mark.parametrize(("name", "args"), _checks(),
                         ids=lambda value: value.removeprefix("check_")
                         if isinstance(value, str) else "-".join(map(str, value)))
def test_accel(name: str, args: tuple[Any, ...],
               in_jax_process: Callable[[str, tuple[Any, ...]], None]) -> None:
    in_jax_process(name, args)


def test_the_checks_are_found() -> None:
    names = {name for name, _ in _checks()}
    assert len(names) >= 13 and "check_2025_whole_games_agree_with_the_core_move_for_move" \
        in names and set(ARGS) <= names


def test_jax_stays_out_of_this_process() -> None:
    """Nothing this process ran loaded JAX: its forks (later tests) are safe."""
    assert "jax" not in sys.modules
