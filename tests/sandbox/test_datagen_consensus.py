"""Spec §9 consensus in the real sandbox: an attempt is accepted only when two solutions agree
on all 15 outputs and another agreeing solution passes them as a judge runs it; all or nothing.
"""

from __future__ import annotations

import os
import signal
import textwrap
from pathlib import Path

import pytest

from execrl.datagen.consensus import (
    MAX_SOLUTIONS,
    SolutionRun,
    agreeing_groups,
    largest_group,
    reason_kind,
    run_attempt,
)
from execrl.datagen.generators import GENERATOR_LIMITS, GeneratorProgram
from execrl.problems.models import (
    Checker,
    Problem,
    Reference,
    ReferenceLabel,
    StdioTest,
    TestGroup,
)
from execrl.sandbox.isolation import SandboxConfig
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor

GENERATOR = GeneratorProgram(
    "gen",
    textwrap.dedent("""\
        import random, sys
        mode, seed = sys.argv[1], int(sys.argv[2])
        r = random.Random(seed)
        n = {"small": r.randint(4, 6), "edge": 1, "large": r.randint(2000, 4000)}[mode]
        print(n)
        print(*[r.randint(-10**9, 10**9) for _ in range(n)])
        """),
    "problem",
)
READ = "input()\na = list(map(int, input().split()))\n"
SOLUTIONS = {
    "builtin": READ + "print(sum(a))\n",
    "loop": READ + "s = 0\nfor x in a:\n    s += x\nprint(s)\n",
    "reduce": "import functools, operator\n" + READ + "print(functools.reduce(operator.add, a))\n",
    "drops-last": READ + "print(sum(a[:-1]) if len(a) > 3 else sum(a))\n",  # wrong for n > 3
    "off-by-one": READ + "print(sum(a) + 1)\n",
    "slow-on-large": READ + "while len(a) > 100: pass\nprint(sum(a))\n",
}
SOLUTION_LIMITS = Limits(cpu_time_s=1.0, memory_mb=256)


def reference(name: str, code: str | None = None) -> Reference:
    return Reference(name=name, label=ReferenceLabel.CORRECT, code=code or SOLUTIONS[name])


def problem() -> Problem:
    return Problem(
        id="sum-list",
        statement="Print the sum of n integers.",
        time_limit_s=1.0,
        memory_limit_mb=256,
        tests=[StdioTest(id="example-1", input="3\n1 2 3\n", output="6\n")],
    )


def attempt(names: list[str], *, executor, generator=GENERATOR, number=0, **kwargs):
    return run_attempt(
        problem(),
        generator,
        number,
        correct=[reference(n) for n in names],
        executor=executor,
        limits=GENERATOR_LIMITS,
        solution_limits=SOLUTION_LIMITS,
        **kwargs,
    )


def host_sum(stdin: str) -> str:
    return f"{sum(int(x) for x in stdin.split()[1:])}\n"


# -- acceptance ----------------------------------------------------------------------------
def test_two_of_three_agree_and_the_attempt_is_accepted(executor):
    result = attempt(["builtin", "drops-last", "loop"], executor=executor, number=1)
    assert result.accepted and not result.inconclusive and result.reason is None
    assert result.agreeing == ["builtin", "loop"]
    assert result.checked_by == "loop"  # not the representative, whose outputs are kept
    assert len(result.tests) == 15
    assert [t.id for t in result.tests[:6]] == [
        "gen-a1-small-6", "gen-a1-small-7", "gen-a1-small-8", "gen-a1-small-9",
        "gen-a1-small-10", "gen-a1-edge-6",
    ]  # fmt: skip
    groups = [t.group for t in result.tests]
    assert groups == [TestGroup.EXTRA] * 10 + [TestGroup.OPTIMIZATION] * 5
    for test in result.tests:  # the expected outputs are the true sums
        assert test.output == host_sum(test.input)
    assert len(result.tests[-1].input.split()) > 2000  # a large input
    assert result.seconds > 0


