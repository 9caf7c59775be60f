"""No import circles among the modules of src/execrl.

Every module under src/execrl is parsed (``ast``) and every import in it is an edge of the
module graph: those inside functions and under ``if TYPE_CHECKING:`` too (a type-only import
is still a dependency: the two modules cannot be understood, moved or split apart), relative
ones resolved, and ``from pkg import name`` an edge to the submodule ``pkg.name`` when there
is one. A circle fails the test as ``a -> b -> a``, with the file and line of each edge.

How a package's ``__init__`` counts. It is a module of its own (``execrl.sandbox`` is
``sandbox/__init__.py``), and an import is an edge to the module it *names*, never to the
packages above it:

- ``import execrl.sandbox.protocol`` and ``from execrl.sandbox.protocol import X`` are edges
  to ``execrl.sandbox.protocol`` only;
- ``from execrl.sandbox import protocol`` (a submodule) is an edge to
  ``execrl.sandbox.protocol``; ``from execrl.sandbox import run`` (a name defined or
  re-exported by the ``__init__``) and ``import execrl.sandbox`` are edges to
  ``execrl.sandbox``.

Python runs ``sandbox/__init__.py`` before any submodule, but a submodule that names its
sibling by its full path needs nothing the ``__init__`` defines: the package object is in
``sys.modules`` from the start, and the sibling is loaded from it even while the
``__init__`` is half run. So the usual rule, "importing ``pkg.sub`` imports ``pkg`` too",
would turn every ``__init__`` that re-exports its submodules into a false circle with each
of them (``sandbox -> sandbox.pool -> sandbox.protocol -> sandbox``) and hide the real ones
among them. Under this rule an ``__init__`` is in a circle only when a module takes a name
*from the ``__init__``* that the ``__init__`` gets, directly or not, from that module — a
circle that does break at import time, depending on who is imported first.

``src/execrl/data`` holds programs run in the sandbox, not modules of execrl: only files in a
folder with ``__init__.py`` all the way up are read.
"""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "execrl"


@dataclass(frozen=True)
class Edge:
    """One module importing another, where the (first such) import is written."""

    source: str
    target: str
    file: str
    """The importing file, relative to the folder above the source root's parent."""
    line: int


Graph = dict[str, dict[str, Edge]]
"""module -> imported module -> the first import statement making that edge."""


# -- the modules ------------------------------------------------------------------------------


def modules_under(source: Path) -> dict[str, Path]:
    """The modules of the package at ``source`` (its folder's name is the top name), by dotted
    name: every ``.py`` file whose folders all have an ``__init__.py`` up to ``source``."""
    found = {}
    for path in sorted(source.rglob("*.py")):
        folders = path.relative_to(source).parents
        if all((source / folder / "__init__.py").is_file() for folder in folders):
            found[dotted_name(path, source)] = path
    return found


