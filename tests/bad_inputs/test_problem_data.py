"""Bad problem data and `execrl problems` misuse: one line naming the file (and line or
field) and what to do, exit 2 — never a traceback, never a silent "ok"; nothing written is
lost (a resumed check keeps its rows, a failed convert leaves the destination as it was)."""

from __future__ import annotations

import gzip
import json
import sys
import types
from pathlib import Path

import pytest

from execrl.errors import DataError, ProblemFormatError
from execrl.problems import load_problems, read_problem_folder
from execrl.problems.bundled import bundled_dir, bundled_problem_ids
from execrl.results import read_rows

LATIN1 = "café\n".encode("latin-1")  # b"caf\xe9\n": not UTF-8
ADD = "a, b = map(int, input().split())\nprint(a + b)\n"


def make_folder(root: Path, name: str = "tiny", **meta_lines: str) -> Path:
    """A small valid problem folder: one stdio test, a correct and an incorrect reference."""
    folder = root / name
    (folder / "references").mkdir(parents=True)
    (folder / "tests" / "original").mkdir(parents=True)
    meta = {
        "id": name,
        "time_limit_s": "2",
        "references": "\n  - {name: add, label: correct}\n  - {name: zero, label: incorrect}",
        **meta_lines,
    }
    (folder / "problem.yaml").write_text("".join(f"{k}: {v}\n" for k, v in meta.items()))
    (folder / "statement.md").write_text("Add two numbers.\n")
    (folder / "references" / "add.py").write_text(ADD)
    (folder / "references" / "zero.py").write_text("print(0)\n")
    (folder / "tests" / "original" / "one.in").write_text("1 2\n")
    (folder / "tests" / "original" / "one.out").write_text("3\n")
    return folder


def jsonl_row(**fields) -> str:
    row = {"id": "row", "tests": [{"kind": "stdio", "id": "t", "input": "1\n", "output": "1\n"}]}
    return json.dumps({**row, **fields}, ensure_ascii=False)


# --- 1. text that is not UTF-8 ----------------------------------------------------------------


@pytest.mark.parametrize(
    "relative",
    [
        "tests/original/one.in",
        "tests/original/one.out",
        "statement.md",
        "references/add.py",
        "problem.yaml",
    ],
)
def test_a_file_that_is_not_utf8_is_named(bad_input, tmp_path, relative):
    folder = make_folder(tmp_path)
    (folder / relative).write_bytes(LATIN1)
    line = bad_input(["problems", "validate", folder])
    assert relative.split("/")[-1] in line and "not UTF-8" in line and "line 1" in line


def test_a_gzipped_test_input_that_is_not_utf8_is_named(bad_input, tmp_path):
    folder = make_folder(tmp_path)
    (folder / "tests" / "original" / "one.in").unlink()
    (folder / "tests" / "original" / "one.in.gz").write_bytes(gzip.compress(b"1 2\n" + LATIN1))
    line = bad_input(["problems", "validate", folder])
    assert "one.in.gz" in line and "not UTF-8" in line and "line 2" in line


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_jsonl_line_that_is_not_utf8_names_file_and_line(bad_input, tmp_path, suffix):
    path = tmp_path / f"set{suffix}"
    data = (jsonl_row() + "\n").encode() + jsonl_row(title="é").encode("latin-1") + b"\n"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    line = bad_input(["problems", "list", path])
    assert f"set{suffix}:2" in line and "not UTF-8" in line


def test_a_kattis_test_that_is_not_utf8_is_named(bad_input, tmp_path):
    package = tmp_path / "hello"
    (package / "data" / "sample").mkdir(parents=True)
    (package / "problem.yaml").write_text("name: Hello\n")
    (package / "data" / "sample" / "1.in").write_bytes(LATIN1)
    (package / "data" / "sample" / "1.ans").write_text("x\n")
    line = bad_input(["problems", "list", package, "--format", "kattis"])
    assert "1.in" in line and "not UTF-8" in line


def test_a_taco_json_that_is_not_utf8_is_named(bad_input, tmp_path):
    path = tmp_path / "taco.json"
    path.write_bytes(b'[{"question": "' + LATIN1.strip() + b'"}]')
    line = bad_input(["problems", "list", path, "--format", "taco"])
    assert "taco.json" in line and "not UTF-8" in line


