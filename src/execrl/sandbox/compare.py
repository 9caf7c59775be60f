"""Output checkers: decide whether a program's output matches the expected one.

All checkers are pure functions of two strings (or two JSON values for call-based tests), so
they behave the same in the parent process of any executor. Each runs in time linear in the
size of the outputs: tokens are compared pairwise as they are split, never searched.

The kinds mirror the judges whose data execrl reads (``Checker`` documents each):

- ``tokens`` / ``float`` with ``case_sensitive`` and ``space_change_sensitive``: the Kattis /
  ICPC default output validator and DeepMind's CodeContests tester;
- ``apps``: the cascade of comparisons in the APPS / TACO harness (``testing_util.run_test``);
- ``livecodebench``: LiveCodeBench's ``grade_stdio``;
- ``custom``: a validator program, run in the sandbox by ``execrl.sandbox.validators``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from execrl.problems.models import Checker

_WHITESPACE_RUNS = re.compile(r"(\s+)")


def outputs_match(actual: str, expected: str, checker: Checker) -> bool:
    """Whether stdout ``actual`` matches ``expected`` under ``checker``.

    For ``custom`` this is only the preliminary verdict (the Kattis default comparison);
    ``LocalExecutor`` replaces it with the validator's own verdict.
    """
    if checker.kind == "apps":
        return apps_outputs_match(actual, expected)
    if checker.kind == "livecodebench":
        return livecodebench_outputs_match(actual, expected)
    if not checker.case_sensitive:
        actual, expected = actual.lower(), expected.lower()
    if checker.kind == "exact":
        return _normalise_lines(actual) == _normalise_lines(expected)
    tokens_equal = _float_token_rule(checker) if checker.kind == "float" else str.__eq__
    if checker.space_change_sensitive:
        return _match_with_spaces(actual, expected, tokens_equal)
    actual_tokens, expected_tokens = actual.split(), expected.split()
    if len(actual_tokens) != len(expected_tokens):
        return False
    return all(map(tokens_equal, actual_tokens, expected_tokens))


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


# -- tokens and floats (Kattis default validator, CodeContests tester) ------------------------


def _float_token_rule(checker: Checker) -> Callable[[str, str], bool]:
    def equal(actual: str, expected: str) -> bool:
        return _tokens_close(actual, expected, abs_tol=checker.abs_tol, rel_tol=checker.rel_tol)

    return equal


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


def _match_with_spaces(
    actual: str, expected: str, tokens_equal: Callable[[str, str], bool]
) -> bool:
    """Kattis ``space_change_sensitive``: tokens by the rule, whitespace runs identical."""
    actual_parts = _WHITESPACE_RUNS.split(actual.replace("\r\n", "\n"))
    expected_parts = _WHITESPACE_RUNS.split(expected.replace("\r\n", "\n"))
    if len(actual_parts) != len(expected_parts):
        return False
    # re.split with a group alternates token, whitespace, token, ...: odd indices are spaces.
    return all(
        (a == e) if i % 2 else (a == e or (bool(a) and bool(e) and tokens_equal(a, e)))
        for i, (a, e) in enumerate(zip(actual_parts, expected_parts, strict=True))
    )


def _normalise_lines(text: str) -> str:
    return text.replace("\r\n", "\n").rstrip("\n")


# -- LiveCodeBench ----------------------------------------------------------------------------


def livecodebench_outputs_match(actual: str, expected: str) -> bool:
    """LiveCodeBench's ``grade_stdio``: both texts stripped and split into stripped lines;
    same number of lines; each pair equal as strings or as lists of Decimals."""
    actual_lines, expected_lines = _stripped_lines(actual), _stripped_lines(expected)
    if len(actual_lines) != len(expected_lines):
        return False
    return all(
        a == e or _decimal_line(a) == _decimal_line(e) is not None
        for a, e in zip(actual_lines, expected_lines, strict=True)
    )


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _decimal_line(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except (InvalidOperation, ValueError):
        return None


# -- APPS / TACO --------------------------------------------------------------------------------


def apps_outputs_match(actual: str, expected: str) -> bool:
    """The APPS / TACO harness's comparison of a stdio program's output, in its own order.

    The harness captures stdout as a list of lines and accepts the first of these that holds:

    1. the lines joined (each stripped, or not) equal the expected text, both stripped;
    2. the lines equal the expected text's non-empty stripped lines (after dropping empty
       output lines too);
    3. every line is a number and they are all close (numpy ``allclose``: ``|a - e| <= 1e-8 +
       1e-5 * |e|``) to the expected lines, also numbers;
    4. the set of per-line token sets is equal (line order, token order and duplicates
       ignored), or equal after rounding every token as a float to 3 decimals.
    """
    lines = actual.splitlines()
    if _apps_joined_equal(lines, expected):
        return True
    # As the harness does: drop empty lines, then strip (a line of spaces stays, as "").
    expected_lines = [line.strip() for line in expected.split("\n") if line]
    if lines == expected_lines:
        return True
    nonempty = [line for line in lines if line]
    if nonempty == expected_lines:
        return True
    if _apps_floats_close(nonempty, expected_lines):
        return True
    actual_sets = {frozenset(line.split()) for line in nonempty if line.split()}
    expected_sets = {frozenset(line.split()) for line in expected_lines}
    if actual_sets == expected_sets:
        return True
    return _rounded_sets(actual_sets) == _rounded_sets(expected_sets) is not None


def _apps_joined_equal(lines: list[str], expected: str) -> bool:
    target = expected.strip()
    return (
        "\n".join(lines).strip() == target
        or "\n".join(line.strip() for line in lines).strip() == target
    )


def _apps_floats_close(actual: list[str], expected: list[str]) -> bool:
    if len(actual) != len(expected) or not expected:
        return False
    try:
        pairs = [(float(a), float(e)) for a, e in zip(actual, expected, strict=True)]
    except ValueError:
        return False
    return all(abs(a - e) <= 1e-8 + 1e-5 * abs(e) for a, e in pairs)


def _rounded_sets(sets: set[frozenset[str]]) -> set[frozenset[float]] | None:
    try:
        return {frozenset(round(float(t), 3) for t in tokens) for tokens in sets}
    except (ValueError, OverflowError):
        return None
