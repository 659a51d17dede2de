"""The layers, read from the source: ``core`` imports nothing of ours, ``protocol`` only
``core``, ``frontends`` anything; no new import cycle; every package installed; and no
module outside a game's own compares a game's name to a literal (it asks the game).

Imports are read with ``ast`` (inside functions too, where a lazy import hides a layer
break just as well), so these tests need nothing importable but the registry of games.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from xactika.core import games

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("core", "protocol", "frontends")
MAY_IMPORT = {"core": {"core"}, "protocol": {"core", "protocol"},
              "frontends": {"core", "protocol", "frontends"}}

# Import cycles among module-level imports today, each a set of modules; a new one fails.
KNOWN_CYCLES: list[frozenset[str]] = []

# A game's own code may name it: its rules (core/games/) and any module named after it,
# such as its presentation (frontends/people/dix.py).
GAME_FOLDERS = ("core/games/",)
# Modules that still compare a game's name to a literal, and how many times. Issue 23
# shrinks this: a file with fewer comparisons than allowed fails until its entry shrinks.
NAME_BRANCHES_ALLOWED: dict[str, int] = {}


def _module(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["xactika", *parts])


def _sources(root: Path = ROOT) -> dict[str, Path]:
    return {_module(p, root): p for layer in LAYERS for p in sorted((root / layer).rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module, module: str, is_package: bool,
             known: set[str]) -> Iterator[tuple[str, int, bool]]:
    """(imported module, line, at module level) for every import of ours in ``tree``;
    ``from a import b`` counts as ``a.b`` where that is a module. Imports under ``if
    TYPE_CHECKING`` never run, so they are not at module level."""

    def walk(node: ast.AST, top: bool) -> Iterator[tuple[str, int, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, child.lineno, top
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = module.split(".")
                    anchor = anchor[: len(anchor) - child.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, *([base] if base else [])])
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    yield (full if full in known else base), child.lineno, top
            elif isinstance(child, ast.If) and _is_type_checking(child):
                yield from walk(child, False)
            else:
                inner = top and not isinstance(
                    child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                yield from walk(child, inner)

    for name, line, top in walk(tree, True):
        if name == "xactika" or name.startswith("xactika."):
            yield name, line, top


def import_graph(root: Path = ROOT) -> dict[str, list[tuple[str, int, bool]]]:
    sources = _sources(root)
    known = set(sources)
    return {
        mod: list(_imports(ast.parse(path.read_text(), str(path)), mod,
                           path.name == "__init__.py", known))
        for mod, path in sources.items()
    }


def layer_breaks(graph: dict[str, list[tuple[str, int, bool]]]) -> list[str]:
    found = []
    for mod, imports in graph.items():
        layer = mod.split(".")[1]
        for target, line, _ in imports:
            parts = target.split(".")
            if len(parts) > 1 and parts[1] not in MAY_IMPORT[layer]:
                found.append(f"{mod} (line {line}) imports {target}")
    return found


def cycles(graph: dict[str, list[tuple[str, int, bool]]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan), over the
    imports that run when a module is imported."""
    edges = {m: sorted({t for t, _, top in imp if top and t in graph and t != m})
             for m, imp in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def name_branches(root: Path = ROOT) -> Counter[str]:
    """Per file, the comparisons of a game's name to a literal: ``game == "dix"``,
    ``!= "xactika"``, ``in ("dix", ...)`` and ``case "dix":``."""
    names = set(games())

    def is_name(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in names
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(is_name(e) for e in node.elts)
        return False

    found: Counter[str] = Counter()
    for path in _sources(root).values():
        rel = path.relative_to(root).as_posix()
        if rel.startswith(GAME_FOLDERS) or path.stem in names:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Compare) and any(
                    is_name(n) for n in (node.left, *node.comparators)):
                found[rel] += 1
            elif isinstance(node, ast.match_case) and any(
                    isinstance(p, ast.MatchValue) and is_name(p.value)
                    for p in ast.walk(node.pattern)):
                found[rel] += 1
    return found


def page_name_literals(root: Path = ROOT) -> Counter[str]:
    """Per page file (the web's ``.js`` and ``.html``), every game's name written as a
    string literal or an attribute value (``=== "dix"``, ``case 'xactika':``,
    ``<option value="dix">``): a page asks ``/api/games`` and the table's ``say table``
    lines instead, so it never needs one."""
    names = "|".join(re.escape(n) for n in games())
    literal = re.compile(rf"""(["'`])(?:{names})\1""")
    found: Counter[str] = Counter()
    for path in sorted((root / "frontends").rglob("*")):
        if path.suffix in (".js", ".html") and path.is_file():
            hits = len(literal.findall(path.read_text()))
            if hits:
                found[path.relative_to(root).as_posix()] = hits
    return found


# --------------------------------------------------------------------------- the tests


def test_each_layer_imports_only_the_layers_below() -> None:
    assert layer_breaks(import_graph()) == []


def test_no_new_import_cycle() -> None:
    new = [sorted(c) for c in cycles(import_graph()) if c not in KNOWN_CYCLES]
    assert new == [], "a new import cycle (break it, or import lazily inside a function)"


def test_no_module_outside_a_game_branches_on_its_name() -> None:
    found = name_branches()
    over = {f: n for f, n in found.items() if n > NAME_BRANCHES_ALLOWED.get(f, 0)}
    assert over == {}, ("ask the game (core/engine TrickGame's hooks) or a per-game "
                        "registry instead of comparing its name")
    stale = {f: (found[f], n) for f, n in NAME_BRANCHES_ALLOWED.items() if found[f] < n}
    assert stale == {}, "fewer name comparisons than allowed: shrink NAME_BRANCHES_ALLOWED"


def test_no_page_script_or_template_names_a_game() -> None:
    assert page_name_literals() == {}, ("a page draws the game's facts from /api/games and "
                                        "the table's say lines, never by its name")


OPTIONAL = ("xactika.core.accel",)
"""Core packages that need an optional extra (JAX): nothing else in the core imports them,
so the core works without it."""


def optional_imports(graph: dict[str, list[tuple[str, int, bool]]]) -> list[str]:
    return [f"{mod} (line {line}) imports {target}"
            for mod, imports in graph.items()
            if mod.startswith("xactika.core.") and not mod.startswith(OPTIONAL)
            for target, line, _ in imports if target.startswith(OPTIONAL)]


def test_the_rest_of_the_core_never_imports_an_optional_package() -> None:
    assert optional_imports(import_graph()) == []


def test_every_package_is_installed() -> None:
    """A package missing from pyproject's list works in an editable install and is
    silently left out of a built one."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    on_disk = {_module(p.parent / "__init__.py") for layer in LAYERS
               for p in (ROOT / layer).rglob("__init__.py")}
    assert on_disk - listed == set()
    assert listed - on_disk == set()


# --------------------------------------------------------------------------- the checks fail


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A copy of the three layers to plant violations in."""
    for layer in LAYERS:
        for path in (ROOT / layer).rglob("*"):
            if path.suffix not in (".py", ".js", ".html"):
                continue
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text())
    return tmp_path


