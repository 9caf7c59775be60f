"""Build ``problems.jsonl`` (and ``docs/optim-problems.md``) from the drafts in this folder.

Run from the repository root after editing a draft::

    .venv/bin/python src/execrl/data/optim/build.py

For every draft it runs the reference program in a fresh temporary folder, reads back the
``model.lp`` the program wrote, solves that file with HiGHS (MIP gap 0) and records the
result as the ground truth, together with the direction and the numbers of binary variables,
general integer variables and constraints read from the same file. The build stops if the
program's own printed result disagrees with HiGHS, or if the draft's kind does not match what
the model file holds. Nothing in the output is typed by hand.

Needs ``highspy``, ``pulp`` and ``ortools`` (``pip install highspy pulp ortools``).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import highspy
from drafts_bigm import DRAFTS as BIGM_DRAFTS
from drafts_common import Draft, Flaw
from drafts_lp import DRAFTS as LP_DRAFTS
from drafts_milp import DRAFTS as MILP_DRAFTS
from drafts_traps import DRAFTS as TRAP_DRAFTS

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]
ALL_DRAFTS: list[Draft] = LP_DRAFTS + MILP_DRAFTS + BIGM_DRAFTS + TRAP_DRAFTS
RESULT_LINE = re.compile(r"^(objective|status):\s*(\S+)\s*$", re.MULTILINE)


# --- responses ----------------------------------------------------------------------------


def compose(draft: Draft, layout: str = "reference") -> str:
    """The tagged response for a draft, in the reference layout or a flawed one."""
    think = f"<think>\n{draft.think}\n</think>"
    model = f"<model>\n{draft.model}\n</model>"
    python = f"<python>\n```python\n{draft.code}```\n</python>"
    layouts = {
        "reference": [think, model, python],
        "no-think": [model, python],
        "model-first": [model, think, python],
        "untagged-model": [think, draft.model, python],
        "code-before-model": [think, python, model],
        "truncated": [think, model, "Next I write the solver code for this model."],
        "empty-python": [think, model, "<python>\n</python>"],
        "empty-fence": [think, model, "<python>\n```python\n```\n</python>"],
    }
    return "\n".join(layouts[layout])


def flawed_response(draft: Draft, flaw: Flaw) -> str:
    response = compose(draft, flaw.layout)
    for old, new in flaw.edits:
        found = response.count(old)
        if found != 1:
            raise SystemExit(f"{draft.id}: edit {old!r} matches {found} times, expected once")
        response = response.replace(old, new)
    return response


# --- running and solving --------------------------------------------------------------------


@dataclass(frozen=True)
class Solved:
    status: str  # optimal | infeasible | unbounded
    objective: float | None
    direction: str
    n_binary: int
    n_integer: int
    n_constraints: int
    n_columns: int


def run_reference(draft: Draft, workdir: Path) -> tuple[str, str]:
    """Run the reference code; return the (kind, value) of its printed result line."""
    (workdir / "program.py").write_text(draft.code)
    done = subprocess.run(
        [sys.executable, "program.py"], cwd=workdir, capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0:
        raise SystemExit(f"{draft.id}: reference failed\n{done.stderr}")
    found = RESULT_LINE.findall(done.stdout)
    if len(found) != 1:
        raise SystemExit(f"{draft.id}: expected one result line, got {found}\n{done.stdout}")
    return found[0]


def integrality(lp) -> list:
    """Column types; HiGHS leaves the list empty for a model without integer columns."""
    return list(lp.integrality_) or [highspy.HighsVarType.kContinuous] * lp.num_col_


def solve_lp_file(path: Path) -> Solved:
    """Solve an LP-format file with HiGHS to proven optimality and describe the model."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    if h.readModel(str(path)) != highspy.HighsStatus.kOk:
        raise SystemExit(f"HiGHS cannot read {path}")
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kUnboundedOrInfeasible:
        h.setOptionValue("presolve", "off")  # presolve may not tell the two apart
        h.run()
        status = h.getModelStatus()
    names = {
        highspy.HighsModelStatus.kOptimal: "optimal",
        highspy.HighsModelStatus.kInfeasible: "infeasible",
        highspy.HighsModelStatus.kUnbounded: "unbounded",
    }
    if status not in names:
        raise SystemExit(f"{path}: HiGHS ended with {h.modelStatusToString(status)}")
    lp = h.getLp()
    integer = [
        (lo, up)
        for kind, lo, up in zip(integrality(lp), lp.col_lower_, lp.col_upper_, strict=True)
        if kind == highspy.HighsVarType.kInteger
    ]
    n_binary = sum(1 for lo, up in integer if lo >= 0 and up <= 1)
    objective = h.getInfo().objective_function_value if names[status] == "optimal" else None
    return Solved(
        status=names[status],
        objective=objective,
        direction="max" if lp.sense_ == highspy.ObjSense.kMaximize else "min",
        n_binary=n_binary,
        n_integer=len(integer) - n_binary,
        n_constraints=lp.num_row_,
        n_columns=lp.num_col_,
    )


