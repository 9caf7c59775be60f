"""Helpers shared by the command modules: the console, the exit codes, ``safe_text`` for
anything a checked program (or a data file) wrote, and the options every command that runs
programs shares (--jobs, --site-path, --executor)."""

from __future__ import annotations

import argparse
import re
import sys
from typing import get_args

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from execrl.errors import UsageError
from execrl.problems.io import BUNDLED, FORMATS
from execrl.problems.models import TIME_LIMIT_RANGE, time_limit_error
from execrl.sandbox.counting import require_valgrind
from execrl.sandbox.limits import TimingMetric, is_counted

EXIT_OK = 0
"""Everything worked and every check passed."""
EXIT_CHECK_FAILED = 1
"""execrl worked, but the checked programs or problems did not meet expectations."""
EXIT_EXECRL_FAILED = 2
"""execrl itself could not do the job (bad input, missing file, runner failure)."""


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The reader of our output went away (``| head``): rich would exit with code 1, the
        code for "checks failed"; raise instead, and ``main`` exits 0."""
        self.quiet = True
        raise BrokenPipeError


# Rich falls back to 80 columns when piped; tables of timings need more room in logs and CI.
console = _Console(width=None if sys.stdout.isatty() else 140)


# C0 controls but newline and tab, DEL, C1 (ESC and CSI start every terminal sequence), and
# Unicode's bidirectional overrides (they reorder what the reader sees).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: object) -> str:
    """``text`` with every control character shown as its escape (``ESC`` → ``\\x1b``): a
    program's output cannot move the cursor, set the title, write the clipboard or colour
    the verdicts on the terminal."""
    return _CONTROLS.sub(_escaped, str(text))


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: object) -> Text:
    """Program-written (or data-file) text for a table cell or ``console.print``: never read
    as rich markup, control characters shown as escapes (``printable``)."""
    return Text(printable(text))


def safe_markup(text: object) -> str:
    """``safe_text`` for embedding in a markup string (``f"[red]✗[/] {safe_markup(x)}"``)."""
    return escape(printable(text))


def print_table(
    header: list[str],
    rows: list[list[str | Text]],
    *,
    title: str | None = None,
    align: str = "llr",
    plain: bool = False,
) -> None:
    """Print a table of text cells (a library's ``(header, rows)``). ``align``: one letter per
    column, the last repeated for the columns after it: ``l`` left, ``r`` right, upper case
    (``L``, ``R``) never wrapped (default ``llr``: the first two columns left, the rest right);
    ``plain``: no box lines. A ``str`` cell is shown as text, never read as markup."""
    align = align.ljust(len(header), align[-1])
    table = Table(title=title, title_justify="left", **({"box": None} if plain else {}))
    for col, side in zip(header, align, strict=False):
        justify = "right" if side in "rR" else "left"
        table.add_column(escape(col), justify=justify, no_wrap=side.isupper())
    for row in rows:
        table.add_row(*(c if isinstance(c, Text) else safe_text(c) for c in row))
    console.print(table)


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


def add_languages_argument(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--languages: keep only the references in these languages (the loaders' filter)."""
    parser.add_argument(
        "--languages",
        metavar="LIST",
        help="keep only the references (solutions, submissions) in these languages, "
        "comma-separated names or aliases `execrl languages` lists, e.g. cpp,java "
        "(default: every language)",
    )
    return parser


def check_range(option: str, value: int | None, low: int, high: int, unit: str) -> None:
    """A whole-number option in ``[low, high]`` (None: not given), or a one-line UsageError
    stating the accepted range. Commands call it first, before any pool or model starts."""
    if value is not None and not low <= value <= high:
        raise UsageError(f"{option} {value}: expected {low} to {high} {unit}")


def check_time_limit(option: str, seconds: float | None) -> None:
    """A time-limit option (None: not given) in the one range every time limit has (0 < s <=
    600), or a one-line UsageError in the words a problem file's limit gets."""
    if seconds is not None and time_limit_error(seconds) is not None:
        raise UsageError(f"{option} {seconds:g}: must be {TIME_LIMIT_RANGE}")


TIMING_CHOICES: tuple[str, ...] = get_args(TimingMetric)
"""Every ``--timing`` offers these: cpu, wall, instructions, cycles_estimate."""

TIMING_HELP = (
    "cpu (user + system seconds), wall (wall-clock seconds), or a count under Valgrind that "
    "no load moves: instructions, or cycles_estimate (instructions plus weighted cache misses); "
    "docs/timing.md says which to use"
)


def add_timing_argument(
    parser: argparse.ArgumentParser, *, default: str | None = "cpu", help: str = TIMING_HELP
) -> argparse.ArgumentParser:
    """``--timing METRIC``, offering every metric (``TIMING_CHOICES``)."""
    shown = f" (default: {default})" if default else ""
    parser.add_argument("--timing", choices=TIMING_CHOICES, default=default, help=help + shown)
    return parser


def add_count_rate_argument(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``--count-rate N``: the counts per CPU second at which limits given in seconds (caps,
    budgets, absolute limits and filters) are put on a counted timing's scale."""
    parser.add_argument(
        "--count-rate",
        type=positive_float,
        metavar="N",
        help="with a counted --timing: counts per CPU second for limits given in seconds "
        "(default: execrl's default rate; pass this machine's fitted rate)",
    )
    return parser


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def require_counting(timing: str | None) -> None:
    """For a command that executes programs: a counted timing needs a working Valgrind, so
    say so in one line (with the install command) before any work starts."""
    if timing is not None and is_counted(timing):
        require_valgrind()
