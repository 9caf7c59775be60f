"""The ``execrl`` command: parse, call the public API, report errors as one line.

Exit codes: 0 ok, 1 the checked programs/problems failed, 2 execrl itself failed.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from execrl import __version__
from execrl.cli import eval as eval_cmd
from execrl.cli import metrics as metrics_cmd
from execrl.cli import problems as problems_cmd
from execrl.cli import report as report_cmd
from execrl.cli import run as run_cmd
from execrl.cli import score as score_cmd
from execrl.cli import simulate as simulate_cmd
from execrl.cli import solver as solver_cmd
from execrl.cli import timing as timing_cmd
from execrl.cli import train as train_cmd
from execrl.cli._common import EXIT_EXECRL_FAILED, printable
from execrl.errors import ExecrlError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="execrl",
        description="Turn running code into training signal for code models.",
    )
    parser.add_argument("--version", action="version", version=f"execrl {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    problems_cmd.register(commands)
    score_cmd.register(commands)
    run_cmd.register(commands)
    metrics_cmd.register(commands)
    timing_cmd.register(commands)
    simulate_cmd.register(commands)
    train_cmd.register(commands)
    solver_cmd.register(commands)
    eval_cmd.register(commands)
    report_cmd.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():  # restores the caller's warning display afterwards
            warnings.showwarning = _show_warning_on_one_line
            return args.handler(args)
    except ExecrlError as exc:
        # Plain print: one unwrapped line, whatever the terminal width.
        print(f"{type(exc).__name__}: {printable(exc)}", file=sys.stderr)
        return EXIT_EXECRL_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _show_warning_on_one_line(message, category, filename, lineno, file=None, line=None):
    """A library warning (e.g. skipped non-Python submissions) as one line, without the
    source line Python's default format adds."""
    print(f"{category.__name__}: {message}", file=file or sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
