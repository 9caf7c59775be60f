"""Helpers shared by the command modules: the console and the exit codes."""

from __future__ import annotations

from rich.console import Console

EXIT_OK = 0
"""Everything worked and every check passed."""
EXIT_CHECK_FAILED = 1
"""execrl worked, but the checked programs or problems did not meet expectations."""
EXIT_EXECRL_FAILED = 2
"""execrl itself could not do the job (bad input, missing file, runner failure)."""

console = Console()
err_console = Console(stderr=True)


def fmt_ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1000:.0f}"
