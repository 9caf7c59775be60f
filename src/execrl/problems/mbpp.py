"""MBPP rows, in the original and the sanitized layout (``google-research-datasets/mbpp``).

Field by field:

- ``task_id`` → id ``mbpp-<task_id>``; ``text`` (original) or ``prompt`` (sanitized) →
  statement.
- ``code`` → the correct reference ``code``, as given (some rows use ``\\r\\n`` line ends).
- ``test_list`` → one assert test per line, ``test-0``, ``test-1``, … in T0 (``original``);
  ``challenge_test_list`` (original layout) → ``challenge-0``, … in T+ (``extra``). Each
  test's code is the dataset's line unchanged (``assert remove_Occ("hello","l") == "heo"``).
- entry point: the function the asserts call that ``code`` defines at top level (read with
  ``ast``, so a function literally named ``check`` is found like any other); when no assert
  calls one, the first function ``code`` defines.
- ``test_setup_code`` (original) and ``test_imports`` (sanitized) → ``prelude``, trusted code
  run before the program and the tests (so tests may build objects of classes it or the
  solution defines).
- ``source_file`` (sanitized) → ``source.extra``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from execrl.errors import LoaderError
from execrl.problems._rows import convert_rows, decode_literal_list
from execrl.problems._validation import parse_problem
from execrl.problems.models import Problem, TestGroup


def load_mbpp(path: str | Path) -> list[Problem]:
    """Load MBPP rows (original or sanitized) from .jsonl[.gz], .json or .parquet."""
    return convert_rows(
        path,
        lambda _, where, row: parse_problem(mbpp_row_to_dict(row, where), where=where),
        dataset="MBPP",
    )


def mbpp_row_to_dict(row: dict[str, Any], where: str) -> dict[str, Any]:
    missing = [f for f in ("task_id", "code", "test_list") if row.get(f) in (None, "")]
    if missing:
        raise LoaderError(f"{where}: MBPP row lacks {', '.join(missing)}")
    code = str(row["code"])
    test_lines = decode_literal_list(row.get("test_list"), where=where, field="test_list")
    challenge = decode_literal_list(
        row.get("challenge_test_list"), where=where, field="challenge_test_list"
    )
    if not test_lines:
        raise LoaderError(f"{where}: MBPP row has an empty test_list")
    entry_point = mbpp_entry_point(code, [*test_lines, *challenge], where=where)
    tests = [_assert(f"test-{i}", line, entry_point) for i, line in enumerate(test_lines)]
    tests += [
        _assert(f"challenge-{i}", line, entry_point, TestGroup.EXTRA)
        for i, line in enumerate(challenge)
    ]
    imports = decode_literal_list(row.get("test_imports"), where=where, field="test_imports")
    prelude = "\n".join(part for part in [*imports, row.get("test_setup_code") or ""] if part)
    return {
        "id": f"mbpp-{row['task_id']}",
        "title": f"MBPP {row['task_id']}",
        "statement": row.get("text") or row.get("prompt") or "",
        "entry_point": entry_point,
        "prelude": prelude or None,
        "tests": tests,
        "references": [{"name": "code", "code": code, "label": "correct"}],
        "source": {
            "dataset": "mbpp",
            "id": str(row["task_id"]),
            "extra": {"source_file": row["source_file"]} if row.get("source_file") else {},
        },
    }


def mbpp_entry_point(code: str, test_lines: list[str], *, where: str) -> str:
    """The name of the function under test: called in the asserts and defined by ``code``."""
    try:
        tree = ast.parse(code.replace("\r\n", "\n"))
        defined = [
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ]
    except SyntaxError:  # e.g. Python 2 code: the names are still on the ``def`` lines
        defined = re.findall(r"^(?:def|class)\s+(\w+)", code, flags=re.MULTILINE)
    for line in test_lines:
        for name in _called_names(line):
            if name in defined:
                return name
    functions = [name for name in defined if not name[:1].isupper()]
    if functions or defined:
        return (functions or defined)[0]
    raise LoaderError(f"{where}: MBPP code defines no function for the tests to call")


def _called_names(line: str) -> list[str]:
    """Names called in an assert, the left side of a comparison first."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return []
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            test = node.test
            roots += [test.left, *test.comparators] if isinstance(test, ast.Compare) else [test]
    names = []
    for root in roots or [tree]:
        names += [
            n.func.id
            for n in ast.walk(root)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        ]
    return names


def _assert(
    test_id: str, line: str, entry_point: str, group: TestGroup = TestGroup.ORIGINAL
) -> dict[str, Any]:
    return {
        "kind": "assert",
        "id": test_id,
        "group": group.value,
        "code": line,
        "entry_point": entry_point,
    }
