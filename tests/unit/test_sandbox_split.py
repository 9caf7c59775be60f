"""The executor split (issue 30): protocol, pool and judge each own their part.

The protocol module owns the request and result types and imports neither the pool nor the
judge (TYPE_CHECKING imports and imports inside functions count); the judge starts no
worker, so it does not import the pool; and the old module ``execrl.sandbox.executor`` still
gives its documented names, with a DeprecationWarning, for one release.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SANDBOX = Path(__file__).resolve().parents[2] / "src" / "execrl" / "sandbox"
POOL, JUDGE, PROTOCOL = "execrl.sandbox.pool", "execrl.sandbox.judge", "execrl.sandbox.protocol"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports anywhere (``from a import b`` gives ``a`` and ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [("protocol", {POOL, JUDGE}), ("judge", {POOL})],
)
def test_a_module_does_not_import_what_it_does_not_own(module, forbidden):
    imports = imported_modules(SANDBOX / f"{module}.py")
    assert not imports & forbidden, f"sandbox/{module}.py imports {imports & forbidden}"


def test_the_checker_of_imports_sees_type_checking_imports(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("if TYPE_CHECKING:\n    from execrl.sandbox import pool\n")
    assert POOL in imported_modules(source)


def test_each_module_says_what_it_owns_and_what_it_does_not():
    for module in (POOL, JUDGE, PROTOCOL):
        doc = importlib.import_module(module).__doc__ or ""
        others = {POOL, JUDGE, PROTOCOL} - {module}
        assert all(f"``{other}``" in doc for other in others), module


@pytest.mark.parametrize(
    ("name", "home"),
    [
        ("ExecutionRequest", PROTOCOL),
        ("Captured", PROTOCOL),
        ("LocalExecutor", POOL),
        ("judge", JUDGE),
        ("apply_intended_limit", JUDGE),
        ("SETUP_FAILED_EXIT", JUDGE),
    ],
)
def test_the_old_module_still_gives_its_names_with_a_warning(name, home):
    old = importlib.import_module("execrl.sandbox.executor")
    with pytest.warns(DeprecationWarning, match=f"use {home}.{name}"):
        value = getattr(old, name)
    assert value is getattr(importlib.import_module(home), name)


def test_the_old_module_has_nothing_else():
    old = importlib.import_module("execrl.sandbox.executor")
    with pytest.raises(AttributeError, match="no attribute 'run_request'"):
        _ = old.run_request


def test_the_front_door_names_are_the_new_homes():
    import execrl.sandbox as sandbox
    from execrl.sandbox.pool import LocalExecutor
    from execrl.sandbox.protocol import ExecutionRequest

    assert sandbox.LocalExecutor is LocalExecutor
    assert sandbox.ExecutionRequest is ExecutionRequest
