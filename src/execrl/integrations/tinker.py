"""execrl problems for tinker-cookbook's code RL recipe (``tinker_cookbook.recipes.code_rl``).

The recipe grades with its own harness (LiveCodeBench's ``testing_util.py``), which its
``SandboxFusionClient`` posts to ``$SANDBOX_URL`` (``/run_code``). ``execrl serve`` answers that
endpoint, so the recipe runs unchanged against it: ``SANDBOX_URL=http://cpu-node:8080/run_code``
(docs/integrations.md). This module only bridges the two ends the recipe leaves open:

- :func:`lcb_tests`: an execrl row (a label, :mod:`execrl.integrations.rows`) as the recipe's
  test list, LiveCodeBench's ``[{"input", "output", "testtype", "metadata"}]``, the ``tests``
  of its ``DeepcoderTask`` and the ``sample`` of ``sandbox_check_correctness``;
- :func:`inconclusive`: whether the recipe's ``(passed, details)`` answer means the sandbox,
  not the program, failed. The recipe scores that as a wrong program (``correct = 0.0``);
  check this before reading ``passed=False`` as a verdict.

The verdict is the harness's (APPS-style comparisons, a per-test ``signal.alarm``), not
execrl's checker: the two agree on ordinary outputs (tokens, floats) but are not the same code.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from execrl.errors import ConfigError
from execrl.integrations.rows import resolve_row
from execrl.problems.models import CallTest, Problem, StdioTest

RECIPE_CHECKERS = frozenset({"tokens", "exact", "float", "apps", "livecodebench"})
"""Checkers whose verdicts the recipe's harness reproduces on ordinary outputs (a validator,
``custom``, has no counterpart there)."""


def lcb_tests(label: Any, info: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The row's tests as the recipe's LiveCodeBench test list: stdio tests as
    ``stdin_stdout`` cases, call tests as ``functional`` ones (one JSON argument per input
    line, the JSON return value as output, ``metadata.func_name``). ``label`` is any label
    :func:`~execrl.integrations.rows.resolve_row` reads, or a :class:`Problem`. A ConfigError
    for a row the harness cannot judge: not Python, assert tests, a validator, a prelude.
    (The harness wraps stdio programs in a function, as ``stdin_as_function`` rows ask.)"""
    problem = label if isinstance(label, Problem) else _code_problem(label, info)
    _check_judgeable(problem)
    return [_lcb_case(test) for test in problem.tests]


def per_test_timeout_s(problem: Problem) -> int:
    """The recipe's per-test ``timeout`` (whole seconds, its ``signal.alarm``) for
    ``problem``: its time limit rounded up."""
    return max(1, math.ceil(problem.time_limit_s))


def inconclusive(details: Mapping[str, Any]) -> bool:
    """Whether ``sandbox_check_correctness``'s (or ``SandboxFusionClient.run``'s) details say
    the sandbox failed rather than the program: a ``SandboxError`` answer, or no answer at all
    (an HTTP error, a refused request, a connection error: ``{"error": ...}`` and no
    ``status``)."""
    return details.get("status") == "SandboxError" or "status" not in details


def _code_problem(label: Any, info: Mapping[str, Any] | None) -> Problem:
    row = resolve_row(label, info)
    if row.problem is None:
        raise ConfigError(
            "the recipe's harness grades code: `label` is a solver answer, not a code problem"
        )
    if row.language != "python":
        raise ConfigError(
            f"the recipe's harness runs Python programs; the row's `language` is "
            f"{row.language!r}: train that row with another integration"
        )
    return row.problem


def _check_judgeable(problem: Problem) -> None:
    why = None
    if problem.checker.kind not in RECIPE_CHECKERS:
        why = f"its checker is {problem.checker.kind!r}"
    elif problem.prelude:
        why = "it needs a prelude, which the harness does not run"
    elif not problem.tests:
        why = "it has no tests"
    elif any(not isinstance(test, StdioTest | CallTest) for test in problem.tests):
        why = "it has assert tests (the harness runs stdio and call tests)"
    elif len({isinstance(test, CallTest) for test in problem.tests}) > 1:
        why = "it mixes stdio and call tests (the harness takes one kind per problem)"
    if why:
        raise ConfigError(f"problem {problem.id!r} cannot be judged by the recipe's harness: {why}")


def _lcb_case(test: StdioTest | CallTest) -> dict[str, Any]:
    if isinstance(test, StdioTest):
        return {"input": test.input, "output": test.output, "testtype": "stdin_stdout",
                "metadata": {}}  # fmt: skip
    return {
        "input": "\n".join(json.dumps(arg) for arg in test.args),
        "output": json.dumps(test.expected),
        "testtype": "functional",
        "metadata": {"func_name": test.fn_name},
    }
