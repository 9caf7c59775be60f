"""References in every language through the loaders and the native formats (issue 31, item
6): CodeContests' enum, TACO, JSONL, the folder format, the ``languages`` filter and the
CLI's ``--languages``. Kattis submissions are in test_loaders_kattis.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execrl.errors import ProblemFormatError, UsageError
from execrl.problems import Problem, Reference
from execrl.problems.codecontests import load_codecontests
from execrl.problems.folder import read_problem_folder, write_problem_folder
from execrl.problems.io import keep_languages, load_problem, load_problems, save_problems
from execrl.problems.jsonl import read_problems_jsonl
from execrl.problems.taco import load_taco

STDIO = [{"kind": "stdio", "id": "t1", "input": "1\n", "output": "1\n"}]


def _codecontests_row(languages: list[int], incorrect: list[int]) -> dict:
    return {
        "name": "1_A. Echo",
        "description": "Print the input.",
        "public_tests": {"input": ["1\n"], "output": ["1\n"]},
        "solutions": {"language": languages, "solution": [f"s{i}" for i in languages]},
        "incorrect_solutions": {"language": incorrect, "solution": [f"w{i}" for i in incorrect]},
    }


def _jsonl(path: Path, *rows: dict) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_codecontests_enum_names_every_language(tmp_path: Path):
    rows = _jsonl(tmp_path / "cc.jsonl", _codecontests_row([1, 2, 3, 4, 0], [2]))
    (problem,) = load_codecontests(rows)
    assert [(r.name, r.language, r.code) for r in problem.references] == [
        ("correct-0", "python2", "s1"),  # PYTHON is Python 2: never run as Python 3
        ("correct-1", "cpp", "s2"),
        ("correct-2", "python", "s3"),
        ("correct-3", "java", "s4"),
        ("incorrect-0", "cpp", "w2"),
    ]  # enum 0 (UNKNOWN_LANGUAGE) cannot be run: dropped


def test_codecontests_filter_takes_aliases_and_keeps_names(tmp_path: Path):
    rows = _jsonl(tmp_path / "cc.jsonl", _codecontests_row([1, 2, 3, 4], [4, 2]))
    (problem,) = load_codecontests(rows, languages=["JAVA", "g++"])
    assert [r.name for r in problem.references] == [
        "correct-1",
        "correct-3",
        "incorrect-0",
        "incorrect-1",
    ]
    with pytest.raises(UsageError, match="`languages` names no language"):
        load_codecontests(rows, languages=[])


def test_taco_solutions_are_python_and_filtered_like_any_loader():
    path = Path(__file__).parents[1] / "fixtures" / "taco.jsonl"
    everything = load_taco(path)
    assert {r.language for p in everything for r in p.references} == {"python"}
    assert all(p.references == [] for p in load_taco(path, languages="cpp,java"))
    assert load_taco(path, languages=["python3"]) == everything


def test_jsonl_language_field_reads_old_and_alias_names(tmp_path: Path):
    refs = [
        {"name": "old", "code": "print(1)", "label": "correct", "language": "python3"},
        {"name": "cxx", "code": "int main(){}", "label": "correct", "language": "C++"},
        {"name": "plain", "code": "print(1)", "label": "correct"},
    ]
    path = _jsonl(tmp_path / "p.jsonl", {"id": "p", "tests": STDIO, "references": refs})
    (problem,) = read_problems_jsonl(path)
    assert [r.language for r in problem.references] == ["python", "cpp", "python"]


def test_jsonl_unknown_language_names_the_line_and_field(tmp_path: Path):
    refs = [{"name": "r", "code": "x", "label": "correct", "language": "kotlin"}]
    path = _jsonl(tmp_path / "p.jsonl", {"id": "p", "tests": STDIO, "references": refs})
    with pytest.raises(ProblemFormatError, match=r"p\.jsonl:1: references\[r\]\.language"):
        read_problems_jsonl(path)


def _polyglot_problem() -> Problem:
    refs = [
        Reference(name="fast", code="print(1)\n", label="correct"),
        Reference(name="native", code="int main() {}\n", label="correct", language="cpp"),
        Reference(name="Solution", code="class Solution {}\n", label="correct", language="java"),
        Reference(name="legacy", code="print 1\n", label="correct", language="python2"),
        Reference(name="pypy", code="print(1)\n", label="correct", language="pypy"),
        Reference(name="slow", code="int main() {}\n", label="incorrect", language="c"),
    ]  # fmt: skip
    return Problem(id="p", tests=STDIO, references=refs)


def test_folder_format_writes_each_reference_with_its_languages_extension(tmp_path: Path):
    problem = _polyglot_problem()
    folder = write_problem_folder(problem, tmp_path / "p")
    files = sorted(p.name for p in (folder / "references").iterdir())
    assert files == [
        "Solution.java",
        "fast.py",
        "legacy.py",
        "native.cpp",
        "pypy.py",
        "slow.c",
    ]
    assert read_problem_folder(folder) == problem


def test_folder_format_reads_the_language_from_the_extension(tmp_path: Path):
    folder = tmp_path / "p"
    (folder / "references").mkdir(parents=True)
    (folder / "tests" / "original").mkdir(parents=True)
    (folder / "tests" / "original" / "t1.in").write_text("1\n")
    (folder / "tests" / "original" / "t1.out").write_text("1\n")
    (folder / "references" / "sol.cc").write_text("int main() {}\n")
    (folder / "references" / "Main.java").write_text("class Main {}\n")
    (folder / "problem.yaml").write_text(
        "id: p\nreferences:\n- {name: sol, label: correct}\n- {name: Main, label: incorrect}\n"
    )
    problem = read_problem_folder(folder)
    assert [(r.name, r.language) for r in problem.references] == [("sol", "cpp"), ("Main", "java")]


def test_folder_format_with_two_sources_of_one_name_asks_for_the_language(tmp_path: Path):
    folder = write_problem_folder(Problem(id="p", tests=STDIO), tmp_path / "p")
    (folder / "references" / "sol.py").write_text("print(1)\n")
    (folder / "references" / "sol.cpp").write_text("int main() {}\n")
    meta = folder / "problem.yaml"
    meta.write_text(meta.read_text() + "references:\n- {name: sol, label: correct}\n")
    with pytest.raises(ProblemFormatError, match=r"'sol' has 2 files \(sol\.cpp, sol\.py\)"):
        read_problem_folder(folder)
    meta.write_text(meta.read_text().replace("label: correct", "label: correct, language: cpp"))
    assert read_problem_folder(folder).references[0].code == "int main() {}\n"


def test_rewriting_a_reference_in_another_language_leaves_no_old_file(tmp_path: Path):
    problem = Problem(
        id="p", tests=STDIO, references=[Reference(name="r", code="x", label="correct")]
    )
    folder = write_problem_folder(problem, tmp_path / "p")
    moved = Reference(name="r", code="int main() {}\n", label="correct", language="cpp")
    write_problem_folder(problem.model_copy(update={"references": [moved]}), folder)
    assert sorted(p.name for p in (folder / "references").iterdir()) == ["r.cpp"]


def test_load_problems_filters_the_native_formats(tmp_path: Path):
    save_problems([_polyglot_problem()], tmp_path / "set.jsonl")
    save_problems([_polyglot_problem()], tmp_path / "folders")
    for source in (tmp_path / "set.jsonl", tmp_path / "folders"):
        (problem,) = load_problems(source, languages="c,c++")
        assert [r.name for r in problem.references] == ["native", "slow"]
    problem = load_problem(tmp_path / "folders", "p", languages=["python3", "pypy"])
    assert [r.name for r in problem.references] == ["fast", "pypy"]
    assert keep_languages([_polyglot_problem()], ["java"])[0].references[0].name == "Solution"


def test_cli_languages_option_filters_and_refuses_an_unknown_name(tmp_path: Path, capsys):
    from execrl.cli.main import main

    save_problems([_polyglot_problem()], tmp_path / "set.jsonl")
    assert main(["problems", "validate", str(tmp_path / "set.jsonl"), "--languages", "java"]) == 0
    assert "1 problems, 1 tests, 1 references" in capsys.readouterr().out
    code = main(["problems", "list", str(tmp_path / "set.jsonl"), "--languages", "cobol"])
    err = capsys.readouterr().err
    assert code == 2
    assert "unknown --languages 'cobol'; known: python, python2" in err  # the CLI's flag
    assert "Traceback" not in err


def test_show_names_each_references_language():
    from execrl.problems.tables import reference_lines

    lines = reference_lines(_polyglot_problem())
    assert lines[1].split() == ["correct", "native", "cpp"]
    assert lines[-1].split() == ["incorrect", "slow", "c"]
