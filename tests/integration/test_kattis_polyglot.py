"""A Kattis package with C, C++, Java and Python submissions (tests/fixtures/kattis_polyglot):
the loader sees every single-file submission with its language and its folder's verdict, and
``execrl problems check`` gives each submission its folder's verdict (issue 31's Kattis
acceptance). C and C++ are required: their tests never skip; Java skips where its toolchain
is not installed (``execrl languages`` says why)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from execrl.datagen import verify
from execrl.problems.kattis import SkippedSubmissionsWarning, load_kattis, read_kattis_package
from execrl.sandbox.languages import probe
from execrl.sandbox.protocol import ExecutionRequest

PACKAGE = Path(__file__).parents[1] / "fixtures" / "kattis_polyglot" / "bigsum"
SUBMISSIONS = {
    # reference name: (language, label, expected verdict)
    "accepted-Kattio": ("java", "correct", None),  # `class Kattio`, not public, not Main
    "accepted-Solution": ("java", "correct", None),  # `public class Solution`
    "accepted-sum-c": ("c", "correct", None),
    "accepted-sum-cpp": ("cpp", "correct", None),
    "accepted-sum-py": ("python", "correct", None),
    "run_time_error-average_first": ("c", "incorrect", "runtime_error"),  # division by zero
    "run_time_error-Crash": ("java", "incorrect", "runtime_error"),  # uncaught exception
    "run_time_error-null_list": ("c", "incorrect", "runtime_error"),  # null dereference
    "run_time_error-off_by_one": ("cpp", "incorrect", "runtime_error"),  # .at(): abort
    "time_limit_exceeded-forgot_increment": ("c", "incorrect", "timeout"),
    "time_limit_exceeded-one_at_a_time": ("cpp", "incorrect", "timeout"),
    "time_limit_exceeded-Spin": ("java", "incorrect", "timeout"),
    "wrong_answer-overflow-c": ("c", "incorrect", "wrong_answer"),  # 32-bit sums
    "wrong_answer-overflow-cpp": ("cpp", "incorrect", "wrong_answer"),
    "wrong_answer-Overflow": ("java", "incorrect", "wrong_answer"),
}
REQUIRED = ("c", "cpp")
"""Languages whose toolchain a test machine must have (issue 31): never skipped."""
CORE_API = "language" in ExecutionRequest.model_fields and "language" in inspect.getsource(
    verify.iter_reference_reports
)
"""Requests carry a language, and ``problems check`` (``execrl.datagen.verify``) gives each
reference's to its requests; until both hold every submission would run as Python."""


def load() -> list:
    with pytest.warns(SkippedSubmissionsWarning, match=r"multifile/ \(a submission of several"):
        return load_kattis(PACKAGE.parent)


def test_the_loader_sees_every_submission_with_its_language_and_verdict():
    (problem,) = load()
    assert problem.id == "bigsum" and problem.title == "Big Sum"
    assert problem.time_limit_s == 2.0 and problem.memory_limit_mb == 256
    assert [t.id for t in problem.tests] == ["sample-1", "secret-01-max", "secret-02-negative"]
    found = {r.name: (r.language, r.label.value, r.expected_verdict) for r in problem.references}
    assert found == SUBMISSIONS


def test_submissions_keep_their_source_as_written():
    (problem,) = load()
    refs = {r.name: r for r in problem.references}
    assert refs["accepted-sum-cpp"].code.startswith("#include <bits/stdc++.h>\nusing namespace")
    assert "public class Solution {" in refs["accepted-Solution"].code
    assert "\nclass Kattio {" in refs["accepted-Kattio"].code


def test_the_languages_filter_keeps_only_those_submissions():
    with pytest.warns(SkippedSubmissionsWarning):
        problem = read_kattis_package(PACKAGE, languages="c,java")
    assert {r.language for r in problem.references} == {"c", "java"}
    assert len(problem.references) == sum(
        lang in ("c", "java") for lang, *_ in SUBMISSIONS.values()
    )


def _check(language: str, tmp_path: Path) -> tuple[int, list[dict]]:
    """``execrl problems check PACKAGE --languages LANGUAGE``, in-process: its exit code and
    its rows."""
    from execrl.cli.main import main

    out = tmp_path / "check.jsonl"
    argv = ["problems", "check", str(PACKAGE), "--languages", language, "--jobs", "2"]
    code = main([*argv, "--out", str(out)])  # (the CLI prints the skip warning on stderr)
    return code, [json.loads(line) for line in out.read_text().splitlines()]


def _require(language: str) -> None:
    toolchain = probe(language)
    if not toolchain.installed:
        assert language not in REQUIRED, f"{language} is required: {toolchain.why_not}"
        pytest.skip(f"{language} is not installed here: {toolchain.why_not}")


NEEDS_CORE_API = pytest.mark.skipif(
    not CORE_API,
    reason="needs the core languages API: ExecutionRequest's `language`, passed by "
    "execrl.datagen.verify.iter_reference_reports (`language=ref.language`)",
)


@NEEDS_CORE_API
@pytest.mark.parametrize("language", ["c", "cpp", "java", "python"])
def test_problems_check_gives_every_submission_its_folders_verdict(language, tmp_path):
    _require(language)
    code, rows = _check(language, tmp_path)
    expected = {n: v for n, v in SUBMISSIONS.items() if v[0] == language}
    assert {row["reference"] for row in rows} == set(expected)
    for row in rows:
        _, label, verdict = expected[row["reference"]]
        assert row["as_expected"] is True, row
        if label == "correct":
            assert row["verdicts"] == {"success": row["tests"]}, row
        else:
            assert row["verdicts"].get(verdict, 0) >= 1, row
    assert code == 0, rows


@NEEDS_CORE_API
def test_a_java_submission_whose_class_is_not_public_runs_as_kattis_runs_it():
    import execrl

    _require("java")
    (problem,) = load()
    (kattio,) = [r for r in problem.references if r.name == "accepted-Kattio"]
    record = execrl.run(kattio.code, problem.tests, language="java")
    assert record.all_passed, [(r.status.value, r.detail) for r in record.results]
