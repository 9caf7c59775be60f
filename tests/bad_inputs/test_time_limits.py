"""One range and one message for every time limit (issue 33, item 8): more than 0 and at most
600 seconds (the sandbox's CPU-time cap), whether it comes from a problem file, an environment
spec, ``Limits``, ``ExecutionOptions`` or a CLI option. Each out-of-range value is exit 2 with
one line (or a ValidationError) in those words, before any sandbox starts; 600 itself is in."""

from __future__ import annotations

import argparse
import json

import pytest
from pydantic import ValidationError

from execrl.cli.eval_metrics import replay_settings
from execrl.envs.presets import environment
from execrl.errors import ConfigError, UsageError
from execrl.problems.models import MAX_TIME_LIMIT_S, TIME_LIMIT_RANGE
from execrl.sandbox.limits import ExecutionOptions, Limits

OUT_OF_RANGE = [1e12, 600.5, 0, -1]
RANGE_WORDS = "must be more than 0 and at most 600 seconds (the sandbox's CPU-time cap)"


def test_the_range_is_stated_once():
    assert MAX_TIME_LIMIT_S == 600 and f"must be {TIME_LIMIT_RANGE}" == RANGE_WORDS


@pytest.mark.parametrize("seconds", OUT_OF_RANGE)
def test_a_problem_file(bad_input, tmp_path, seconds):
    path = tmp_path / "set.jsonl"
    row = {"id": "row", "time_limit_s": seconds}
    row["tests"] = [{"kind": "stdio", "id": "t", "input": "1\n", "output": "1\n"}]
    path.write_text(json.dumps(row) + "\n")
    line = bad_input(["problems", "validate", path])
    assert "time_limit_s" in line and RANGE_WORDS in line


@pytest.mark.parametrize("seconds", OUT_OF_RANGE)
@pytest.mark.parametrize("template", ["abs_timeout(limit={})", "rlvr(cap_s={})", "qp(cap_s={})"])
def test_an_environment_spec(template, seconds):
    spec = template.format(repr(float(seconds)))
    with pytest.raises(ConfigError) as caught:
        environment(spec)
    parameter = "limit" if "limit=" in spec else "cap_s"
    assert f"{parameter} {RANGE_WORDS}" in str(caught.value)


def test_an_environment_spec_on_the_command_line(bad_input, tmp_path):
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    argv = ["score", "balanced-brackets", "--programs", program, "--out", tmp_path / "o.jsonl"]
    line = bad_input([*argv, "--env", "abs_timeout(limit=1e12)"])
    assert line.startswith("ConfigError:") and f"limit {RANGE_WORDS}" in line


@pytest.mark.parametrize("seconds", OUT_OF_RANGE)
def test_limits_and_execution_options(seconds):
    for make in (
        lambda: Limits(cpu_time_s=seconds),
        lambda: Limits(timeout_s=seconds),
        lambda: ExecutionOptions(intended_limit_s=seconds),
    ):
        with pytest.raises(ValidationError, match=r"must be more than 0 and at most 600 seconds"):
            make()


def test_the_upper_end_is_in():
    assert Limits(cpu_time_s=600).cpu_time_s == 600
    assert ExecutionOptions(intended_limit_s=600).intended_limit_s == 600
    assert environment("abs_timeout(limit=600, cap_s=600)").config.cap_s == 600


@pytest.mark.parametrize(
    "argv",
    [
        ["solver", "score", "{responses}", "--timeout-s", "1e12"],
        ["solver", "check", "--timeout-s", "0"],
    ],
)
def test_a_cli_option(bad_input, tmp_path, argv):
    responses = tmp_path / "responses.jsonl"
    responses.write_text('{"problem_id": "x", "response": "print(1)"}\n')
    argv = [a.format(responses=responses) for a in argv]
    line = bad_input(argv)
    option, value = argv[-2], float(argv[-1])
    assert f"{option} {value:g}: {RANGE_WORDS}" in line, line


@pytest.mark.parametrize(("option", "value"), [("cap_s", 601.0), ("limit_s", 1e12)])
def test_eval_metrics_replay_options(option, value):
    """``execrl eval metrics --cap-s/--limit-s`` (checked before the campaign is read)."""
    given = {"cap_s": None, "limit_s": None, "alpha": None, "beta": None, option: value}
    with pytest.raises(UsageError) as caught:
        replay_settings(argparse.Namespace(**given))
    flag = "--" + option.replace("_", "-")
    assert str(caught.value) == f"{flag} {value:g}: {RANGE_WORDS}"
