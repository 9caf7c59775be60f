"""Check the bundled optimisation word problems and write their computed fields and docs.

Run from the repository root after editing or adding a problem folder in
``src/execrl/data/optim/<id>/``::

    .venv/bin/python tools/build_optim_problems.py          # update problem.yaml + docs
    .venv/bin/python tools/build_optim_problems.py --check  # fail if anything would change

For every folder it runs ``reference.py`` in a fresh temporary folder, reads back the
``model.lp`` the program wrote, solves that file with HiGHS (MIP gap 0) and records the result
as the ground truth in ``problem.yaml`` (``answer``, ``direction`` and the numbers of binary
variables, general integer variables and constraints, all read from the same file), then
writes ``docs/optim-problems.md``. It stops if the program's printed result disagrees with
HiGHS, if the folder's kind does not match what the model file holds, or if an incorrect
program is the reference unchanged. Nothing in the computed fields is typed by hand.

A developer tool: it lives outside the package and is not installed with the wheel. Needs
``highspy``, ``pulp`` and ``ortools`` (``pip install highspy pulp ortools``).
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import highspy

from execrl.problems._files import read_yaml
from execrl.problems.optim import REFERENCE_FILE, OptimProblem, read_optim_folder

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "src" / "execrl" / "data" / "optim"
DOCS = REPO / "docs" / "optim-problems.md"
RESULT_LINE = re.compile(r"^(objective|status):\s*(\S+)\s*$", re.MULTILINE)
COMPUTED = ("answer", "direction", "n_binary", "n_integer", "n_constraints")


@dataclass(frozen=True)
class Folder:
    """One problem folder: the loaded problem and the raw ``problem.yaml`` (kind, why, ...)."""

    path: Path
    problem: OptimProblem
    meta: dict[str, Any]

    @property
    def code(self) -> str:
        return (self.path / REFERENCE_FILE).read_text(encoding="utf-8")


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


def run_reference(folder: Folder, workdir: Path) -> tuple[str, str]:
    """Run the reference code; return the (kind, value) of its printed result line."""
    (workdir / "program.py").write_text(folder.code)
    done = subprocess.run(
        [sys.executable, "program.py"], cwd=workdir, capture_output=True, text=True, timeout=60
    )
    name = folder.path.name
    if done.returncode != 0:
        raise SystemExit(f"{name}: reference failed\n{done.stderr}")
    found = RESULT_LINE.findall(done.stdout)
    if len(found) != 1:
        raise SystemExit(f"{name}: expected one result line, got {found}\n{done.stdout}")
    return found[0]


def integrality(lp: Any) -> list[Any]:
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


def check_kind(folder: Folder, solved: Solved) -> None:
    expected = {
        "lp": solved.status == "optimal" and solved.n_binary + solved.n_integer == 0,
        "milp": solved.status == "optimal" and solved.n_binary + solved.n_integer > 0,
        "bigm": solved.status == "optimal" and solved.n_binary > 0,
        "infeasible": solved.status == "infeasible",
        "unbounded": solved.status == "unbounded",
    }
    if not expected[folder.problem.kind]:
        raise SystemExit(f"{folder.path.name}: kind {folder.problem.kind!r} does not fit {solved}")


def check_incorrect(folder: Folder) -> None:
    """An incorrect program must change the reference (a copy would earn the full reward)."""
    for entry in folder.meta.get("incorrect") or []:
        if "code" in entry and (folder.path / entry["code"]).read_text() == folder.code:
            raise SystemExit(f"{folder.path.name}: {entry['code']} is the reference unchanged")


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


def computed_fields(folder: Folder) -> tuple[dict[str, Any], Solved]:
    with tempfile.TemporaryDirectory() as tmp:
        printed = run_reference(folder, Path(tmp))
        solved = solve_lp_file(Path(tmp) / "model.lp")
    check_kind(folder, solved)
    check_incorrect(folder)
    if not agrees(printed, solved):
        raise SystemExit(
            f"{folder.path.name}: program printed {printed}, HiGHS on model.lp says {solved}"
        )
    answer = ground_truth(solved.objective) if solved.objective is not None else solved.status
    fields = {
        "answer": answer,
        "direction": solved.direction,
        "n_binary": solved.n_binary,
        "n_integer": solved.n_integer,
        "n_constraints": solved.n_constraints,
    }
    return fields, solved


def with_fields(text: str, fields: dict[str, Any], where: Path) -> str:
    """``problem.yaml``'s text with each computed field's line rewritten (the rest kept)."""
    for key, value in fields.items():
        line = f"{key}: {value!r}" if isinstance(value, float) else f"{key}: {value}"
        text, found = re.subn(rf"^{key}:.*$", line, text, count=1, flags=re.MULTILINE)
        if not found:
            raise SystemExit(f"{where}: no '{key}:' line; add one (any value) for the build")
    return text


# --- docs -----------------------------------------------------------------------------------

DOC_HEAD = """\
# Bundled optimisation word problems

