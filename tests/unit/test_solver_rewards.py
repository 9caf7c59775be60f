"""Solver rewards as pure functions of a parsed response and a stored run: tolerance rules,
the reported-result convention, stage 1 and 2 terms and ranges, the two presets."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from execrl.errors import ExecrlError
from execrl.rewards.solver import (
    ABSOLUTE,
    AUTHORS,
    RELATIVE,
    SOLVER_PRESETS,
    RunStatus,
    SolverRun,
    Tolerance,
    Verdict,
    parse_report,
    parse_response,
    solver_reward,
    solver_reward_config,
)
from execrl.rewards.solver.execution import LP_BEGIN, LP_END, split_model, wrap_program

FIXTURES = Path(__file__).parents[1] / "fixtures" / "optim"
GOOD = parse_response("<think>t</think><model>m</model><python>print(1)</python>")
CODE_FIRST = parse_response("<think>t</think><python>print(1)</python><model>m</model>")
BINARY_LP = (FIXTURES / "pulp_mip.lp").read_text()  # one binary, one general integer
CONTINUOUS_LP = "max\n obj: x\nst\n c: x <= 4\nend\n"


def run(answer=34.0, status=RunStatus.COMPLETED, lp=None) -> SolverRun:
    return SolverRun(status=status, answer=answer, lp_text=lp)


# -- tolerance -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tolerance", "y", "y_star", "expected"),
    [
        (ABSOLUTE, 34.005, 34.0, True),
        (ABSOLUTE, 34.02, 34.0, False),
        (ABSOLUTE, -0.004, 0.0, True),
        (RELATIVE, 1000.0005, 1000.0, True),  # 5e-7
        (RELATIVE, 1000.002, 1000.0, False),  # 2e-6
        (RELATIVE, 5e-7, 0.0, True),  # y* = 0: the denominator is 1
        (RELATIVE, 2e-6, 0.0, False),
        # y* = 0.5, y = 0.5000012: relative error 2.4e-6, but 1.2e-6 / (0.5000012 + 1) = 8e-7
        (RELATIVE, 0.5000012, 0.5, False),
        (AUTHORS, 0.5000012, 0.5, True),
        (AUTHORS, 0.500002, 0.5, False),  # 2e-6 / 1.500002 = 1.33e-6
        (RELATIVE, math.nan, 1.0, False),
        (RELATIVE, math.inf, math.inf, True),
    ],
)
def test_tolerance_rules(tolerance, y, y_star, expected):
    assert tolerance.close(y, y_star) is expected


def test_statuses_match_only_themselves():
    assert ABSOLUTE.matches("infeasible", "infeasible")
    assert not ABSOLUTE.matches("unbounded", "infeasible")
    assert not ABSOLUTE.matches(0.0, "infeasible")
    assert not ABSOLUTE.matches("infeasible", 0.0)
    assert not ABSOLUTE.matches(None, 3.0)
    assert Tolerance(rule="absolute", value=0.5).matches(3.4, 3.0)


# -- what the program reports ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("stdout", "expected"),
    [
        ("objective: 34.0\n", 34.0),
        ("Running HiGHS 1.16\nOptimal objective: 39.0\n", 39.0),
        ("objective: 1\nobjective: 2\n", 2.0),  # the last line wins
        ("objective: 5\nstatus: infeasible\n", "infeasible"),
        ("status: Unbounded\n", "unbounded"),
        ("OBJECTIVE: -1.5e3", -1500.0),
        ("objective: 1,234.5\n", 1234.5),
        ("status: optimal\nobjective: 7 (optimal)\n", 7.0),
        ("objective:12.", 12.0),
        ("obj: 3 x + 4 y\nobjective: 3 x + 4 y\n", None),  # a printed model, not a result
        ("objective: 34.0 dollars\n", None),  # the number must end the phrase
        ("Objective value: 5\n", None),
        ("status: infeasible_or_unbounded\n", None),
        ("nothing to see\n", None),
    ],
)
def test_reported_result(stdout, expected):
    assert parse_report(stdout) == expected


def test_model_block_is_cut_out_of_stdout():
    stdout = f"objective: 3\n\n{LP_BEGIN}\nmax\n obj: x\nend\n\n{LP_END}\nafter\n"
    rest, lp, truncated = split_model(stdout)
    assert lp == "max\n obj: x\nend\n"
    assert rest == "objective: 3\nafter\n" and not truncated  # as the program printed it
    _, cut, truncated = split_model(f"x\n{LP_BEGIN}\nmax\n{LP_END} truncated\n")
    assert (cut, truncated) == ("max", True)
    assert split_model("objective: 3\n") == ("objective: 3\n", None, False)


def test_wrapper_compiles_and_keeps_the_program_verbatim():
    program = "print('objective: 1')  # ''' \"\"\" \\n\n"
    wrapped = wrap_program(program)
    compile(wrapped, "<wrapper>", "exec")  # the trusted wrapper, not the program
    assert repr(program) in wrapped


# -- the reward ------------------------------------------------------------------------------
def test_paper_stage1_terms_and_maximum():
    config = SOLVER_PRESETS["paper"]
    best = solver_reward(GOOD, run(34.0), 34.0, config)
    assert (best.format_score, best.execution_score, best.accuracy_score) == (0.5, 1.0, 2.0)
    assert best.reward == 3.5 == config.max_stage1 == config.max_reward
    assert best.verdict is Verdict.CORRECT
    within = solver_reward(GOOD, run(34.009), 34.0, config)  # |Δ| ≤ 0.01
    assert within.reward == 3.5
    wrong = solver_reward(CODE_FIRST, run(33.0), 34.0, config)
    assert (wrong.reward, wrong.verdict) == (1.0, Verdict.WRONG_ANSWER)  # 0 + 1 + 0


def test_authors_preset_graded_format_and_accuracy_weight_one():
    config = SOLVER_PRESETS["authors"]
    assert config.max_stage1 == 3.0
    best = solver_reward(GOOD, run(34.0), 34.0, config)
    assert best.reward == 3.0
    misordered = solver_reward(CODE_FIRST, run(34.0), 34.0, config)
    assert misordered.format_score == pytest.approx(0.5 * (2 - 1 / 3))
    assert misordered.reward == pytest.approx(0.5 * (2 - 1 / 3) + 1 + 1)
    # the authors' relative rule is stricter than the paper's absolute one
    assert solver_reward(GOOD, run(34.009), 34.0, config).accuracy_score == 0.0


@pytest.mark.parametrize(
    ("status", "answer", "verdict", "execution"),
    [
        (RunStatus.RUNTIME_ERROR, None, Verdict.EXECUTION_ERROR, 0.0),
        (RunStatus.SYNTAX_ERROR, None, Verdict.EXECUTION_ERROR, 0.0),
        (RunStatus.MEMORY_LIMIT, None, Verdict.EXECUTION_ERROR, 0.0),
        (RunStatus.TIMEOUT, None, Verdict.TIMEOUT, 0.0),
        (RunStatus.NO_CODE, None, Verdict.EXTRACTION_FAILED, 0.0),
        # ran cleanly but reported nothing: it executed, but returned no value
        (RunStatus.COMPLETED, None, Verdict.EXECUTION_ERROR, 1.0),
        # a timed-out run that printed the right number earlier is still a timeout
        (RunStatus.TIMEOUT, 34.0, Verdict.TIMEOUT, 0.0),
    ],
)
def test_failures(status, answer, verdict, execution):
    scored = solver_reward(GOOD, run(answer, status), 34.0, SOLVER_PRESETS["paper"])
    assert (scored.verdict, scored.execution_score, scored.accuracy_score) == (
        verdict,
        execution,
        0.0,
    )
    assert scored.reward == 0.5 + execution


def test_status_ground_truth():
    config = SOLVER_PRESETS["paper"]
    assert solver_reward(GOOD, run("infeasible"), "infeasible", config).reward == 3.5
    assert solver_reward(GOOD, run(0.0), "infeasible", config).accuracy_score == 0.0
    assert solver_reward(GOOD, run("unbounded"), "infeasible", config).accuracy_score == 0.0


def test_stage2_bonus_needs_a_correct_answer_and_advanced_modelling():
    config = solver_reward_config("paper", stage=2)
    assert config.max_reward == 4.5
    assert solver_reward(GOOD, run(34.0, lp=BINARY_LP), 34.0, config).reward == 4.5
    assert solver_reward(GOOD, run(33.0, lp=BINARY_LP), 34.0, config).bonus_score == 0.0
    assert solver_reward(GOOD, run(34.0, lp=CONTINUOUS_LP), 34.0, config).reward == 3.5
    assert solver_reward(GOOD, run(34.0), 34.0, config).reward == 3.5  # no model file
    unreadable = solver_reward(GOOD, run(34.0, lp="not an lp file"), 34.0, config)
    assert (unreadable.reward, unreadable.features) == (3.5, None)
    # stage 1 never pays the bonus
    assert solver_reward(GOOD, run(34.0, lp=BINARY_LP), 34.0, SOLVER_PRESETS["paper"]).reward == (
        3.5
    )
    authors = solver_reward_config({"preset": "authors", "stage": 2})
    assert authors.max_reward == 4.0
    assert solver_reward(GOOD, run(34.0, lp=BINARY_LP), 34.0, authors).reward == 4.0


def test_inconclusive_and_unavailable_solver_runs_have_no_reward():
    """Regression (issue 17): a missing solver scored like broken code (format term only,
    verdict execution_error). It is its own verdict, with no reward under every preset."""
    paper = SOLVER_PRESETS["paper"]
    assert solver_reward(GOOD, run(None, RunStatus.INCONCLUSIVE), 34.0, paper).reward is None
    missing = run(None, RunStatus.SOLVER_UNAVAILABLE)
    for config in SOLVER_PRESETS.values():
        assert config.unavailable_solver == "skip"
        scored = solver_reward(GOOD, missing, 34.0, config)
        assert (scored.verdict, scored.reward) == (Verdict.SOLVER_UNAVAILABLE, None)
    fail = solver_reward_config("paper", unavailable_solver="fail")  # opt-in only
    scored = solver_reward(GOOD, missing, 34.0, fail)
    assert (scored.verdict, scored.reward) == (Verdict.SOLVER_UNAVAILABLE, 0.5)


def test_reward_ranges_match_the_spec():
    """Every combination of terms stays inside [0, 3.5] (paper) and [0, 3] (authors)."""
    responses = [GOOD, CODE_FIRST, parse_response("no tags at all")]
    runs = [run(34.0), run(1.0), run(None), run(None, RunStatus.RUNTIME_ERROR)]
    for name, top in (("paper", 3.5), ("authors", 3.0)):
        rewards = [
            solver_reward(p, r, 34.0, SOLVER_PRESETS[name]).reward for p in responses for r in runs
        ]
        assert min(rewards) == 0.0 and max(rewards) == top
        assert all(0.0 <= x <= top for x in rewards)


def test_config_errors_are_one_line_execrl_errors():
    with pytest.raises(ExecrlError, match=r"unknown solver reward preset 'papers'.*paper, authors"):
        solver_reward_config("papers")
    with pytest.raises(ExecrlError, match="stage"):
        solver_reward_config("paper", stage=3)
    with pytest.raises(ExecrlError, match="accuracy_weight"):
        solver_reward_config({"accuracy_weight": -1})
    assert solver_reward_config({"preset": "authors"}) is SOLVER_PRESETS["authors"]


def test_tolerance_presets_are_named_for_the_numbers_they_reproduce():
    """ORLM's rule (rounded to integers, relative error < 5%) beside the strict ones."""
    from execrl.rewards.solver import ORLM, TOLERANCE_PRESETS, tolerance_preset

    assert set(TOLERANCE_PRESETS) == {
        "paper-reward",
        "strict-relative",
        "authors-code",
        "orlm-rounded-5pct",
    }
    assert tolerance_preset("orlm-rounded-5pct") is ORLM
    assert ORLM.close(104.4, 100.0) and ORLM.close(95.6, 100.0)  # 104 and 96: 4%
    assert not ORLM.close(104.6, 100.0)  # rounds to 105: 5% is not below 5%
    assert not ORLM.close(105.5, 100.0)  # rounds to 106: 6%
    assert ORLM.close(0.4, 0.0) and not ORLM.close(0.6, 0.0)  # round(y*) = 0: denominator 1
    assert not tolerance_preset("strict-relative").close(100.001, 100.0)
    assert tolerance_preset("paper-reward").close(100.009, 100.0)
