"""Evaluation summaries from stored runs: pass@1, execution rate, breakdown per benchmark,
inconclusive runs left out, and both voting schemes on model files that tell samples apart."""

from __future__ import annotations

import pytest

from execrl.problems.optim import OptimProblem
from execrl.rewards.solver import (
    RELATIVE,
    RunStatus,
    SolverRun,
    parse_response,
    solver_reward,
    solver_reward_config,
    summarise_evaluation,
)
from execrl.rewards.solver.evaluation import plot_breakdown

RESPONSE = parse_response("<think>t</think><model>m</model><python>print(1)</python>")
CONFIG = solver_reward_config("paper", tolerance=RELATIVE)


def lp(direction: str, binaries: int, integers: int) -> str:
    names = [f"b{i}" for i in range(binaries)] + [f"n{i}" for i in range(integers)]
    body = " + ".join(["x", *names])
    text = f"{direction}\n obj: {body}\nst\n c: {body} <= 10\n"
    if binaries:
        text += "bin\n " + " ".join(names[:binaries]) + "\n"
    if integers:
        text += "gen\n " + " ".join(names[binaries:]) + "\n"
    return text + "end\n"


def scored(answer, lp_text=None, status=RunStatus.COMPLETED, truth=320.0):
    run = SolverRun(status=status, answer=answer, lp_text=lp_text)
    return solver_reward(RESPONSE, run, truth, CONFIG)


PROBLEMS = [
    OptimProblem(id="a", question="q", answer=320.0, source="nl4opt"),
    OptimProblem(id="b", question="q", answer=5.0, source="mamo"),
]
SCORES = [
    [  # three samples agree on a wrong 300 but nothing else; the right 320 has company
        scored(300.0, lp("max", 0, 0)),
        scored(300.0, lp("min", 0, 1)),
        scored(300.0, lp("min", 2, 0)),
        scored(320.0, lp("min", 1, 0)),
        scored(320.0, lp("min", 1, 0)),
        scored(330.0, lp("min", 1, 0)),
    ],
    [scored(5.0, truth=5.0), scored(None, status=RunStatus.INCONCLUSIVE, truth=5.0)],
]


def test_summary_numbers_by_hand():
    report = summarise_evaluation(PROBLEMS, SCORES)
    overall = report.overall
    assert (overall.n_problems, overall.n_samples) == (2, 8)
    assert overall.pass_at_1 == pytest.approx((2 / 6 + 1 / 1) / 2)
    assert overall.execution_rate == 1.0  # the inconclusive run is left out
    assert overall.breakdown == {
        "correct": 3,
        "wrong_answer": 4,
        "execution_error": 0,
        "timeout": 0,
        "extraction_failed": 0,
        "solver_unavailable": 0,
        "inconclusive": 1,
    }
    # problem b has one conclusive sample: only problem a is voted on
    assert (overall.majority_accuracy, overall.instance_enhanced_accuracy) == (0.0, 1.0)
    assert sorted(report.by_source) == ["mamo", "nl4opt"]
    assert report.by_source["mamo"].pass_at_1 == 1.0
    assert report.by_source["mamo"].majority_accuracy is None
    assert report.by_source["nl4opt"].pass_at_1 == pytest.approx(2 / 6)
    assert report.tolerance == "relative(1e-06)"


def test_execution_rate_counts_runs_that_report_a_value():
    problem = [OptimProblem(id="c", question="q", answer=1.0)]
    samples = [
        [
            scored(1.0, truth=1.0),
            scored(None, truth=1.0),  # ran, printed nothing
            scored(None, status=RunStatus.RUNTIME_ERROR, truth=1.0),
            scored(None, status=RunStatus.NO_CODE, truth=1.0),
        ]
    ]
    summary = summarise_evaluation(problem, samples).overall
    assert summary.execution_rate == 0.25
    assert summary.breakdown["execution_error"] == 2
    assert summary.breakdown["extraction_failed"] == 1


def test_breakdown_plot(tmp_path):
    pytest.importorskip("matplotlib")
    path = plot_breakdown(summarise_evaluation(PROBLEMS, SCORES), tmp_path / "b.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unavailable_module_names_the_solver_from_the_detail():
    from execrl.rewards.solver.evaluation import unavailable_module

    gurobi = (
        "solver not available (licence): gurobipy._exception.GurobiError: Model too large for "
        "size-limited license; visit https://gurobi.com/unrestricted for more information"
    )
    copt = "solver not available (licence): coptcore.CoptError: 4, (LICENSE) Fail to solve"
    missing = "solver not available: coptpy is not installed; install it with: pip install x"
    assert [unavailable_module(d) for d in (gurobi, copt, missing, "odd")] == [
        "gurobipy",
        "coptpy",
        "coptpy",
        "unknown",
    ]
