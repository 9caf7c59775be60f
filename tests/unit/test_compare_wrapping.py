"""APPS/TACO's stdin-function wrapping as a pure program transformation (sandbox.wrapping)."""

from __future__ import annotations

import ast

import pytest

from execrl.sandbox.wrapping import WRAPPER_NAME, wrap_stdin_program


def run(code: str, lines: list[str]) -> list[str]:
    """Execute ``code`` with ``input()`` reading ``lines``; return what it printed."""
    printed: list[str] = []
    feed = iter(lines)
    namespace = {
        "__name__": "__main__",
        "input": lambda: next(feed),
        "print": lambda *a, **k: printed.append(" ".join(map(str, a))),
    }
    exec(compile(code, "<prog>", "exec"), namespace)
    return printed


TOP_LEVEL_RETURN = """\
from __future__ import annotations
import sys
from math import *
n = int(input())
total = 0
def add(x):
    global total
    total += x
if n == 0:
    print("empty")
    return
for x in map(int, input().split()):
    add(x)
print(total, floor(2.5), [k for k in range(2)])
"""


def test_top_level_return_runs_as_under_the_apps_harness():
    with pytest.raises(SyntaxError, match="'return' outside function"):
        compile(TOP_LEVEL_RETURN, "<prog>", "exec")
    wrapped = wrap_stdin_program(TOP_LEVEL_RETURN)
    assert run(wrapped, ["0"]) == ["empty"]
    # Module-level names stay globals, so the program's own ``global total`` still works.
    assert run(wrapped, ["3", "1 2 3"]) == ["6 2 [0, 1]"]
    tree = ast.parse(wrapped)
    assert isinstance(tree.body[0], ast.ImportFrom) and tree.body[0].module == "__future__"
    assert isinstance(tree.body[1], ast.ImportFrom) and tree.body[1].names[0].name == "*"
    function = next(s for s in tree.body if isinstance(s, ast.FunctionDef))
    assert function.name == WRAPPER_NAME
    assert isinstance(function.body[0], ast.Global)
    assert {"n", "total", "add", "sys", "x"} <= set(function.body[0].names)


@pytest.mark.parametrize(
    "code",
    [
        "print(int(input()) * 2)\n",  # nothing to wrap
        "def f():\n    return 1\nprint(f())\n",  # a return inside a function only
        "def f(:\n",  # does not parse: the sandbox reports the syntax error
        "x = (yield)\nreturn\n",  # a top-level yield would make the wrapper a generator
    ],
)
def test_programs_without_a_top_level_return_are_unchanged(code):
    assert wrap_stdin_program(code) == code


def test_return_inside_if_while_try_and_with_blocks_is_found():
    code = (
        "while True:\n    try:\n        if input() == 'q':\n            return\n"
        "    finally:\n        print('x')\n"
    )
    assert run(wrap_stdin_program(code), ["a", "q"]) == ["x", "x"]