def dotted_name(path: Path, source: Path) -> str:
    """``src/execrl/sandbox/pool.py`` -> ``execrl.sandbox.pool``; an ``__init__`` is its
    package."""
    parts = [source.name, *path.relative_to(source).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# -- the edges --------------------------------------------------------------------------------


def import_graph(source: Path) -> Graph:
    """Every import between the modules under ``source``, at any depth of the code."""
    modules = modules_under(source)
    graph: Graph = {name: {} for name in modules}
    for name, path in modules.items():
        file = str(path.relative_to(source.parent.parent))
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            for target in targets(node, name, is_package, modules):
                if target != name and target not in graph[name]:
                    graph[name][target] = Edge(name, target, file, node.lineno)
    return graph


def targets(node: ast.AST, module: str, is_package: bool, modules: dict[str, Path]) -> list[str]:
    """The modules of ``modules`` that an import statement names (nothing for other nodes,
    nor for a module that is not there: a broken import is not a circle)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in modules]
    if isinstance(node, ast.ImportFrom):
        base = _absolute(node, module, is_package)
        named = [_from_target(base, alias.name, modules) for alias in node.names]
        return [t for t in named if t]
    return []


def _from_target(base: str, name: str, modules: dict[str, Path]) -> str | None:
    """``from base import name``: the submodule ``base.name`` if there is one, else ``base``."""
    if f"{base}.{name}" in modules:
        return f"{base}.{name}"
    return base if base in modules else None


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a ``from ... import`` reads from (relative levels resolved)."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    return ".".join(parts[:keep] + ([node.module] if node.module else []))


# -- the circles ------------------------------------------------------------------------------


def cycles(graph: Graph) -> list[list[str]]:
    """One shortest circle through each module that is on one, each listed once (starting at
    its smallest name), in name order."""
    found = {}
    for module in sorted(graph):
        if (path := _shortest_path(graph, module)) is not None:
            start = path.index(min(path))
            found[tuple(path[start:] + path[:start])] = None
    return [list(cycle) for cycle in sorted(found)]


def _shortest_path(graph: Graph, start: str) -> list[str] | None:
    """The modules of a shortest way from ``start`` back to ``start`` (breadth first), or None."""
    came_from: dict[str, str] = {}
    todo = deque([start])
    while todo:
        current = todo.popleft()
        for target in sorted(graph.get(current, {})):
            if target == start:
                return _walk_back(came_from, current, start)
            if target not in came_from:
                came_from[target] = current
                todo.append(target)
    return None


def _walk_back(came_from: dict[str, str], last: str, start: str) -> list[str]:
    path = [last]
    while path[-1] != start:
        path.append(came_from[path[-1]])
    return path[::-1]


def describe(cycle: list[str], graph: Graph) -> str:
    """``a -> b -> a`` and, one line each, the file:line of every edge of the circle."""
    closed = [*cycle, cycle[0]]
    edges = [graph[a][b] for a, b in pairwise(closed)]
    lines = [f"  {e.file}:{e.line}: {e.source} -> {e.target}" for e in edges]
    return "\n".join([" -> ".join(closed), *lines])


def cycle_report(source: Path) -> str:
    """Every circle under ``source``, described; empty when there is none."""
    graph = import_graph(source)
    return "\n".join(describe(cycle, graph) for cycle in cycles(graph))


# -- the tests --------------------------------------------------------------------------------


def test_every_module_is_in_the_graph():
    graph = import_graph(SOURCE)
    assert len(graph) > 100
    assert "execrl.sandbox" in graph and "execrl.cli.main" in graph
    assert not any(name.startswith("execrl.data.") for name in graph)  # programs, not modules
    assert sum(len(edges) for edges in graph.values()) > len(graph)


def test_there_is_no_import_cycle():
    report = cycle_report(SOURCE)
    assert not report, "import circles (break each by moving what both sides need):\n" + report


# -- the check can fail -----------------------------------------------------------------------


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """A package tree under ``root`` from ``{relative path: code}``; returns its top folder."""
    for relative, code in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    return root / "src" / "pkg"


def test_a_circle_is_named_with_file_and_line_for_each_edge(tmp_path):
    source = write_tree(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/protocol.py": (
                "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                "    from pkg.pool import Pool\n"
            ),
            "src/pkg/pool.py": "import os\n\n\ndef run():\n    from .judge import judge\n",
            "src/pkg/judge.py": "from pkg import protocol\n",
        },
    )
    assert cycle_report(source) == (
        "pkg.judge -> pkg.protocol -> pkg.pool -> pkg.judge\n"
        "  src/pkg/judge.py:1: pkg.judge -> pkg.protocol\n"
        "  src/pkg/protocol.py:4: pkg.protocol -> pkg.pool\n"
        "  src/pkg/pool.py:5: pkg.pool -> pkg.judge"
    )


def test_an_init_reexporting_its_submodules_is_no_circle(tmp_path):
    source = write_tree(
        tmp_path,
        {
            "src/pkg/__init__.py": "from pkg.pool import Pool\nfrom .protocol import Request\n",
            "src/pkg/pool.py": "import pkg.protocol\nfrom pkg.protocol import Request\n",
            "src/pkg/protocol.py": "Request = object\n",
            "src/pkg/sub/__init__.py": "from ..pool import Pool\n",
        },
    )
    graph = import_graph(source)
    assert set(graph["pkg"]) == {"pkg.pool", "pkg.protocol"}
    assert set(graph["pkg.pool"]) == {"pkg.protocol"}  # not pkg: the importer needs no name of it
    assert set(graph["pkg.sub"]) == {"pkg.pool"}
    assert cycle_report(source) == ""


def test_a_name_taken_from_an_init_that_imports_the_taker_is_a_circle(tmp_path):
    source = write_tree(
        tmp_path,
        {
            "src/pkg/__init__.py": "from .pool import Pool\nLimits = int\n",
            "src/pkg/pool.py": "from pkg import Limits\n\nPool = object\n",
        },
    )
    assert cycle_report(source) == (
        "pkg -> pkg.pool -> pkg\n"
        "  src/pkg/__init__.py:1: pkg -> pkg.pool\n"
        "  src/pkg/pool.py:1: pkg.pool -> pkg"
    )


def test_folders_without_init_are_programs_not_modules(tmp_path):
    source = write_tree(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/data/problem/reference.py": "import pkg\n",
        },
    )
    assert list(modules_under(source)) == ["pkg"]


def test_an_import_of_a_module_that_is_not_there_draws_no_edge(tmp_path):
    source = write_tree(
        tmp_path,
        {
            "src/pkg/__init__.py": "from .pool import Pool\n",
            "src/pkg/pool.py": "from pkg.gone import codec\nimport pkg.gone.wire\nPool = 1\n",
        },
    )
    assert import_graph(source)["pkg.pool"] == {}  # not pkg: no name is taken from it
