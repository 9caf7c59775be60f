"""Every supported solver runs a small model inside the sandbox (issue 17): HiGHS, PuLP/CBC,
OR-Tools, SCIP, pyomo (HiGHS underneath), cvxpy, and the licensed gurobipy and coptpy with the
size-limited licences their wheels ship. Solver logs never count as the program's answer; a
model over a licence's size is ``solver_unavailable``; a solver installed elsewhere imports
through an extra site path; the host never compiles the program."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execrl.rewards.solver import (
    ANSWER_CONVENTIONS,
    RunStatus,
    Verdict,
    run_solver_code,
    run_solver_codes,
    score_solver_responses,
    solver_executor,
)
from execrl.rewards.solver.execution import DEFAULT_SOLVER_LIMITS

PROGRAMS = Path(__file__).parents[1] / "fixtures" / "optim" / "programs"
LIMITS = DEFAULT_SOLVER_LIMITS.model_copy(update={"cpu_time_s": 20.0})
SOLVERS = ("highspy", "pulp", "ortools", "pyscipopt", "pyomo", "cvxpy", "gurobipy", "coptpy")
WRITES_MODEL = {"highspy", "pulp", "ortools", "pyscipopt", "pyomo", "gurobipy", "coptpy"}


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _needs(module: str):
    return pytest.mark.skipif(not _installed(module), reason=f"{module} is not installed")


@pytest.fixture(scope="module")
def executor():
    with solver_executor(workers=2) as pool:
        yield pool


@pytest.fixture(scope="module")
def mip_runs(executor):
    """The same MILP (max 5x + 4y, optimum 20) in each installed solver's API, run at once."""
    names = [s for s in SOLVERS if _installed(s)]
    codes = [(PROGRAMS / f"{name}_mip.py").read_text() for name in names]
    runs = run_solver_codes(codes, executor=executor, limits=LIMITS, progress=False)
    return dict(zip(names, runs, strict=True))


@pytest.mark.parametrize("solver", [pytest.param(s, marks=_needs(s)) for s in SOLVERS])
def test_each_solver_solves_a_small_model_in_the_sandbox(mip_runs, solver):
    run = mip_runs[solver]
    assert (run.status, run.answer) == (RunStatus.COMPLETED, 20.0), run.detail
    if solver in WRITES_MODEL:
        features = run.model_features
        assert features is not None, run.lp_error
        assert (features.direction, features.n_integer, features.n_constraints) == ("max", 2, 2)
    # the logs (pyomo's tee, cvxpy's verbose, COPT's banner, CBC's) never reach the answer
    assert run.output_tail.strip() == "objective: 20.0"


SILENT = sorted(PROGRAMS.glob("*_silent.py"))


@pytest.mark.parametrize(
    "program",
    [pytest.param(p, marks=_needs(p.name.split("_")[0]), id=p.stem) for p in SILENT],
)
def test_a_program_that_prints_nothing_earns_no_accuracy_whatever_the_solver_logs(
    executor, program
):
    """Regression (issue 17): HiGHS's "Model status : Infeasible" and COPT's "Solution status :
    infeasible" / "Status: Unbounded" were read as the program's answer, so a silent program
    earned full accuracy on an infeasible problem."""
    truth = "unbounded" if "unbounded" in program.name else "infeasible"
    response = f"<think>t</think><model>m</model><python>\n{program.read_text()}</python>"
    for name in ANSWER_CONVENTIONS:
        (scored,) = score_solver_responses(
            [response], [truth], reward={"answers": name}, executor=executor, limits=LIMITS
        )
        assert scored.run.status is RunStatus.COMPLETED, scored.run.detail
        assert (scored.run.answer, scored.accuracy_score) == (None, 0.0), name
        assert scored.verdict is Verdict.EXECUTION_ERROR


BIG_GUROBI = """import gurobipy as gp
m = gp.Model()
x = m.addVars(2100, ub=1.0)
m.setObjective(x.sum(), gp.GRB.MAXIMIZE)
m.optimize()
print("objective:", m.ObjVal)
"""
BIG_COPT = """import coptpy as cp
from coptpy import COPT
env = cp.Envr()
m = env.createModel("big")
x = m.addVars(2500, ub=1.0, vtype=COPT.INTEGER)
for i in range(2100):
    m.addConstr(x[i] + x[i + 1] <= 1)
m.setObjective(cp.quicksum(x.values()), sense=COPT.MAXIMIZE)
m.solve()
print("objective:", m.objval)
"""


@pytest.mark.parametrize(
    ("code", "solver"),
    [
        pytest.param(BIG_GUROBI, "gurobipy", marks=_needs("gurobipy"), id="gurobipy"),
        pytest.param(BIG_COPT, "coptpy", marks=_needs("coptpy"), id="coptpy"),
    ],
)
def test_a_model_over_the_licence_size_is_solver_unavailable_not_wrong(executor, code, solver):
    response = f"<think>t</think><model>m</model><python>\n{code}</python>"
    (scored,) = score_solver_responses([response], [1050.0], executor=executor, limits=LIMITS)
    assert scored.run.status is RunStatus.SOLVER_UNAVAILABLE, scored.run.detail
    assert scored.run.detail.startswith("solver not available (licence)")
    assert (scored.verdict, scored.reward) == (Verdict.SOLVER_UNAVAILABLE, None)


FAKE_SOLVER = '''"""A stand-in for a solver installed in another environment."""


def solve():
    return 42.0
'''


def test_a_solver_installed_elsewhere_imports_through_an_extra_site_path(tmp_path):
    site = tmp_path / "other-env-site-packages"
    (site / "mosek").mkdir(parents=True)
    (site / "mosek" / "__init__.py").write_text(FAKE_SOLVER)
    code = "import mosek\nprint('objective:', mosek.solve())\n"
    with solver_executor(workers=1) as plain:
        missing = run_solver_code(code, executor=plain, limits=LIMITS)
    with solver_executor(workers=1, site_paths=[str(site)]) as pool:
        found = run_solver_code(code, executor=pool, limits=LIMITS)
    assert missing.status is RunStatus.SOLVER_UNAVAILABLE
    assert (found.status, found.answer) == (RunStatus.COMPLETED, 42.0), found.detail


WARNS = r"""import re
pattern = re.compile("\d+")
x = 1
if x is 1:
    print("objective:", float(pattern.match("20").group()))
"""


def test_the_host_never_compiles_the_program_even_under_W_error(tmp_path):
    """Regression (issue 17): the program was compiled twice in the host, so its
    SyntaxWarnings reached the host's stderr and under ``-W error`` a valid program became a
    syntax error. Now it is compiled only inside the sandbox."""
    script = (
        "import sys\n"
        "from execrl.rewards.solver import score_solver_response, solver_executor\n"
        "response = '<think>t</think><model>m</model><python>\\n' + sys.argv[1] + '</python>'\n"
        "with solver_executor(workers=1) as executor:\n"
        "    scored = score_solver_response(response, 20.0, executor=executor)\n"
        "print(scored.verdict.value, scored.reward)\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", script, WARNS],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONWARNINGS": "error"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["correct", "3.5"]
    assert "SyntaxWarning" not in done.stderr