def test_a_planted_layer_break_is_found(planted: Path) -> None:
    views = planted / "core/engine/views.py"
    views.write_text(views.read_text() + "\n\ndef leak() -> None:\n"
                     "    from xactika.frontends.repl import render  # noqa: F401\n")
    proto = planted / "protocol/notation/untrusted.py"
    proto.write_text(proto.read_text() + "\nimport xactika.frontends.cli\n")
    assert layer_breaks(import_graph(planted)) == [
        f"xactika.core.engine.views (line {len(views.read_text().splitlines())}) imports "
        "xactika.frontends.repl.render",
        f"xactika.protocol.notation.untrusted (line {len(proto.read_text().splitlines())}) "
        "imports xactika.frontends.cli",
    ]


def test_a_planted_import_of_an_optional_package_is_found(planted: Path) -> None:
    rules = planted / "core/engine/rules.py"
    rules.write_text(rules.read_text() + "\n\ndef fast() -> None:\n"
                     "    from xactika.core.accel import Env  # noqa: F401\n")
    assert optional_imports(import_graph(planted)) == [
        f"xactika.core.engine.rules (line {len(rules.read_text().splitlines())}) imports "
        "xactika.core.accel"]


def test_a_planted_cycle_is_found(planted: Path) -> None:
    assert cycles(import_graph(planted)) == []
    errors = planted / "core/engine/errors.py"
    errors.write_text(errors.read_text() + "\nfrom xactika.core.engine import views\n")
    (cycle,) = cycles(import_graph(planted))  # views imports api, which needs errors
    assert {"xactika.core.engine.errors", "xactika.core.engine.api",
            "xactika.core.engine.views"} <= cycle
    lazy = planted / "core/engine/rng.py"  # an import inside a function is no cycle
    lazy.write_text(lazy.read_text() + "\n\ndef late() -> None:\n"
                    "    from xactika.core.engine import api  # noqa: F401\n")
    assert len(cycles(import_graph(planted))) == 1


def test_a_planted_name_branch_is_found(planted: Path) -> None:
    before = name_branches(planted)
    bridge = planted / "core/engine/encoding.py"
    bridge.write_text(bridge.read_text() + (
        "\n\ndef odd(game: str, config: object) -> int:\n"
        "    if game == 'dix' or getattr(config, 'game') != \"xactika\":\n"
        "        return 1\n"
        "    if game in ('dix', 'other'):\n"
        "        return 2\n"
        "    match game:\n"
        "        case 'xactika':\n"
        "            return 3\n"
        "    return 0\n"))
    rules = planted / "core/games/dix.py"  # a game's own modules may name it
    rules.write_text(rules.read_text() + "\nSELF = 'dix' == 'dix'\n")
    (planted / "frontends/bridges/dix.py").write_text("SELF = 'dix' == 'dix'\n")
    after = name_branches(planted)
    assert after - before == Counter({"core/engine/encoding.py": 4})


def test_a_planted_name_in_a_page_is_found(planted: Path) -> None:
    assert page_name_literals(planted) == {}
    script = planted / "frontends/web/static/game.js"
    script.write_text(script.read_text() + "\nconst odd = (g) => g === 'dix' || g !== `xactika`;\n")
    page = planted / "frontends/web/templates/lobby.html"
    page.write_text(page.read_text() + '<option value="dix">Dix</option>\n')
    assert page_name_literals(planted) == Counter({"frontends/web/static/game.js": 2,
                                                   "frontends/web/templates/lobby.html": 1})
