"""Agreement of the solver rewards on SIRL-format benchmarks, in every supported solver API.

Reads the small SIRL-format fixtures (``tests/fixtures/optim/sirl``: NL4OPT, MAMO EasyLP and
ComplexLP, IndustryOR, OptMATH rows ``{"en_question", "en_answer"}``) with execrl's loaders,
and each problem's hand-written model (``models.json``; optima checked by hand). For each
problem and each installed solver it writes a reference response in that solver's API, plus
four corrupted ones, runs them all in the sandbox and scores them under the ``paper`` preset:

- ``reference``: must earn the maximum (3.5);
- ``wrong_rhs``: the first constraint's right-hand side changed (a modelling error);
- ``silent``: solves with the solver's log on but prints no answer (the log-line hack);
- ``sentinel``: prints ORLM's −99999 "no valid answer" instead of the result;
- ``format``: the right program with the ``</think>`` tag missing.

None of the corrupted ones may earn the maximum. Prints one table (benchmark × solver) and
exits 1 if any cell disagrees. Run: ``python benchmarks/solver_agreement.py [--workers 2]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from execrl.problems.optim import OptimProblem, load_optim_problems
from execrl.rewards.solver import SOLVER_PRESETS, score_solver_responses, solver_executor

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures" / "optim" / "sirl"
BENCHMARKS = {
    "NL4OPT": ("NL4OPT.jsonl", "nl4opt"),
    "MAMO EasyLP": ("MAMO_EasyLP.json", "mamo"),
    "MAMO ComplexLP": ("MAMO_ComplexLP.json", "mamo"),
    "IndustryOR": ("IndustryOR.json", "industryor"),
    "OptMATH": ("OptMATH_Bench.jsonl", "optmath"),
}
SOLVERS = ("highspy", "pulp", "ortools", "pyscipopt", "pyomo", "cvxpy", "gurobipy", "coptpy")
EXPECTED = {
    "reference": "correct",
    "wrong_rhs": "wrong_answer",
    "silent": "execution_error",  # ran, reported nothing
    "sentinel": "execution_error",
    "format": "correct",  # the right answer, but not the format term
}
"""The verdict each response must get, besides being at (reference) or below the maximum."""


# -- one model in each API ------------------------------------------------------------------


def _report(infeasible_when: str, value: str, report: str) -> list[str]:
    """The lines that print the answer: the status when infeasible, else the objective."""
    return [
        f"if {infeasible_when}:",
        f"    {report.format(status='infeasible')}",
        "else:",
        f"    {report.format(value=value)}",
    ]


def _terms(coefs: list[float], names: list[str]) -> str:
    return " + ".join(f"{c} * {n}" for c, n in zip(coefs, names, strict=True) if c)


def _rows(model: dict, names: list[str]) -> list[str]:
    return [f"{_terms(a, names)} {op} {b}" for a, op, b in model["constraints"]]


def highspy_code(model: dict, report: str) -> str:
    n = len(model["objective"])
    names = [f"x{i}" for i in range(n)]
    add = "addIntegral" if model["integer"] else "addVariable"
    lines = ["import highspy", "", "h = highspy.Highs()"]
    lines += [f"{v} = h.{add}(lb=0, name={v!r})" for v in names]
    lines += [f"h.addConstr({row})" for row in _rows(model, names)]
    lines += [
        f"h.{'maximize' if model['sense'] == 'max' else 'minimize'}"
        f"({_terms(model['objective'], names)})"
    ]
    lines += ['h.writeModel("model.lp")']
    lines += ["status = h.getModelStatus()"]
    lines += _report(
        "status == highspy.HighsModelStatus.kInfeasible",
        "h.getInfo().objective_function_value",
        report,
    )
    return "\n".join(lines) + "\n"


def pulp_code(model: dict, report: str) -> str:
    n = len(model["objective"])
    names = [f"x{i}" for i in range(n)]
    sense = "pulp.LpMaximize" if model["sense"] == "max" else "pulp.LpMinimize"
    cat = '"Integer"' if model["integer"] else '"Continuous"'
    lines = ["import pulp", "", f'prob = pulp.LpProblem("p", {sense})']
    lines += [f"{v} = pulp.LpVariable({v!r}, lowBound=0, cat={cat})" for v in names]
    lines += [f"prob += {_terms(model['objective'], names)}"]
    lines += [f"prob += {row}" for row in _rows(model, names)]
    lines += ['prob.writeLP("model.lp")', "prob.solve(pulp.PULP_CBC_CMD(msg=True))"]
    lines += _report(
        'pulp.LpStatus[prob.status] == "Infeasible"', "pulp.value(prob.objective)", report
    )
    return "\n".join(lines) + "\n"


def ortools_code(model: dict, report: str) -> str:
    n = len(model["objective"])
    names = [f"x{i}" for i in range(n)]
    var = "IntVar" if model["integer"] else "NumVar"
    lines = [
        "from ortools.linear_solver import pywraplp",
        "",
        'solver = pywraplp.Solver.CreateSolver("SCIP")',
        "inf = solver.infinity()",
    ]
    lines += [f"{v} = solver.{var}(0, inf, {v!r})" for v in names]
    lines += [f"solver.Add({row})" for row in _rows(model, names)]
    lines += [
        f"solver.{'Maximize' if model['sense'] == 'max' else 'Minimize'}"
        f"({_terms(model['objective'], names)})"
    ]
    lines += ["solver.EnableOutput()", "status = solver.Solve()"]
    lines += ['open("model.lp", "w").write(solver.ExportModelAsLpFormat(False))']
    lines += _report("status == pywraplp.Solver.INFEASIBLE", "solver.Objective().Value()", report)
    return "\n".join(lines) + "\n"


def pyscipopt_code(model: dict, report: str) -> str:
    n = len(model["objective"])
    names = [f"x{i}" for i in range(n)]
    vtype = '"I"' if model["integer"] else '"C"'
    lines = ["from pyscipopt import Model", "", 'm = Model("p")']
    lines += [f"{v} = m.addVar({v!r}, vtype={vtype}, lb=0)" for v in names]
    lines += [f"m.addCons({row})" for row in _rows(model, names)]
    sense = "maximize" if model["sense"] == "max" else "minimize"
    lines += [f"m.setObjective({_terms(model['objective'], names)}, {sense!r})"]
    lines += ['m.writeProblem("model.lp")', "m.optimize()"]
    lines += _report('m.getStatus() == "infeasible"', "m.getObjVal()", report)
    return "\n".join(lines) + "\n"


def pyomo_code(model: dict, report: str) -> str:
    n = len(model["objective"])
    names = [f"m.x{i}" for i in range(n)]
    domain = "pyo.NonNegativeIntegers" if model["integer"] else "pyo.NonNegativeReals"
    lines = ["import pyomo.environ as pyo", "", "m = pyo.ConcreteModel()"]
    lines += [f"{v} = pyo.Var(within={domain})" for v in names]
    lines += [f"m.c{i} = pyo.Constraint(expr={row})" for i, row in enumerate(_rows(model, names))]
    sense = "pyo.maximize" if model["sense"] == "max" else "pyo.minimize"
    lines += [f"m.obj = pyo.Objective(expr={_terms(model['objective'], names)}, sense={sense})"]
    lines += [
        'm.write("model.lp", io_options={"symbolic_solver_labels": True})',
        'result = pyo.SolverFactory("appsi_highs").solve(m, tee=True, load_solutions=False)',
        "condition = result.solver.termination_condition",
        "if condition == pyo.TerminationCondition.infeasible:",
        f"    {report.format(status='infeasible')}",
        "else:",
        "    m.solutions.load_from(result)",
        f"    {report.format(value='pyo.value(m.obj)')}",
    ]
    return "\n".join(lines) + "\n"


def cvxpy_code(model: dict, report: str) -> str:
    n = len(model["objective"])
    names = [f"x{i}" for i in range(n)]
    integer = ", integer=True" if model["integer"] else ""
    lines = ["import cvxpy as cp", ""]
    lines += [f"{v} = cp.Variable(nonneg=True{integer})" for v in names]
    rows = [r.replace(" <= ", " <= ").replace(" >= ", " >= ") for r in _rows(model, names)]
    lines += [f"constraints = [{', '.join(rows)}]"]
    sense = "cp.Maximize" if model["sense"] == "max" else "cp.Minimize"
    lines += [f"problem = cp.Problem({sense}({_terms(model['objective'], names)}), constraints)"]
    lines += ["problem.solve(solver=cp.HIGHS, verbose=True)"]
    lines += _report('problem.status == "infeasible"', "problem.value", report)
    return "\n".join(lines) + "\n"


def gurobipy_code(model: dict, report: str) -> str:
    n = len(model["objective"])
    names = [f"x{i}" for i in range(n)]
    vtype = "GRB.INTEGER" if model["integer"] else "GRB.CONTINUOUS"
    lines = ["import gurobipy as gp", "from gurobipy import GRB", "", 'm = gp.Model("p")']
    lines += [f"{v} = m.addVar(lb=0, vtype={vtype}, name={v!r})" for v in names]
    lines += [f"m.addConstr({row})" for row in _rows(model, names)]
    sense = "GRB.MAXIMIZE" if model["sense"] == "max" else "GRB.MINIMIZE"
    lines += [f"m.setObjective({_terms(model['objective'], names)}, {sense})"]
    lines += ["m.Params.DualReductions = 0", "m.optimize()", 'm.write("model.lp")']
    lines += _report("m.Status == GRB.INFEASIBLE", "m.ObjVal", report)
    return "\n".join(lines) + "\n"


def coptpy_code(model: dict, report: str) -> str:
    n = len(model["objective"])
    names = [f"x{i}" for i in range(n)]
    vtype = "COPT.INTEGER" if model["integer"] else "COPT.CONTINUOUS"
    lines = ["import coptpy as cp", "from coptpy import COPT", ""]
    lines += ["env = cp.Envr()", 'm = env.createModel("p")']
    lines += [f"{v} = m.addVar(lb=0, vtype={vtype}, name={v!r})" for v in names]
    lines += [f"m.addConstr({row})" for row in _rows(model, names)]
    sense = "COPT.MAXIMIZE" if model["sense"] == "max" else "COPT.MINIMIZE"
    lines += [f"m.setObjective({_terms(model['objective'], names)}, sense={sense})"]
    lines += ["m.solve()", 'm.write("model.lp")']
    lines += _report("m.status == COPT.INFEASIBLE", "m.objval", report)
    return "\n".join(lines) + "\n"


WRITERS = {
    "highspy": highspy_code,
    "pulp": pulp_code,
    "ortools": ortools_code,
    "pyscipopt": pyscipopt_code,
    "pyomo": pyomo_code,
    "cvxpy": cvxpy_code,
    "gurobipy": gurobipy_code,
    "coptpy": coptpy_code,
}


class _Report:
    """How a program reports: ``format(status=...)`` or ``format(value=...)`` gives a line."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def format(self, *, status: str | None = None, value: str | None = None) -> str:
        if self.kind == "silent":
            return "pass"
        if self.kind == "sentinel":
            return 'print("objective:", -99999)'
        if status is not None:
            return f'print("status: {status}")'
        return f'print("objective:", {value})'