def test_the_python_api_raises_a_data_error_naming_the_file(tmp_path):
    folder = make_folder(tmp_path)
    (folder / "tests" / "original" / "one.out").write_bytes(LATIN1)
    with pytest.raises(ProblemFormatError, match=r"one\.out: not UTF-8"):
        read_problem_folder(folder)
    path = tmp_path / "set.jsonl"
    path.write_bytes(LATIN1)
    with pytest.raises(DataError, match=r"set\.jsonl:1: not UTF-8"):
        load_problems(path)


# --- 2. corrupt problem-set files -------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"kind": "call", "fn_name": "f", ', "not valid JSON (line 1"),
        ("[1, 2, 3]", "expected a JSON object describing one test"),
        ("7", "expected a JSON object describing one test"),
    ],
)
def test_a_test_json_that_is_not_a_json_object_is_named(bad_input, tmp_path, body, expected):
    folder = make_folder(tmp_path)
    (folder / "tests" / "original" / "call.json").write_text(body)
    line = bad_input(["problems", "validate", folder])
    assert "call.json" in line and expected in line


def test_a_durations_json_that_is_not_json_is_named(bad_input, tmp_path):
    folder = make_folder(tmp_path)
    (folder / "references" / "add.durations.json").write_text("{one: 0.1}")
    line = bad_input(["problems", "validate", folder])
    assert "add.durations.json" in line and "not valid JSON" in line


def test_a_test_input_gz_that_is_not_gzip_is_named(bad_input, tmp_path):
    folder = make_folder(tmp_path)
    (folder / "tests" / "original" / "one.in").rename(folder / "tests" / "original" / "one.in.gz")
    line = bad_input(["problems", "validate", folder])
    assert "one.in.gz" in line and "not a gzip file" in line


def test_a_jsonl_gz_that_is_not_gzip_is_named(bad_input, tmp_path):
    path = tmp_path / "set.jsonl.gz"
    path.write_text(jsonl_row() + "\n")
    line = bad_input(["problems", "list", path])
    assert "set.jsonl.gz" in line and "not a gzip file" in line


def test_a_garbage_parquet_file_is_named(bad_input, tmp_path, monkeypatch):
    class ArrowInvalid(ValueError):  # what pyarrow raises for a file that is not Parquet
        pass

    def parquet_file(path):
        raise ArrowInvalid("Parquet magic bytes not found in footer. Either the file is corrupted")

    fake = types.ModuleType("pyarrow.parquet")
    fake.ParquetFile = parquet_file
    monkeypatch.setitem(sys.modules, "pyarrow", types.ModuleType("pyarrow"))
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", fake)
    path = tmp_path / "rows.parquet"
    path.write_bytes(b"not parquet at all")
    line = bad_input(["problems", "list", path, "--format", "taco"])
    assert "rows.parquet" in line and "not a readable Parquet file" in line


@pytest.mark.parametrize(
    ("fmt", "row", "field"),
    [
        ("taco", {"question": "q", "input_output": "5"}, "input_output"),
        ("codecontests", {"name": "n", "public_tests": 5}, "public_tests"),
        ("codecontests", {"name": "n", "difficulty": "hard"}, "difficulty"),
        ("livecodebench", {"question_id": 1, "question_content": "q",
                           "public_test_cases": [{"testtype": "stdin"}]}, "input"),
    ],
)  # fmt: skip
def test_a_dataset_row_of_the_wrong_shape_names_the_row(bad_input, tmp_path, fmt, row, field):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([row]))
    line = bad_input(["problems", "list", path, "--format", fmt])
    assert "rows.json[0]" in line and field in line


@pytest.mark.parametrize(
    ("references", "expected"),
    [("5", "references: expected a list"), ("", "")],
)
def test_references_that_are_not_a_list(bad_input, tmp_path, references, expected):
    folder = make_folder(tmp_path, references=references)
    if not references:  # `references:` with nothing after it is an empty list
        assert read_problem_folder(folder).references == []
        return
    line = bad_input(["problems", "validate", folder])
    assert "problem.yaml" in line and expected in line


def test_a_generator_file_that_is_not_a_name(bad_input, tmp_path):
    folder = make_folder(tmp_path, generator="{file: 5, plan: {}}")
    line = bad_input(["problems", "validate", folder])
    assert "problem.yaml: generator.file" in line


def test_a_tests_entry_that_is_a_file(bad_input, tmp_path):
    folder = make_folder(tmp_path)
    for path in (folder / "tests" / "original").iterdir():
        path.unlink()
    (folder / "tests" / "original").rmdir()
    (folder / "tests").rmdir()
    (folder / "tests").write_text("one.in\n")
    line = bad_input(["problems", "validate", folder])
    assert "tests: should be a folder of test groups" in line


