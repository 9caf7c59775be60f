"""Build a problem's generated tests: generator inputs, expected outputs by reference consensus.

Spec §9: an input's expected output is accepted only when the correct references agree on it.
We run *every* correct reference (stricter than the spec's "at least two"), each in its own
language (C++ and Java references count as Python ones do), require all to finish cleanly and
agree under the problem's checker, and keep the first one's output.
A disagreement is a bug in a reference or the generator: it raises, it is never hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from execrl.datagen.reference_runs import capture, language_of
from execrl.errors import ConsensusError, ProblemFormatError
from execrl.problems.folder import natural_key, read_problem_folder, write_test
from execrl.problems.generated import generate_input
from execrl.problems.models import GeneratorMode, Problem, ReferenceLabel, StdioTest, TestGroup
from execrl.sandbox.batch import parallel_map
from execrl.sandbox.compare import outputs_match
from execrl.sandbox.executor_source import given_or_default
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Executor


@dataclass(frozen=True)
class PlannedTest:
    group: TestGroup
    mode: GeneratorMode
    seed: int

    @property
    def test_id(self) -> str:
        return f"{self.mode.value}-{self.seed}"


def plan_tests(problem: Problem) -> list[PlannedTest]:
    """Expand the generator plan; seeds run 1, 2, … per mode across groups (no repeats)."""
    if problem.generator is None:
        raise ProblemFormatError(f"problem {problem.id!r} has no generator to build tests from")
    next_seed = dict.fromkeys(GeneratorMode, 1)
    planned = []
    for group in TestGroup:
        for mode, count in problem.generator.plan.get(group, {}).items():
            for _ in range(count):
                planned.append(PlannedTest(group, mode, next_seed[mode]))
                next_seed[mode] += 1
    return planned


def consensus_output(problem: Problem, test_id: str, stdin: str, *, executor: Executor) -> str:
    """The output every correct reference agrees on (each run in the sandbox in its own
    language); raises ConsensusError otherwise."""
    limits = Limits.for_problem(problem)
    correct = problem.references_labelled(ReferenceLabel.CORRECT)
    if len(correct) < 2:
        raise ConsensusError(
            f"{problem.id}: consensus needs at least 2 correct references, found {len(correct)}"
        )
    outputs: list[tuple[str, str]] = []
    for ref in correct:  # each in its own language: a C++ reference is built and run as C++
        verdict, stdout = capture(executor, ref.code, stdin, limits, language=language_of(ref))
        if not verdict.passed:
            raise ConsensusError(
                f"{problem.id}/{test_id}: correct reference {ref.name!r} gave "
                f"{verdict.status.value} ({verdict.detail or 'no detail'}); "
                "fix it or shrink the input"
            )
        outputs.append((ref.name, stdout))
    first_name, expected = outputs[0]
    dissent = [
        name for name, out in outputs[1:] if not outputs_match(out, expected, problem.checker)
    ]
    if dissent:
        raise ConsensusError(
            f"{problem.id}/{test_id}: references {dissent} disagree with {first_name!r}; "
            "one of them is wrong (or the checker is too strict)"
        )
    return expected


def build_tests(
    folder: str | Path,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    show_progress: bool = True,
) -> list[StdioTest]:
    """Regenerate every planned test of the problem folder and write it; returns the tests.

    Hand-written tests (names that are not ``<mode>-<seed>``, such as ``example-1``) are kept.
    ``executor``: None opens ``execrl.sandbox.default_executor(workers)`` for this call.
    """
    folder = Path(folder)
    problem = read_problem_folder(folder)
    generator = problem.generator
    if generator is None:
        raise ProblemFormatError(f"{folder}: problem.yaml has no generator section")
    planned = plan_tests(problem)
    with given_or_default(executor, workers) as pool:

        def build_one(item: PlannedTest) -> StdioTest:
            stdin = generate_input(generator.code, item.mode, item.seed)  # trusted: on the host
            output = consensus_output(problem, item.test_id, stdin, executor=pool)
            return StdioTest(id=item.test_id, group=item.group, input=stdin, output=output)

        description = f"building {problem.id}"
        tests = list(
            parallel_map(
                build_one,
                planned,
                jobs=pool.workers,
                description=description,
                show_progress=show_progress,
            )
        )
    _remove_generated(folder / "tests")
    for test in tests:
        write_test(folder / "tests", test, regenerable=True)
    return sorted(tests, key=lambda t: (t.group.value, natural_key(t.id)))


def _remove_generated(tests_dir: Path) -> None:
    modes = tuple(f"{m.value}-" for m in GeneratorMode)
    for group in TestGroup:
        group_dir = tests_dir / group.value
        if group_dir.is_dir():
            for path in group_dir.iterdir():
                if path.name.startswith(modes):
                    path.unlink()
