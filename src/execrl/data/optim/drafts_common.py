"""Shared pieces for the optimisation word-problem drafts (see README.md in this folder).

A draft holds what a person writes: the question, the reasoning, the mathematical model, the
reference code and the flaws of the incorrect responses. ``build.py`` turns drafts into
``problems.jsonl``: it runs every reference, solves the model file it writes with HiGHS, and
records the objective and the model's size — no number in the JSONL is typed by hand.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

# How each solver family reports its result on stdout (the fixed convention of the set):
# `objective: <number>` when optimal, `status: infeasible` / `status: unbounded` otherwise.
HIGHS_REPORT = """
h.writeModel("model.lp")
h.run()

status = h.getModelStatus()
if status == highspy.HighsModelStatus.kOptimal:
    print(f"objective: {h.getInfo().objective_function_value:.6f}")
elif status == highspy.HighsModelStatus.kInfeasible:
    print("status: infeasible")
elif status == highspy.HighsModelStatus.kUnbounded:
    print("status: unbounded")
else:
    raise RuntimeError(f"HiGHS stopped with status {h.modelStatusToString(status)}")
"""

PULP_REPORT = """
prob.writeLP("model.lp")
prob.solve(pulp.PULP_CBC_CMD(msg=False, gapRel=0))

status = pulp.LpStatus[prob.status]
if status == "Optimal":
    print(f"objective: {pulp.value(prob.objective):.6f}")
elif status == "Infeasible":
    print("status: infeasible")
elif status == "Unbounded":
    print("status: unbounded")
else:
    raise RuntimeError(f"CBC stopped with status {status}")
"""

ORTOOLS_REPORT = """
with open("model.lp", "w") as handle:
    handle.write(solver.ExportModelAsLpFormat(False))

params = pywraplp.MPSolverParameters()
params.SetDoubleParam(params.RELATIVE_MIP_GAP, 0.0)
result = solver.Solve(params)
if result == pywraplp.Solver.OPTIMAL:
    print(f"objective: {solver.Objective().Value():.6f}")
elif result == pywraplp.Solver.INFEASIBLE:
    print("status: infeasible")
elif result == pywraplp.Solver.UNBOUNDED:
    print("status: unbounded")
else:
    raise RuntimeError(f"solver stopped with status {result}")
"""


def code(body: str, report: str = "") -> str:
    """A reference program: the model-building body followed by the solve-and-report tail."""
    return textwrap.dedent(body).strip() + "\n" + report.rstrip() + "\n"


def text(block: str) -> str:
    return textwrap.dedent(block).strip()


@dataclass(frozen=True)
class Flaw:
    """One incorrect response, described as a change to the reference response.

    ``error`` is the failure the response must show: ``format`` (tags missing or misordered,
    code still right), ``extraction`` (no code to extract), ``execution`` (the code raises),
    ``wrong_answer`` (runs, reports the wrong result) or ``timeout`` (never finishes).
    ``edits`` are ``(old, new)`` replacements in the whole response, each ``old`` occurring
    exactly once; ``layout`` names a re-arrangement of the tagged sections (format and
    extraction flaws).
    """

    error: str
    edits: tuple[tuple[str, str], ...] = ()
    layout: str = "reference"
    why: str = ""


def wrong(why: str, *edits: tuple[str, str]) -> Flaw:
    return Flaw("wrong_answer", tuple(edits), why=why)


def crash(why: str, *edits: tuple[str, str]) -> Flaw:
    return Flaw("execution", tuple(edits), why=why)


def hang(why: str, *edits: tuple[str, str]) -> Flaw:
    return Flaw("timeout", tuple(edits), why=why)


def bad_format(layout: str) -> Flaw:
    return Flaw("format", layout=layout, why=FORMAT_LAYOUTS[layout])


def no_code(layout: str) -> Flaw:
    return Flaw("extraction", layout=layout, why=EXTRACTION_LAYOUTS[layout])


FORMAT_LAYOUTS = {
    "no-think": "the `<think>` section is missing",
    "model-first": "`<model>` comes before `<think>`",
    "untagged-model": "the model is written as plain text without `<model>` tags",
    "code-before-model": "`<python>` comes before `<model>`",
}
EXTRACTION_LAYOUTS = {
    "truncated": "the response stops after the model, before any code",
    "empty-python": "the `<python>` section is empty",
    "empty-fence": "the `<python>` section holds an empty code fence",
}


@dataclass(frozen=True)
class Draft:
    """A word problem as written: question, reasoning, model, reference code, flaws."""

    id: str
    kind: str  # lp | milp | bigm | infeasible | unbounded
    exercises: str  # one line for docs/optim-problems.md: what modelling skill it tests
    question: str
    think: str
    model: str
    code: str
    flaws: tuple[Flaw, ...] = field(default_factory=tuple)
