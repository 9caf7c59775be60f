"""The in-sandbox package, ``execrl.sandbox.zygote``, imports only the standard library and
itself.

It runs inside the sandbox, loaded under the name ``_zygote`` by an interpreter started with
``-I -S`` (no site-packages, no execrl): an import of anything else would fail there, and
only there. So every module of the package is parsed (``ast``), and every import in it —
at any depth, inside functions too, and ``importlib.import_module("name")`` /
``__import__("name")`` with a literal name — must be either

- absolute, of a module of the standard library (its top name in
  ``sys.stdlib_module_names``), or
- relative (``from . import wire``, ``from .. import codec`` in a subpackage), and staying
  inside the package.

An absolute import of the package itself (``execrl.sandbox.zygote.wire``, ``_zygote.wire``)
fails too: neither name is right in both places the code runs. A missing or empty package
folder fails, so the test cannot pass by finding nothing to read.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ZYGOTE = ROOT / "src" / "execrl" / "sandbox" / "zygote"
DYNAMIC_IMPORTS = {"__import__", "import_module"}
"""Calls that import the module named by their first argument (when it is a literal)."""


def stdlib_violations(package: Path, root: Path = ROOT) -> list[str]:
    """``file:line: why`` for each import in ``package`` that is neither the standard library
    nor a relative import inside the package; one line when the package has no module."""
    modules = sorted(package.rglob("*.py"))
    if not modules:
        return [f"{_shown(package, root)}: no module to read (the package is missing or empty)"]
    found = []
    for path in modules:
        file = _shown(path, root)
        depth = len(path.relative_to(package).parent.parts)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            found += [f"{file}:{node.lineno}: {why}" for why in _import_faults(node, depth)]
    return found


def _import_faults(node: ast.AST, depth: int) -> list[str]:
    """Why each import made by ``node`` is not allowed (``depth``: the module's folders below
    the package's top folder)."""
    if isinstance(node, ast.Import):
        return [f for alias in node.names if (f := _absolute_fault(alias.name))]
    if isinstance(node, ast.ImportFrom) and node.level:
        if node.level > depth + 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            shown = ", ".join("." * node.level + name for name in names)
            return [f"imports {shown}, above the package (stay inside it)"]
        return []
    if isinstance(node, ast.ImportFrom):
        return [f for f in [_absolute_fault(node.module or "")] if f]
    if (name := _dynamic_import(node)) is not None:
        return [f for f in [_absolute_fault(name)] if f]
    return []


def _absolute_fault(module: str) -> str | None:
    if module.split(".")[0] in sys.stdlib_module_names:
        return None
    return (
        f"imports {module}, which is not in the standard library (the sandbox has only the "
        "standard library; the package's own modules are imported relatively: from . import x)"
    )


def _dynamic_import(node: ast.AST) -> str | None:
    """The literal module name of ``__import__("x")`` or ``importlib.import_module("x")``."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    first = node.args[0]
    if name in DYNAMIC_IMPORTS and isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


# -- the test ---------------------------------------------------------------------------------


def test_the_in_sandbox_package_imports_only_the_standard_library_and_itself():
    broken = stdlib_violations(ZYGOTE)
    assert not broken, "imports the sandbox cannot make:\n" + "\n".join(broken)


# -- the check can fail -----------------------------------------------------------------------


def write_package(root: Path, files: dict[str, str]) -> Path:
    """A package folder ``root/zygote`` from ``{relative path: code}``."""
    for relative, code in files.items():
        path = root / "zygote" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    return root / "zygote"


def test_each_foreign_import_is_named_with_file_and_line(tmp_path):
    package = write_package(
        tmp_path,
        {
            "__init__.py": "",
            "codec.py": (
                "import json, numpy.linalg\n"
                "from . import wire\n"
                "\n"
                "\n"
                "def load():\n"
                "    from execrl.sandbox import limits\n"
                "    import importlib\n"
                "    return importlib.import_module('yaml'), __import__('_zygote.wire')\n"
            ),
            "runners/python.py": "from .. import codec\nfrom ... import protocol\n",
        },
    )
    tail = (
        ", which is not in the standard library (the sandbox has only the standard library; "
        "the package's own modules are imported relatively: from . import x)"
    )
    assert sorted(stdlib_violations(package, tmp_path)) == [
        f"zygote/codec.py:1: imports numpy.linalg{tail}",
        f"zygote/codec.py:6: imports execrl.sandbox{tail}",
        f"zygote/codec.py:8: imports _zygote.wire{tail}",
        f"zygote/codec.py:8: imports yaml{tail}",
        "zygote/runners/python.py:2: imports ...protocol, above the package (stay inside it)",
    ]


def test_the_standard_library_and_relative_imports_pass(tmp_path):
    package = write_package(
        tmp_path,
        {
            "__init__.py": "from . import wire\n",
            "wire.py": "from __future__ import annotations\nimport _thread, os.path, struct\n",
            "runners/__init__.py": "from .. import wire\nfrom .python import run\n",
            "runners/python.py": "import importlib\n\nx = importlib.import_module('json')\n",
        },
    )
    assert stdlib_violations(package, tmp_path) == []


def test_a_missing_or_empty_package_fails(tmp_path):
    missing = stdlib_violations(tmp_path / "zygote", tmp_path)
    (tmp_path / "zygote").mkdir()
    empty = stdlib_violations(tmp_path / "zygote", tmp_path)
    message = "zygote: no module to read (the package is missing or empty)"
    assert missing == empty == [message]