def test_a_kattis_time_limit_that_is_not_a_number(bad_input, tmp_path):
    package = tmp_path / "hello"
    (package / "data" / "sample").mkdir(parents=True)
    (package / "problem.yaml").write_text("limits: {time_limit: fast}\n")
    (package / "data" / "sample" / "1.in").write_text("x\n")
    (package / "data" / "sample" / "1.ans").write_text("x\n")
    line = bad_input(["problems", "list", package, "--format", "kattis"])
    assert "limits.time_limit" in line and "'fast'" in line


def test_a_stored_hash_that_is_not_a_sha256(bad_input, tmp_path):
    folder = make_folder(tmp_path)
    (folder / "tests" / "original" / "one.in").unlink()
    (folder / "tests" / "original" / "one.in.sha256").write_text("../../etc/passwd\n")
    line = bad_input(["problems", "validate", folder])
    assert "one.in.sha256" in line and "64 hex digits" in line


# --- 3. limits validated when the problem loads -----------------------------------------------


@pytest.mark.parametrize("seconds", ["100000", "0", "-1", ".nan"])
def test_a_time_limit_out_of_range_names_the_range(bad_input, tmp_path, seconds):
    folder = make_folder(tmp_path, time_limit_s=seconds)
    line = bad_input(["problems", "validate", folder])
    assert "problem.yaml: time_limit_s" in line and "at most 600 seconds" in line


