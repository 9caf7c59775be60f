"""execrl's own ``testlib.h``: where it is, for a compiler's ``-I``.

Checkers, validators, generators and interactors written for Codeforces and Polygon include
``"testlib.h"``; this one is execrl's own implementation of that API (docs/testlib.md says
what it covers and where it differs). It ships as package data with the standard checkers
written against it (``wcmp``, ``ncmp``, ``rcmp6``, ``lcmp``, ``yesno``).
"""

from __future__ import annotations

from pathlib import Path

from execrl.errors import UsageError

TESTLIB_DIR: Path = Path(__file__).resolve().parent / "data" / "testlib"
"""The folder holding ``testlib.h``: the directory to pass as ``-I``."""

STANDARD_CHECKERS: tuple[str, ...] = ("lcmp", "ncmp", "rcmp6", "wcmp", "yesno")
"""The standard checkers shipped as sources under ``TESTLIB_DIR / "checkers"``."""


def testlib_header() -> Path:
    """The path of ``testlib.h``."""
    return TESTLIB_DIR / "testlib.h"


def standard_checker(name: str) -> Path:
    """The C++ source of a standard checker (``wcmp``, ``ncmp``, ...), to build with
    ``-I TESTLIB_DIR``."""
    if name not in STANDARD_CHECKERS:
        raise UsageError(
            f"unknown standard checker {name!r} in `name`; choose one of "
            + ", ".join(STANDARD_CHECKERS)
        )
    return TESTLIB_DIR / "checkers" / f"{name}.cpp"
