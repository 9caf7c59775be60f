"""Bad inputs to ``execrl solver …`` and the solver-reward API: one line, exit 2, nothing lost.

Most cases fail before any program runs; where the check is that they fail *before* the
work, the sandbox is replaced by one that refuses to start (``no_sandbox``). The cases that
score something run tiny programs in the real sandbox (a fraction of a second each).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from execrl.cli import _solver_options as solver_options
from execrl.cli import main as main_module
from execrl.cli import solver as solver_cmd
from execrl.errors import ConfigError, DataError, UsageError
from execrl.problems.optim import OptimProblem
from execrl.results import read_rows
from execrl.rewards.solver import (
    LpFormatError,
    Tolerance,
    answer_convention,
    evaluate_solver_samples,
    lp_features,
    response_files,
    score_solver_responses,
)

NOT_UTF8 = b"\xff\xfe\xfa"
LP = "Maximize\n obj: 3 x + 2 y\nSubject To\n c1: x + y <= 4\nEnd\n"


def program(value: float) -> str:
    return f"<python>\nprint('objective: {value}')\n</python>"


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def responses(tmp_path) -> Path:
    """Four responses with their ground truths (no problem set needed): 1 right, 3 not."""
    rows = [{"problem_id": f"p{i}", "response": program(i), "answer": 1} for i in range(1, 5)]
    return write_rows(tmp_path / "responses.jsonl", rows)


@pytest.fixture
def no_sandbox(monkeypatch):
    """The sandbox must not start: the mistake has to be caught before any work."""

    def refuse(args):
        raise RuntimeError("the sandbox started before the mistake was caught")

    monkeypatch.setattr(solver_options, "open_solver_executor", refuse)


# -- 1. files that are not UTF-8 name the file and line -----------------------------------------
def test_score_responses_not_utf8(bad_input, tmp_path, no_sandbox):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"problem_id": "p", "response": "x", "answer": 1}\n' + NOT_UTF8 + b"\n")
    line = bad_input(["solver", "score", path])
    assert line.startswith("DataError:") and f"{path}, line 2" in line and "UTF-8" in line


def test_eval_responses_not_utf8(bad_input, tmp_path, no_sandbox):
    path = tmp_path / "r.jsonl"
    path.write_bytes(NOT_UTF8)
    assert f"{path}, line 1: not UTF-8" in bad_input(["solver", "eval", path])


def test_features_lp_file_not_utf8(bad_input, tmp_path):
    path = tmp_path / "model.lp"
    path.write_bytes(b"Maximize\n obj: x\nSubject To\n c1: x <= " + NOT_UTF8 + b"\nEnd\n")
    line = bad_input(["solver", "features", path])
    assert line.startswith("LpFormatError:") and f"{path}, line 4: not UTF-8" in line


def test_problem_set_not_utf8(bad_input, tmp_path, no_sandbox):
    problems = tmp_path / "problems.jsonl"
    problems.write_bytes(NOT_UTF8 + b"\n")
    rows = write_rows(tmp_path / "r.jsonl", [{"problem_id": "p", "response": "x"}])
    line = bad_input(["solver", "score", rows, "--problems", problems])
    assert str(problems) in line and "not UTF-8" in line


def test_check_source_not_utf8(bad_input, tmp_path, no_sandbox):
    source = tmp_path / "problems.jsonl"
    source.write_bytes(NOT_UTF8)
    line = bad_input(["solver", "check", source])
    assert str(source) in line and "not UTF-8" in line


def test_gzipped_responses_that_are_not_gzip(bad_input, tmp_path, no_sandbox):
    path = tmp_path / "r.jsonl.gz"
    path.write_bytes(b"plain text, not gzip")
    assert f"{path}: not a gzip file" in bad_input(["solver", "score", path])


def test_gzipped_responses_are_read(tmp_path, capsys):
    rows = [{"problem_id": "p", "response": program(2), "answer": 2}]
    path = tmp_path / "r.jsonl.gz"
    path.write_bytes(gzip.compress(json.dumps(rows[0]).encode() + b"\n"))
    assert main_module.main(["solver", "score", str(path)]) == 0
    assert "1 responses, mean reward 3.000" in capsys.readouterr().out


# -- 2. an unwritable --out fails at once, before any response is scored ---------------------
@pytest.mark.parametrize("where", ["under-a-file", "in-proc", "a-directory"])
def test_score_out_unwritable_fails_before_scoring(
    bad_input, responses, tmp_path, no_sandbox, where
):
    (tmp_path / "a-file").write_text("keep me")
    out = {
        "under-a-file": tmp_path / "a-file" / "scores.jsonl",
        "in-proc": Path("/proc/execrl-scores.jsonl"),
        "a-directory": tmp_path,
    }[where]
    line = bad_input(["solver", "score", responses, "--out", out])
    assert line.startswith("OutputError:") and str(out) in line
    assert (tmp_path / "a-file").read_text() == "keep me"


@pytest.mark.parametrize("flag", ["--out", "--plot"])
def test_eval_outputs_unwritable_fail_before_running(
    bad_input, responses, tmp_path, no_sandbox, flag
):
    if flag == "--plot":
        pytest.importorskip("matplotlib")
    target = tmp_path / "a-file"
    target.write_text("x")
    line = bad_input(["solver", "eval", responses, flag, target / "report.png"])
    assert line.startswith("OutputError:") and flag in line


def test_eval_plot_with_an_unknown_picture_format(bad_input, responses, tmp_path, no_sandbox):
    pytest.importorskip("matplotlib")
    line = bad_input(["solver", "eval", responses, "--plot", tmp_path / "breakdown.txt"])
    assert "--plot" in line and ".png" in line


def test_out_that_is_the_responses_file_is_refused(bad_input, responses, no_sandbox):
    before = responses.read_text()
    line = bad_input(["solver", "score", responses, "--out", responses])
    assert "--out" in line and "is the responses file" in line
    assert responses.read_text() == before  # the input is not replaced by its scores


def test_out_that_is_the_problem_set_is_refused(bad_input, responses, tmp_path, no_sandbox):
    problems = tmp_path / "problems.jsonl"
    problems.write_text('{"id": "p1", "question": "q", "answer": 1}\n')
    before = problems.read_text()
    line = bad_input(["solver", "score", responses, "--problems", problems, "--out", problems])
    assert "is the --problems file" in line
    assert problems.read_text() == before


# -- 3. scores are written as they finish; --resume continues ----------------------------------
def test_interrupted_score_keeps_what_finished_and_resume_continues(
    bad_input, responses, tmp_path, monkeypatch
):
    out = tmp_path / "scores.jsonl"
    real = response_files.iter_solver_scores
    scored: list[int] = []

    def interrupted(batch, *args, **kwargs):
        for i, score in enumerate(real(batch, *args, **kwargs)):
            if i == 2:
                raise KeyboardInterrupt  # Ctrl-C while the third is running
            scored.append(i)
            yield score

    monkeypatch.setattr(response_files, "iter_solver_scores", interrupted)
    bad_input(["solver", "score", responses, "--out", out, "--workers", "1"], code=130)
    kept = read_rows(out)
    assert [r["index"] for r in kept] == [0, 1] == scored  # every finished one, flushed

    monkeypatch.setattr(response_files, "iter_solver_scores", real)
    asked: list[int] = []

    def counting(batch, *args, **kwargs):
        asked.append(len(batch))
        yield from real(batch, *args, **kwargs)

    monkeypatch.setattr(response_files, "iter_solver_scores", counting)
    argv = ["solver", "score", str(responses), "--out", str(out), "--workers", "1", "--resume"]
    assert main_module.main(argv) == 0
    assert asked == [2]  # only the two that were missing
    rows = read_rows(out)
    assert [r["index"] for r in rows] == [0, 1, 2, 3]
    assert rows[:2] == kept  # nothing already written was lost
    assert [r["verdict"] for r in rows] == ["correct"] + ["wrong_answer"] * 3


def test_resume_drops_a_torn_last_row_and_keeps_the_rest(responses, tmp_path, capsys):
    out = tmp_path / "scores.jsonl"
    assert main_module.main(["solver", "score", str(responses), "--out", str(out)]) == 0
    complete = out.read_text().splitlines()
    out.write_text("\n".join(complete[:2]) + "\n" + complete[2][:25])  # a crash mid-row
    assert main_module.main(["solver", "score", str(responses), "--out", str(out), "--resume"]) == 0
    assert "2 of 4 responses already scored" in " ".join(capsys.readouterr().out.split())
    assert [json.loads(x) for x in out.read_text().splitlines()] == [
        json.loads(x) for x in complete
    ]


def test_resume_onto_scores_of_other_responses_is_refused(bad_input, responses, tmp_path):
    out = tmp_path / "scores.jsonl"
    assert main_module.main(["solver", "score", str(responses), "--out", str(out)]) == 0
    before = out.read_text()
    other = write_rows(
        tmp_path / "other.jsonl", [{"problem_id": "z", "response": "x", "answer": 1}]
    )
    line = bad_input(["solver", "score", other, "--out", out, "--resume"])
    assert "--resume" in line and "not scores of the responses" in line
    assert out.read_text() == before


def test_resume_with_other_scoring_options_is_refused(bad_input, responses, tmp_path):
    out = tmp_path / "scores.jsonl"
    assert main_module.main(["solver", "score", str(responses), "--out", str(out)]) == 0
    before = out.read_text()
    argv = ["solver", "score", responses, "--out", out, "--resume", "--stage", "2"]
    line = bad_input(argv)
    assert "were scored with --stage 1" in line and "same options" in line
    assert out.read_text() == before  # no mix of stage-1 and stage-2 rewards


def test_resume_onto_rows_that_are_not_scores_is_refused(bad_input, responses, tmp_path):
    out = tmp_path / "scores.jsonl"
    assert main_module.main(["solver", "score", str(responses), "--out", str(out)]) == 0
    rows = read_rows(out)
    del rows[0]["format"]  # (edited by hand, or written by something else)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = out.read_text()
    assert "not scores of the responses" in bad_input(
        ["solver", "score", responses, "--out", out, "--resume"]
    )
    assert out.read_text() == before


def test_resume_without_out(bad_input, responses, no_sandbox):
    assert "give --out" in bad_input(["solver", "score", responses, "--resume"])


# -- 4. an empty responses file (or problem set) is refused, not "mean reward nan" -------------
@pytest.mark.parametrize("command", ["score", "eval"])
@pytest.mark.parametrize("content", ["", "\n\n  \n"], ids=["empty", "blank-lines"])
def test_no_responses(bad_input, tmp_path, no_sandbox, command, content):
    path = tmp_path / "r.jsonl"
    path.write_text(content)
    line = bad_input(["solver", command, path])
    assert line.startswith("DataError:") and f"{path}: no responses" in line


def test_no_reward_at_all_is_said_not_printed_as_nan(tmp_path, capsys):
    pytest.importorskip("highspy")  # (a solver sandbox that can run)
    if importlib.util.find_spec("mosek") is not None:
        pytest.skip("mosek is installed here")
    response = "<python>\nimport mosek\nprint('objective: 1')\n</python>"
    path = write_rows(
        tmp_path / "r.jsonl", [{"problem_id": "p", "response": response, "answer": 1}]
    )
    assert main_module.main(["solver", "score", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "nan" not in out and "none got a reward" in out


def test_check_of_an_empty_problem_set(bad_input, tmp_path, no_sandbox):
    path = tmp_path / "problems.jsonl"
    path.write_text("")
    assert f"{path}: no problems" in bad_input(["solver", "check", path])


# -- 5. every option says what it does -------------------------------------------------------
def test_every_solver_option_has_help():
    parser = argparse.ArgumentParser()
    solver_cmd.register(parser.add_subparsers())
    (solver,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    (group,) = [
        a for a in solver.choices["solver"]._actions if isinstance(a, argparse._SubParsersAction)
    ]
    missing = [
        f"{name} {action.dest}"
        for name, sub in group.choices.items()
        for action in sub._actions
        if not action.help
    ]
    assert missing == []
    text = group.choices["score"].format_help()
    assert "default paper" in text and "default 1" in text
    text = " ".join(group.choices["eval"].format_help().split())
    assert "default 1e-6" in text and "strict-relative: |y - y*| / |y*| < 1e-6" in text
    assert "default 10" in group.choices["features"].format_help()


# -- 6. other malformed input: bad rows, values and files ---------------------------------------
@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('{"problem_id": "p", "response": 5}', "'response' must be a string"),
        ('{"problem_id": ["a"], "response": "x", "answer": 1}', "'problem_id' must be a string"),
        ('{"problem_id": "  ", "response": "x", "answer": 1}', "'problem_id' is empty"),
        ('{"response": "x", "answer": 1}', "no 'problem_id'"),
        ('{"problem_id": "p", "response": "x", "answer": true}', "answer: expected a number"),
        ('{"problem_id": "p", "response": "x"', "not valid JSON"),
        ("[1, 2]", "expected a JSON object, got list"),
    ],
    ids=["response-int", "id-list", "id-blank", "no-id", "answer-bool", "torn-json", "list"],
)
def test_malformed_response_rows_name_the_line(bad_input, tmp_path, no_sandbox, row, message):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"problem_id": "ok", "response": "x", "answer": 1}) + "\n" + row)
    line = bad_input(["solver", "score", path])
    assert f"{path}, line 2" in line and message in line


def test_a_json_array_instead_of_json_lines(bad_input, tmp_path, no_sandbox):
    path = tmp_path / "r.json"
    rows = [{"problem_id": "p", "response": "x", "answer": 1}]
    path.write_text(json.dumps(rows, indent=2))
    line = bad_input(["solver", "score", path])
    assert f"{path}: a JSON array; expected JSON lines" in line


def test_a_byte_order_mark_is_not_an_error(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    row = {"problem_id": "p", "response": program(2), "answer": 2}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(row).encode() + b"\n")
    assert main_module.main(["solver", "score", str(path)]) == 0
    assert "mean reward 3.000" in capsys.readouterr().out


def test_unknown_problem_id_names_the_responses_line(bad_input, tmp_path, no_sandbox):
    path = write_rows(tmp_path / "r.jsonl", [{"problem_id": "no-such-problem", "response": "x"}])
    line = bad_input(["solver", "score", path])
    assert f"{path}, line 1: no problem 'no-such-problem'" in line


def test_eval_rows_disagreeing_on_a_ground_truth(bad_input, tmp_path, no_sandbox):
    rows = [{"problem_id": "p", "response": "x", "answer": a} for a in (1, 1, 2)]
    line = bad_input(["solver", "eval", write_rows(tmp_path / "r.jsonl", rows)])
    assert "line 3" in line and "line 1" in line and "one ground truth per problem" in line


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan"])
def test_tolerance_value_must_be_finite_and_positive(bad_input, responses, no_sandbox, value):
    argv = ["solver", "eval", responses, "--tolerance", "relative", "--tolerance-value", value]
    line = bad_input(argv)
    assert line.startswith("UsageError: --tolerance-value must be a finite number above 0")


def test_tolerance_value_with_a_preset(bad_input, responses, no_sandbox):
    line = bad_input(["solver", "eval", responses, "--tolerance-value", "0.1"])
    assert line.startswith("UsageError:") and "is a preset" in line


@pytest.mark.parametrize("workers", ["100000", "1000000"])
def test_workers_out_of_range(bad_input, responses, no_sandbox, workers):
    assert "--workers must be" in bad_input(["solver", "score", responses, "--workers", workers])


@pytest.mark.parametrize("ratio", ["nan", "inf", "0.5", "1"])
def test_big_m_ratio_must_be_above_one(bad_input, tmp_path, ratio):
    path = tmp_path / "m.lp"
    path.write_text(LP)
    line = bad_input(["solver", "features", path, "--big-m-ratio", ratio])
    assert line.startswith("UsageError: --big-m-ratio must be a finite number above 1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no sections"),
        ("\\ only a comment\n", "no sections"),
        ("Maximize\n obj: 3 x +\nSubject To\n c1: x <= 4\nEnd\n", "line 2: expected a term"),
    ],
    ids=["empty", "comment-only", "dangling-sign"],
)
def test_lp_files_that_say_nothing_or_end_early(bad_input, tmp_path, text, message):
    path = tmp_path / "m.lp"
    path.write_text(text)
    line = bad_input(["solver", "features", path])
    assert line.startswith(f"LpFormatError: {path}: ") and message in line


def test_features_of_a_directory(bad_input, tmp_path):
    line = bad_input(["solver", "features", tmp_path])
    assert f"{tmp_path}: cannot read" in line


# -- the Python API: typed errors, before anything runs --------------------------------------
def test_api_errors_are_typed():
    with pytest.raises(UsageError, match="1 responses but 0 answers"):
        score_solver_responses(["x"], [], executor=None)
    with pytest.raises(UsageError, match="response 0: expected a string"):
        score_solver_responses([b"x"], [1], executor=None)  # type: ignore[list-item]
    with pytest.raises(UsageError, match="no problems to evaluate"):
        evaluate_solver_samples([], [], executor=None)
    problem = OptimProblem(id="p", question="q", answer=1.0, source="s")
    with pytest.raises(UsageError, match="problem 'p': no samples"):
        evaluate_solver_samples([problem], [[]], executor=None)
    with pytest.raises(UsageError, match="problem 'p', sample 0: expected a string"):
        evaluate_solver_samples([problem], [[None]], executor=None)
    with pytest.raises(UsageError, match="problem 'p': a string"):
        evaluate_solver_samples([problem], ["one response, not a list"], executor=None)
    with pytest.raises(ConfigError, match="unknown solver reward preset 'nope'"):
        score_solver_responses(["x"], [1], reward="nope", executor=None)
    with pytest.raises(ConfigError, match="an answer convention is a name"):
        answer_convention(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # (pydantic's ValidationError)
        Tolerance(rule="relative", value=float("inf"))
    with pytest.raises(UsageError, match="big_m_ratio"):
        lp_features(LP, big_m_ratio=0.5)
    with pytest.raises(LpFormatError) as info:
        lp_features("")
    assert isinstance(info.value, DataError)
