"""Imports follow the arrows of docs/architecture.md, and the page describes the code.

The allowed arrows are read from the package table of docs/architecture.md (so the doc and
this test cannot disagree) and closed transitively (a package may import what its
dependencies may). Every module under src/execrl is parsed, and every import in it (those
inside functions and under ``if TYPE_CHECKING:`` too, relative ones resolved) is mapped to
its package; an import the table does not allow fails with the file, the line and the arrow.

The page is checked the other way too: every package under src/execrl is on it (a row, or a
utility) and no row names a package that is gone; the rows are in data-flow order (each
after everything it depends on: a topological order of the arrows); each paragraph follows
its row's order; every arrow of the table is used by some import; and the page's package
map is exactly the package-to-package imports of the code (the failure prints the block to
paste). Circles between modules are tests/unit/test_import_cycles.py's.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "execrl"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
FRONT_DOOR = "execrl"
"""The package name of ``execrl/__init__.py`` in the table."""


@dataclass(frozen=True)
class Import:
    """One import statement's target module, where it was written."""

    file: str
    """The importing file, relative to the repository root."""
    line: int
    module: str
    """The importing module's dotted name (``execrl.cli.eval``)."""
    target: str
    """The imported module's dotted name, as precise as the source says."""


@dataclass(frozen=True)
class Arrows:
    """The allowed arrows: each package's transitive dependencies, and the utilities."""

    depends: dict[str, frozenset[str]]
    utilities: frozenset[str]
    direct: dict[str, frozenset[str]]
    """Each row's "depends on" as written (``*`` for "all")."""
    order: tuple[str, ...]
    """The rows, top to bottom."""


# -- reading the table ------------------------------------------------------------------------


def read_arrows(text: str) -> Arrows:
    """The package table (rows ``| `execrl.x` | depends on |``, the last cell the arrows)
    and the utility line of docs/architecture.md, closed transitively. "all" in a row means
    every package."""
    direct: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not re.fullmatch(r"`execrl(\.\w+)?`", cells[0]):
            continue
        name = package_name(cells[0].strip("`"))
        deps = cells[-1]
        direct[name] = {"*"} if deps == "all" else set(map(package_name, _names(deps)))
    utilities = next(
        (line for line in text.split("\n\n") if line.startswith("Utility modules")), ""
    )
    every = frozenset(direct)
    closed = {name: frozenset(_closure(name, direct, every)) for name in direct}
    written = {name: frozenset(deps) for name, deps in direct.items()}
    return Arrows(closed, frozenset(map(package_name, _names(utilities))), written, tuple(direct))


def package_name(dotted: str) -> str:
    """``execrl.envs.operators`` -> ``envs``; ``execrl`` -> the front door."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else FRONT_DOOR


def _names(cell: str) -> list[str]:
    return re.findall(r"`(execrl(?:\.\w+)?)`", cell)


def _closure(name: str, direct: dict[str, set[str]], every: frozenset[str]) -> set[str]:
    seen: set[str] = set()
    todo = [name]
    while todo:
        for dep in direct.get(todo.pop(), set()):
            if dep == "*":
                return set(every)
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


# -- reading the imports ----------------------------------------------------------------------


def module_name(path: Path, source: Path = SOURCE) -> str:
    """``src/execrl/cli/eval.py`` -> ``execrl.cli.eval`` (a package's ``__init__`` is the
    package)."""
    parts = ["execrl", *path.relative_to(source).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(
    code: str, file: str, module: str, is_package: bool = False, source: Path = SOURCE
) -> list[Import]:
    """Every import in ``code`` (at any depth: inside functions and ``if TYPE_CHECKING``
    too) of an execrl module. ``from a import b`` targets ``a.b`` when ``b`` is a module of
    the source tree, else ``a``; relative imports are resolved against ``module``."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            targets = [_from_target(base, alias.name, source) for alias in node.names]
        else:
            continue
        found += [
            Import(file, node.lineno, module, t)
            for t in dict.fromkeys(targets)  # two names from one module: one import
            if t == "execrl" or t.startswith("execrl.")
        ]
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    return ".".join(parts[:keep] + ([node.module] if node.module else []))


def _from_target(base: str, name: str, source: Path) -> str:
    candidate = source.parent.joinpath(*f"{base}.{name}".split("."))
    is_module = candidate.with_suffix(".py").is_file() or (candidate / "__init__.py").is_file()
    return f"{base}.{name}" if is_module else base


