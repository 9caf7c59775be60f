"""The bundled optimisation word problems (src/execrl/data/optim/<id>/ folders).

Every reference response is run as a plain Python subprocess (not the sandbox) in a fresh
folder: it must be tagged in order, print the ground-truth result, and write an LP-format
`model.lp`. That file is solved again here with HiGHS (the ground-truth solver) and with CBC
through PuLP (a second opinion), and its direction and variable/constraint counts must match
the record. Every incorrect response must fail for exactly its stated reason.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from execrl.problems.optim import BUNDLED, load_optim_problems

pytestmark = pytest.mark.filterwarnings("ignore:.*deprecated.*:DeprecationWarning")

highspy = pytest.importorskip("highspy")
pulp = pytest.importorskip("pulp")
pytest.importorskip("ortools")

# as the loader yields them, minus ``source`` (every record's fixed fields, as dicts)
PROBLEMS: list[dict] = [
    p.model_dump(mode="json", exclude={"source"}) for p in load_optim_problems(BUNDLED)
]
ERRORS = {"format", "extraction", "execution", "wrong_answer", "timeout"}
KINDS = {"lp", "milp", "bigm", "infeasible", "unbounded"}
RUN_LIMIT_S = 30.0  # a generous ceiling for code that should finish (the references take < 1 s)
HANG_LIMIT_S = 3.0  # how long a "timeout" response is given before it counts as hanging
RESULT_LINE = re.compile(r"^(objective|status):[ \t]*(\S+)[ \t]*$", re.MULTILINE)
IN_ORDER = re.compile(
    r"\s*<think>(?:(?!<think>).)*?</think>\s*<model>(?:(?!<model>).)*?</model>\s*"
    r"<python>(?:(?!<python>).)*?</python>\s*",
    re.DOTALL,
)


# --- helpers: extraction, running, comparing ----------------------------------------------


def tags_in_order(response: str) -> bool:
    """Each of the three sections present exactly once, in the order think, model, python."""
    once = all(response.count(f"<{t}>") == 1 for t in ("think", "model", "python"))
    return once and IN_ORDER.fullmatch(response) is not None


def python_code(response: str) -> str | None:
    """The code of the python section (inside its fence, if fenced); None if there is none."""
    section = re.search(r"<python>(.*?)</python>", response, re.DOTALL)
    if section is None:
        return None
    fence = re.search(r"```(?:python)?[ \t]*\n(.*?)```", section.group(1), re.DOTALL)
    code = fence.group(1) if fence else section.group(1)
    return code if code.strip() else None


def fenced_code_anywhere(response: str) -> bool:
    """Whether any fenced block in the response holds code (what a lenient extractor finds)."""
    return any(b.strip() for b in re.findall(r"```[a-z]*[ \t]*\n(.*?)```", response, re.DOTALL))


@dataclass(frozen=True)
class Run:
    returncode: int | None  # None when it ran past its time limit
    stdout: str
    stderr: str

    @property
    def result(self) -> tuple[str, str] | None:
        found = RESULT_LINE.findall(self.stdout)
        return found[-1] if found else None


def run_code(code: str, folder: Path, limit_s: float) -> Run:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "program.py").write_text(code)
    # The program's temporary files (PuLP's *-pulp.mps/.sol, read from $TMP or $TMPDIR) go to
    # its folder: a run killed mid-solve left them in the host's /tmp.
    temp = dict.fromkeys(("TMPDIR", "TMP", "TEMP"), str(folder))
    try:
        done = subprocess.run(
            [sys.executable, "program.py"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=limit_s,
            env={**os.environ, **temp},
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        return Run(None, out, "")
    return Run(done.returncode, done.stdout, done.stderr)


def close_by_every_rule(y: float, y_star: float) -> bool:
    """Within all three tolerances of the spec: absolute 0.01, relative 1e-6, |Δ|/(|y|+1)."""
    diff = abs(y - y_star)
    relative = diff / abs(y_star) if y_star else diff
    return diff <= 0.01 and relative < 1e-6 and diff / (abs(y) + 1) < 1e-6


def close_by_any_rule(y: float, y_star: float) -> bool:
    diff = abs(y - y_star)
    relative = diff / abs(y_star) if y_star else diff
    return diff <= 0.01 or relative < 1e-6 or diff / (abs(y) + 1) < 1e-6


def matches(result: tuple[str, str] | None, answer: float | str, *, strict: bool) -> bool:
    """Whether a printed result line agrees with the answer (strict: by every tolerance rule;
    otherwise by at least one)."""
    if result is None:
        return False
    kind, value = result
    if isinstance(answer, str):
        return kind == "status" and value == answer
    if kind != "objective":
        return False
    close = close_by_every_rule if strict else close_by_any_rule
    return close(float(value), float(answer))


def lp_has_sections(text: str) -> bool:
    """Minimal LP-format check: an objective-sense line and a constraints line."""
    lines = {line.strip().lower() for line in text.splitlines()}
    sense = lines & {"max", "maximize", "maximise", "maximum", "min", "minimize", "minimise"}
    rows = lines & {"subject to", "such that", "st", "s.t.", "st."}
    return bool(sense) and bool(rows)


# --- helpers: solving the written model file with two solvers ------------------------------


@dataclass(frozen=True)
class FileSolve:
    status: str
    objective: float | None
    direction: str
    n_binary: int
    n_integer: int
    n_constraints: int


def integrality(lp) -> list:
    """Column types; HiGHS leaves the list empty for a model without integer columns."""
    return list(lp.integrality_) or [highspy.HighsVarType.kContinuous] * lp.num_col_


def highs_solve(path: Path) -> tuple[FileSolve, object]:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kUnboundedOrInfeasible:
        h.setOptionValue("presolve", "off")
        h.run()
        status = h.getModelStatus()
    name = {
        highspy.HighsModelStatus.kOptimal: "optimal",
        highspy.HighsModelStatus.kInfeasible: "infeasible",
        highspy.HighsModelStatus.kUnbounded: "unbounded",
    }.get(status, str(status))
    lp = h.getLp()
    ints = [
        (lo, up)
        for kind, lo, up in zip(integrality(lp), lp.col_lower_, lp.col_upper_, strict=True)
        if kind == highspy.HighsVarType.kInteger
    ]
    n_binary = sum(1 for lo, up in ints if lo >= 0 and up <= 1)
    solve = FileSolve(
        status=name,
        objective=h.getInfo().objective_function_value if name == "optimal" else None,
        direction="max" if lp.sense_ == highspy.ObjSense.kMaximize else "min",
        n_binary=n_binary,
        n_integer=len(ints) - n_binary,
        n_constraints=lp.num_row_,
    )
    return solve, lp


def cbc_solve(lp) -> tuple[str, float | None]:
    """Rebuild the model HiGHS read from the file in PuLP and solve it with CBC."""
    sense = pulp.LpMaximize if lp.sense_ == highspy.ObjSense.kMaximize else pulp.LpMinimize
    prob = pulp.LpProblem("second_opinion", sense)
    inf = highspy.kHighsInf
    columns = [
        pulp.LpVariable(
            f"x{j}",
            None if lp.col_lower_[j] <= -inf else lp.col_lower_[j],
            None if lp.col_upper_[j] >= inf else lp.col_upper_[j],
            "Integer" if integrality(lp)[j] == highspy.HighsVarType.kInteger else "Continuous",
        )
        for j in range(lp.num_col_)
    ]
    prob += pulp.lpSum(c * x for c, x in zip(lp.col_cost_, columns, strict=True)) + lp.offset_
    rows: list[list[tuple[float, int]]] = [[] for _ in range(lp.num_row_)]
    matrix = lp.a_matrix_
    assert matrix.format_ == highspy.MatrixFormat.kColwise
    for j in range(lp.num_col_):
        for k in range(matrix.start_[j], matrix.start_[j + 1]):
            rows[matrix.index_[k]].append((matrix.value_[k], j))
    for i, entries in enumerate(rows):
        expr = pulp.lpSum(a * columns[j] for a, j in entries)
        lower, upper = lp.row_lower_[i], lp.row_upper_[i]
        if lower == upper:
            prob += expr == lower
            continue
        if lower > -inf:
            prob += expr >= lower
        if upper < inf:
            prob += expr <= upper
    prob.solve(pulp.PULP_CBC_CMD(msg=False, gapRel=0))
    status = pulp.LpStatus[prob.status].lower()
    return status, pulp.value(prob.objective) if status == "optimal" else None


# --- the set as a whole ----------------------------------------------------------------------


def test_set_has_the_promised_shape():
    assert len(PROBLEMS) >= 25
    ids = [p["id"] for p in PROBLEMS]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)
    kinds = Counter(p["kind"] for p in PROBLEMS)
    assert set(kinds) == KINDS
    assert kinds["lp"] >= 6 and kinds["milp"] >= 6 and kinds["bigm"] >= 5
    assert 2 <= kinds["infeasible"] <= 3 and 1 <= kinds["unbounded"] <= 2
    errors = Counter(f["error"] for p in PROBLEMS for f in p["incorrect"])
    assert set(errors) == ERRORS
    assert all(errors[e] >= 3 for e in ("format", "execution", "wrong_answer", "extraction"))
    assert errors["timeout"] >= 2
    assert all(len(p["incorrect"]) >= 2 for p in PROBLEMS)


def test_every_record_has_the_fixed_fields():
    fields = {"id", "question", "answer", "direction", "kind", "n_binary", "n_integer"}
    fields |= {"n_constraints", "reference", "incorrect"}
    for p in PROBLEMS:
        assert set(p) == fields, p["id"]
        assert p["direction"] in {"max", "min"}
        assert p["kind"] in KINDS
        if p["kind"] in {"infeasible", "unbounded"}:
            assert p["answer"] == p["kind"]
        else:
            assert isinstance(p["answer"], float) and math.isfinite(p["answer"])
        if p["kind"] == "lp":
            assert p["n_binary"] == p["n_integer"] == 0
        if p["kind"] == "bigm":
            assert p["n_binary"] >= 1
        if p["kind"] == "milp":
            assert p["n_binary"] + p["n_integer"] >= 1
        assert all(set(f) == {"response", "error"} for f in p["incorrect"])
        assert all(f["error"] in ERRORS for f in p["incorrect"])


def test_references_mix_the_three_solvers():
    def solver(p: dict) -> str:
        code = python_code(p["reference"]) or ""
        return next(s for s in ("highspy", "pulp", "ortools") if s in code)

    used = Counter(solver(p) for p in PROBLEMS)
    assert set(used) == {"highspy", "pulp", "ortools"}
    assert used.most_common(1)[0][0] == "highspy"
    assert min(used.values()) >= 3


# --- each reference --------------------------------------------------------------------------


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p["id"] for p in PROBLEMS])
def test_reference_solves_to_the_answer(problem, tmp_path):
    response = problem["reference"]
    assert tags_in_order(response)
    code = python_code(response)
    assert code is not None
    run = run_code(code, tmp_path, RUN_LIMIT_S)
    assert run.returncode == 0, run.stderr
    assert len(RESULT_LINE.findall(run.stdout)) == 1, run.stdout
    assert matches(run.result, problem["answer"], strict=True), (run.result, problem["answer"])

    model_file = tmp_path / "model.lp"
    assert model_file.is_file()
    assert lp_has_sections(model_file.read_text())

    solved, lp = highs_solve(model_file)
    expected_status = problem["answer"] if isinstance(problem["answer"], str) else "optimal"
    assert solved.status == expected_status
    if solved.objective is not None:
        assert close_by_every_rule(solved.objective, problem["answer"])
    assert solved.direction == problem["direction"]
    assert solved.n_binary == problem["n_binary"]
    assert solved.n_integer == problem["n_integer"]
    assert solved.n_constraints == problem["n_constraints"]

    # CBC through PuLP reports values to about 8 significant digits: agree to 1e-6 relative.
    cbc_status, cbc_objective = cbc_solve(lp)
    assert cbc_status == expected_status
    if cbc_objective is not None:
        assert math.isclose(cbc_objective, problem["answer"], rel_tol=1e-6, abs_tol=1e-6)


# --- each incorrect response ------------------------------------------------------------------

INCORRECT = [(p, k) for p in PROBLEMS for k in range(len(p["incorrect"]))]


@pytest.mark.parametrize(
    ("problem", "index"),
    INCORRECT,
    ids=[f"{p['id']}-{k}-{p['incorrect'][k]['error']}" for p, k in INCORRECT],
)
def test_incorrect_response_fails_for_its_stated_reason(problem, index, tmp_path):
    flawed = problem["incorrect"][index]
    response, error = flawed["response"], flawed["error"]
    assert response != problem["reference"]
    code = python_code(response)

    if error == "extraction":
        assert code is None
        assert not fenced_code_anywhere(response)
        return
    assert code is not None
    # Only the format flaw may break the tags: every other failure is about the code.
    assert tags_in_order(response) == (error != "format")

    if error == "timeout":
        run = run_code(code, tmp_path, HANG_LIMIT_S)
        assert run.returncode is None, "expected the program to hang"
        return
    run = run_code(code, tmp_path, RUN_LIMIT_S)
    assert run.returncode is not None, "ran past the time limit"
    if error == "execution":
        assert run.returncode != 0
        assert "Traceback" in run.stderr
        assert not matches(run.result, problem["answer"], strict=False)
    elif error == "wrong_answer":
        assert run.returncode == 0, run.stderr
        assert run.result is not None, run.stdout
        assert not matches(run.result, problem["answer"], strict=False), run.result
    else:  # format: the code is the reference's and still right
        assert run.returncode == 0, run.stderr
        assert matches(run.result, problem["answer"], strict=True)
        assert code == python_code(problem["reference"])
