"""A file of solver responses: ground truths, samples per problem, resumable score rows, and
the tables (pure functions; the scoring itself runs in tests/bad_inputs/test_solver.py)."""

from __future__ import annotations

import hashlib

import pytest

from execrl.errors import DataError, LoaderError, UsageError
from execrl.problems.optim import OptimProblem
from execrl.results import ResultsFile
from execrl.rewards.solver import response_files as files
from execrl.rewards.solver import tables
from execrl.rewards.solver.evaluation import CATEGORIES, EvaluationReport, ResponseRow, Summary

ROWS = [
    ResponseRow("p1", "a", None, 1),
    ResponseRow("p2", "b", 7.0, 2),
    ResponseRow("p1", "c", None, 3),
]
KNOWN = {"p1": OptimProblem(id="p1", question="q", answer=3.0, source="bench")}
SETTINGS = files.ScoreSettings(reward="paper", stage=1, answers="last-number", timeout_s=10.0)


def score_row(index: int, row: ResponseRow, reward: float | None = 1.0, **extra) -> dict:
    return {
        "index": index,
        "problem_id": row.problem_id,
        "response_sha256": hashlib.sha256(row.response.encode()).hexdigest(),
        "reward": reward,
        "format": 0.5,
        "execution": 1.0,
        "accuracy": 0.0,
        "bonus": 0.0,
        "verdict": "wrong_answer",
        "detail": "",
        "scored_with": SETTINGS.as_dict(),
        **extra,
    }


def test_ground_truths_take_the_rows_own_answer_first():
    assert files.ground_truths(ROWS, KNOWN, responses="r.jsonl") == [3.0, 7.0, 3.0]


def test_an_unknown_problem_names_the_line():
    with pytest.raises(LoaderError, match=r"r.jsonl, line 1: no problem 'p1' in bundled"):
        files.ground_truths(ROWS, {}, responses="r.jsonl")


def test_no_problem_set_is_read_when_every_row_has_an_answer():
    assert files.problems_for([ROWS[1]], "/no/such/file") == {}


def test_samples_by_problem_group_in_first_seen_order():
    problems, samples = files.samples_by_problem(ROWS, [3.0, 7.0, 3.0], KNOWN, responses="r")
    assert [(p.id, p.answer, p.source) for p in problems] == [
        ("p1", 3.0, "bench"),
        ("p2", 7.0, "given"),
    ]
    assert samples == [["a", "c"], ["b"]]


def test_two_ground_truths_for_one_problem_are_refused():
    with pytest.raises(DataError, match=r"r, line 3: answer 4.0 .* line 1 gives as 3.0"):
        files.samples_by_problem(ROWS, [3.0, 7.0, 4.0], KNOWN, responses="r")


def test_score_rows_are_keyed_by_place_problem_and_text():
    row = score_row(0, ROWS[0])
    assert files.score_row_key(row) == files.response_key(0, ROWS[0])
    assert files.response_key(0, ROWS[0])[2] == hashlib.sha256(b"a").hexdigest()
    assert files.is_score_row(row)
    assert not files.is_score_row({**row, "format": True})
    assert not files.is_score_row({**row, "scored_with": None})


def test_resume_keeps_matching_rows_and_scores_the_rest(tmp_path):
    path = tmp_path / "scores.jsonl"
    with ResultsFile(path) as out:
        out.write(score_row(1, ROWS[1]))
    with ResultsFile(path, key=files.score_row_key, resume=True) as out:
        files.check_resumed(out.rows, ROWS, SETTINGS, out=path, responses="r")
        assert files.unscored(ROWS, out) == [0, 2]
    assert files.unscored(ROWS, None) == [0, 1, 2]


def test_resume_with_other_settings_names_the_options():
    kept = [score_row(0, ROWS[0], scored_with={**SETTINGS.as_dict(), "stage": 2})]
    with pytest.raises(UsageError, match="1 rows in s were scored with `stage` 2; resume with"):
        files.check_resumed(kept, ROWS, SETTINGS, out="s", responses="r")


