"""execrl.integrations.rows: every label form a trainer's dataset carries resolves to the
problem and scoring it names, and a completion's RowScore is execrl's reward, run for real."""

from __future__ import annotations

import asyncio
import json

import pytest

from execrl.errors import ExecrlError
from execrl.integrations.rows import (
    SCORE_KEYS,
    Row,
    ascore_row,
    check_settings,
    feedback_message,
    parse_label,
    resolve_row,
    row_label,
    score_rows,
)
from execrl.problems import load_bundled, save_problems
from execrl.problems.models import ReferenceLabel
from execrl.rewards import score
from execrl.sandbox.pool import LocalExecutor

PROBLEM_ID = "balanced-brackets"


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=2) as pool:
        yield pool


@pytest.fixture(scope="module")
def problem():
    return load_bundled([PROBLEM_ID])[0]


def _fenced(code: str, language: str = "python") -> str:
    return f"My answer:\n```{language}\n{code}\n```\n"


def test_reference_inline_and_foreign_labels_resolve(problem, tmp_path):
    by_reference = resolve_row(json.dumps({"problem_id": PROBLEM_ID}))
    assert by_reference.problem == problem and by_reference.kind == "code"
    assert (by_reference.env, by_reference.reward, by_reference.language) == (
        "mc",
        "collapsed",
        "python",
    )
    inline = resolve_row(row_label(problem, inline=True, env="rlvr", language="c++"))
    assert inline.problem.tests == problem.tests
    assert (inline.env, inline.language) == ("rlvr", "cpp")
    # a problem source written to a file, named by the label
    path = save_problems([problem], tmp_path / "one.jsonl")
    named = resolve_row({"problem_id": PROBLEM_ID, "problem_source": str(path)})
    assert named.problem.tests == problem.tests
    # APPS / verl prime_code tests in the label; rllm/DeepCoder tests
    apps = resolve_row({"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]})
    assert [t.input for t in apps.problem.tests] == ["1 2\n", "3 4\n"]
    listed = resolve_row(json.dumps({"tests": [{"input": "5\n", "output": "25\n"}]}))
    assert [t.output for t in listed.problem.tests] == ["25\n"]


def test_info_overrides_label_and_defaults_come_last():
    label = {"problem_id": PROBLEM_ID, "env": "rlvr", "reward": "binary"}
    row = resolve_row(label, {"env": "mc", "language": "java"}, {"reward": "x", "env": "y"})
    assert (row.env, row.reward, row.language) == ("mc", "binary", "java")
    assert resolve_row({"problem_id": PROBLEM_ID}, None, {"reward": "binary"}).reward == "binary"
    # the problem id may come from the row's info alone (verl's extra_info)
    assert resolve_row("", {"problem_id": PROBLEM_ID}).problem.id == PROBLEM_ID


def test_solver_labels():
    assert parse_label(42) == {"answer": 42}
    assert parse_label("infeasible") == {"answer": "infeasible"}
    row = resolve_row('{"answer": 12.5, "reward": "authors"}', defaults={"stage": 2})
    assert row.kind == "solver" and row.answer is not None
    assert row.reward == {"preset": "authors", "stage": 2}
    assert resolve_row("7", defaults={"reward": "paper", "stage": 2}).reward == {
        "preset": "paper",
        "stage": 2,
    }


@pytest.mark.parametrize(
    ("label", "message"),
    [
        ({"problem_id": "no-such-problem"}, "no-such-problem"),
        ("42 is the answer", "not execrl's JSON"),
        ({"env": "mc"}, "names no problem"),
        ({"inputs": ["1"], "outputs": []}, "1 inputs but 0 outputs"),
        ({"problem": {"tests": "nope"}}, "problem"),
        ([1, 2], "not an execrl label"),
        ({"problem": {"id": "x"}}, "has no tests"),
        ({"inputs": [], "outputs": []}, "has no tests"),
    ],
)
def test_bad_labels_are_errors_not_scores(label, message):
    with pytest.raises(ExecrlError, match=message):
        resolve_row(label)


def test_scores_are_execrls_rewards(problem, executor):
    correct = problem.references_labelled(ReferenceLabel.CORRECT)[0].code
    wrong = problem.references_labelled(ReferenceLabel.INCORRECT)[0].code
    crash = "raise SystemExit('boom')\n"
    programs = [correct, wrong, crash]
    expected = score(problem, programs, executor=executor)
    rows = [resolve_row({"problem_id": PROBLEM_ID})] * 3
    got = score_rows([_fenced(p) for p in programs], rows, executor=executor)
    assert [g.reward for g in got] == [e.reward for e in expected]
    assert [g.passed for g in got] == [True, False, False]
    assert got[0].status == "success" and got[2].status == "runtime_error"
    assert all(tuple(g.metrics) == SCORE_KEYS for g in got)
    assert got[1].metrics["tests_passed_fraction"] < 1.0
    assert got[0].metrics["inconclusive"] == 0.0
    # the async form gives the same reward
    one = asyncio.run(ascore_row(_fenced(wrong), rows[1], executor=executor))
    assert (one.reward, one.status) == (got[1].reward, got[1].status)
    message = feedback_message(rows[1], got[1], turn=1, max_turns=3)
    assert "tests" in message and "```python" in message


def test_inconclusive_is_never_a_silent_zero(problem):
    from execrl.service.remote import RemoteExecutor
    from tests.service._server import running_server

    # a server that goes away: the execution is inconclusive, not the program's fault
    with running_server(workers=1) as server:
        remote = RemoteExecutor(server.url, retries=0, retry_budget_s=2, fallback=False)
    try:
        (got,) = score_rows(["```python\nprint(1)\n```"], [Row(problem)], executor=remote)
        late = asyncio.run(ascore_row("```python\nprint(1)\n```", Row(problem), executor=remote))
    finally:
        remote.close()
    for one in (got, late):
        assert one.reward is None and one.inconclusive and one.value == 0.0
        assert one.metrics["inconclusive"] == 1.0 and one.status == "inconclusive"
        assert "sandbox failure" in feedback_message(Row(problem), one)


def test_dense_raw_is_the_fraction_of_tests_passed(problem, executor):
    """spec/dense-rewards.md's R_turn with raw weights 1/|U|, for one attempt: counted here
    from the record of a direct run of every test."""
    from execrl.envs.presets import environment
    from execrl.sandbox.protocol import ExecutionRequest

    wrong = problem.references_labelled(ReferenceLabel.INCORRECT)[0].code
    tests = environment("mc").plan(problem).tests  # U: the env's tests
    record = executor.execute(ExecutionRequest.for_problem(problem, wrong, tests=tests))
    expected = sum(r.passed for r in record.results) / len(tests)
    assert 0.0 < expected < 1.0
    row = resolve_row({"problem_id": PROBLEM_ID, "reward": "dense_raw"}, defaults={})
    (got,) = score_rows([_fenced(wrong)], [row], executor=executor)
    assert got.reward == pytest.approx(expected) and got.metrics["score"] == got.reward
    late = asyncio.run(ascore_row(_fenced(wrong), row, executor=executor))
    assert late.reward == pytest.approx(expected)
    check_settings("mc", "dense_raw")
    with pytest.raises(ExecrlError, match="dense_rw"):
        check_settings("mc", "dense_rw")
