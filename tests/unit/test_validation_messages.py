"""One function turns pydantic's validation errors into one-line messages (issue 30.6):
``execrl.errors.describe_validation_error``, and the messages built on it stay what the
callers' tests expect."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel, Field, ValidationError, field_validator

from execrl.errors import (
    MAX_ISSUES_SHOWN,
    ConfigError,
    DataError,
    ProblemFormatError,
    UsageError,
    describe_validation_error,
    validation_issues,
)

SRC = Path(__file__).resolve().parents[2] / "src" / "execrl"

PENDING: set[str] = set()
"""Modules that still read pydantic's error dicts themselves (their owners move them to
describe_validation_error / validation_issues; then they leave this set)."""


class _Limits(BaseModel):
    cpu_time_s: float = Field(gt=0)
    name: str = "x"

    @field_validator("name")
    @classmethod
    def _short(cls, name: str) -> str:
        if len(name) > 3:
            raise ValueError("must be at most 3 characters")
        return name


def _error(**data: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        _Limits.model_validate(data)
    return caught.value


def test_a_field_its_message_and_the_value_on_one_line() -> None:
    assert describe_validation_error(_error(cpu_time_s=-1)) == (
        "cpu_time_s: Input should be greater than 0 (got -1)"
    )


def test_pydantic_s_value_error_prefix_is_dropped() -> None:
    assert describe_validation_error(_error(cpu_time_s=1, name="long")) == (
        "name: must be at most 3 characters (got 'long')"
    )


def test_every_issue_is_listed_in_order() -> None:
    message = describe_validation_error(_error(cpu_time_s=0, name="long"))
    assert message == (
        "cpu_time_s: Input should be greater than 0 (got 0); "
        "name: must be at most 3 characters (got 'long')"
    )


def test_a_missing_field_shows_no_value_and_a_whole_value_no_location() -> None:
    assert describe_validation_error(_error()) == "cpu_time_s: Field required"
    with pytest.raises(ValidationError) as caught:
        _Limits.model_validate([1])
    assert describe_validation_error(caught.value) == (
        "Input should be a valid dictionary or instance of _Limits"
    )


def test_a_long_value_is_cut() -> None:
    message = describe_validation_error(_error(cpu_time_s="x" * 200))
    assert message.endswith("(got '" + "x" * 59 + "…)")


def test_many_issues_are_counted_after_the_first_few() -> None:
    class Wide(BaseModel):
        a: int
        b: int
        c: int
        d: int
        e: int
        f: int
        g: int

    with pytest.raises(ValidationError) as caught:
        Wide.model_validate({})
    message = describe_validation_error(caught.value)
    assert message.count("Field required") == MAX_ISSUES_SHOWN
    assert message.endswith("; and 2 more")
    assert "\n" not in message


def test_a_locator_names_the_location() -> None:
    message = describe_validation_error(_error(cpu_time_s=-1), locate=lambda loc: "limits.cpu")
    assert message.startswith("limits.cpu: ")


def test_issues_keep_the_parts_for_messages_in_a_caller_s_words() -> None:
    (issue,) = validation_issues(_error(cpu_time_s=-1))
    assert (issue.loc, issue.where, issue.got, issue.type) == (
        ("cpu_time_s",),
        "cpu_time_s",
        -1,
        "greater_than",
    )
    assert issue.message == "Input should be greater than 0"


# -- the callers' messages ------------------------------------------------------------------------
def test_a_problem_names_its_tests_by_id() -> None:
    from execrl.problems._validation import parse_problem

    data = {"id": "p", "tests": [{"kind": "stdio", "id": "a", "input": "1"}]}
    with pytest.raises(ProblemFormatError) as caught:
        parse_problem(data, where="p.yaml")
    assert str(caught.value) == "p.yaml: tests[a].output: Field required"


def test_a_problem_s_limit_message_keeps_its_words() -> None:
    from execrl.problems._validation import parse_problem

    with pytest.raises(ProblemFormatError) as caught:
        parse_problem({"id": "p", "time_limit_s": 0}, where="p.yaml")
    assert str(caught.value) == (
        "p.yaml: time_limit_s: must be more than 0 and at most 600 seconds (the sandbox's "
        "CPU-time cap), got 0"
    )


def test_execrl_run_names_the_option_and_the_value() -> None:
    from execrl import run
    from execrl.problems import StdioTest

    with pytest.raises(UsageError, match=r"^execrl\.run: repeats: .* \(got 0\)$"):
        run("print(1)", [StdioTest(id="t", input="", output="1")], repeats=0)


def test_a_records_row_that_is_not_a_record(tmp_path: Path) -> None:
    from execrl.sandbox.records import load_records

    path = tmp_path / "wrong.jsonl"
    path.write_text('{"program_sha256": 3}\n')
    with pytest.raises(DataError, match=r"wrong\.jsonl, row 1: not an execution record \(.+\)$"):
        load_records(path)


def test_an_environment_config_names_the_field() -> None:
    from execrl.envs.presets import environment

    with pytest.raises(ConfigError, match=r"^environment config: .*\bno_such_field\b"):
        environment({"no_such_field": 1})


# -- nobody else reads pydantic's error dicts -----------------------------------------------------
def _readers() -> set[str]:
    pattern = re.compile(r"\.errors\(\)")
    return {
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path.name != "errors.py" and pattern.search(path.read_text())
    }


def test_only_the_errors_module_reads_pydantic_s_error_dicts() -> None:
    readers = _readers()
    assert readers <= PENDING, f"use execrl.errors.describe_validation_error in {readers - PENDING}"
    assert not PENDING - readers, f"remove {PENDING - readers} from PENDING: they are done"
