"""``execrl run`` and ``execrl score --programs`` with programs in other languages: the
language from the file's extension (or ``--language``), ``--tests FILE``, the flag profiles,
and the language in score rows and their resume key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from execrl.cli.main import main
from execrl.problems.io import save_problems
from execrl.problems.models import Problem, StdioTest

CPP = (
    "#include <bits/stdc++.h>\nint main() { long long a, b; std::cin >> a >> b; "
    'std::cout << a + b << "\\n"; }\n'
)
CPP_WRONG = '#include <cstdio>\nint main() { puts("0"); }\n'
CPP_BROKEN = "int main() { return undefined_name; }\n"
C_ONLY = (  # C, not C++: `new` is an identifier
    '#include <stdio.h>\nint main(void) { long long new, b; scanf("%lld %lld", &new, &b); '
    'printf("%lld\\n", new + b); return 0; }\n'
)
TESTS = [
    {"input": "1 2\n", "output": "3\n"},
    {"id": "big", "input": "1000000000000 1\n", "output": "1000000000001\n"},
]
PROBLEM = Problem(
    id="a-plus-b",
    time_limit_s=5,
    tests=[
        StdioTest(id=f"t{i}", input=t["input"], output=t["output"]) for i, t in enumerate(TESTS)
    ],
)


def execrl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "main.cpp": CPP,
        "wrong.cc": CPP_WRONG,
        "broken.cpp": CPP_BROKEN,
        "sum.c": C_ONLY,
        "tests.jsonl": "".join(json.dumps(t) + "\n" for t in TESTS),
    }
    for name, text in paths.items():
        (tmp_path / name).write_text(text)
    return {name: tmp_path / name for name in paths}


def test_run_a_cpp_program_on_a_tests_file(files):
    done = execrl("run", str(files["main.cpp"]), "--tests", str(files["tests.jsonl"]))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2/2 passed" in done.stdout and "main.cpp (cpp)" in done.stdout
    assert "build: ok" in done.stdout and "-O2" in done.stdout  # the judge profile


def test_run_exits_1_on_a_wrong_answer_and_a_compile_error(files, capsys):
    tests = str(files["tests.jsonl"])
    assert main(["run", str(files["wrong.cc"]), "--tests", tests]) == 1
    assert "wrong_answer" in capsys.readouterr().out
    assert main(["run", str(files["broken.cpp"]), "--tests", tests]) == 1
    out = capsys.readouterr().out
    assert "compile_error" in out and "undefined_name" in out and "0/2 passed" in out


def test_run_language_and_profile_flags(files, capsys):
    tests = str(files["tests.jsonl"])
    # C source: as C it builds and passes; forced to C++ (`new` is a keyword) it does not.
    assert main(["run", str(files["sum.c"]), "--tests", tests]) == 0
    assert "sum.c (c)" in capsys.readouterr().out
    assert main(["run", str(files["sum.c"]), "--tests", tests, "--language", "c++"]) == 1
    assert "compile_error" in capsys.readouterr().out
    argv = ["run", str(files["main.cpp"]), "--tests", tests, "--profile", "sandboxfusion"]
    assert main([*argv, "--compile-flag=-DLOCAL"]) == 0
    out = capsys.readouterr().out
    assert "-std=c++17 -DLOCAL" in out and "-O2" not in out


def test_run_on_a_problem_of_a_source(files, tmp_path: Path, capsys):
    source = str(save_problems([PROBLEM], tmp_path / "problems.jsonl"))
    assert main(["run", PROBLEM.id, str(files["main.cpp"]), "--source", source]) == 0
    assert "2/2 passed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "main.cpp"], "give PROBLEM and PROGRAM, or PROGRAM with --tests FILE"),
        (["run", "p", "main.cpp", "--tests", "t.jsonl"], "with --tests give only PROGRAM"),
        (["run", "main.cpp", "--tests", "t.jsonl", "--language", "cobol"], "unknown --language"),
    ],
)
def test_run_mistakes_are_one_line(bad_input, argv, message):
    assert message in bad_input(argv)


def test_run_a_malformed_tests_file_names_the_line(bad_input, files, tmp_path: Path):
    broken = tmp_path / "bad.jsonl"
    broken.write_text('{"input": "1 2\\n", "output": "3\\n"}\n\n{"input": "1 2\\n"}\n')
    line = bad_input(["run", str(files["main.cpp"]), "--tests", str(broken)])
    assert f"{broken}: line 3, output" in line


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_score_cpp_programs_language_from_the_extension(files, tmp_path: Path, capsys):
    source = str(save_problems([PROBLEM], tmp_path / "problems.jsonl"))
    out = tmp_path / "scores.jsonl"
    common = [source, "--id", PROBLEM.id, "--env", "rlvr", "--reward", "correctness"]
    programs = ["--programs", str(files["main.cpp"]), "--programs", str(files["broken.cpp"])]
    assert main(["score", *common, *programs, "--out", str(out)]) == 0
    scored = {r["program_name"]: r for r in rows(out)}
    assert {name: r["reward"] for name, r in scored.items()} == {
        "main.cpp": 1.0,
        "broken.cpp": -1.0,
    }
    assert {r["language"] for r in scored.values()} == {"cpp"}
    assert scored["broken.cpp"]["record"]["results"][0]["status"] == "compile_error"
    # The language is part of the resume key: the same file as C is another row; as C++ again
    # it is already scored.
    again = ["--programs", str(files["main.cpp"]), "--language", "c", "--resume"]
    assert main(["score", *common, *again, "--out", str(out)]) == 0
    assert [(r["program_name"], r["language"]) for r in rows(out)][2:] == [("main.cpp", "c")]
    assert rows(out)[2]["reward"] == -1.0  # C++ does not build as C
    same = ["--programs", str(files["main.cpp"]), "--language", "c++", "--resume"]
    capsys.readouterr()
    assert main(["score", *common, *same, "--out", str(out)]) == 0
    assert len(rows(out)) == 3
    assert "scored by an earlier run" in capsys.readouterr().out


def test_score_language_needs_programs(bad_input):
    assert "--language applies to programs given with --programs" in bad_input(
        ["score", "--language", "cpp"]
    )