def check_kind(draft: Draft, solved: Solved) -> None:
    expected = {
        "lp": solved.status == "optimal" and solved.n_binary + solved.n_integer == 0,
        "milp": solved.status == "optimal" and solved.n_binary + solved.n_integer > 0,
        "bigm": solved.status == "optimal" and solved.n_binary > 0,
        "infeasible": solved.status == "infeasible",
        "unbounded": solved.status == "unbounded",
    }
    if not expected[draft.kind]:
        raise SystemExit(f"{draft.id}: kind {draft.kind!r} does not fit {solved}")


def agrees(printed: tuple[str, str], solved: Solved) -> bool:
    kind, value = printed
    if solved.status != "optimal":
        return kind == "status" and value == solved.status
    if kind != "objective" or solved.objective is None:
        return False
    return math.isclose(float(value), solved.objective, rel_tol=1e-6, abs_tol=1e-6)


def ground_truth(value: float) -> float:
    """The HiGHS objective, cut to 12 significant digits (drops 1e-12 solver noise)."""
    return float(f"{value:.12g}")


def build_record(draft: Draft) -> tuple[dict, Solved]:
    with tempfile.TemporaryDirectory() as tmp:
        printed = run_reference(draft, Path(tmp))
        solved = solve_lp_file(Path(tmp) / "model.lp")
    check_kind(draft, solved)
    if not agrees(printed, solved):
        raise SystemExit(f"{draft.id}: program printed {printed}, HiGHS on model.lp says {solved}")
    answer = ground_truth(solved.objective) if solved.objective is not None else solved.status
    record = {
        "id": draft.id,
        "question": " ".join(draft.question.split()),
        "answer": answer,
        "direction": solved.direction,
        "kind": draft.kind,
        "n_binary": solved.n_binary,
        "n_integer": solved.n_integer,
        "n_constraints": solved.n_constraints,
        "reference": compose(draft),
        "incorrect": [
            {"response": flawed_response(draft, flaw), "error": flaw.error} for flaw in draft.flaws
        ],
    }
    return record, solved


# --- docs -----------------------------------------------------------------------------------

DOC_HEAD = """\
# Bundled optimisation word problems

`src/execrl/data/optim/problems.jsonl` holds {n} word problems written for execrl: business
prose that a model must turn into a mathematical program and solver code. They are the test
bed for the solver-verified rewards (`spec/solver-rewards.md`): every problem carries a
reference response that should earn the full stage-1 reward and incorrect responses that
should not, each failing for one stated reason.

Each line is one JSON object:

| field | meaning |
| --- | --- |
| `id` | kebab-case name |
| `question` | the word problem, with every number the model needs |
| `answer` | optimal objective (float), or `"infeasible"` / `"unbounded"` |
| `direction` | `"max"` or `"min"` |
| `kind` | `lp`, `milp`, `bigm`, `infeasible` or `unbounded` (see below) |
| `n_binary`, `n_integer` | binary and general integer variables of the reference model |
| `n_constraints` | constraints (rows) of the reference model |
| `reference` | a correct response: `<think>`, `<model>`, `<python>` with fenced code |
| `incorrect` | list of `{{"response", "error"}}`, `error` one of the five kinds below |

Kinds: `lp` continuous only; `milp` binaries and/or general integers; `bigm` big-M logic
(fixed charges, either-or constraints, minimum lots, disjunctions); `infeasible` and
`unbounded` are traps whose right answer is that status, not a number.

**Program convention.** The code prints one line `objective: <number>` when it solves the
model to optimality, or `status: infeasible` / `status: unbounded`, and writes its model in LP
format to `model.lp` in its working directory with the solver's own writer (highspy
`h.writeModel("model.lp")`, PuLP `prob.writeLP("model.lp")`, OR-Tools
`solver.ExportModelAsLpFormat(False)` written to the file). Programs built on highspy also print
the HiGHS banner on stdout; read the result from the `objective:` / `status:` line.

**Ground truth.** `answer`, `direction` and the three counts are computed, never typed:
`src/execrl/data/optim/build.py` runs each reference, reads the `model.lp` it wrote into HiGHS,
solves it with MIP gap 0, and checks that the program's own printed result agrees.
`tests/integration/test_optim_bundled.py` re-runs everything, solves each model file again
with CBC as a second opinion, and checks every incorrect response fails for its stated reason.

**Incorrect responses.** `format`: tags missing or out of order, code still right (it runs and
prints the right answer). `extraction`: no code to extract (the response stops before the
code, or the python section or its fence is empty). `execution`: the code raises.
`wrong_answer`: the code runs and prints a different result (a dropped constraint, a wrong
coefficient, the sense flipped, integrality relaxed, a big-M too small, a trap missed).
`timeout`: the code never finishes. An incorrect response is the reference with one change, so
its `<think>` and `<model>` text is the reference's; a wrong answer misses the ground truth by
every tolerance rule of the spec, a reference meets all of them.

**LP dialects.** The three writers spell the LP format differently, and a reader of `model.lp`
must accept all of them: HiGHS writes `max` / `min`, `st`, `bounds`, `bin`, `gen`, `semi`,
`end` (and lists binaries under `bounds` with `<= 1` as well as under `bin`); PuLP writes
`Maximize` / `Minimize`, `Subject To`, `Bounds`, `Generals`, `Binaries`, `End`; OR-Tools writes
`Maximize` / `Minimize`, `Subject to`, `Bounds`, `Binaries`, `Generals`, `End`, after a
`\\`-comment header that already states the variable counts.

Solvers used by the references: {solvers}.

| id | kind | solver | vars (bin / int / cont) | constraints | exercises | answer | incorrect |
| --- | --- | --- | --- | --- | --- | --- | --- |
"""


