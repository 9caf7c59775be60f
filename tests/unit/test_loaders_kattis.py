"""Kattis/ICPC problem packages (tests/fixtures/kattis): reading, detection, the CLI's list."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from execrl.errors import ExecrlError, LoaderError, UsageError
from execrl.problems import kattis
from execrl.problems.io import guess_format, load_problem, load_problems
from execrl.problems.kattis import (
    SkippedSubmissionsWarning,
    is_kattis_package,
    load_kattis,
    read_kattis_package,
)

KATTIS = Path(__file__).parents[1] / "fixtures" / "kattis"


def average():
    return read_kattis_package(KATTIS / "average")


def test_legacy_package_fields():
    problem = average()
    assert problem.id == "average" and problem.title == "Average"
    assert problem.statement.startswith("\\problemname{Average}")
    assert problem.time_limit_s == 2.0  # .timelimit
    assert problem.memory_limit_mb == 256  # limits.memory
    assert problem.source.dataset == "kattis"
    assert problem.source.extra["time_multiplier"] == 5
    assert [t.id for t in problem.tests] == [
        "sample-1",
        "sample-2",
        "secret-group1-01",
        "secret-group1-02-zero",
        "secret-group2-10",
    ]
    assert {t.group.value for t in problem.tests} == {"original"}
    assert problem.tests[0].output == "0.5000000000\nPositive\n"


def test_validator_flags_become_the_checker():
    checker = average().checker
    assert (checker.kind, checker.abs_tol, checker.rel_tol) == ("float", 1e-6, 1e-6)
    assert not checker.case_sensitive and not checker.space_change_sensitive


def test_submissions_by_verdict_folder_become_labelled_references():
    refs = {r.name: r for r in average().references}
    assert set(refs) == {
        "accepted-average-cpp",  # average.cpp and average.py share a stem: both keep the suffix
        "accepted-average-py",
        "accepted-average_exit",
        "wrong_answer-integer_division",
        "time_limit_exceeded-spin",
        "run_time_error-no_zero",
    }
    assert refs["accepted-average-py"].label.value == "correct"
    assert refs["accepted-average-py"].expected_verdict is None
    assert {n: r.language for n, r in refs.items() if r.language != "python"} == {
        "accepted-average-cpp": "cpp"
    }
    assert refs["wrong_answer-integer_division"].expected_verdict == "wrong_answer"
    assert refs["time_limit_exceeded-spin"].expected_verdict == "timeout"
    assert refs["run_time_error-no_zero"].expected_verdict == "runtime_error"
    assert {r.label.value for n, r in refs.items() if not n.startswith("accepted")} == {"incorrect"}


def test_2023_07_package_limits_statement_and_output_validator_flags():
    problem = read_kattis_package(KATTIS / "hello2023")
    assert problem.time_limit_s == 1.5  # limits.time_limit
    assert problem.statement.startswith("Print `Hello, World!`")  # statement/problem.en.md
    assert problem.checker.kind == "tokens"
    assert problem.checker.case_sensitive and problem.checker.space_change_sensitive


def test_custom_python_validator_is_the_checker():
    problem = read_kattis_package(KATTIS / "pairsum")
    assert problem.checker.kind == "custom"
    assert "sys.exit(42)" in problem.checker.validator
    assert problem.checker.validator_args == ["strict"]


@pytest.mark.skipif(shutil.which("g++") is None, reason="C++ validators need g++")
def test_cpp_validator_with_its_local_header_inlined():
    problem = read_kattis_package(KATTIS.parent / "kattis_cpp" / "pairsum_cpp")
    checker = problem.checker
    assert (checker.kind, checker.validator_language) == ("custom", "cpp")
    assert "const int EXIT_AC = 42;" in checker.validator  # from validate.h
    assert '#include "validate.h"' not in checker.validator
    assert "#include <fstream>" in checker.validator  # system headers stay
    assert checker.validator_args == ["strict"]


def test_cpp_validator_without_gpp_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(kattis.shutil, "which", lambda name: None)
    with pytest.raises(LoaderError, match="needs g\\+\\+ on this machine"):
        read_kattis_package(KATTIS.parent / "kattis_cpp" / "pairsum_cpp")


def test_validator_in_another_language_is_a_clear_error(tmp_path: Path):
    package = shutil.copytree(KATTIS / "pairsum", tmp_path / "pairsum")
    validator = package / "output_validators" / "pair_validator"
    (validator / "validate.py").unlink()
    (validator / "Validate.java").write_text("class Validate {}\n")
    with pytest.raises(LoaderError, match="only Python and C\\+\\+ output validators"):
        read_kattis_package(package)


def test_missing_answer_file_names_it(tmp_path: Path):
    package = shutil.copytree(KATTIS / "hello2023", tmp_path / "hello2023")
    (package / "data" / "secret" / "1.ans").unlink()
    with pytest.raises(LoaderError, match=r"secret/1\.in: has no 1\.ans"):
        read_kattis_package(package)


def test_packages_are_recognised_without_format():
    assert is_kattis_package(KATTIS / "average")
    assert not is_kattis_package(KATTIS)
    assert guess_format(KATTIS / "average") == "kattis"
    assert guess_format(KATTIS) == "kattis"
    problems = load_problems(KATTIS)
    assert [p.id for p in problems] == ["average", "hello2023", "pairsum"]
    assert load_problem(KATTIS, "pairsum").checker.kind == "custom"
    assert [p.id for p in load_kattis(KATTIS / "pairsum")] == ["pairsum"]


def test_native_reader_points_at_the_kattis_format():
    from execrl.problems.folder import read_problem_folder

    with pytest.raises(ExecrlError, match="looks like a Kattis/ICPC problem package"):
        read_problem_folder(KATTIS / "hello2023")


@pytest.mark.parametrize("target", ["average", ""])
def test_cli_lists_a_package_and_a_folder_of_packages(target):
    done = subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", "problems", "list", str(KATTIS / target)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "average" in done.stdout
    assert "3/3" in done.stdout  # 3 accepted (one in C++), 3 other verdicts
    assert "problems" in done.stdout.splitlines()[-1]


def test_packages_convert_to_the_folder_format_and_back(tmp_path: Path):
    from execrl.problems.io import save_problems

    problems = load_problems(KATTIS)
    save_problems(problems, tmp_path / "converted")
    assert (
        tmp_path / "converted" / "average" / "references" / "accepted-average-cpp.cpp"
    ).is_file()
    assert load_problems(tmp_path / "converted") == problems  # validators, verdicts and all


def test_languages_keeps_only_those_submissions():
    (python_only,) = load_kattis(KATTIS / "average", languages=["python3"])
    assert {r.language for r in python_only.references} == {"python"}
    assert "accepted-average-py" in {r.name for r in python_only.references}  # names stay
    (cpp_only,) = load_kattis(KATTIS / "average", languages="c++")
    assert [r.name for r in cpp_only.references] == ["accepted-average-cpp"]
    listed = load_problems(KATTIS / "average", languages="cpp")
    assert listed == [cpp_only]


def test_unknown_language_in_the_filter_is_a_usage_error():
    with pytest.raises(UsageError, match=r"unknown `languages` 'cobol'; known: python, "):
        load_kattis(KATTIS / "average", languages=["cpp", "cobol"])


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    package = shutil.copytree(KATTIS / "hello2023", tmp_path / "hello2023")
    shutil.rmtree(package / "submissions")
    for name, text in files.items():
        (package / "submissions" / name).parent.mkdir(parents=True, exist_ok=True)
        (package / "submissions" / name).write_text(text)
    return package


def test_every_extension_the_table_knows_is_a_language(tmp_path: Path):
    extensions = {
        ".c": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".c++": "cpp", ".C": "cpp",
        ".java": "java", ".py": "python", ".py3": "python", ".py2": "python2", ".rs": "rust",
        ".go": "go", ".js": "javascript",
    }  # fmt: skip
    files = {f"accepted/s{i}{ext}": "x\n" for i, ext in enumerate(extensions)}
    problem = read_kattis_package(_package(tmp_path, files))
    found = {r.name: r.language for r in problem.references}
    assert found == {f"accepted-s{i}": lang for i, lang in enumerate(extensions.values())}


def test_a_python2_shebang_is_python2(tmp_path: Path):
    package = _package(
        tmp_path,
        {
            "accepted/old.py": "#!/usr/bin/env python2\nprint 'Hello, World!'\n",
            "accepted/new.py": "#!/usr/bin/env python3\nprint('Hello, World!')\n",
        },
    )
    refs = {r.name: r.language for r in read_kattis_package(package).references}
    assert refs == {"accepted-old": "python2", "accepted-new": "python"}


def test_shared_stems_keep_their_extensions(tmp_path: Path):
    package = _package(
        tmp_path,
        {
            "accepted/sol.c": "",
            "accepted/sol.cpp": "",
            "accepted/sol.c++": "",
            "wrong_answer/sol.c": "",
        },
    )
    names = [r.name for r in read_kattis_package(package).references]
    assert names == ["accepted-sol-c", "accepted-sol-cpp", "accepted-sol-cpp2", "wrong_answer-sol"]


def test_folders_and_unknown_languages_are_skipped_with_one_warning(tmp_path: Path):
    package = _package(
        tmp_path,
        {
            "accepted/multi/main.cpp": "",
            "accepted/multi/util.h": "",
            "accepted/sol.kt": "",
            "accepted/Sol.java": "public class Sol {}\n",
        },
    )
    with pytest.warns(SkippedSubmissionsWarning) as caught:
        problem = read_kattis_package(package)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "skipped 2 submission(s)" in message
    assert "multi/ (a submission of several files)" in message and "sol.kt" in message
    assert [(r.name, r.language) for r in problem.references] == [("accepted-Sol", "java")]


def test_files_of_unknown_languages_are_not_read_and_dotfiles_are_ignored(tmp_path: Path):
    package = _package(tmp_path, {"accepted/sol.cpp": "int main() {}\n", "accepted/.gitkeep": ""})
    (package / "submissions" / "accepted" / "sol.jar").write_bytes(b"PK\x03\x04\xff\xfe")
    with pytest.warns(SkippedSubmissionsWarning, match=r"skipped 1 submission.*sol\.jar"):
        problem = read_kattis_package(package)
    assert [r.name for r in problem.references] == ["accepted-sol"]
