"""References in every language are run in their own language (issue 31, item 6): ``execrl
problems check`` judges a C++, a Java and a C reference as C++, Java and C and gives each its
label's verdict (a language whose toolchain is missing is skipped with the reason, never a
failure), and the §9 test builder takes expected outputs from C++ references alone.

C and C++ are required (issue 31): their tests never skip. Java and Go are checked where they
are installed and must be reported skipped where they are not. Builds go to the shared build
cache, so a rerun compiles nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execrl.datagen.build import build_tests, consensus_output
from execrl.datagen.checking import check_table, problem_ok
from execrl.errors import ConsensusError
from execrl.problems.folder import read_problem_folder, write_problem_folder
from execrl.problems.io import save_problems
from execrl.problems.models import Generator, Problem, Reference, StdioTest
from execrl.sandbox import LocalExecutor
from execrl.sandbox.languages import probe

REQUIRED = ("c", "cpp")
"""Languages whose toolchain every test machine has (issue 31)."""

CPP_SUM = """#include <bits/stdc++.h>
int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << "\\n"; }
"""
CPP_SUM_SCANF = """#include <cstdio>
int main() { long long a, b; if (scanf("%lld %lld", &a, &b) != 2) return 1;
  printf("%lld\\n", b + a); return 0; }
"""
JAVA_OFF_BY_ONE = """import java.util.Scanner;
public class Main { public static void main(String[] args) { Scanner in = new Scanner(System.in);
  long a = in.nextLong(), b = in.nextLong(); System.out.println(a + b + 1); } }