def all_imports(source: Path = SOURCE, root: Path = ROOT) -> list[Import]:
    """The execrl imports of every module under ``source`` (src/execrl)."""
    out = []
    for path in sorted(source.rglob("*.py")):
        file, module = str(path.relative_to(root)), module_name(path, source)
        out += imports_of(path.read_text(), file, module, path.name == "__init__.py", source)
    return out


# -- judging ----------------------------------------------------------------------------------


def package_violation(imp: Import, arrows: Arrows) -> str | None:
    """Why the import breaks the package arrows, or None when the table allows it."""
    source, target = package_name(imp.module), package_name(imp.target)
    if source == target:
        return None
    if source in arrows.utilities:
        if target in arrows.utilities:
            return None
        return f"{imp.file}:{imp.line}: {source} -> {target} (a utility imports only utilities)"
    if target in arrows.utilities:
        return None
    if source not in arrows.depends:
        return f"{imp.file}:{imp.line}: {source} -> {target} ({source} is not in the table)"
    allowed = arrows.depends[source]
    if target in allowed:
        return None
    if target == FRONT_DOOR and arrows.depends.get(FRONT_DOOR, frozenset()) <= allowed:
        return None  # the front door brings only what the importer may import anyway
    shown = ", ".join(sorted(allowed)) or "nothing"
    return (
        f"{imp.file}:{imp.line}: {source} -> {target} imports {imp.target}, against "
        f"docs/architecture.md ({source} may import: {shown})"
    )


def cli_violation(imp: Import) -> str | None:
    """Why an import between cli modules is not allowed: only a command table imports
    command modules (``cli/main.py``, and a group's module its own subcommand modules,
    ``cli/timing.py`` -> ``cli/timing_noise.py``); the private helpers ``execrl.cli._*`` are
    for all."""
    if not (imp.module.startswith("execrl.cli") and imp.target.startswith("execrl.cli.")):
        return None
    command = imp.target.split(".")[2]
    if imp.module == "execrl.cli.main" or command.startswith("_"):
        return None
    if imp.module.startswith("execrl.cli.") and command.startswith(imp.module.split(".")[2] + "_"):
        return None  # a command group's table and its subcommands
    return (
        f"{imp.file}:{imp.line}: {imp.module} -> {imp.target}: a cli module imports another "
        "command module (only a command table may; share code through a library function "
        "or execrl.cli._*)"
    )


# -- the page describes the code --------------------------------------------------------------

MAP_MARKER = "<!-- package map: generated by tests/unit/test_import_direction.py -->"
"""The line above the package map's ``text`` block in docs/architecture.md."""


def source_packages(source: Path = SOURCE) -> set[str]:
    """The package names of ``source``'s folders with an ``__init__.py``, of its top-level
    modules, and the front door (its own ``__init__.py``)."""
    folders = {path.parent.name for path in source.glob("*/__init__.py")}
    modules = {path.stem for path in source.glob("*.py") if path.stem != "__init__"}
    return folders | modules | ({FRONT_DOOR} if (source / "__init__.py").is_file() else set())


def coverage_faults(arrows: Arrows, packages: set[str]) -> list[str]:
    """Packages of the code missing from the page, and names on the page with no code."""
    listed = set(arrows.order) | arrows.utilities
    missing = [
        f"{name}: in src/execrl but not on docs/architecture.md (add a row and a paragraph, "
        "or list it with the utilities)"
        for name in sorted(packages - listed)
    ]
    gone = [f"{name}: on docs/architecture.md but not in src/execrl" for name in listed - packages]
    return missing + sorted(gone)


def order_faults(arrows: Arrows) -> list[str]:
    """Rows listed before a package they depend on (the order is not a topological one)."""
    faults = []
    for index, name in enumerate(arrows.order):
        above = arrows.order[:index]
        for dep in sorted(arrows.direct[name] - arrows.utilities - set(above)):
            if dep != "*":
                faults.append(f"{name} depends on {dep}, which is not a row above it")
            elif index != len(arrows.order) - 1:
                faults.append(f"{name} depends on all, so it is the last row")
    return faults


def paragraph_order(text: str) -> tuple[str, ...]:
    """The packages of the page's ``### `execrl.x``` paragraphs, in page order."""
    return tuple(map(package_name, re.findall(r"^### `(execrl(?:\.\w+)?)`", text, re.M)))