def test_the_largest_group_wins_over_an_earlier_smaller_one(executor):
    result = attempt(["off-by-one", "builtin", "loop", "reduce"], executor=executor)
    assert result.accepted
    assert result.agreeing == ["builtin", "loop", "reduce"]
    assert result.checked_by == "loop"


def test_at_most_max_solutions_run(executor):
    # Ten wrong ones first: the two correct ones after them are never run, so none agree.
    wrong = [reference(f"wrong-{i}", READ + f"print(sum(a) + {i + 1})\n") for i in range(10)]
    right = [reference("builtin"), reference("loop")]
    result = run_attempt(
        problem(), GENERATOR, 0, correct=wrong + right, executor=executor,
        limits=GENERATOR_LIMITS, solution_limits=SOLUTION_LIMITS,
    )  # fmt: skip
    assert MAX_SOLUTIONS == 10
    assert result.reason == "no two solutions agree: all 10 ran cleanly and differ"


# -- rejection -----------------------------------------------------------------------------
def test_no_two_agree_rejects(executor):
    result = attempt(["builtin", "drops-last", "off-by-one"], executor=executor)
    assert not result.accepted and not result.inconclusive
    assert result.reason == "no two solutions agree: all 3 ran cleanly and differ"
    assert reason_kind(result.reason) == "no two solutions agree"
    assert result.tests == [] and result.agreeing == [] and result.checked_by is None


def test_a_solution_that_times_out_agrees_with_no_one(executor):
    result = attempt(["builtin", "slow-on-large"], executor=executor)
    assert not result.accepted and not result.inconclusive
    assert result.reason.startswith(
        "no two solutions agree: 1 of 2 failed an input (first: slow-on-large on large 1: "
        "timeout: "  # (CPU time; the wall-clock limit when the machine is loaded)
    ), result.reason


def test_one_crashing_call_of_fifteen_rejects_the_whole_attempt(executor):
    crashes = GeneratorProgram(
        "crashes",
        GENERATOR.code.replace(
            "print(n)", "assert (mode, seed) != ('edge', 4), 'no edge 4'\nprint(n)"
        ),
        "model",
    )
    result = attempt(["builtin", "loop", "reduce"], executor=executor, generator=crashes)
    assert not result.accepted and not result.inconclusive and result.tests == []
    assert result.reason == "generator failed: edge 4: runtime_error: AssertionError: no edge 4"
    assert reason_kind(result.reason) == "generator failed"
    assert result.agreeing == [] and result.checked_by is None  # no solution ran


def test_too_few_correct_solutions_rejects_without_running(executor):
    result = attempt(["builtin"], executor=executor)
    assert not result.accepted and result.reason == "too few correct solutions: 1 (needs 2)"


class FlipsFlagBeforeJudging(LocalExecutor):
    """A real sandbox pool that creates ``flag`` (a host file the sandbox sees read-only) just
    before it runs its first judged batch: the re-check. A solution that reads the flag then
    changes its output between its consensus runs and its re-check, with certainty."""

    def __init__(self, flag: Path) -> None:
        super().__init__(workers=2, config=SandboxConfig(readonly_paths=(str(flag.parent),)))
        self.flag = flag

    def run_batch(self, requests, **kwargs):
        self.flag.touch()
        return super().run_batch(requests, **kwargs)


def test_the_recheck_catches_a_solution_whose_output_changed(tmp_path: Path):
    # The sandbox keeps no state between runs (its /tmp is private and wiped after each), so a
    # solution cannot count its own runs; what changes between its runs here is the world.
    flag = tmp_path / "flags" / "second-run"
    flag.parent.mkdir()
    unstable = READ + f"import os\nprint(sum(a) + os.path.exists({str(flag)!r}))\n"
    with FlipsFlagBeforeJudging(flag) as pool:
        result = run_attempt(
            problem(), GENERATOR, 0,
            correct=[reference("builtin"), reference("unstable", unstable), reference("loop")],
            executor=pool, limits=GENERATOR_LIMITS, solution_limits=SOLUTION_LIMITS,
        )  # fmt: skip
    assert flag.exists()
    assert result.agreeing == ["builtin", "unstable", "loop"]  # it agreed in the consensus runs
    assert not result.accepted and not result.inconclusive and result.tests == []
    assert result.checked_by == "unstable"
    assert result.reason.startswith("re-check failed: unstable on gen-a0-small-1: wrong_answer: ")
    assert reason_kind(result.reason) == "re-check failed"