"""
C_SPIN = """#include <stdio.h>
int main(void) { long a, b; scanf("%ld %ld", &a, &b); volatile long n = 0; for (;;) n++; }
"""
C_ABORT = """#include <stdio.h>
#include <stdlib.h>
int main(void) { long a, b; scanf("%ld %ld", &a, &b); abort(); }
"""
CPP_SYNTAX_ERROR = "int main( {\n"
GO_SUM = """package main
import "fmt"
func main() { var a, b int64; fmt.Scan(&a, &b); fmt.Println(a + b) }
"""
PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"


def ref(name: str, language: str, code: str, verdict: str | None = None) -> Reference:
    """A correct reference, or with ``verdict`` an incorrect one that must get it somewhere
    (a Kattis submission folder's promise)."""
    label = "correct" if verdict is None else "incorrect"
    return Reference(name=name, language=language, code=code, label=label, expected_verdict=verdict)


def add_problem(references: list[Reference]) -> Problem:
    return Problem(
        id="add",
        title="A + B",
        statement="Print the sum of two integers.",
        time_limit_s=1.0,
        memory_limit_mb=256,
        tests=[
            StdioTest(id="small", input="1 2\n", output="3\n"),
            StdioTest(id="negative", input="-5 7\n", output="2\n"),
        ],
        references=references,
    )


def check(problem: Problem, tmp_path: Path) -> tuple[int, dict[str, dict]]:
    """``execrl problems check`` in-process on a JSONL file holding ``problem``: its exit
    code and its rows by reference."""
    from execrl.cli.main import main

    source = save_problems([problem], tmp_path / "problems.jsonl")
    out = tmp_path / "check.jsonl"
    code = main(["problems", "check", str(source), "--jobs", "2", "--out", str(out)])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return code, {row["reference"]: row for row in rows}


def test_problems_check_runs_each_reference_in_its_own_language(tmp_path, capsys):
    problem = add_problem([
        ref("cpp-sum", "cpp", CPP_SUM),
        ref("py-sum", "python", PY_SUM),
        ref("go-sum", "go", GO_SUM),
        ref("java-off-by-one", "java", JAVA_OFF_BY_ONE, "wrong_answer"),
        ref("c-spin", "c", C_SPIN, "timeout"),
        ref("c-abort", "c", C_ABORT, "runtime_error"),
        ref("cpp-syntax", "cpp", CPP_SYNTAX_ERROR, "compile_error"),
    ])  # fmt: skip
    code, rows = check(problem, tmp_path)
    printed = capsys.readouterr().out
    assert code == 0, rows
    assert {name: row["language"] for name, row in rows.items()} == {
        r.name: r.language for r in problem.references
    }
    expected_verdicts = {
        "cpp-sum": {"success": 2},
        "py-sum": {"success": 2},
        "go-sum": {"success": 2},
        "java-off-by-one": {"wrong_answer": 2},
        "c-spin": {"timeout": 2},
        "c-abort": {"runtime_error": 2},
        "cpp-syntax": {"compile_error": 2},
    }
    for name, row in rows.items():
        toolchain = probe(row["language"])
        if not toolchain.installed:
            assert row["language"] not in REQUIRED, f"{row['language']}: {toolchain.why_not}"
            assert row["as_expected"] is None and toolchain.why_not in row["skipped"], row
            assert f"{name} ({row['language']}): language_unavailable" in printed.replace("\n", "")
            continue
        assert row["skipped"] is None and row["as_expected"] is True, row
        assert row["verdicts"] == expected_verdicts[name], row
    assert rows["cpp-syntax"]["build"].startswith("compile_error: ")
    assert rows["cpp-syntax"]["issue"] is None  # it was meant not to build
    assert rows["c-abort"]["expects"] == "≥1 runtime_error or memory_limit"
    assert problem_ok(list(rows.values()))


def test_a_correct_reference_that_does_not_build_fails_the_check_and_says_why(tmp_path, capsys):
    problem = add_problem(
        [ref("cpp-sum", "cpp", CPP_SUM), ref("cpp-typo", "cpp", CPP_SYNTAX_ERROR)]
    )
    code, rows = check(problem, tmp_path)
    printed = capsys.readouterr().out
    assert code == 1
    assert rows["cpp-sum"]["as_expected"] is True
    broken = rows["cpp-typo"]
    assert broken["as_expected"] is False and broken["verdicts"] == {"compile_error": 2}
    assert broken["build"].startswith("compile_error: ") and "expected" in broken["build"]
    assert broken["issue"].startswith("cpp-typo (cpp) did not build: compile_error: ")
    assert "FAILED" in printed and "cpp-typo (cpp) did not build" in printed.replace("\n", "")


def test_a_language_not_installed_is_skipped_with_the_reason_not_failed(tmp_path):
    """Python 2 made unavailable ($EXECRL_PYTHON2 names no file), in a fresh process (the
    table reads it at import): its reference is skipped and the check still passes."""
    problem = add_problem([
        ref("cpp-sum", "cpp", CPP_SUM),
        ref("py2-sum", "python2", "a, b = map(int, raw_input().split())\nprint a + b\n"),
    ])  # fmt: skip
    source = save_problems([problem], tmp_path / "problems.jsonl")
    out = tmp_path / "check.jsonl"
    env = {**os.environ, "EXECRL_PYTHON2": str(tmp_path / "no-python2")}
    argv = ["problems", "check", str(source), "--jobs", "2", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["reference"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert rows["cpp-sum"]["as_expected"] is True and rows["cpp-sum"]["skipped"] is None
    skipped = rows["py2-sum"]
    assert skipped["as_expected"] is None and skipped["failed_tests"] == []
    assert skipped["skipped"].startswith("language_unavailable: python2: ")
    assert "no-python2" in skipped["skipped"]
    assert "skipped: py2-sum (python2): language_unavailable" in done.stdout
    assert "FAILED" not in done.stdout


def test_a_skipped_row_reads_skipped_in_the_table():
    skipped = {
        "reference": "go-sum", "language": "go", "label": "correct", "note": "",
        "expects": "all success", "as_expected": None, "skipped": "language_unavailable: go",
        "verdicts": {"inconclusive": 2}, "passed": 0, "tests": 2, "opt_mean_s": None,
        "opt_max_s": None, "failed_tests": [],
    }  # fmt: skip
    _, (cells,) = check_table([skipped])
    assert cells[:2] == ["go-sum", "go"] and cells[5:7] == ["skipped", "—"]
    assert problem_ok([skipped])


# -- the §9 test builder ---------------------------------------------------------------------
GENERATOR = """import random, sys
mode, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
top = 10**12 if mode == "large" else 100
print(rng.randint(-top, top), rng.randint(-top, top))
"""


def cpp_only_problem() -> Problem:
    """A problem whose correct references are all C++ (no Python one), with a generator."""
    return add_problem([
        ref("cpp-sum", "cpp", CPP_SUM),
        ref("cpp-scanf", "cpp", CPP_SUM_SCANF),
    ]).model_copy(
        update={"generator": Generator(code=GENERATOR, plan={"extra": {"small": 2, "large": 1}})}
    )  # fmt: skip


def test_the_test_builder_takes_expected_outputs_from_cpp_references_alone(tmp_path):
    folder = write_problem_folder(cpp_only_problem(), tmp_path / "add")
    with LocalExecutor(workers=2) as executor:
        built = build_tests(folder, executor=executor, show_progress=False)
    assert [t.id for t in built] == ["large-1", "small-1", "small-2"]
    for test in built:  # (no Python reference: these outputs are the C++ programs')
        a, b = map(int, test.input.split())
        assert test.output == f"{a + b}\n"
    again = read_problem_folder(folder)
    assert {t.id: t.output for t in again.tests} == {
        "small": "3\n",
        "negative": "2\n",
        **{t.id: t.output for t in built},
    }
    assert {r.language for r in again.references} == {"cpp"}


def test_consensus_names_a_cpp_reference_that_disagrees():
    problem = cpp_only_problem()
    wrong = ref("cpp-wrong", "cpp", CPP_SUM.replace("a + b", "a - b"))
    lying = problem.model_copy(update={"references": [*problem.references, wrong]})
    with LocalExecutor(workers=1) as executor:
        assert consensus_output(problem, "t", "4 5\n", executor=executor) == "9\n"
        with pytest.raises(ConsensusError, match=r"references \['cpp-wrong'\] disagree"):
            consensus_output(lying, "t", "4 5\n", executor=executor)


# -- timing -----------------------------------------------------------------------------------
def test_reference_durations_and_eval_campaigns_time_a_cpp_reference_as_cpp():
    from execrl.evaluate.campaign import campaign_requests
    from execrl.timing.references import measure_reference_durations

    problem = add_problem([ref("cpp-sum", "cpp", CPP_SUM), ref("py-sum", "python", PY_SUM)])
    timed_tests = [t.model_copy(update={"group": "optimization"}) for t in problem.tests]
    problem = problem.model_copy(update={"tests": timed_tests})
    with LocalExecutor(workers=2) as executor:
        (timed,), records = measure_reference_durations([problem], executor, progress=False)
    assert [(r.program_name, r.language, r.all_passed) for r in records] == [
        ("cpp-sum", "cpp", True),
        ("py-sum", "python", True),
    ]
    assert [sorted(r.durations_s or {}) for r in timed.references] == [["negative", "small"]] * 2
    planned = campaign_requests([problem], [])
    assert [(entry.reference, request.language) for entry, request in planned] == [
        ("cpp-sum", "cpp"),
        ("py-sum", "python"),
    ]
