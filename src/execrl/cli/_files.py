"""Files named on the command line: text read as UTF-8, reports written as JSON, result
files and folders checked writable before the work, the resume rule of interrupted campaigns,
and the duration store of --store. Each failure is one typed line naming the file or flag."""

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import BaseModel

from execrl.cli._common import console
from execrl.errors import DataError, OutputError, UsageError
from execrl.timing.store import DurationStore


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


def writable_file(path: Path | None, flag: str, *, probe: Path | None = None) -> None:
    """Check, before the work, that ``path`` (a result file) can be written, leaving no trace
    if it did not exist; nothing to check for None. ``probe``: create that file (in the same
    folder) instead of ``path``, for a file others poll for, which must not appear empty."""
    if path is None:
        return
    if path.is_dir():
        raise OutputError(f"{flag} {path}: is a directory; give a file name")
    target = probe or path
    existed = target.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a"):
            pass
    except OSError as exc:
        raise OutputError(
            f"{flag} {path}: cannot write there ({exc.strerror or exc}); choose another file"
        ) from None
    if not existed:
        target.unlink()


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