def used_arrows(imports: list[Import], arrows: Arrows) -> dict[str, set[str]]:
    """Each row's packages that its modules import directly (utilities left out)."""
    used: dict[str, set[str]] = {name: set() for name in arrows.order}
    for imp in imports:
        source, target = package_name(imp.module), package_name(imp.target)
        if source in used and target != source and target not in arrows.utilities:
            used[source].add(target)
    return used


def unused_arrow_faults(arrows: Arrows, used: dict[str, set[str]]) -> list[str]:
    """Arrows of the table that no import draws (a contract looser than the code)."""
    return [
        f"{name} -> {dep}: in the table of docs/architecture.md, but no module of {name} "
        f"imports {dep} (remove the arrow)"
        for name in arrows.order
        for dep in sorted(arrows.direct[name] - used[name] - arrows.utilities - {"*"})
    ]


def package_map(arrows: Arrows, used: dict[str, set[str]]) -> str:
    """One line per row, ``name -> what it imports``, both in row order."""
    rank = {name: index for index, name in enumerate(arrows.order)}
    width = max(map(len, arrows.order)) + 1
    lines = []
    for name in arrows.order:
        targets = sorted(used[name], key=lambda t: (rank.get(t, len(rank)), t))
        lines.append(f"{name:<{width}}-> {', '.join(targets) or '(nothing)'}")
    return "\n".join(lines)


def written_map(text: str) -> str:
    """The ``text`` block under :data:`MAP_MARKER` (empty when there is none)."""
    _, marker, after = text.partition(MAP_MARKER)
    match = re.match(r"\s*```text\n(.*?)\n```", after, re.S)
    return match.group(1) if marker and match else ""


@pytest.fixture(scope="module")
def page() -> str:
    return ARCHITECTURE.read_text()


@pytest.fixture(scope="module")
def arrows() -> Arrows:
    return read_arrows(ARCHITECTURE.read_text())


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return all_imports()


# -- the tests --------------------------------------------------------------------------------


def test_the_table_is_read_and_closed(arrows):
    assert arrows.order[0] == "problems" and arrows.order[-1] == "cli"
    assert arrows.utilities == {"errors", "results", "stats", "extract", "report"}
    assert arrows.depends["problems"] == frozenset()
    assert arrows.depends["timing"] == {"sandbox", "problems"}
    assert arrows.depends["envs"] == {"timing", "sandbox", "problems"}
    below_service = {"service", "execrl", "sandbox", "problems"}  # the front door: __version__
    assert arrows.depends["rl"] == {"rewards", "envs", "timing"} | below_service
    assert arrows.depends["cli"] >= set(arrows.depends) - {"cli"}
    assert "envs" not in arrows.depends["timing"]  # the arrow that used to run backwards


def test_every_module_is_read(imports):
    files = {imp.file for imp in imports}
    assert "src/execrl/envs/operators.py" in files
    assert "src/execrl/cli/main.py" in files
    assert len(files) > 100


def test_every_import_follows_the_package_arrows(arrows, imports):
    broken = [v for imp in imports if (v := package_violation(imp, arrows))]
    assert not broken, "imports against docs/architecture.md:\n" + "\n".join(broken)


def test_no_cli_module_imports_another_command(imports):
    broken = [v for imp in imports if (v := cli_violation(imp))]
    assert not broken, "cli modules importing commands:\n" + "\n".join(broken)


def test_every_package_is_on_the_page(arrows):
    faults = coverage_faults(arrows, source_packages())
    assert not faults, "docs/architecture.md and src/execrl disagree:\n" + "\n".join(faults)


def test_the_rows_are_in_data_flow_order(arrows):
    faults = order_faults(arrows)
    assert not faults, "docs/architecture.md's rows out of order:\n" + "\n".join(faults)


def test_each_row_has_its_paragraph_in_row_order(arrows, page):
    assert paragraph_order(page) == arrows.order


def test_every_arrow_of_the_table_is_used(arrows, imports):
    faults = unused_arrow_faults(arrows, used_arrows(imports, arrows))
    assert not faults, "\n".join(faults)


def test_the_package_map_is_drawn_from_the_imports(arrows, imports, page):
    drawn = package_map(arrows, used_arrows(imports, arrows))
    assert written_map(page) == drawn, (
        "docs/architecture.md's package map differs from the imports; the block under "
        f"{MAP_MARKER} should read:\n```text\n{drawn}\n```"
    )


# -- the check can fail -----------------------------------------------------------------------