# -- an infrastructure failure is not a rejection ----------------------------------------------
def test_a_sandbox_that_cannot_run_makes_the_attempt_inconclusive():
    from execrl.service.remote import RemoteExecutor
    from tests.service._server import running_server

    with running_server(workers=1) as server:
        remote = RemoteExecutor(server.url, retries=0, retry_budget_s=0.5, fallback=False)
        os.kill(server.pid, signal.SIGKILL)  # the only server is gone before the attempt
        server.process.wait()
        with remote:
            result = attempt(["builtin", "loop"], executor=remote)
    assert result.inconclusive and not result.accepted and result.tests == []
    assert result.reason.startswith("inconclusive: generator small 1: ")


# -- grouping (pure) -----------------------------------------------------------------------
def runs(*outputs: list[str] | None) -> list[SolutionRun]:
    return [SolutionRun(f"s{i}", out) for i, out in enumerate(outputs)]


def test_groups_compare_with_the_representative_not_transitively():
    near = Checker(kind="float", abs_tol=1e-6, rel_tol=0)
    grouped = agreeing_groups(runs(["1.0"], ["1.0000009"], ["1.0000018"], None), near)
    assert grouped == [[0, 1], [2]]  # s2 is within tolerance of s1 but not of s0; s3 failed


def test_largest_group_ties_go_to_the_earliest_solution():
    exact = Checker()
    grouped = agreeing_groups(runs(["1", "2"], ["1", "3"], ["1", "2"], ["1", "3"]), exact)
    assert grouped == [[0, 2], [1, 3]]
    assert largest_group(grouped) == [0, 2]
    assert largest_group(agreeing_groups(runs(["a"], ["b"], ["b"]), exact)) == [1, 2]
    assert largest_group([]) == []


@pytest.mark.parametrize(
    "reason, kind",
    [
        ("generator failed: large 3: timeout: x", "generator failed"),
        ("no two solutions agree: all 3 ran cleanly and differ", "no two solutions agree"),
        ("re-check failed: loop on t: wrong_answer: y", "re-check failed"),
    ],
)
def test_reason_kind(reason, kind):
    assert reason_kind(reason) == kind


def test_a_failure_of_its_own_decides_before_an_inconclusive_run():
    from execrl.datagen.consensus import _first_failed_call, _solution_run
    from execrl.datagen.generators import GeneratedInput
    from execrl.problems.models import GeneratorMode
    from execrl.sandbox.records import Status, TestResult

    small, large = GeneratorMode.SMALL, GeneratorMode.LARGE
    unsure = GeneratedInput(small, 1, None, "inconclusive: lost", inconclusive=True)
    crashed = GeneratedInput(large, 2, None, "runtime_error: boom")
    fine = GeneratedInput(small, 3, "1\n1\n", None)
    assert _first_failed_call([unsure, crashed, fine]) is crashed
    assert _first_failed_call([fine, unsure]) is unsure
    assert _first_failed_call([fine]) is None

    lost = (TestResult(test_id="capture", status=Status.INCONCLUSIVE, detail="lost"), "")
    timeout = (TestResult(test_id="capture", status=Status.TIMEOUT, detail="too slow"), "")
    ok = (TestResult(test_id="capture", status=Status.SUCCESS), "1\n")
    inputs = [fine, fine, fine]
    assert _solution_run("s", inputs, [lost, timeout, ok]) == SolutionRun(
        "s", None, "small 3: timeout: too slow"
    )
    assert _solution_run("s", inputs, [ok, lost, ok]) == SolutionRun(
        "s", None, "small 3: lost", inconclusive=True
    )
    assert _solution_run("s", inputs, [ok, ok, ok]) == SolutionRun("s", ["1\n"] * 3)
