"""One program on chosen tests of one problem (what ``execrl run`` does): the request, with
the tests in suite order, and the record's table as text cells.

    request = problem_request(problem, program, groups=["original"])
    record = executor.execute(request)
    header, rows = record_table(record, problem, timing="cpu")
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from execrl.errors import DataError, UsageError, describe_validation_error
from execrl.problems.models import Problem, TestCase, TestGroup
from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.limits import TIMING_UNITS, ExecutionOptions, TimingMetric, is_counted
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord


def in_suite_order(tests: Sequence[TestCase]) -> list[TestCase]:
    """Original, then extra, then optimization tests (as ``problems show`` and the docs list
    them), each group in the problem's own order."""
    order = {group: i for i, group in enumerate(TestGroup)}
    return sorted(tests, key=lambda t: order[t.group])


def problem_tests(problem: Problem, groups: Sequence[str] = ()) -> list[TestCase]:
    """The problem's tests of ``groups`` (all without), in suite order; a UsageError naming
    the problem's test counts when there are none to run."""
    tests = in_suite_order(problem.tests_in(*groups))
    if not tests:
        which = f"{' or '.join(groups)} " if groups else ""
        counts = ", ".join(f"{g.value} {len(problem.tests_in(g))}" for g in TestGroup)
        raise UsageError(f"{problem.id} has no {which}tests to run (its tests: {counts})")
    return tests


def problem_request(
    problem: Problem,
    program: str,
    tests: list[TestCase],
    options: ExecutionOptions,
    name: str = "",
    *,
    language: str = "python",
    build: BuildOptions | None = None,
) -> ExecutionRequest:
    """The request running ``program`` (in ``language``, built with ``build``) on ``tests``
    under the problem's limits and checker; a problem whose limits the sandbox cannot take
    (a time limit over its maximum) is that problem's one-line DataError."""
    try:
        return ExecutionRequest.for_problem(
            problem,
            program,
            tests=tests,
            options=options,
            program_name=name,
            language=language,
            build=build,
        )
    except ValidationError as exc:
        raise DataError(
            f"{problem.id}: its limits cannot be used ({describe_validation_error(exc)}); fix "
            "the problem's time_limit_s / memory_limit_mb"
        ) from None


def record_table(
    record: ExecutionRecord, problem: Problem, timing: TimingMetric = "cpu"
) -> tuple[list[str], list[list[str]]]:
    """One row per test result: test, group, verdict, CPU and wall milliseconds, the count
    under a counted ``timing`` (``—`` where the test failed), and the detail (the program's
    own words: show it as text)."""
    counted = is_counted(timing)
    unit = TIMING_UNITS[timing]
    header = ["test", "group", "verdict", "cpu ms", "wall ms", *([unit] if counted else ())]
    groups = {t.id: t.group.value for t in problem.tests}
    rows = []
    for r in record.results:
        count = [f"{r.duration_s(timing):,.0f}" if r.passed else "—"] if counted else []
        times = [f"{r.cpu_s * 1000:.0f}", f"{r.wall_s * 1000:.0f}"]
        rows.append([r.test_id, groups[r.test_id], r.status.value, *times, *count, r.detail])
    return [*header, "detail"], rows