def test_resume_onto_rows_of_other_responses_is_refused():
    kept = [score_row(0, ResponseRow("p1", "changed")), {"index": 1}]
    with pytest.raises(UsageError, match="2 of the 2 rows in s are not scores of the responses"):
        files.check_resumed(kept, ROWS, SETTINGS, out="s", responses="r")


def test_scoring_without_an_executor_is_refused_when_work_is_left():
    with pytest.raises(UsageError, match="3 responses to score and no executor"):
        files.score_response_rows(ROWS, [3.0, 7.0, 3.0], SETTINGS, executor=None, limits=None)


def never_opened():
    raise AssertionError("an executor was opened with nothing to score")


def test_score_responses_reads_a_finished_file_back_without_an_executor(tmp_path):
    settings = files.ScoreSettings(reward="paper", stage=1, answers="execrl", timeout_s=10.0)
    done = [score_row(i, row, scored_with=settings.as_dict()) for i, row in enumerate(ROWS)]
    path = tmp_path / "scores.jsonl"
    with ResultsFile(path) as out:
        for row in done:
            out.write(row)
    told: list[int] = []
    scored = files.score_responses(
        ROWS, [3.0, 7.0, 3.0], settings, executor=never_opened, out=path, resume=True,
        on_resumed=told.append,
    )  # fmt: skip
    assert scored == done and told == [3]


def test_score_responses_refuses_other_rows_before_opening_an_executor(tmp_path):
    path = tmp_path / "scores.jsonl"
    with ResultsFile(path) as out:
        out.write(score_row(0, ResponseRow("p1", "changed")))
    before = path.read_bytes()
    with pytest.raises(UsageError, match=r"not scores of the responses in r\.jsonl"):
        files.score_responses(
            ROWS, [3.0, 7.0, 3.0], SETTINGS, executor=never_opened, out=path, resume=True,
            responses="r.jsonl",
        )  # fmt: skip
    assert path.read_bytes() == before


def test_mean_reward_and_unavailable_solvers():
    detail = "solver not available: gurobipy is not installed; install it with: pip install"
    scored = [
        score_row(0, ROWS[0], 3.5),
        score_row(1, ROWS[1], 0.5),
        score_row(2, ROWS[2], None, verdict="solver_unavailable", detail=detail),
    ]
    assert files.mean_reward(scored) == (2.0, 2)
    assert files.mean_reward(scored[2:]) == (None, 0)
    assert files.unavailable_solvers(scored) == {"gurobipy": 1}


def test_score_table_cells():
    header, rows = tables.score_table([score_row(0, ROWS[0], 1.23456), score_row(1, ROWS[1], None)])
    assert header == ["problem", "reward", "format", "exec", "acc", "bonus", "verdict"]
    assert rows == [
        ["p1", "1.23", "0.5", "1", "0", "0", "wrong_answer"],
        ["p2", "—", "0.5", "1", "0", "0", "wrong_answer"],
    ]


def test_evaluation_table_cells():
    breakdown = dict.fromkeys(CATEGORIES, 0) | {"correct": 1, "wrong_answer": 1}
    overall = Summary(
        n_problems=1, n_samples=2, pass_at_1=0.5, execution_rate=1.0, breakdown=breakdown,
        majority_accuracy=0.25, instance_enhanced_accuracy=1 / 3,
    )  # fmt: skip
    plain = overall.model_copy(update={"majority_accuracy": None, "pass_at_1": None})
    report = EvaluationReport(tolerance="relative", overall=overall, by_source={"nl4opt": plain})
    header, rows = tables.evaluation_table(report)
    assert header[:5] == ["benchmark", "problems", "samples", "pass@1", "exec rate"]
    assert header[-1] == "vote / IE-SC" and len(header) == 6 + len(CATEGORIES)
    assert rows[0][:5] == ["overall", "1", "2", "50.0%", "100.0%"]
    assert rows[0][-1] == "25.0% / 33.3%"
    assert rows[1][3] == "—" and rows[1][-1] == "—"
    assert rows[0][5:-1] == [str(breakdown[c]) for c in CATEGORIES]
