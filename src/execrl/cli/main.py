"""The ``execrl`` command: parse, call the public API, report errors as one line.

Exit codes: 0 ok (also when the reader of its output, e.g. ``| head``, stopped early),
1 the checked programs/problems failed, 2 a user mistake or execrl itself failed (one line on
stderr, never a traceback), 130 interrupted. This is the one place where errors become that
line: :func:`error_line` (the error classes are drawn in :mod:`execrl.errors`).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Mapping

from execrl import __version__
from execrl.cli import build as build_cmd
from execrl.cli import eval as eval_cmd
from execrl.cli import languages as languages_cmd
from execrl.cli import metrics as metrics_cmd
from execrl.cli import problems as problems_cmd
from execrl.cli import report as report_cmd
from execrl.cli import run as run_cmd
from execrl.cli import score as score_cmd
from execrl.cli import serve as serve_cmd
from execrl.cli import simulate as simulate_cmd
from execrl.cli import solver as solver_cmd
from execrl.cli import timing as timing_cmd
from execrl.cli import train as train_cmd
from execrl.cli._common import EXIT_EXECRL_FAILED, EXIT_OK, printable
from execrl.cli._flags import as_flags, set_flag_tables
from execrl.errors import ExecrlError, describe_validation_error


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors as one line (its usage text wraps over several for long
    commands), exit code 2 as before; subcommands' parsers are of this class too."""

    def error(self, message: str):
        line = " ".join(f"{self.prog}: error: {message}".split())
        self.exit(2, f"{printable(line)} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="execrl",
        description="Turn running code into training signal for code models.",
    )
    parser.add_argument("--version", action="version", version=f"execrl {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    problems_cmd.register(commands)
    build_cmd.register(commands)
    score_cmd.register(commands)
    run_cmd.register(commands)
    metrics_cmd.register(commands)
    timing_cmd.register(commands)
    simulate_cmd.register(commands)
    train_cmd.register(commands)
    solver_cmd.register(commands)
    eval_cmd.register(commands)
    report_cmd.register(commands)
    serve_cmd.register(commands)
    languages_cmd.register(commands)
    set_flag_tables(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():  # restores the caller's warning display afterwards
            warnings.showwarning = _show_warning_on_one_line
            return args.handler(args)
    except BrokenPipeError:
        # The reader stopped (`execrl ... | head`): not a failure. Point stdout at /dev/null so
        # the interpreter's final flush does not complain either.
        _silence_stdout()
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        line = error_line(exc, flags=args.param_flags)
        if line is None:
            raise  # a bug in execrl: the traceback is what a report needs
        # Plain print: one unwrapped line, whatever the terminal width.
        print(line, file=sys.stderr)
        return EXIT_EXECRL_FAILED


def error_line(exc: BaseException, *, flags: Mapping[str, str] | None = None) -> str | None:
    """The one line a user sees for ``exc``: execrl's own errors and the OSError,
    UnicodeDecodeError, pydantic and YAML errors that escape library code, named by what
    failed (file, field, value) and flattened; None for anything else (a bug). ``flags``: the
    command's table, so an execrl error's `parameter` reads as the flag that sets it."""
    if isinstance(exc, ExecrlError):
        text = f"{type(exc).__name__}: {as_flags(str(exc), flags or {})}"
    elif isinstance(exc, UnicodeDecodeError):
        text = (
            f"UnicodeDecodeError: input is not UTF-8 ({exc.reason} at byte {exc.start}: "
            f"{exc.object[exc.start : exc.start + 4]!r}); re-encode it as UTF-8"
        )
    elif isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        what = exc.strerror or str(exc)
        text = f"{type(exc).__name__}: {where}{what}"
    elif _is_validation_error(exc):
        text = f"invalid value: {describe_validation_error(exc)}"
    elif _is_yaml_error(exc):
        text = f"YAML error: {_yaml_line(exc)}"
    else:
        return None
    return printable(" ".join(str(text).split()))


def _is_validation_error(exc: BaseException) -> bool:
    module = sys.modules.get("pydantic")
    return module is not None and isinstance(exc, module.ValidationError)


def _is_yaml_error(exc: BaseException) -> bool:
    module = sys.modules.get("yaml")
    return module is not None and isinstance(exc, module.YAMLError)


def _yaml_line(exc) -> str:
    """PyYAML's 4-7 line message as one: what is wrong and where (line, column)."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"{mark.name}, line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    return f"{where}{problem}".replace("<unicode string>, ", "")


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _show_warning_on_one_line(message, category, filename, lineno, file=None, line=None):
    """A library warning (e.g. skipped non-Python submissions) as one line, without the
    source line Python's default format adds."""
    print(f"{category.__name__}: {message}", file=file or sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