def test_a_time_limit_out_of_range_in_a_jsonl_row(bad_input, tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text(jsonl_row(time_limit_s=100000) + "\n")
    line = bad_input(["problems", "show", path, "row"])
    assert "set.jsonl:1: time_limit_s" in line and "100000" in line


def test_a_memory_limit_out_of_range(bad_input, tmp_path):
    folder = make_folder(tmp_path, memory_limit_mb=str(10**12))
    line = bad_input(["problems", "validate", folder])
    assert "memory_limit_mb" in line and "MiB" in line


# --- 4. a problem without tests ---------------------------------------------------------------


def test_validate_flags_a_problem_without_tests(bad_input, tmp_path):
    folder = make_folder(tmp_path)
    for path in (folder / "tests" / "original").iterdir():
        path.unlink()
    line = bad_input(["problems", "validate", folder])
    assert "'tiny' has no tests" in line


def test_check_refuses_a_problem_without_tests_as_validate_does(bad_input, tmp_path):
    """Exit 2 with validate's one line (issue 33), not a check failure; nothing is written."""
    folder = make_folder(tmp_path)
    for path in (folder / "tests" / "original").iterdir():
        path.unlink()
    out = tmp_path / "check.jsonl"
    line = bad_input(["problems", "check", folder, "--jobs", "1", "--out", out])
    assert line == bad_input(["problems", "validate", folder])
    assert "'tiny' has no tests" in line and not out.exists()


@pytest.mark.parametrize("command", ["validate", "check"])
def test_an_empty_problem_set_is_not_ok(bad_input, tmp_path, command):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    line = bad_input(["problems", command, path])
    assert "empty.jsonl: holds no problems" in line


def test_tests_written_into_problem_yaml_are_not_silently_dropped(bad_input, tmp_path):
    folder = make_folder(tmp_path, tests="[{kind: stdio, id: x, input: '1', output: '1'}]")
    line = bad_input(["problems", "validate", folder])
    assert "problem.yaml: tests:" in line and "tests/<group>/" in line


# --- 5. unwritable convert destinations -------------------------------------------------------


@pytest.mark.parametrize("dest", ["a-file/set.jsonl", "a-file/folder", "a-file"])
def test_convert_into_a_file_is_one_line(bad_input, tmp_path, dest):
    folder = make_folder(tmp_path)
    (tmp_path / "a-file").write_text("keep me\n")
    line = bad_input(["problems", "convert", folder, tmp_path / dest])
    assert "a-file" in line and "OutputError" in line
    assert (tmp_path / "a-file").read_text() == "keep me\n"


def test_convert_into_proc_is_one_line(bad_input, tmp_path):
    folder = make_folder(tmp_path)
    line = bad_input(["problems", "convert", folder, "/proc/execrl-test/set.jsonl"])
    assert "/proc/execrl-test/set.jsonl" in line and "cannot write" in line


def test_a_failed_convert_leaves_the_old_file_whole(bad_input, tmp_path, monkeypatch):
    folder = make_folder(tmp_path)
    dest = tmp_path / "set.jsonl"
    dest.write_text("the previous conversion\n")

    def broken(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("execrl.problems.models.Problem.model_dump_json", broken)
    line = bad_input(["problems", "convert", folder, dest])
    assert "No space left on device" in line
    assert dest.read_text() == "the previous conversion\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set.jsonl", "tiny"]


# --- 6. build never writes into the installed package -----------------------------------------


def test_build_copies_a_bundled_problem_out_before_building(bad_input, tmp_path, monkeypatch):
    built = []
    monkeypatch.setattr(
        "execrl.cli.problems_build.build_tests", lambda f, **_: built.append(f) or []
    )
    pid = bundled_problem_ids()[0]
    before = sorted(p.name for p in (bundled_dir() / pid / "tests" / "original").iterdir())
    bad_input(["problems", "build", pid, "--out", tmp_path, "--jobs", "1"], code=0)
    assert built == [tmp_path / pid]
    assert (tmp_path / pid / "problem.yaml").is_file()
    assert sorted(p.name for p in (bundled_dir() / pid / "tests" / "original").iterdir()) == before


def test_build_does_not_copy_over_an_existing_folder(bad_input, tmp_path):
    pid = bundled_problem_ids()[0]
    (tmp_path / pid).mkdir()
    (tmp_path / pid / "mine.txt").write_text("mine\n")
    line = bad_input(["problems", "build", pid, "--out", tmp_path])
    assert f"{tmp_path / pid}: already exists" in line
    assert [p.name for p in (tmp_path / pid).iterdir()] == ["mine.txt"]


def test_build_refuses_a_folder_inside_an_installed_package(bad_input, tmp_path, monkeypatch):
    fake_site = tmp_path / "site-packages" / "execrl" / "data" / "problems"
    folder = make_folder(fake_site)
    monkeypatch.setattr("execrl.datagen.build_plan.bundled_dir", lambda: fake_site)
    line = bad_input(["problems", "build", folder])
    assert "installed execrl package" in line and "--out DIR" in line


# --- 7. check writes rows as they finish, and resumes -----------------------------------------


@pytest.mark.parametrize("jobs", ["0", "-1", "100000"])
def test_check_jobs_must_be_a_positive_number(bad_input, tmp_path, jobs):
    line = bad_input(["problems", "check", make_folder(tmp_path), "--jobs", jobs])
    assert "--jobs" in line and jobs in line


def test_check_resume_needs_out(bad_input, tmp_path):
    line = bad_input(["problems", "check", make_folder(tmp_path), "--resume"])
    assert "--resume" in line and "--out" in line


def test_check_out_under_a_file_fails_before_any_work(bad_input, tmp_path):
    (tmp_path / "a-file").write_text("keep me\n")
    line = bad_input(["problems", "check", make_folder(tmp_path), "--out", tmp_path / "a-file/x"])
    assert "a-file/x" in line and "cannot write results" in line


def test_check_out_never_overwrites_the_problem_set(bad_input, tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text(jsonl_row() + "\n")
    line = bad_input(["problems", "check", path, "--out", path])
    assert "is the problem set being checked" in line
    assert path.read_text() == jsonl_row() + "\n"


def test_check_resume_keeps_the_rows_already_written(bad_input, tmp_path):
    folder = make_folder(tmp_path)
    out = tmp_path / "check.jsonl"
    bad_input(["problems", "check", folder, "--jobs", "1", "--out", out], code=0)
    rows = read_rows(out)
    assert [(r["reference"], r["as_expected"]) for r in rows] == [("add", True), ("zero", True)]
    # An interrupted run: the first row finished, the second was cut short mid-write.
    out.write_text(json.dumps(rows[0]) + "\n" + json.dumps(rows[1])[:25])
    bad_input(["problems", "check", folder, "--jobs", "1", "--out", out, "--resume"], code=0)
    again = read_rows(out)
    assert again[0] == rows[0]  # kept as written, not rerun
    assert [(r["reference"], r["as_expected"]) for r in again] == [("add", True), ("zero", True)]


# --- 8. other malformed sources ---------------------------------------------------------------


def test_format_jsonl_on_a_folder_is_one_line(bad_input, tmp_path):
    line = bad_input(["problems", "list", make_folder(tmp_path), "--format", "jsonl"])
    assert "is a folder, not a .jsonl file" in line


def test_a_format_that_cannot_be_written_is_a_usage_error(tmp_path):
    from execrl.errors import UsageError
    from execrl.problems.io import save_problems

    with pytest.raises(UsageError, match="execrl writes 'folder' or 'jsonl'"):
        save_problems([], tmp_path / "x", format="parquet")
