"""What ``execrl score --programs`` reads, as library functions: completions files, programs
given as files and folders, the env/reward config file, the batching rule, the resume rule."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from execrl.errors import ConfigError, DataError, LoaderError, UsageError
from execrl.evaluate import Completion, read_completions
from execrl.evaluate.programs import Program, read_programs
from execrl.rewards.score_config import env_and_reward, with_timing
from execrl.rewards.score_rows import check_resumable, program_key, row_key
from execrl.rewards.streaming import group_indices
from execrl.sandbox.records import program_sha256


def write_rows(path: Path, rows: list[object]) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in rows)
    path.write_bytes(gzip.compress(text.encode()) if path.name.endswith(".gz") else text.encode())
    return path


@pytest.mark.parametrize("name", ["c.jsonl", "c.jsonl.gz"])
def test_read_completions_extracts_completions_and_keeps_programs(tmp_path: Path, name):
    path = write_rows(
        tmp_path / name,
        [
            {"problem_id": "p", "completion": "Here:\n```python\nprint(1)\n```\nDone."},
            {"problem_id": "p", "program": "print(2)\n", "name": "second"},
            {"problem_id": "q", "code": "print(3)\n", "program_name": "third"},
        ],
    )
    assert read_completions(path) == [
        Completion("p", f"{name}:1", "Here:\n```python\nprint(1)\n```\nDone.", "print(1)\n"),
        Completion("p", "second", "print(2)\n", "print(2)\n"),
        Completion("q", "third", "print(3)\n", "print(3)\n"),
    ]


def test_read_completions_skips_blank_lines_and_a_byte_order_mark(tmp_path: Path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"problem_id": "p", "code": "x"}\n\n\n')
    assert [(c.problem_id, c.program) for c in read_completions(path)] == [("p", "x")]
    path.write_text("\n")
    assert read_completions(path) == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "c.jsonl:1: not valid JSON"),
        ("[1]", "c.jsonl:1: a row is a JSON object, got list"),
        ('{"completion": "x"}', "c.jsonl:1: no 'problem_id'"),
        ('{"problem_id": "p", "text": "x"}', "c.jsonl:1: no 'completion'"),
    ],
)
def test_read_completions_refuses_a_bad_row_naming_file_and_line(tmp_path: Path, line, message):
    path = tmp_path / "c.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(LoaderError, match=message):
        read_completions(path)


def test_read_programs_from_files_folders_and_completions(tmp_path: Path):
    (tmp_path / "one.py").write_text("print(1)\n")
    folder = tmp_path / "many"
    folder.mkdir()
    (folder / "b.py").write_text("print(3)\n")
    (folder / "a.py").write_text("print(2)\n")
    rows = write_rows(
        tmp_path / "r.jsonl", [{"problem_id": "p", "code": "x"}, {"problem_id": "q", "code": "y"}]
    )
    got = read_programs([tmp_path / "one.py", folder, rows], ["p"])
    assert got == [
        Program("p", "one.py", "print(1)\n"),
        Program("p", "many/a.py", "print(2)\n"),
        Program("p", "many/b.py", "print(3)\n"),
        Program("p", "r.jsonl:1", "x"),
    ]
    with pytest.raises(LoaderError, match="pass exactly one `ids`"):
        read_programs([tmp_path / "one.py"], None)
    with pytest.raises(LoaderError, match="no programs to score"):
        read_programs([rows], ["other"])
    (tmp_path / "bad.py").write_bytes(b"caf\xe9\n")
    with pytest.raises(DataError, match=r"bad\.py: the program is not UTF-8"):
        read_programs([tmp_path / "bad.py"], ["p"])


def test_env_and_reward_from_flags_then_config_then_defaults(tmp_path: Path):
    env, reward = env_and_reward()
    assert (env.name, reward.name) == ("mc", "collapsed(binary)")
    config = tmp_path / "run.yaml"
    config.write_text("env: qp(p=0.5)\nreward: two_gate\n")
    env, reward = env_and_reward(config=config)
    assert (env.name, reward.name) == ("qp(p=0.5)", "two_gate(binary)")
    env, reward = env_and_reward("rlvr", None, config)
    assert (env.name, reward.name) == ("rlvr", "two_gate(binary)")
    config.write_text("steps: 3\n")
    with pytest.raises(ConfigError, match="no 'env:' or 'reward:' key"):
        env_and_reward(config=config)
    config.write_text("env: qp(p=2)\n")
    with pytest.raises(ConfigError, match=f"{config}: .*p must be in"):
        env_and_reward(config=config)


def test_with_timing_overrides_only_what_is_given():
    env, _ = env_and_reward("qp(p=0.5)")
    assert with_timing(env, None, None) is env
    timed = with_timing(env, "wall", None)
    assert timed.config.timing == "wall" and timed.config.count_rate == env.config.count_rate


def test_group_indices_follow_first_appearance():
    programs = [Program(pid, "n", "c") for pid in ("b", "a", "b", "c", "a")]
    assert group_indices(programs) == {"b": 0, "a": 1, "c": 2}


def test_resume_rule_names_what_differs():
    env, reward = env_and_reward("mc")
    row = {"environment": "mc", "reward_name": reward.name, "references": "stored"}
    check_resumable([row], "f.jsonl", env, reward, "stored")  # the same: fine
    with pytest.raises(UsageError, match=r"f\.jsonl: its 1 rows were scored under environment mc"):
        check_resumable([row], "f.jsonl", env, reward, "measure")
    with pytest.raises(UsageError, match="timed by wall, not cpu"):
        check_resumable([{**row, "timing": "wall"}], "f.jsonl", env, reward, "stored")
    stored = {"problem_id": "p", "program_sha256": program_sha256("x"), "program_name": "n"}
    assert row_key(stored) == program_key("p", "x", "n")


@pytest.mark.parametrize("call", ["score", "score_batch"])
def test_scoring_without_an_executor_is_one_line_naming_the_call(call):
    """No hidden pool: a missing executor is the caller's UsageError, naming what they called."""
    from execrl.problems import load_problems
    from execrl.rewards import scoring

    (problem,) = [p for p in load_problems("starter") if p.id == "fizzbuzz"]
    args = (problem, ["print(1)"]) if call == "score" else ([(problem, ["print(1)"])],)
    with pytest.raises(UsageError, match=rf"^{call} needs an executor"):
        getattr(scoring, call)(*args, executor=None)
