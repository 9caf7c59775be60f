"""Helpers shared by the command modules: the console and the exit codes."""

from __future__ import annotations

import sys

from rich.console import Console

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
