from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from execrl.errors import LoaderError, ProblemFormatError
from execrl.problems import (
    AssertTest,
    CallTest,
    Generator,
    Problem,
    Reference,
    StdioTest,
    read_problem_folder,
    write_problem_folder,
)
from execrl.problems.folder import GZIP_ABOVE_BYTES, natural_key
from execrl.problems.io import load_problems, save_problems
from execrl.problems.jsonl import read_problems_jsonl, write_problems_jsonl


def rich_problem() -> Problem:
    big_input = "1 " * (GZIP_ABOVE_BYTES // 2 + 10)
    return Problem(
        id="round-trip",
        title="Round trip",
        statement="# Round trip\n\nCRLF kept:\r\n",
        difficulty="medium",
        time_limit_s=3.5,
        memory_limit_mb=128,
        checker={"kind": "float", "abs_tol": 1e-4, "rel_tol": 0.0},
        tests=[
            StdioTest(id="example-1", group="original", input="1 2\r\n", output="3\n"),
            StdioTest(id="small-10", group="extra", input="5\n", output="5\n"),
            StdioTest(id="small-2", group="extra", input="", output=""),
            StdioTest(id="large-1", group="optimization", input=big_input, output="x\n"),
            CallTest(
                id="call-1",
                group="original",
                fn_name="f",
                args=[[1, 2], {"k": None}],
                expected=[3],
                also_accept=[[[3]]],
            ),
            AssertTest(
                id="check",
                group="original",
                code="def check(c):\n    assert c(1) == 2\n",
                entry_point="f",
            ),
        ],
        references=[
            Reference(
                name="fast",
                code="print(1)\n",
                label="correct",
                tier="O(n)",
                durations_s={"large-1": 0.031},
            ),
            Reference(name="wrong", code="print(2)\n", label="incorrect", flaw="always 2"),
        ],
        entry_point="f",
        starter_code="def f(x):\n",
        tags=["a", "b"],
        source={"dataset": "mine", "id": "42", "rating": 1500, "extra": {"k": [1]}},
        generator=Generator(
            code="print(1)\n", plan={"extra": {"small": 2}, "optimization": {"large": 1}}
        ),
    )


def sorted_tests(problem: Problem) -> Problem:
    # The folder format orders tests by group folder, then natural name order.
    return problem.model_copy(
        update={"tests": sorted(problem.tests, key=lambda t: (t.group.value, natural_key(t.id)))}
    )


def test_folder_round_trip_is_lossless(tmp_path: Path):
    problem = rich_problem()
    folder = write_problem_folder(problem, tmp_path / "rt")
    assert (folder / "tests" / "optimization" / "large-1.in.gz").is_file()
    assert not (folder / "tests" / "optimization" / "large-1.in").exists()
    assert (folder / "references" / "fast.durations.json").is_file()
    assert read_problem_folder(folder) == sorted_tests(problem)


def test_folder_tests_use_natural_order(tmp_path: Path):
    folder = write_problem_folder(rich_problem(), tmp_path / "rt")
    extra = [t.id for t in read_problem_folder(folder).tests_in("extra")]
    assert extra == ["small-2", "small-10"]


@pytest.mark.parametrize("name", ["set.jsonl", "set.jsonl.gz"])
def test_jsonl_round_trip_is_lossless(tmp_path: Path, name: str):
    problem = rich_problem()
    path = write_problems_jsonl(
        [problem, problem.model_copy(update={"id": "second"})], tmp_path / name
    )
    back = read_problems_jsonl(path)
    assert back[0] == problem
    assert back[1].id == "second"
    if name.endswith(".gz"):
        with gzip.open(path, "rt") as f:
            assert f.readline().startswith("{")


def test_convert_folder_to_jsonl_and_back(tmp_path: Path):
    problem = sorted_tests(rich_problem())
    save_problems([problem], tmp_path / "folders")
    jsonl = save_problems(load_problems(tmp_path / "folders"), tmp_path / "set.jsonl.gz")
    save_problems(load_problems(jsonl), tmp_path / "again")
    assert load_problems(tmp_path / "again") == [problem]


def test_malformed_yaml_names_the_file(tmp_path: Path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "problem.yaml").write_text("id: bad\ntime_limit_s: [\n")
    with pytest.raises(ProblemFormatError, match=r"bad/problem\.yaml: not valid YAML"):
        read_problem_folder(folder)


def test_bad_field_names_file_and_field(tmp_path: Path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "problem.yaml").write_text("id: bad\ntime_limit_s: soon\n")
    with pytest.raises(ProblemFormatError, match=r"problem\.yaml: time_limit_s: "):
        read_problem_folder(folder)


def test_missing_reference_file_is_reported(tmp_path: Path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "problem.yaml").write_text(
        "id: bad\nreferences:\n  - {name: ghost, label: correct}\n"
    )
    with pytest.raises(ProblemFormatError, match=r"'ghost' has no file .*ghost\.py"):
        read_problem_folder(folder)


def test_stdio_test_without_output_is_reported(tmp_path: Path):
    folder = tmp_path / "bad"
    (folder / "tests" / "extra").mkdir(parents=True)
    (folder / "problem.yaml").write_text("id: bad\n")
    (folder / "tests" / "extra" / "t1.in").write_text("1\n")
    with pytest.raises(ProblemFormatError, match=r"extra/t1: has no \.out file"):
        read_problem_folder(folder)


def test_unknown_group_folder_is_reported(tmp_path: Path):
    folder = tmp_path / "bad"
    (folder / "tests" / "hidden").mkdir(parents=True)
    (folder / "problem.yaml").write_text("id: bad\n")
    with pytest.raises(ProblemFormatError, match="unknown test group folder; use one of: original"):
        read_problem_folder(folder)


def test_invalid_jsonl_line_names_the_line(tmp_path: Path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "ok"}\n\n{"id": \n')
    with pytest.raises(ProblemFormatError, match=r"p\.jsonl:3: not valid JSON"):
        read_problems_jsonl(path)


def test_unknown_extension_asks_for_format(tmp_path: Path):
    path = tmp_path / "rows.csv"
    path.write_text("")
    with pytest.raises(LoaderError, match="pass `format`"):
        load_problems(path)


def test_missing_source_is_reported(tmp_path: Path):
    with pytest.raises(LoaderError, match="no such file or folder"):
        load_problems(tmp_path / "nope")
