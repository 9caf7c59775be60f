"""Helpers shared by the command modules: the console, the exit codes, and ``safe_text`` for
anything a checked program (or a data file) wrote."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from execrl.errors import DataError, OutputError, UsageError
from execrl.problems.io import BUNDLED, FORMATS
from execrl.sandbox.isolation import SandboxConfig, current_site_packages

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


def check_range(option: str, value: int | None, low: int, high: int, unit: str) -> None:
    """A whole-number option in ``[low, high]`` (None: not given), or a one-line UsageError
    stating the accepted range. Commands call it first, before any pool or model starts."""
    if value is not None and not low <= value <= high:
        raise UsageError(f"{option} {value}: expected {low} to {high} {unit}")


MAX_JOBS = 1024
"""The most sandbox workers a command starts (each is a fork server and its sandbox)."""


def add_jobs_argument(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--jobs N: sandbox workers; not given = one per core. Check it with :func:`jobs`."""
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help=f"sandbox workers, 1 to {MAX_JOBS} (default: one per available core)",
    )
    return parser


def jobs(args: argparse.Namespace) -> int | None:
    """The --jobs value checked: 1 to MAX_JOBS, or None for one per core (0 is refused
    rather than silently read as the default)."""
    check_range("--jobs", args.jobs, 1, MAX_JOBS, "workers (leave it out for one per core)")
    return args.jobs


SITE_PATHS_ENV = "EXECRL_SITE_PATHS"
"""Extra site paths for every sandbox the CLI starts, separated by ``os.pathsep`` (``:``)."""
CURRENT_SITE = "@current"
"""The ``--site-path`` value meaning this interpreter's own site-packages."""


def add_sandbox_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Options of the sandboxes a command starts: --site-path (repeatable)."""
    parser.add_argument(
        "--site-path",
        action="append",
        default=[],
        metavar="DIR",
        help="make the packages in DIR importable by programs, read-only (repeatable; "
        f"{CURRENT_SITE} = the site-packages execrl runs from; also ${SITE_PATHS_ENV})",
    )
    return parser


def sandbox_config(args: argparse.Namespace, **fields: object) -> SandboxConfig:
    """The SandboxConfig for a command: ``fields`` plus the site paths of --site-path and
    $EXECRL_SITE_PATHS; a path that is not a directory is a one-line user error."""
    given = [*os.environ.get(SITE_PATHS_ENV, "").split(os.pathsep), *args.site_path]
    paths: list[str] = []
    for path in filter(None, given):
        paths += current_site_packages() if path == CURRENT_SITE else [path]
    try:
        return SandboxConfig(extra_site_paths=tuple(paths), **fields)
    except ValidationError as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise UsageError(f"--site-path: {message}") from None


def read_text_file(path: Path, what: str = "file") -> str:
    """A UTF-8 text file given on the command line; a missing, unreadable or undecodable one
    is a one-line DataError naming it (a bare UnicodeDecodeError names no file)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{path}: no such {what}") from None
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path}: the {what} is not UTF-8 text (byte {exc.start}: "
            f"{exc.object[exc.start : exc.start + 4]!r}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None


def save_json(model: BaseModel, path: Path) -> None:
    """Write a report given with --out as indented JSON and say where; an unwritable path is
    a one-line user error, not a traceback."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(model.model_dump_json(indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"--out {path}: cannot write ({exc.strerror or exc})") from None
    console.print(f"saved to {path}", highlight=False)


def writable_folder(path: Path, flag: str) -> Path:
    """Check, before the work, that files can be written in the folder ``path`` (made if
    missing); an OutputError naming ``flag`` otherwise. Returns ``path``."""
    probe = path / ".execrl-write-test"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise OutputError(
            f"{flag} {path}: cannot write there ({exc.strerror or exc}); choose another folder"
        ) from None
    return path


def writable_file(path: Path | None, flag: str) -> None:
    """Check, before the work, that ``path`` (a result file) can be written, leaving no trace
    if it did not exist; nothing to check for None."""
    if path is None:
        return
    if path.is_dir():
        raise OutputError(f"{flag} {path}: is a directory; give a file name")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a"):
            pass
    except OSError as exc:
        raise OutputError(
            f"{flag} {path}: cannot write there ({exc.strerror or exc}); choose another file"
        ) from None
    if not existed:
        path.unlink()


def check_resume(args: argparse.Namespace, finished: int | None, where: str | Path) -> None:
    """The rule of commands with --resume/--restart over an interrupted run (``finished``: how
    many runs it kept, None if there is none): refuse to start over it silently, or to resume
    what does not exist."""
    if finished is not None and not (args.resume or args.restart):
        raise UsageError(
            f"{where} holds an interrupted campaign ({finished} runs finished); "
            "continue it with --resume, or start over with --restart"
        )
    if args.resume and finished is None:
        raise UsageError(f"{where}: no interrupted campaign to resume")
