"""Solver code in the real sandbox: HiGHS, CBC (through PuLP) and OR-Tools import and run
there, the model file comes back, the network stays shut, limits hold, and missing solvers get
a clear verdict. The worked responses of the fixture set score as they must."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from execrl.problems.optim import load_optim_problems
from execrl.rewards.solver import (
    RunStatus,
    Verdict,
    check_responses,
    run_solver_code,
    run_solver_codes,
    score_solver_responses,
    solver_executor,
)
from execrl.rewards.solver.execution import DEFAULT_SOLVER_LIMITS
from execrl.sandbox import LocalExecutor

for module in ("highspy", "pulp", "ortools"):
    pytest.importorskip(module)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "optim"
LIMITS = DEFAULT_SOLVER_LIMITS.model_copy(update={"cpu_time_s": 10.0})


@pytest.fixture(scope="module")
def executor():
    with solver_executor(workers=2) as pool:
        yield pool


@pytest.fixture(scope="module")
def problems():
    return {p.id: p for p in load_optim_problems(FIXTURES / "problems.jsonl")}


def test_every_worked_response_scores_as_it_must(executor, problems):
    """References earn 3.5 (paper) and 3 (authors); incorrect ones fail for their reason."""
    checks = check_responses(
        list(problems.values()),
        executor=executor,
        limits=LIMITS.model_copy(update={"cpu_time_s": 3.0}),
        progress=False,
    )
    assert [c.problem for c in checks if not c.ok] == []
    references = {c.problem_id: c for c in checks if c.label == "reference"}
    assert {c.scores["paper"].reward for c in references.values()} == {3.5}
    assert {c.scores["authors"].reward for c in references.values()} == {3.0}
    verdicts = [(c.problem_id, c.label, c.verdict.value) for c in checks if c.label != "reference"]
    assert verdicts == [
        ("furniture-lp", "format", "correct"),
        ("furniture-lp", "extraction", "extraction_failed"),
        ("furniture-lp", "execution", "execution_error"),
        ("furniture-lp", "wrong_answer", "wrong_answer"),
        ("depots-fixed-charge", "execution", "execution_error"),  # NameError
        ("depots-fixed-charge", "timeout", "timeout"),
        ("trucks-integer", "wrong_answer", "wrong_answer"),
        ("machines-infeasible", "wrong_answer", "wrong_answer"),
    ]


def test_each_solver_runs_in_the_sandbox_and_its_model_comes_back(executor, problems):
    """highspy (furniture), PuLP + its bundled CBC binary (depots), OR-Tools (trucks)."""
    ids = ["furniture-lp", "depots-fixed-charge", "trucks-integer", "machines-infeasible"]
    scores = score_solver_responses(
        [problems[i].reference for i in ids],
        [problems[i].answer for i in ids],
        reward={"preset": "paper", "stage": 2},
        executor=executor,
        limits=LIMITS,
    )
    answers = [s.run.answer for s in scores]
    assert answers == [34.0, 320.0, 187.0, "infeasible"]
    features = [
        (f.direction, f.n_binary, f.n_integer, f.n_constraints, f.advanced)
        for f in (s.features for s in scores)
    ]
    assert features == [
        ("max", 0, 0, 3, False),
        ("min", 2, 0, 3, True),  # two binaries and two big-M capacity rows
        ("min", 0, 2, 1, False),  # general integers without big-M: no bonus
        ("min", 0, 0, 1, False),
    ]
    assert [s.reward for s in scores] == [3.5, 4.5, 3.5, 3.5]
    assert [s.run.features().status for s in scores] == [
        "optimal",
        "optimal",
        "optimal",
        "infeasible",
    ]
    assert "network-namespace" in executor.isolation


def test_no_network_for_solver_code(executor):
    code = (
        "import highspy, socket\n"
        "socket.create_connection(('1.1.1.1', 80), timeout=2)\n"
        "print('objective: 1')\n"
    )
    run = run_solver_code(code, executor=executor, limits=LIMITS)
    assert run.status is RunStatus.RUNTIME_ERROR
    assert "Permission denied" in run.detail or "unreachable" in run.detail
    assert run.answer is None


def test_runaway_solver_code_is_stopped_by_time_and_memory_limits(executor):
    limits = LIMITS.model_copy(update={"cpu_time_s": 1.5, "memory_mb": 1024})
    spin, hog = run_solver_codes(
        [
            "import pulp\nwhile True:\n    pass\n",
            "import highspy\nblock = bytearray(4 * 1024**3)\n",
        ],
        executor=executor,
        limits=limits,
        progress=False,
    )
    assert spin.status is RunStatus.TIMEOUT and spin.wall_s < 5
    assert hog.status is RunStatus.MEMORY_LIMIT


@pytest.mark.skipif(importlib.util.find_spec("mosek") is not None, reason="mosek present")
def test_missing_modules(executor):
    """Regression (issue 17): a missing solver is solver_unavailable, with the install hint,
    never a runtime error of the program."""
    mosek, typo = run_solver_codes(
        ["import mosek\n", "import numpyy\n"], executor=executor, progress=False
    )
    assert mosek.status is RunStatus.SOLVER_UNAVAILABLE
    assert mosek.detail.startswith("solver not available: mosek is not installed")
    assert "MOSEK licence" in mosek.detail
    assert typo.status is RunStatus.RUNTIME_ERROR  # a module nobody has: the program's mistake
    assert typo.detail == "ModuleNotFoundError: No module named 'numpyy'"


def test_an_executor_without_the_solvers_is_inconclusive_not_wrong():
    with LocalExecutor(workers=1) as plain:  # site-packages not mounted
        run = run_solver_code("import highspy\nprint('objective: 1')\n", executor=plain)
        (scored,) = score_solver_responses(["<python>import pulp</python>"], [1.0], executor=plain)
    assert run.status is RunStatus.INCONCLUSIVE
    assert "solver_executor()" in run.detail
    assert scored.reward is None and scored.verdict is Verdict.INCONCLUSIVE


def test_model_file_edge_cases(executor):
    no_model, printed_model, exits_early = run_solver_codes(
        [
            "print('objective: 5')\n",
            # prints an LP file (whose objective row is labelled 'objective') before its result
            "print('Maximize\\n objective: 3 x + 4 y\\nEnd')\nprint('objective: 7')\n",
            # writes its model, then stops without reporting: the model still comes back
            "open('model.lp', 'w').write('min\\n obj: x\\nend\\n')\nraise SystemExit(0)\n",
        ],
        executor=executor,
        limits=LIMITS,
        progress=False,
    )
    assert (no_model.answer, no_model.lp_text, no_model.model_features) == (5.0, None, None)
    assert no_model.lp_error == "the program wrote no model.lp"
    assert printed_model.answer == 7.0
    assert exits_early.status is RunStatus.COMPLETED and exits_early.answer is None
    assert exits_early.model_features.direction == "min"


def test_syntax_errors_are_found_inside_the_sandbox(executor):
    """The host never compiles the program (issue 17): the wrapper compiles it in the
    sandbox and reports a syntax error on its own channel."""
    run = run_solver_code("def broken(:\n    pass\n", executor=executor, limits=LIMITS)
    assert run.status is RunStatus.SYNTAX_ERROR
    assert run.detail.startswith("SyntaxError:") and "(line 1)" in run.detail
    nul = run_solver_code("print('objective: 1')\0\n", executor=executor, limits=LIMITS)
    assert nul.status is RunStatus.SYNTAX_ERROR


@pytest.mark.slow
def test_bundled_set_meets_the_acceptance_criteria(executor):
    """Issue 9: every bundled reference scores the maximum stage-1 reward (both presets) and
    every incorrect response fails for its stated reason."""
    bundled = load_optim_problems()
    checks = check_responses(
        bundled,
        executor=executor,
        limits=LIMITS.model_copy(update={"cpu_time_s": 5.0}),
        progress=False,
    )
    assert [f"{c.problem_id}/{c.label}: {c.problem}" for c in checks if not c.ok] == []
    assert sum(c.label == "reference" for c in checks) == len(bundled)
