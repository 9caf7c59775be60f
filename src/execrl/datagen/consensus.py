"""Spec §9 consensus: accept a generator's attempt only when verified correct solutions agree.

One attempt is the generator's 15 calls (``attempt_schedule``). It is all-or-nothing:

1. the generator runs in the sandbox on every call; any call that fails rejects the attempt,
   naming the call (``generator failed: large 3: timeout: ...``);
2. at most ``MAX_SOLUTIONS`` verified correct solutions (the first ones) run on every input,
   in the sandbox under the problem's limits, each in its own language (C++ and Java
   solutions agree or disagree with Python ones like any other); a solution that fails on
   any input (timeout, crash, limit, a build that failed) agrees with no one on this attempt;
3. solutions are grouped by agreement on *all* outputs under the problem's checker, each
   against its group's representative (its first member); the largest group wins (a tie: the
   group of the earliest solution); fewer than ``MIN_AGREEING`` members rejects the attempt;
4. the expected outputs are the representative's; another member of the group re-runs the
   accepted tests as an ordinary judged request and must pass them all (it catches a solution
   whose output changes between runs).

An infrastructure failure (an ``inconclusive`` verdict) makes the attempt ``inconclusive``:
neither accepted nor rejected, to be retried. Only a failure that decides the attempt anyway
comes first: a generator call that failed on its own rejects it, and a solution that failed on
its own on some input agrees with no one, whatever their other runs gave.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from execrl.datagen.generators import (
    GeneratedInput,
    GeneratorProgram,
    attempt_schedule,
    generated_group,
    run_generator_calls,
    verdict_text,
)
from execrl.datagen.reference_runs import PYTHON, capture, language_of, reference_request
from execrl.problems.models import Checker, Problem, Reference, StdioTest
from execrl.sandbox.batch import parallel_map
from execrl.sandbox.compare import outputs_match
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import Status, TestResult
from execrl.sandbox.wrapping import wrap_stdin_program

MAX_SOLUTIONS = 10
MIN_AGREEING = 2

NO_AGREEMENT = "no two solutions agree"


@dataclass(frozen=True)
class AttemptResult:
    """One attempt of one generator: accepted (with its tests), rejected (with a reason), or
    inconclusive (the sandbox failed; retry later)."""

    generator: str
    attempt: int
    accepted: bool
    reason: str | None
    """Why it was rejected or inconclusive; its kind is the text before the first colon
    (``reason_kind``): ``generator failed``, ``no two solutions agree``, ``re-check failed``,
    ``too few correct solutions``, ``inconclusive``."""
    inconclusive: bool
    tests: list[StdioTest] = field(default_factory=list)
    """The accepted tests (empty unless accepted), ids ``<generator>-a<attempt>-<mode>-<seed>``;
    group ``extra`` for small and edge inputs, ``optimization`` for large ones."""
    agreeing: list[str] = field(default_factory=list)
    """The largest agreeing group's solutions, representative first (when it has >= 2)."""
    checked_by: str | None = None
    """The solution that re-ran the accepted tests (when the re-check ran)."""
    seconds: float = 0.0
    """Wall time of the whole attempt."""


def reason_kind(reason: str) -> str:
    """The kind of a rejection reason: the text before its first colon."""
    return reason.split(":", 1)[0]


@dataclass(frozen=True)
class SolutionRun:
    """One solution's outputs on an attempt's inputs (in call order), or why it has none."""

    name: str
    outputs: list[str] | None
    failure: str | None = None
    """The first input it failed on and how: ``small 2: timeout: ...``."""
    inconclusive: bool = False


@dataclass(frozen=True)
class Recheck:
    """The re-check of accepted tests by one agreeing solution."""

    solution: str
    passed: bool
    inconclusive: bool
    detail: str = ""


