"""The one place where errors become the CLI's line (execrl.cli.main): each kind of error that
escapes library code is one line naming what failed, and a reader that stops early is not a
failure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pydantic
import pytest
import yaml

from execrl.cli.main import error_line
from execrl.errors import ConfigError, DataError, ExecrlError, OutputError, UsageError


def test_piping_into_head_exits_0():
    # a listing longer than a pipe's buffer, read one line: the writer gets EPIPE mid-table
    script = (
        "import subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-m', 'execrl.cli.main', 'problems', 'list'],"
        " stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
        "p.stdout.readline(); p.stdout.close(); err = p.stderr.read(); code = p.wait()\n"
        "print(code, len(err))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    code, err_bytes = out.stdout.split()
    assert (code, err_bytes) == ("0", "0")


def _raised(fn):
    try:
        fn()
    except Exception as exc:
        return exc
    raise AssertionError("nothing raised")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: yaml.safe_load("steps: [1,\n  2"), "YAML error: line 2"),
        (lambda: b"ok \xff\xfe".decode(), "UnicodeDecodeError: input is not UTF-8"),
        (
            lambda: Path("/no/such/file").read_text(),
            "FileNotFoundError: /no/such/file: No such file",
        ),
        (lambda: Path("/etc/passwd/x").write_text("x"), "Error: /etc/passwd/x: Not a directory"),
    ],
    ids=["yaml", "utf8", "missing-file", "unwritable"],
)
def test_escaped_library_errors_become_one_named_line(make, expected):
    line = error_line(_raised(make))
    assert line is not None and "\n" not in line and expected in line


def test_a_validation_error_names_the_field_and_the_value():
    class Limits(pydantic.BaseModel):
        cpu_time_s: float = pydantic.Field(gt=0)

    line = error_line(_raised(lambda: Limits(cpu_time_s=-1)))
    assert line == "invalid value: cpu_time_s: Input should be greater than 0 (got -1)"


@pytest.mark.parametrize("cls", [ExecrlError, UsageError, ConfigError, DataError, OutputError])
def test_execrl_errors_keep_their_class_name_on_one_line(cls):
    assert error_line(cls("x.yaml: bad\nvalue")) == f"{cls.__name__}: x.yaml: bad value"


def test_a_bug_is_not_hidden():
    assert error_line(KeyError("x")) is None  # main re-raises: the traceback is the report


def test_usage_mistakes_are_one_line(bad_input):
    line = bad_input(["run", "pair-sum-count", "p.py", "--repeats", "abc"])
    assert (
        line
        == "execrl run: error: argument --repeats: invalid int value: 'abc' (see execrl run --help)"
    )
    assert "invalid choice: 'nosuch'" in bad_input(["nosuch"])