`src/execrl/data/optim/` holds {n} word problems written for execrl, one folder each: business
prose that a model must turn into a mathematical program and solver code. They are the test
bed for the solver-verified rewards (`spec/solver-rewards.md`): every problem carries a
reference response that should earn the full stage-1 reward and incorrect responses that
should not, each failing for one stated reason.

Each problem is a folder `<id>/`: `problem.yaml` (the fields below, the reference's `think`
and `model` text, a one-line `exercises`, and each incorrect response's `error`, `why` and
either `code: incorrect/<n>-<error>.py` or a `layout`), the reference program `reference.py`,
and the programs of the code-changing incorrect responses under `incorrect/`.
`execrl.problems.optim.load_optim_problems()` reads the folders in sorted order and composes
the tagged responses; a problem loads with these fields:

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
`tools/build_optim_problems.py` runs each reference, reads the `model.lp` it wrote into HiGHS,
solves it with MIP gap 0, checks that the program's own printed result agrees, and writes
the results into `problem.yaml`.
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


def solver_of(code: str, name: str) -> str:
    for marker, solver in (("highspy", "highspy"), ("pulp", "PuLP (CBC)"), ("ortools", "OR-Tools")):
        if f"import {marker}" in code or f"from {marker}" in code:
            return solver
    raise SystemExit(f"{name}: no known solver import")


def doc_row(folder: Folder, solved: Solved) -> str:
    problem = folder.problem
    n_cont = solved.n_columns - solved.n_binary - solved.n_integer
    shown = f"{problem.answer:.12g}" if isinstance(problem.answer, float) else f"*{problem.answer}*"
    flaws = ", ".join(f.error for f in problem.incorrect)
    sizes = f"{problem.n_binary} / {problem.n_integer} / {n_cont}"
    return (
        f"| `{problem.id}` | {problem.kind} | {solver_of(folder.code, problem.id)} | {sizes} | "
        f"{problem.n_constraints} | {folder.meta.get('exercises', '')} | {shown} | {flaws} |"
    )


KIND_ORDER = ("lp", "milp", "bigm", "infeasible", "unbounded")
ERROR_ORDER = ("wrong_answer", "format", "execution", "extraction", "timeout")


def counts(values: list[str], order: tuple[str, ...] = ()) -> str:
    """``"a 3, b 1"``: how often each value occurs, in ``order`` (then by first appearance)."""
    tally = {name: 0 for name in order}
    for value in values:
        tally[value] = tally.get(value, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in tally.items() if v)


def docs_text(folders: list[Folder], solutions: list[Solved]) -> str:
    """The docs page; its table and list group the problems by kind (then sorted by id)."""
    pairs = sorted(
        zip(folders, solutions, strict=True),
        key=lambda pair: (KIND_ORDER.index(str(pair[0].problem.kind)), pair[0].path.name),
    )
    folders = [f for f, _ in pairs]
    solvers = counts([solver_of(f.code, f.path.name) for f in folders])
    lines = [DOC_HEAD.format(n=len(folders), solvers=solvers)]
    for folder, solved in pairs:
        lines.append(doc_row(folder, solved) + "\n")
    kinds = counts([str(f.problem.kind) for f in folders], KIND_ORDER)
    errors = counts([e.error for f in folders for e in f.problem.incorrect], ERROR_ORDER)
    lines.append(f"\nKinds: {kinds}. Incorrect responses: {errors}.\n")
    lines.append("\n## What each incorrect response gets wrong\n\n")
    for folder in folders:
        whys = "; ".join(
            f"{entry['error']} — {entry.get('why', '')}" for entry in folder.meta["incorrect"]
        )
        lines.append(f"- `{folder.path.name}`: {whys}\n")
    return "".join(lines)


# --- main -----------------------------------------------------------------------------------


def read_folders() -> list[Folder]:
    paths = sorted(p.parent for p in DATA.glob("*/problem.yaml"))
    return [Folder(p, read_optim_folder(p), read_yaml(p / "problem.yaml")) for p in paths]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 on a change")
    args = parser.parse_args(argv)
    folders = read_folders()
    stale: list[Path] = []
    solutions = []
    for folder in folders:
        fields, solved = computed_fields(folder)
        solutions.append(solved)
        meta_path = folder.path / "problem.yaml"
        old = meta_path.read_text(encoding="utf-8")
        new = with_fields(old, fields, meta_path)
        print(f"{folder.path.name:32s} {solved.status:10s} {fields['answer']}")
        if new != old:
            stale.append(meta_path)
            if not args.check:
                meta_path.write_text(new, encoding="utf-8")
    folders = read_folders()  # the docs show what was just written
    docs = docs_text(folders, solutions)
    if DOCS.read_text(encoding="utf-8") != docs:
        stale.append(DOCS)
        if not args.check:
            DOCS.write_text(docs, encoding="utf-8")
    verb = "out of date" if args.check else "rewritten"
    for path in stale:
        print(f"{verb}: {path.relative_to(REPO)}")
    print(f"{len(folders)} problems checked")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
