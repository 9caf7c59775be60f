"""Shared fixtures: a small, real problem folder built on disk for each test that needs one."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

SUM_PROBLEM_YAML = """\
id: sum-list
title: Sum a list
difficulty: easy
time_limit_s: 2
memory_limit_mb: 256
tags: [warm-up]
references:
  - {name: loop, label: correct, tier: "explicit loop"}
  - {name: builtin, label: correct, tier: "sum()"}
  - {name: drops-last, label: incorrect, flaw: "ignores the last number when n > 3"}
generator:
  file: generator.py
  plan:
    original: {small: 3}
    extra: {small: 2, edge: 2}
    optimization: {large: 3}
"""

SUM_REFERENCES = {
    "loop": "n = int(input())\ns = 0\nfor x in map(int, input().split()):\n    s += x\nprint(s)\n",
    "builtin": "input()\nprint(sum(map(int, input().split())))\n",
    "drops-last": (
        "input()\na = list(map(int, input().split()))\n"
        "print(sum(a[:-1]) if len(a) > 3 else sum(a))\n"
    ),
}

SUM_GENERATOR = textwrap.dedent(
    """\
    import random, sys
    mode, seed = sys.argv[1], int(sys.argv[2])
    r = random.Random(seed)
    n = {"small": r.randint(1, 3), "edge": 1, "large": r.randint(20000, 40000)}[mode]
    print(n)
    print(*[r.randint(-10**9, 10**9) for _ in range(n)])
    """
)


def write_sum_problem(root: Path, references: dict[str, str] | None = None) -> Path:
    """Write the 'sum-list' problem folder (without generated tests) under ``root``."""
    folder = root / "sum-list"
    (folder / "references").mkdir(parents=True)
    (folder / "tests" / "original").mkdir(parents=True)
    (folder / "problem.yaml").write_text(SUM_PROBLEM_YAML)
    (folder / "statement.md").write_text("# Sum a list\n\nPrint the sum of n integers.\n")
    (folder / "generator.py").write_text(SUM_GENERATOR)
    for name, code in (references or SUM_REFERENCES).items():
        (folder / "references" / f"{name}.py").write_text(code)
    (folder / "tests" / "original" / "example-1.in").write_text("3\n1 2 3\n")
    (folder / "tests" / "original" / "example-1.out").write_text("6\n")
    return folder


@pytest.fixture
def sum_problem_dir(tmp_path: Path) -> Path:
    return write_sum_problem(tmp_path)


@pytest.fixture(scope="session")
def built_sum_problem_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sum-list problem with its generated tests built (once per session)."""
    from execrl.datagen import build_tests

    folder = write_sum_problem(tmp_path_factory.mktemp("built"))
    build_tests(folder, workers=2, show_progress=False)
    return folder


@pytest.fixture(scope="session")
def executor():
    """One sandbox pool per test process (two fork servers), shared by every test using it."""
    from execrl.sandbox import LocalExecutor

    with LocalExecutor(workers=2) as pool:
        yield pool


# -- the bad-input suite (tests/bad_inputs): every user mistake ends in exit code 2 and one line
# on stderr, never a traceback. ``bad_input(argv)`` runs the ``execrl`` command in-process (as
# the console script does), asserts exactly that, and returns the one stderr line for the test
# to check what it names. (Here, not in a conftest of its own: a second module named
# ``conftest`` would shadow this one for the tests that import helpers from it.)
@pytest.fixture
def bad_input(capsys):
    from execrl.cli.main import main

    def run(argv: list[str], *, code: int = 2) -> str:
        capsys.readouterr()
        try:
            got = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's own usage errors exit 2 with a usage line
            got = exc.code
        except BaseException as exc:  # (the point: nothing may escape)
            pytest.fail(f"{argv}: escaped as {type(exc).__name__}: {exc}")
        _, err = capsys.readouterr()
        assert got == code, (argv, got, err)
        lines = [line for line in err.splitlines() if line.strip()]
        assert "Traceback" not in err, err
        if code == 2:
            assert len(lines) >= 1, (argv, "no message on stderr")
            message = [line for line in lines if not line.startswith("usage:")]
            assert len(message) == 1, (argv, err)  # (argparse adds its usage line above)
            return message[0]
        return err

    return run