def solver_of(draft: Draft) -> str:
    for marker, name in (("highspy", "highspy"), ("pulp", "PuLP (CBC)"), ("ortools", "OR-Tools")):
        if f"import {marker}" in draft.code or f"from {marker}" in draft.code:
            return name
    raise SystemExit(f"{draft.id}: no known solver import")


def doc_row(draft: Draft, record: dict, solved: Solved) -> str:
    n_cont = solved.n_columns - solved.n_binary - solved.n_integer
    answer = record["answer"]
    shown = f"{answer:.12g}" if isinstance(answer, float) else f"*{answer}*"
    flaws = ", ".join(f.error for f in draft.flaws)
    sizes = f"{record['n_binary']} / {record['n_integer']} / {n_cont}"
    return (
        f"| `{draft.id}` | {draft.kind} | {solver_of(draft)} | {sizes} | "
        f"{record['n_constraints']} | {draft.exercises} | {shown} | {flaws} |"
    )


def write_docs(records: list[dict], solutions: list[Solved]) -> None:
    solvers: dict[str, int] = {}
    for draft in ALL_DRAFTS:
        solvers[solver_of(draft)] = solvers.get(solver_of(draft), 0) + 1
    solver_line = ", ".join(f"{name} {count}" for name, count in solvers.items())
    errors: dict[str, int] = {}
    for draft in ALL_DRAFTS:
        for flaw in draft.flaws:
            errors[flaw.error] = errors.get(flaw.error, 0) + 1
    lines = [DOC_HEAD.format(n=len(records), solvers=solver_line)]
    for draft, record, solved in zip(ALL_DRAFTS, records, solutions, strict=True):
        lines.append(doc_row(draft, record, solved) + "\n")
    kinds: dict[str, int] = {}
    for draft in ALL_DRAFTS:
        kinds[draft.kind] = kinds.get(draft.kind, 0) + 1
    lines.append(
        "\nKinds: "
        + ", ".join(f"{k} {v}" for k, v in kinds.items())
        + ". Incorrect responses: "
        + ", ".join(f"{k} {v}" for k, v in errors.items())
        + ".\n"
    )
    lines.append("\n## What each incorrect response gets wrong\n\n")
    for draft in ALL_DRAFTS:
        lines.append(f"- `{draft.id}`: " + "; ".join(f"{f.error} — {f.why}" for f in draft.flaws))
        lines.append("\n")
    (REPO / "docs" / "optim-problems.md").write_text("".join(lines))


def main() -> None:
    ids = [d.id for d in ALL_DRAFTS]
    if len(ids) != len(set(ids)):
        raise SystemExit("duplicate problem ids")
    records, solutions = [], []
    for draft in ALL_DRAFTS:
        record, solved = build_record(draft)
        records.append(record)
        solutions.append(solved)
        print(f"{draft.id:32s} {solved.status:10s} {record['answer']}")
    with open(HERE / "problems.jsonl", "w") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    write_docs(records, solutions)
    print(f"wrote {len(records)} problems to {HERE / 'problems.jsonl'}")


if __name__ == "__main__":
    main()
