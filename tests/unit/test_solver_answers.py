"""Reading a program's answer (execrl.rewards.solver.answers): the conventions, the sentinels,
and the real solvers' logs, which no convention may read as an answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from execrl.errors import ExecrlError
from execrl.rewards.solver import ANSWER_CONVENTIONS, answer_convention, parse_report

LOGS = sorted((Path(__file__).parents[1] / "fixtures" / "optim" / "logs").glob("*.log"))


def test_the_real_log_fixtures_are_there():
    names = {p.stem for p in LOGS}
    assert {"highspy_infeasible", "highspy_unbounded", "coptpy_infeasible"} <= names
    assert {"coptpy_unbounded", "gurobipy_infeasible", "pyscipopt_infeasible"} <= names


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
@pytest.mark.parametrize("convention", sorted(ANSWER_CONVENTIONS))
def test_no_convention_reads_a_solver_log_as_an_answer(log, convention):
    """Regression (issue 17): "Model status : Infeasible" (HiGHS), "Solution status :
    infeasible" and "Status: Unbounded  Objective: -" (COPT) matched the old answer pattern.
    The logs come from running the real solvers (fixtures/optim/logs/make_logs.py); inside the
    sandbox they never reach the answer channel anyway."""
    assert parse_report(log.read_text(), convention) is None


@pytest.mark.parametrize(
    ("line", "execrl", "sirl", "orlm"),
    [
        ("objective: 39.0", 39.0, 39.0, 39.0),
        ("Optimal objective: 39", 39.0, 39.0, 39.0),
        ("objective: 34.0 (optimal)", 34.0, 34.0, 34.0),
        ("objective: 1,234.5", 1234.5, 1234.5, 1234.5),
        ("status: infeasible", "infeasible", "infeasible", "infeasible"),
        ("Status: Unbounded", "unbounded", "unbounded", "unbounded"),
        ("Best objective 3.9e+01", None, 39.0, 39.0),  # SIRL's gurobipy-style line
        ("Optimal objective value: 12", None, 12.0, 12.0),
        ("Objective value: 12", None, None, 12.0),  # ORLM's coptpy-style lines
        ("Total cost: $12", None, None, 12.0),
        ("EXECRL_ANSWER: 7", 7.0, 7.0, 7.0),  # the harness's marker: every convention
        # not answers
        ("objective: 3 x + 4 y", None, None, None),  # a printed model
        ("Model status : Infeasible", None, None, None),
        ("Solution status : infeasible", None, None, None),
        ("Status: Unbounded  Objective: -  Iterations: 0", None, None, None),
        ("Objective value     :  5.0000000000e+00", None, None, None),  # HiGHS's log
        ("objective: nan", None, None, None),
    ],
)
def test_conventions(line, execrl, sirl, orlm):
    assert [parse_report(line, c) for c in ("execrl", "sirl", "orlm")] == [execrl, sirl, orlm]


@pytest.mark.parametrize("text", ["objective: -9999", "objective: -99999.0", "No Best Solution"])
def test_sentinels_are_no_valid_answer(text):
    """Regression (issue 17): SIRL's −9999 and ORLM's −99999 were read as numbers."""
    for convention in ("execrl", "sirl", "orlm"):
        assert parse_report(text, convention) is None
        assert parse_report(f"objective: 5\n{text}", convention) is None  # the last line wins
        assert parse_report(f"{text}\nEXECRL_ANSWER: 5", convention) == 5.0


def test_the_last_answer_line_wins_and_marker_only_reads_markers():
    out = "objective: 1\nsome log\nobjective: 2\n"
    assert parse_report(out) == 2.0
    assert parse_report(out, "marker") is None
    assert parse_report(out + "EXECRL_ANSWER: infeasible\n", "marker") == "infeasible"


def test_a_custom_convention():
    mine = answer_convention({"name": "mine", "patterns": [r"RESULT=(?P<number>\S+)$"]})
    assert mine.parse("RESULT=4.5\n") == 4.5
    assert mine.parse("result=4.5") == 4.5  # case-insensitive, like the named ones
    with pytest.raises(ExecrlError, match="named group 'number' or 'status'"):
        answer_convention({"patterns": [r"RESULT=(\S+)"]})
    with pytest.raises(ExecrlError, match="unknown answer convention 'nope'"):
        answer_convention("nope")
