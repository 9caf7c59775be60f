"""Helpers shared by the command modules: the console, the exit codes, ``safe_text`` for
anything a checked program (or a data file) wrote, and the options every command that runs
programs shares (--jobs, --site-path, --executor)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import get_args

from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from execrl.errors import DataError, OutputError, UsageError
from execrl.problems.io import BUNDLED, FORMATS
from execrl.sandbox.counting import require_valgrind
from execrl.sandbox.isolation import SandboxConfig, current_site_packages
from execrl.sandbox.limits import TimingMetric, is_counted
from execrl.sandbox.protocol import Executor
from execrl.service.open import (
    ACCEPTED_FORMS,
    EXECUTOR_ENV,
    ExecutorSpec,
    open_executor,
    parse_executor_spec,
)
from execrl.timing.store import DurationStore

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


def check_range(option: str, value: int | None, low: int, high: int, unit: str) -> None:
    """A whole-number option in ``[low, high]`` (None: not given), or a one-line UsageError
    stating the accepted range. Commands call it first, before any pool or model starts."""
    if value is not None and not low <= value <= high:
        raise UsageError(f"{option} {value}: expected {low} to {high} {unit}")


MAX_JOBS = 1024
"""The most sandbox workers a command starts (each is a fork server and its sandbox)."""


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


def add_executor_argument(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--executor SPEC: where the command's programs run (``execrl.service.open``); the
    default comes from $EXECRL_EXECUTOR, else this machine's sandbox pool."""
    parser.add_argument(
        "--executor",
        metavar="URL|ray|local",
        help=f"where programs run: {ACCEPTED_FORMS} (default: ${EXECUTOR_ENV}, else 'local', "
        "a sandbox pool on this machine); --jobs and --site-path set up local (and Ray "
        "nodes') sandboxes, a server uses its own",
    )
    return parser


def executor_text(args: argparse.Namespace) -> str | None:
    """The executor spec as given: --executor, else $EXECRL_EXECUTOR, else None."""
    return getattr(args, "executor", None) or os.environ.get(EXECUTOR_ENV) or None


def executor_spec(args: argparse.Namespace) -> ExecutorSpec:
    """The --executor value (or $EXECRL_EXECUTOR) parsed and checked, before anything starts;
    a bad spec is a one-line UsageError naming the accepted forms."""
    try:
        return parse_executor_spec(executor_text(args))
    except UsageError as exc:
        where = "--executor" if getattr(args, "executor", None) else f"${EXECUTOR_ENV}"
        raise UsageError(f"{where}: {exc}") from None


def open_executor_from_args(
    args: argparse.Namespace,
    *,
    workers: int | None = None,
    config: SandboxConfig | None = None,
    reserve_host_core: bool = False,
    default_workers: int | None = None,
    workers_option: str = "--jobs",
) -> Executor:
    """The executor --executor names, opened (close it, or use ``with``). ``workers`` and
    ``config`` are the command's --jobs and sandbox settings, which only the sandboxes this
    command starts can take: with a server URL, a --jobs or --site-path the user gave is a
    UsageError, and $EXECRL_SITE_PATHS (for sandboxes the CLI starts) does not apply.
    ``reserve_host_core`` applies to the local pool (timed commands keep their bookkeeping
    off the timed cores). ``default_workers`` replaces a ``workers`` of None for sandboxes
    this command starts (None: one per core). ``workers_option`` names the option."""
    spec = executor_spec(args)
    if spec.kind == "remote":
        _local_only(spec, workers_option, workers is not None)
        _local_only(spec, "--site-path", bool(getattr(args, "site_path", None)))
        config = None
    else:
        workers = workers or default_workers
    return open_executor(spec, workers=workers, config=config, reserve_host_core=reserve_host_core)


def add_timed_jobs_argument(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--jobs N of a timing command: one worker unless asked, so timed runs do not share the
    machine (per node on Ray; a server runs its own). Open with :func:`open_timed_executor`."""
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help=f"sandbox workers, 1 to {MAX_JOBS} (default: 1, so timed runs do not share the "
        "machine; per node with --executor ray)",
    )
    return parser


def open_timed_executor(args: argparse.Namespace) -> Executor:
    """The executor of a timing command: --jobs workers (default 1) with the calling process
    kept off their cores when they are local; a server's own workers with a URL. (The
    command checks --jobs first, with its other options.)"""
    return open_executor_from_args(
        args, workers=args.jobs, default_workers=1, reserve_host_core=True
    )


def _local_only(spec: ExecutorSpec, option: str, given: bool) -> None:
    """A sandbox setting given with a server URL: refused, since the server has its own."""
    if given:
        raise UsageError(
            f"{option} sets up sandboxes this command starts; the servers of --executor "
            f"{','.join(spec.urls)} use the settings they were started with"
        )


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


STORE_HELP = "the duration store folder (default: $EXECRL_TIMING_DIR or runs/timing)"


def open_store(root: Path | None) -> DurationStore:
    """The duration store at --store ``root`` (None: the default folder); a path that exists
    and is not a folder is a one-line UsageError."""
    store = DurationStore(root)
    if store.root.exists() and not store.root.is_dir():
        raise UsageError(f"--store {store.root}: not a folder; give a folder for the store")
    return store
