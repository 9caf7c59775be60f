"""Helpers shared by the command modules: the console and the exit codes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import BaseModel
from rich.console import Console

from execrl.errors import ExecrlError
from execrl.problems.io import BUNDLED, FORMATS

EXIT_OK = 0
"""Everything worked and every check passed."""
EXIT_CHECK_FAILED = 1
"""execrl worked, but the checked programs or problems did not meet expectations."""
EXIT_EXECRL_FAILED = 2
"""execrl itself could not do the job (bad input, missing file, runner failure)."""

# Rich falls back to 80 columns when piped; tables of timings need more room in logs and CI.
console = Console(width=None if sys.stdout.isatty() else 140)


def fmt_ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.0f}"


def add_source_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The positional problem-set SOURCE and its --format, shared by every command reading one."""
    parser.add_argument(
        "source",
        nargs="?",
        default=BUNDLED,
        help="'bundled' (default), a problem folder, a folder of them, a .jsonl[.gz] "
        "file, or a dataset file with --format",
    )
    parser.add_argument(
        "--format", choices=FORMATS, help="the source's format (guessed for native ones)"
    )
    return parser


def save_json(model: BaseModel, path: Path) -> None:
    """Write a report given with --out as indented JSON and say where; an unwritable path is
    a one-line user error, not a traceback."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(model.model_dump_json(indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ExecrlError(f"--out {path}: cannot write ({exc})") from None
    console.print(f"saved to {path}", highlight=False)