# -- the attempt ---------------------------------------------------------------------------
def run_attempt(
    problem: Problem,
    generator: GeneratorProgram,
    attempt: int,
    *,
    correct: Sequence[Reference],
    executor: Executor,
    limits: Limits,
    solution_limits: Limits | None = None,
) -> AttemptResult:
    """Run attempt ``attempt`` of ``generator`` on ``problem`` (see the module docstring).

    ``limits`` are the generator's (e.g. ``GENERATOR_LIMITS``); solutions run under
    ``solution_limits``, by default the problem's (``Limits.for_problem``). ``correct`` are the
    verified correct solutions; the first ``MAX_SOLUTIONS`` are used."""
    started = time.perf_counter()

    def result(**fields: object) -> AttemptResult:
        base = {"accepted": False, "reason": None, "inconclusive": False}
        return AttemptResult(
            generator=generator.name,
            attempt=attempt,
            seconds=time.perf_counter() - started,
            **{**base, **fields},
        )

    solutions = list(correct[:MAX_SOLUTIONS])
    if len(solutions) < MIN_AGREEING:
        return result(reason=f"too few correct solutions: {len(solutions)} (needs {MIN_AGREEING})")
    inputs = run_generator_calls(
        generator, attempt_schedule(attempt), executor=executor, limits=limits
    )
    failed = _first_failed_call(inputs)
    if failed is not None:
        if failed.inconclusive:
            return result(
                reason=f"inconclusive: generator {failed.call}: {failed.error}", inconclusive=True
            )
        return result(reason=f"generator failed: {failed.call}: {failed.error}")
    solution_limits = solution_limits or Limits.for_problem(problem)
    runs = capture_outputs(problem, solutions, inputs, executor=executor, limits=solution_limits)
    unsure = [run for run in runs if run.inconclusive]
    if unsure:
        return result(
            reason=f"inconclusive: {unsure[0].name} on {unsure[0].failure}", inconclusive=True
        )
    group = largest_group(agreeing_groups(runs, problem.checker))
    agreeing = [runs[i].name for i in group]
    if len(group) < MIN_AGREEING:
        return result(reason=_no_agreement(runs))
    tests = generated_tests(generator.name, attempt, inputs, runs[group[0]].outputs or [])
    checking = solutions[group[1]]  # not the representative, whose outputs are the expected ones
    check = recheck(problem, checking, tests, executor=executor, limits=solution_limits)
    if check.inconclusive:
        return result(
            reason=f"inconclusive: re-check by {checking.name}: {check.detail}",
            inconclusive=True,
            agreeing=agreeing,
            checked_by=checking.name,
        )
    if not check.passed:
        return result(
            reason=f"re-check failed: {checking.name} {check.detail}",
            agreeing=agreeing,
            checked_by=checking.name,
        )
    return result(accepted=True, tests=tests, agreeing=agreeing, checked_by=checking.name)


def _first_failed_call(inputs: Sequence[GeneratedInput]) -> GeneratedInput | None:
    """The call that decides a failed attempt: the first one (in schedule order) the generator
    itself failed, which rejects the attempt whatever the others gave; else the first
    inconclusive one (a sandbox failure says nothing about the generator); else None."""
    failed = [i for i in inputs if i.error is not None and not i.inconclusive]
    unsure = [i for i in inputs if i.inconclusive]
    return (failed or unsure or [None])[0]


def _no_agreement(runs: Sequence[SolutionRun]) -> str:
    """``no two solutions agree``, with how many failed an input and the first such failure."""
    failing = [run for run in runs if run.outputs is None]
    if not failing:
        return f"{NO_AGREEMENT}: all {len(runs)} ran cleanly and differ"
    first = failing[0]
    return (
        f"{NO_AGREEMENT}: {len(failing)} of {len(runs)} failed an input "
        f"(first: {first.name} on {first.failure})"
    )


# -- the steps -----------------------------------------------------------------------------
def capture_outputs(
    problem: Problem,
    solutions: Sequence[Reference],
    inputs: Sequence[GeneratedInput],
    *,
    executor: Executor,
    limits: Limits,
) -> list[SolutionRun]:
    """Every solution on every input, in the sandbox, one capture per (solution, input), all
    of the pool's workers busy, each solution in its own language; one ``SolutionRun`` per
    solution, in order."""
    programs = [_as_judged(problem, s) for s in solutions]
    languages = [language_of(s) for s in solutions]
    pairs = [(s, i) for s in range(len(solutions)) for i in range(len(inputs))]

    def run_one(pair: tuple[int, int]) -> tuple[TestResult, str]:
        solution, index = pair
        stdin = inputs[index].text or ""
        return capture(executor, programs[solution], stdin, limits, language=languages[solution])

    captured = list(parallel_map(run_one, pairs, jobs=executor.workers, show_progress=False))
    per_solution = len(inputs)
    return [
        _solution_run(s.name, inputs, captured[k * per_solution : (k + 1) * per_solution])
        for k, s in enumerate(solutions)
    ]


