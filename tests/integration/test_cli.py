"""The execrl command as a user runs it: a real subprocess, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[1] / "fixtures"


def execrl(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["problems"],
        ["problems", "list"],
        ["problems", "show"],
        ["problems", "validate"],
        ["problems", "convert"],
        ["problems", "build"],
        ["problems", "check"],
        ["score"],
        ["run"],
        ["doctor"],
    ],
)
def test_help_everywhere(args):
    done = execrl(*args, "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: execrl")


def test_list_and_show_a_dataset():
    listed = execrl("problems", "list", str(FIXTURES / "taco.jsonl"), "--format", "taco")
    assert listed.returncode == 0
    assert "taco-0" in listed.stdout and "2 problems" in listed.stdout
    shown = execrl("problems", "show", str(FIXTURES / "taco.jsonl"), "taco-0", "--format", "taco")
    assert shown.returncode == 0
    assert "Read two integers" in shown.stdout and "time limit 1.0 s" in shown.stdout


def test_convert_and_validate_round_trip(tmp_path: Path):
    out = tmp_path / "cc.jsonl.gz"
    done = execrl(
        "problems",
        "convert",
        str(FIXTURES / "codecontests.jsonl"),
        str(out),
        "--format",
        "codecontests",
    )
    assert done.returncode == 0, done.stderr
    folders = tmp_path / "folders"
    assert execrl("problems", "convert", str(out), str(folders)).returncode == 0
    assert (folders / "1548_a-sum-of-numbers" / "problem.yaml").is_file()
    validated = execrl("problems", "validate", str(folders))
    assert validated.returncode == 0
    assert "2 problems, 5 tests, 6 references" in validated.stdout  # in every language


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["problems", "list", "/no/such/place"],
            "LoaderError: /no/such/place: no such file or folder",
        ),
        (
            ["problems", "show", "bundled", "no-such-problem"],
            "no problem with id 'no-such-problem'",
        ),
        (["problems", "list", str(FIXTURES / "make_fixtures.py")], "pass --format"),
    ],
)
def test_user_mistakes_are_one_line_and_exit_2(args, message):
    done = execrl(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2


def test_malformed_problem_names_file_and_field(tmp_path: Path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "problem.yaml").write_text("id: bad\nmemory_limit_mb: lots\n")
    done = execrl("problems", "validate", str(folder))
    assert done.returncode == 2
    assert "bad/problem.yaml: memory_limit_mb:" in done.stderr


def test_score_job_writes_records_and_exits_by_verdict(built_sum_problem_dir: Path, tmp_path: Path):
    out = tmp_path / "records.jsonl"
    done = execrl("score", str(built_sum_problem_dir.parent), "--out", str(out), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert "1/1 problems as expected" in done.stdout
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["reference"], r["label"], r["as_expected"]) for r in rows] == [
        ("loop", "correct", True),
        ("builtin", "correct", True),
        ("drops-last", "incorrect", True),
    ]
    assert len(rows[0]["record"]["results"]) == 11


def test_check_fails_when_a_correct_reference_fails(built_sum_problem_dir: Path, tmp_path: Path):
    import shutil

    folder = tmp_path / "sum-list"
    shutil.copytree(built_sum_problem_dir, folder)
    (folder / "references" / "builtin.py").write_text("print(0)\n")
    done = execrl("problems", "check", str(folder), "--jobs", "2")
    assert done.returncode == 1
    assert "FAILED" in done.stdout


def test_doctor_reports_every_protection():
    done = execrl("doctor")
    assert done.returncode == 0, done.stdout
    for name in (
        "network-namespace",
        "pid-namespace",
        "readonly-root",
        "seccomp",
        "unprivileged-uid",
    ):
        assert name in done.stdout
    assert "smoke test: success" in done.stdout


def test_run_prints_verdicts_and_exits_by_result(built_sum_problem_dir: Path, tmp_path: Path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("input()\nprint(sum(map(int, input().split())))\n")
    bad.write_text("print(0)\n")
    source = str(built_sum_problem_dir.parent)
    ok = execrl("run", "sum-list", str(good), "--source", source, "--group", "optimization")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "3/3 passed" in ok.stdout and "seccomp" in ok.stdout
    failed = execrl("run", "sum-list", str(bad), "--source", source)
    assert failed.returncode == 1
    assert "wrong_answer" in failed.stdout
    missing = execrl("run", "sum-list", str(tmp_path / "nope.py"), "--source", source)
    assert missing.returncode == 2 and "no such program file" in missing.stderr


def test_a_library_warning_is_one_line_on_stderr():
    """A skipped Kattis submission (one of several files) is reported in one line, not
    Python's two-line warning format with the warning call's source line."""
    kattis = Path(__file__).parents[1] / "fixtures" / "kattis_polyglot"
    done = execrl("problems", "list", str(kattis))
    assert done.returncode == 0
    warning_lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(warning_lines) == 1
    assert warning_lines[0].startswith("SkippedSubmissionsWarning: ")
    assert "skipped 1 submission" in warning_lines[0]