def tagged(model: dict, code: str, *, broken: bool = False) -> str:
    close = "" if broken else "</think>"
    return (
        f"<think>\nWrite the model, then solve it.\n{close}\n<model>\n{json.dumps(model)}\n"
        f"</model>\n<python>\n```python\n{code}```\n</python>\n"
    )


def responses(model: dict, solver: str) -> dict[str, str]:
    """The reference and the corrupted responses of one problem in one solver's API."""
    write = WRITERS[solver]
    (a, op, b), *rest = model["constraints"]
    shifted = {**model, "constraints": [[a, op, 2 * b + 1], *rest]}
    return {
        "reference": tagged(model, write(model, _Report("answer"))),
        "wrong_rhs": tagged(model, write(shifted, _Report("answer"))),
        "silent": tagged(model, write(model, _Report("silent"))),
        "sentinel": tagged(model, write(model, _Report("sentinel"))),
        "format": tagged(model, write(model, _Report("answer")), broken=True),
    }


# -- the table ------------------------------------------------------------------------------
def load() -> dict[str, list[OptimProblem]]:
    return {
        name: load_optim_problems(FIXTURES / file, format=fmt)
        for name, (file, fmt) in BENCHMARKS.items()
    }


def agreement(solvers: list[str], *, workers: int | None = None) -> dict[tuple[str, str], dict]:
    """Per (benchmark, solver): references at the maximum, corrupted ones below it."""
    models = json.loads((FIXTURES / "models.json").read_text())
    top = SOLVER_PRESETS["paper"].max_stage1
    items: list[tuple[str, str, str, str, OptimProblem]] = []
    for name, problems in load().items():
        for problem in problems:
            for solver in solvers:
                for kind, text in responses(models[problem.id], solver).items():
                    items.append((name, solver, kind, text, problem))
    with solver_executor(workers=workers) as pool:
        scores = score_solver_responses(
            [text for *_, text, _ in items],
            [p.answer for *_, p in items],
            reward="paper",
            executor=pool,
            progress=True,
        )
    cells: dict[tuple[str, str], dict] = {}
    for (name, solver, kind, _, problem), score in zip(items, scores, strict=True):
        cell = cells.setdefault((name, solver), {"refs": [0, 0], "bad": [0, 0], "why": []})
        at_top = score.reward is not None and score.reward >= top
        key, ok = ("refs", at_top) if kind == "reference" else ("bad", not at_top)
        ok = ok and score.verdict.value == EXPECTED[kind]
        cell[key][0] += ok
        cell[key][1] += 1
        if not ok:
            cell["why"].append(f"{problem.id}/{kind}: {score.verdict.value} {score.run.detail}")
    return cells


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--solver", action="append", help="only these solvers")
    args = parser.parse_args()
    solvers = [s for s in (args.solver or SOLVERS) if importlib.util.find_spec(s) is not None]
    missing = sorted(set(args.solver or SOLVERS) - set(solvers))
    cells = agreement(solvers, workers=args.workers)
    print(f"| benchmark | {' | '.join(solvers)} |")
    print(f"| --- | {' | '.join('---' for _ in solvers)} |")
    for name in BENCHMARKS:
        row = []
        for solver in solvers:
            cell = cells[(name, solver)]
            row.append(f"{cell['refs'][0]}/{cell['refs'][1]} · {cell['bad'][0]}/{cell['bad'][1]}")
        print(f"| {name} | {' | '.join(row)} |")
    print(
        "\ncell: references at the maximum · corrupted responses below it (each with its "
        "expected verdict)"
    )
    if missing:
        print(f"not installed (left out): {', '.join(missing)}")
    failures = [why for cell in cells.values() for why in cell["why"]]
    for why in failures:
        print("DISAGREES:", why)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
