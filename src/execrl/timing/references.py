"""Measure the reference pool H(x): run every correct reference on the optimization tests and
store its per-test durations in ``Reference.durations_s`` (spec §1): seconds, or with a counted
timing (``instructions``, ``cycles_estimate``) the count of each passing test."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from execrl.problems.models import Problem, ReferenceLabel
from execrl.sandbox.counting import require_valgrind, seconds_as
from execrl.sandbox.limits import ExecutionOptions, Limits, TimingMetric, is_counted
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, TestResult


def measure_reference_durations(
    problems: Sequence[Problem],
    executor,
    *,
    repeats: int = 1,
    timing: TimingMetric = "cpu",
    cap_s: float | None = None,
    progress: bool = True,
    per_second: float | None = None,
) -> tuple[list[Problem], list[ExecutionRecord]]:
    """Problems whose correct references carry fresh ``durations_s`` (the median over
    ``repeats`` on each optimization test), and the records they came from. A test a
    reference did not pass gets no duration there (it is missing from D_t, not slow); a
    timeout is stored at the cap (for a count: the cap at ``per_second`` counts per CPU
    second, ``seconds_as``). A counted timing without a working Valgrind is a ConfigError
    before anything runs."""
    if is_counted(timing):
        require_valgrind()
    requests, owners = [], []
    for i, problem in enumerate(problems):
        limits = Limits.for_problem(problem, cap_s=cap_s)
        for ref in problem.references_labelled(ReferenceLabel.CORRECT):
            requests.append(
                ExecutionRequest.for_problem(
                    problem,
                    ref.code,
                    tests=problem.optimization_tests,
                    limits=limits,
                    options=ExecutionOptions(repeats=repeats, timing=timing),
                    program_name=ref.name,
                    language=ref.language,  # each reference timed in its own language
                )
            )
            owners.append((i, ref.name))
    stored: dict[int, dict[str, dict[str, float]]] = {}
    records = list(
        executor.run_batch(requests, progress=progress, description="reference durations")
    )
    for (i, name), record in zip(owners, records, strict=True):
        cap = cap_s or problems[i].time_limit_s
        durations = {}
        for result in record.results:
            if result.status is Status.SUCCESS:
                durations[result.test_id] = _passed_duration(result, timing)
            elif result.status is Status.TIMEOUT:
                durations[result.test_id] = seconds_as(cap, timing, per_second)
        stored.setdefault(i, {})[name] = durations
    updated = []
    for i, problem in enumerate(problems):
        refs = [
            ref.model_copy(update={"durations_s": stored[i][ref.name]})
            if ref.name in stored.get(i, {})
            else ref
            for ref in problem.references
        ]
        updated.append(problem.model_copy(update={"references": refs}))
    return updated, records


def _passed_duration(result: TestResult, timing: TimingMetric) -> float:
    """A passing test's duration: the median over its repeats' clock, or its count (one
    counted run: a count does not vary)."""
    if is_counted(timing):
        return result.duration_s(timing)
    values = [getattr(r, f"{timing}_s") for r in result.repeats] or [result.duration_s(timing)]
    return statistics.median(values)