def test_a_backwards_import_is_caught_with_file_line_and_arrow(arrows):
    code = "import numpy\n\n\ndef pool():\n    from execrl.envs.operators import qp\n"
    imports = imports_of(code, "src/execrl/timing/store.py", "execrl.timing.store")
    (message,) = [v for imp in imports if (v := package_violation(imp, arrows))]
    assert message == (
        "src/execrl/timing/store.py:5: timing -> envs imports execrl.envs.operators, against "
        "docs/architecture.md (timing may import: problems, sandbox)"
    )


def test_allowed_imports_pass_and_relative_ones_are_resolved(arrows):
    code = (
        "from execrl.errors import DataError\n"  # a utility
        "from execrl.sandbox.records import Status\n"  # two steps down: transitive
        "from . import pool\n"  # execrl.timing.pool, same package
        "from ..envs import operators\n"  # execrl.envs.operators: backwards
    )
    imports = imports_of(code, "src/execrl/timing/store.py", "execrl.timing.store")
    assert [i.target for i in imports] == [
        "execrl.errors",
        "execrl.sandbox.records",
        "execrl.timing.pool",
        "execrl.envs.operators",
    ]
    verdicts = [package_violation(imp, arrows) for imp in imports]
    assert verdicts[:3] == [None, None, None]
    assert verdicts[3] is not None and "timing -> envs" in verdicts[3]


def test_a_utility_importing_a_package_is_caught(arrows):
    (imp,) = imports_of("from execrl.sandbox import run\n", "src/execrl/stats.py", "execrl.stats")
    assert package_violation(imp, arrows) == (
        "src/execrl/stats.py:1: stats -> sandbox (a utility imports only utilities)"
    )


def test_a_cli_command_importing_another_is_caught():
    code = "from execrl.cli import main\nfrom execrl.cli._common import console\n"
    imports = imports_of(code, "src/execrl/cli/report.py", "execrl.cli.report")
    assert [cli_violation(imp) for imp in imports] == [
        "src/execrl/cli/report.py:1: execrl.cli.report -> execrl.cli.main: a cli module "
        "imports another command module (only a command table may; share code through a "
        "library function or execrl.cli._*)",
        None,
    ]
    table = imports_of("from execrl.cli import eval\n", "src/execrl/cli/main.py", "execrl.cli.main")
    group = imports_of(
        "from execrl.cli import timing_noise\n", "src/execrl/cli/timing.py", "execrl.cli.timing"
    )
    assert [cli_violation(imp) for imp in table + group] == [None, None]


PAGE = """
| package | depends on |
| --- | --- |
| `execrl.problems` | — |
| `execrl.envs` | `execrl.sandbox` |
| `execrl.sandbox` | `execrl.problems`, `execrl.errors` |
| `execrl.cli` | all |

### `execrl.problems`
### `execrl.sandbox`
### `execrl.envs`

Utility modules, importable by every package (and importing only each other):
`execrl.errors`.

<!-- package map: generated by tests/unit/test_import_direction.py -->
```text
problems -> (nothing)
```
"""


def test_a_package_off_the_page_and_a_row_out_of_order_are_caught(tmp_path):
    for name in ["problems", "sandbox", "envs", "cli", "rl"]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "errors.py").write_text("")
    arrows = read_arrows(PAGE)
    assert coverage_faults(arrows, source_packages(tmp_path)) == [
        "execrl: in src/execrl but not on docs/architecture.md (add a row and a paragraph, or "
        "list it with the utilities)",
        "rl: in src/execrl but not on docs/architecture.md (add a row and a paragraph, or "
        "list it with the utilities)",
    ]
    assert order_faults(arrows) == ["envs depends on sandbox, which is not a row above it"]
    assert paragraph_order(PAGE) == ("problems", "sandbox", "envs") != arrows.order


def test_an_unused_arrow_and_a_stale_map_are_caught():
    arrows = read_arrows(PAGE)
    code = "from execrl.errors import ExecrlError\nfrom execrl.problems import Problem\n"
    imports = imports_of(code, "src/execrl/sandbox/pool.py", "execrl.sandbox.pool")
    used = used_arrows(imports, arrows)
    assert unused_arrow_faults(arrows, used) == [
        "envs -> sandbox: in the table of docs/architecture.md, but no module of envs imports "
        "sandbox (remove the arrow)"
    ]
    drawn = package_map(arrows, used)
    assert drawn == (
        "problems -> (nothing)\nenvs     -> (nothing)\nsandbox  -> problems\ncli      -> (nothing)"
    )
    assert written_map(PAGE) == "problems -> (nothing)" != drawn