def _as_judged(problem: Problem, solution: Reference) -> str:
    """The program as a judged request runs it (APPS/TACO problems wrap stdin Python
    programs; a program in another language runs as written)."""
    wrapped = problem.stdin_as_function and language_of(solution) == PYTHON
    return wrap_stdin_program(solution.code) if wrapped else solution.code


def _solution_run(
    name: str, inputs: Sequence[GeneratedInput], captured: Sequence[tuple[TestResult, str]]
) -> SolutionRun:
    """A solution's outputs, or its first own failure (it then agrees with no one, whatever
    else happened), or else its first inconclusive run."""
    outputs, unsure = [], None
    for generated, (verdict, stdout) in zip(inputs, captured, strict=True):
        if verdict.status is Status.INCONCLUSIVE:
            unsure = unsure or f"{generated.call}: {verdict.detail}"
        elif not verdict.passed:
            return SolutionRun(name, None, f"{generated.call}: {verdict_text(verdict)}")
        elif "\ufffd" in stdout:  # (capture decodes with replacement characters)
            return SolutionRun(name, None, f"{generated.call}: printed bytes that are not UTF-8")
        outputs.append(stdout)
    if unsure is not None:
        return SolutionRun(name, None, unsure, inconclusive=True)
    return SolutionRun(name, outputs)


def agreeing_groups(runs: Sequence[SolutionRun], checker: Checker) -> list[list[int]]:
    """Indices of ``runs`` grouped by agreement on every output under ``checker``, each run
    compared with each group's representative (its first member) in turn and put in the first
    group it matches. Runs without outputs are in no group. Groups are in order of their first
    member."""
    groups: list[list[int]] = []
    for index, run in enumerate(runs):
        if run.outputs is None:
            continue
        for group in groups:
            if _agree(run.outputs, runs[group[0]].outputs or [], checker):
                group.append(index)
                break
        else:
            groups.append([index])
    return groups


def _agree(outputs: Sequence[str], expected: Sequence[str], checker: Checker) -> bool:
    return len(outputs) == len(expected) and all(
        outputs_match(actual, wanted, checker)
        for actual, wanted in zip(outputs, expected, strict=True)
    )


def largest_group(groups: Sequence[list[int]]) -> list[int]:
    """The largest group; on a tie the one with the earliest solution (``max`` keeps the first
    of equals, and groups are in order of their first member). Empty when there are none."""
    return max(groups, key=len, default=[])


def generated_tests(
    generator: str, attempt: int, inputs: Sequence[GeneratedInput], outputs: Sequence[str]
) -> list[StdioTest]:
    """The attempt's tests: each input with its expected output."""
    return [
        StdioTest(
            id=f"{generator}-a{attempt}-{generated.mode.value}-{generated.seed}",
            group=generated_group(generated.mode),
            input=generated.text or "",
            output=output,
        )
        for generated, output in zip(inputs, outputs, strict=True)
    ]


def recheck(
    problem: Problem,
    solution: Reference,
    tests: Sequence[StdioTest],
    *,
    executor: Executor,
    limits: Limits,
) -> Recheck:
    """``solution`` on the accepted ``tests`` as a judge runs it (one judged request per test,
    in parallel); it must pass every one. The detail names the first test it failed."""
    requests = [reference_request(problem, solution, tests=[test], limits=limits) for test in tests]
    records = executor.run_batch(requests, progress=False, description="re-check")
    results = [result for record in records for result in record.results]
    unsure = [r for r in results if r.status is Status.INCONCLUSIVE]
    if unsure:
        return Recheck(solution.name, False, True, f"{unsure[0].test_id}: {unsure[0].detail}")
    failed = [r for r in results if not r.passed]
    if failed or len(results) != len(tests):
        detail = f"on {failed[0].test_id}: {verdict_text(failed[0])}" if failed else "no result"
        return Recheck(solution.name, False, False, detail)
    return Recheck(solution.name, True, False)
