"""Output checkers: decide whether a program's output matches the expected one.

All checkers are pure functions of two strings (or two JSON values for call-based tests), so
they behave the same in the parent process of any executor.
"""

from __future__ import annotations

import math
from typing import Any

from execrl.problems.models import Checker


def outputs_match(actual: str, expected: str, checker: Checker) -> bool:
    """Whether stdout ``actual`` matches ``expected`` under ``checker``."""
    if checker.kind == "exact":
        return _normalise_lines(actual) == _normalise_lines(expected)
    actual_tokens, expected_tokens = actual.split(), expected.split()
    if checker.kind == "tokens":
        return actual_tokens == expected_tokens
    if len(actual_tokens) != len(expected_tokens):
        return False
    return all(
        _tokens_close(a, e, abs_tol=checker.abs_tol, rel_tol=checker.rel_tol)
        for a, e in zip(actual_tokens, expected_tokens, strict=True)
    )


def values_match(actual: Any, expected: Any) -> bool:
    """Compare plain JSON values (call-based tests); tuples and lists are the same JSON array.

    Both sides must already be plain data (decoded from JSON), so a returned object with a
    rigged ``__eq__`` cannot reach this function.
    """
    if isinstance(expected, float) or isinstance(actual, float):
        if isinstance(actual, bool) or isinstance(expected, bool):
            return actual is expected
        if not isinstance(actual, int | float) or not isinstance(expected, int | float):
            return False
        return math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(values_match(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(values_match(actual[k], expected[k]) for k in expected)
        )
    return type(actual) is type(expected) and actual == expected


def _normalise_lines(text: str) -> str:
    return text.replace("\r\n", "\n").rstrip("\n")


def _tokens_close(actual: str, expected: str, *, abs_tol: float, rel_tol: float) -> bool:
    if actual == expected:
        return True
    try:
        a, e = float(actual), float(expected)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(e):
        return False
    return abs(a - e) <= max(abs_tol, rel_tol * abs(e))
