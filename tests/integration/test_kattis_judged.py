"""Kattis packages judged as Kattis judges them (issue 35), on tests/fixtures/kattis_judged:

- ``rangehash``: no time limit; accepted C, C++, Python 3 (much slower than C++) and an
  unmarked Python 2 file (``print total``); the same stem (``hash``, ``naive``) in several
  languages; a too-slow C++ and a too-slow Python (O(n·q), ~10^10 steps on the large test,
  against the accepted O(n + q): far over any derived limit on any machine); wrong answers
  (one a Python 2 file with a shebang); run-time errors, one of them out of memory.
- ``twosum``: no time limit, its own ``time_multiplier`` 3 and ``time_safety_margin`` 3, and a
  custom output validator in C++ (any valid pair is accepted; the accepted Python one is not
  the judge's answer).

The derived limit is checked against a hand computation from the slowest accepted time the
check reports. Packages are copied to a temporary folder: the check stores its limit there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from execrl.cli.main import main
from execrl.datagen.kattis_judging import at_limit, derived_limits, verdict_at
from execrl.problems.kattis import DERIVED_LIMIT_FILE, looks_like_python2, read_kattis_package
from execrl.sandbox.languages import probe
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

FIXTURES = Path(__file__).parents[1] / "fixtures" / "kattis_judged"
RANGEHASH = {
    # name: (language written in, folder, verdict, first failing test or None)
    "accepted-hash-c": ("c", "accepted", "success", None),
    "accepted-hash-cpp": ("cpp", "accepted", "success", None),
    "accepted-hash-py": ("python", "accepted", "success", None),
    "accepted-legacy": ("python2", "accepted", "success", None),
    "run_time_error-past_end": ("cpp", "run_time_error", "runtime_error", "sample-1"),
    "run_time_error-recursion": ("python", "run_time_error", "runtime_error", None),
    "run_time_error-table": ("cpp", "run_time_error", "memory_limit", "secret-10-large"),
    "time_limit_exceeded-naive-cpp": ("cpp", "time_limit_exceeded", "timeout", "secret-10-large"),
    "time_limit_exceeded-naive-py": ("python", "time_limit_exceeded", "timeout", "secret-10-large"),
    "wrong_answer-int32": ("cpp", "wrong_answer", "wrong_answer", "secret-1-small"),
    "wrong_answer-no_mod": ("python2", "wrong_answer", "wrong_answer", "secret-1-small"),
    "wrong_answer-off_by_one": ("python", "wrong_answer", "wrong_answer", "sample-1"),
}
TWOSUM = {
    "accepted-split-cpp": ("cpp", "accepted", "success", None),
    "accepted-split-py": ("python", "accepted", "success", None),
    "run_time_error-split": ("c", "run_time_error", "runtime_error", "secret-1-even"),
    "wrong_answer-halves": ("python", "wrong_answer", "wrong_answer", "secret-1-even"),
}
ORDER = {
    "rangehash": ["sample-1", "secret-1-small", "secret-2-medium", "secret-10-large"],
    "twosum": ["sample-1", "secret-1-even", "secret-2-odd", "secret-3-big"],
}
"""Kattis order: sample, then secret, natural order within each."""
PYTHON3 = "pypy" if probe("pypy").installed else "python"
"""The runtime a Kattis Python 3 submission gets by default here."""


def _check(folder: Path, out: Path, *options: str) -> tuple[int, dict[str, dict]]:
    """``execrl problems check FOLDER --out OUT [options]`` in-process: (exit code, rows by
    reference name)."""
    code = main(["problems", "check", str(folder), "--jobs", "2", "--out", str(out), *options])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return code, {row["reference"]: row for row in rows}


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> tuple[Path, int, dict[str, dict]]:
    """Both packages checked once, as a user would: (their folder, exit code, rows)."""
    root = tmp_path_factory.mktemp("kattis_judged")
    shutil.copytree(FIXTURES, root, dirs_exist_ok=True)
    code, rows = _check(root, root / "check.jsonl")
    return root, code, rows


def _ran_in(language: str) -> str:
    return PYTHON3 if language == "python" else language


def _assert_verdicts(rows: dict[str, dict], expected: dict[str, tuple]) -> None:
    assert set(rows) >= set(expected)
    for name, (language, folder, verdict, first) in expected.items():
        row = rows[name]
        assert row["folder"] == folder and row["written_in"] == language, row
        assert row["language"] == _ran_in(language), row
        if row["skipped"]:  # only a toolchain missing here (Python 2 on some machines)
            assert language == "python2" and "language_unavailable" in row["skipped"], row
            continue
        assert row["verdict"] == verdict, row
        assert row["as_expected"] is True, row
        if first is not None:
            assert row["first_failed_test"] == first, row
        if verdict != "success":  # the first failing test decides; the rest did not run
            assert row["failed_tests"] == [row["first_failed_test"]], row
            assert row["tests"] == ORDER[row["problem_id"]].index(row["first_failed_test"]) + 1


def _hand_limit(rows: dict[str, dict], expected: dict, multiplier: float, margin: float):
    accepted = [
        rows[n] for n, e in expected.items() if e[1] == "accepted" and not rows[n]["skipped"]
    ]
    t = max(row["cpu_s"] for row in accepted)  # each one's slowest test
    exact = t * multiplier
    limit = max(1, int(0.5 + exact))
    return t, limit, max(limit + 1, int(0.5 + exact * margin))


def test_every_submission_gets_its_folders_verdict(checked):
    _, code, rows = checked
    _assert_verdicts(rows, RANGEHASH)
    _assert_verdicts(rows, TWOSUM)
    assert code == 0


def test_the_derived_limit_is_problemtools_rule_over_the_slowest_accepted_time(checked):
    root, _, rows = checked
    for name, expected, multiplier, margin in (
        ("rangehash", RANGEHASH, 5, 2),
        ("twosum", TWOSUM, 3, 3),
    ):
        t, limit, safety = _hand_limit(rows, expected, multiplier, margin)
        mine = [rows[n] for n in expected]
        assert {(r["time_limit_s"], r["safety_limit_s"]) for r in mine} == {(limit, safety)}
        assert {r["time_limit_from"] for r in mine} == {"derived"}
        stored = yaml.safe_load((root / name / DERIVED_LIMIT_FILE).read_text())
        assert stored["slowest_cpu_s"] == pytest.approx(t)
        assert (stored["time_limit_s"], stored["safety_limit_s"]) == (limit, safety)
        assert (stored["time_multiplier"], stored["time_safety_margin"]) == (multiplier, margin)
        slowest = rows[stored["slowest_reference"]]
        assert slowest["folder"] == "accepted"
        assert stored["slowest_file"] == slowest["source_file"]
        # the too-slow submissions used more CPU than the limit, well clear of it
        for row in mine:
            if row["folder"] == "time_limit_exceeded":
                assert row["cpu_s"] > limit, row


def test_the_stored_limit_is_the_packages_limit_afterwards(checked):
    root, _, rows = checked
    problem = read_kattis_package(root / "rangehash")
    assert problem.time_limit_s == rows["accepted-hash-cpp"]["time_limit_s"]
    assert problem.source.extra["time_limit_from"] == DERIVED_LIMIT_FILE
    assert problem.source.extra["derived_time_limit"]["origin"] == "derived"


def test_one_name_per_submission_and_the_file_it_came_from(checked):
    root, _, rows = checked
    for name, expected in (("rangehash", RANGEHASH), ("twosum", TWOSUM)):
        problem = read_kattis_package(root / name)
        files = {r.name: r.source_file for r in problem.references}
        assert set(files) == set(expected)
        for ref_name, source_file in files.items():
            assert (root / name / source_file).is_file()
            assert rows[ref_name]["source_file"] == source_file
    again = read_kattis_package(root / "rangehash")
    assert [r.name for r in again.references] == list(RANGEHASH)  # stable across loads


def test_tests_run_in_kattis_order():
    problem = read_kattis_package(FIXTURES / "rangehash")
    assert [t.id for t in problem.tests] == ORDER["rangehash"]


def test_python_on_cpython_on_request_and_the_limit_from_every_language(tmp_path):
    shutil.copytree(FIXTURES / "rangehash", tmp_path / "rangehash")
    code, rows = _check(
        tmp_path / "rangehash",
        tmp_path / "check.jsonl",
        "--kattis-python",
        "cpython",
        "--languages",
        "python",
    )
    assert set(rows) == {n for n, e in RANGEHASH.items() if e[0] == "python"}
    for name, row in rows.items():
        assert row["language"] == "python" and row["as_expected"] is True, row
        assert row["verdict"] == RANGEHASH[name][2], row
    stored = yaml.safe_load((tmp_path / "rangehash" / DERIVED_LIMIT_FILE).read_text())
    assert stored["slowest_reference"] in {n for n, e in RANGEHASH.items() if e[1] == "accepted"}
    assert {row["time_limit_s"] for row in rows.values()} == {stored["time_limit_s"]}
    assert code == 0


def test_full_runs_every_test(tmp_path):
    shutil.copytree(FIXTURES / "twosum", tmp_path / "twosum")
    code, rows = _check(tmp_path / "twosum", tmp_path / "check.jsonl", "--full")
    assert all(row["tests"] == 4 for row in rows.values()), rows
    assert rows["wrong_answer-halves"]["failed_tests"] == ["secret-1-even", "secret-3-big"]
    assert all(row["as_expected"] is True for row in rows.values()), rows
    assert code == 0


# -- the rules, without a sandbox -------------------------------------------------------------


@pytest.mark.parametrize(
    ("t", "multiplier", "margin", "limits"),
    [
        (0.0, 5, 2, (1, 2)),  # at least 1 s, and the safety limit at least one more
        (0.11, 5, 2, (1, 2)),
        (0.29, 5, 2, (1, 3)),  # 1.45 → 1; 2.9 → 3
        (0.3, 5, 2, (2, 3)),  # 1.5 rounds half up
        (1.0, 5, 2, (5, 10)),
        (0.5, 3, 3, (2, 5)),  # 1.5 → 2; 4.5 → 5
    ],
)
def test_derived_limits_follow_problemtools(t, multiplier, margin, limits):
    assert derived_limits(t, multiplier, margin) == limits


def _result(test_id: str, status: Status, cpu_s: float) -> TestResult:
    return TestResult(test_id=test_id, status=status, cpu_s=cpu_s, wall_s=cpu_s)


def test_the_first_failing_test_decides_and_cpu_over_the_limit_is_a_timeout():
    results = [
        _result("sample-1", Status.SUCCESS, 0.1),
        _result("secret-1", Status.SUCCESS, 1.5),  # over a 1 s limit: a time-out there
        _result("secret-2", Status.WRONG_ANSWER, 0.2),
    ]
    assert verdict_at(results, 1.0).verdict == "timeout"
    assert verdict_at(results, 1.0).test_id == "secret-1"
    assert verdict_at(results, 2.0).verdict == "wrong_answer"
    assert verdict_at(results, 2.0).test_id == "secret-2"
    assert verdict_at(results[:2], 2.0).verdict == "success"
    assert verdict_at(results[:2], 2.0).cpu_s == 1.5
    record = ExecutionRecord(problem_id="p", program_sha256="", results=results)
    assert [r.status.value for r in at_limit(record, 1.0).results] == [
        "success",
        "timeout",
        "wrong_answer",
    ]


@pytest.mark.parametrize(
    ("source", "python2"),
    [
        ("print 1\n", True),
        ("import sys\nprint >>sys.stderr, 'x'\n", True),
        ("try:\n    pass\nexcept ValueError, e:\n    pass\n", True),
        ("print(1)\n", False),
        ("print (1)\n", False),
        ("x = 'print 1'\nprint(x)\n", False),  # the text in a string: Python 3
        ("print 1 +\n", True),  # broken, but Python 2 syntax: Python 2 judges it
        ("def f(:\n    pass\n", False),  # a Python 3 syntax error stays Python 3
    ],
)
def test_python2_is_recognised_by_its_syntax(source, python2):
    assert looks_like_python2(source) is python2


def test_python2_absent_is_language_unavailable_never_a_python3_runtime_error(tmp_path):
    """Python 2 made unavailable ($EXECRL_PYTHON2 names no file, in a fresh process): both
    Python 2 submissions are skipped with the reason, and the check passes."""
    shutil.copytree(FIXTURES / "rangehash", tmp_path / "rangehash")
    out = tmp_path / "check.jsonl"
    env = {**os.environ, "EXECRL_PYTHON2": str(tmp_path / "no-python2")}
    argv = ["problems", "check", str(tmp_path / "rangehash"), "--languages", "python2"]
    done = subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", *argv, "--jobs", "2", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["reference"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert set(rows) == {"accepted-legacy", "wrong_answer-no_mod"}
    for row in rows.values():
        assert row["language"] == "python2" and row["as_expected"] is None, row
        assert row["skipped"].startswith("language_unavailable: python2: "), row
        assert row["verdict"] is None, row
    # the limit still comes from the accepted submissions that ran (C, C++, Python 3)
    stored = yaml.safe_load((tmp_path / "rangehash" / DERIVED_LIMIT_FILE).read_text())
    assert stored["slowest_reference"] in {
        "accepted-hash-c",
        "accepted-hash-cpp",
        "accepted-hash-py",
    }
