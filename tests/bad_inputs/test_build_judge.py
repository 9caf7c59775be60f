"""Bad inputs to ``execrl build`` and ``execrl eval judge``: one line on stderr, exit 2,
checked before any sandbox or model starts (nothing here runs a program)."""

from __future__ import annotations

from pathlib import Path

import pytest

GENERATORS = Path(__file__).parents[1] / "fixtures" / "build" / "kattis-generators"


def test_build_into_a_file_is_refused(bad_input, tmp_path: Path):
    target = tmp_path / "out"
    target.write_text("mine")
    line = bad_input(["build", "bundled", "--out", target])
    assert "is a file" in line and str(target) in line
    assert target.read_text() == "mine"


def test_build_into_a_folder_that_is_not_a_build_is_refused(bad_input, tmp_path: Path):
    (tmp_path / "notes.txt").write_text("keep me")
    line = bad_input(["build", "bundled", "--out", tmp_path])
    assert "is not empty and holds no earlier build" in line
    assert (tmp_path / "notes.txt").read_text() == "keep me"


@pytest.mark.parametrize(
    ("option", "value", "names"),
    [
        ("--attempts", "0", "--attempts 0"),
        ("--heldout-share", "1.5", "--heldout-share 1.5"),
        ("--max-solutions", "0", "--max-solutions 0"),
        ("--generator-max-tokens", "2", "--generator-max-tokens 2"),
        ("--generators", "no-such-folder", "no such folder"),
    ],
)
def test_build_option_out_of_range_names_it(bad_input, tmp_path: Path, option, value, names):
    line = bad_input(["build", "bundled", "--out", tmp_path / "out", option, value])
    assert names in line
    assert not (tmp_path / "out").exists()


def test_build_of_a_missing_source_names_it(bad_input, tmp_path: Path):
    line = bad_input(["build", tmp_path / "nope.jsonl", "--out", tmp_path / "out"])
    assert "nope.jsonl" in line and "no such file" in line


def test_build_of_an_unknown_problem_id_names_it(bad_input, tmp_path: Path):
    line = bad_input(["build", "bundled", "--id", "no-such-problem", "--out", tmp_path / "o"])
    assert "no-such-problem" in line


def test_judge_of_a_folder_that_is_not_an_evaluation_names_it(bad_input, tmp_path: Path):
    line = bad_input(["eval", "judge", tmp_path / "nothing", "a", "b"])
    assert "nothing" in line


def test_judge_with_too_few_calls_names_the_option(bad_input, tmp_path: Path):
    line = bad_input(["eval", "judge", tmp_path, "a", "b", "--calls", "0"])
    assert "--calls" in line
