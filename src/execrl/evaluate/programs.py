"""Programs to score, as a user hands them over (``execrl score --programs``): source files
(``.py``, ``.cpp``, ``.java``...: any extension the language table knows, which gives the
program's language), folders of them (both answer the one problem named with ``--id``), and
completions files (:func:`read_completions`, each row naming its problem, in Python); and
the problems they answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from execrl.errors import DataError, LoaderError
from execrl.evaluate.completions import COMPLETION_FILES, read_completions
from execrl.problems.io import BUNDLED, load_problem, load_problems, select_problems
from execrl.problems.models import Problem
from execrl.sandbox.languages import by_extension


@dataclass(frozen=True)
class Program:
    """A program to score, the problem it answers, and the name it is reported under."""

    problem_id: str
    name: str
    code: str
    language: str = "python"
    """execrl's name of its language (from the file's extension)."""


def read_programs(paths: Sequence[Path], ids: Sequence[str] | None = None) -> list[Program]:
    """The programs in ``paths``, in order: a ``.py`` file (named by its file name), a folder
    of them (``folder/file.py``, sorted) — both need exactly one id in ``ids`` — or a
    completions file (its rows; with ``ids``, only the rows of those problems). No programs
    at all is a LoaderError, as is a path that is none of these."""
    programs: list[Program] = []
    for path in paths:
        programs += _programs_in(Path(path), ids)
    if not programs:
        only = f" for `ids` {', '.join(ids)}" if ids else ""
        raise LoaderError(f"no programs to score in {', '.join(map(str, paths))}{only}")
    return programs


def _programs_in(path: Path, ids: Sequence[str] | None) -> list[Program]:
    if not path.exists():
        raise LoaderError(f"{path}: no such file or folder")
    if path.is_dir():
        files = sorted(f for f in path.iterdir() if f.is_file() and _language(f))
        if not files:
            raise LoaderError(f"{path}: no .py files (or other source files) in this folder")
        pid = _single_id(ids, path)
        return [
            Program(pid, f"{path.name}/{f.name}", read_program(f), _language(f) or "python")
            for f in files
        ]
    if path.name.endswith(COMPLETION_FILES):
        rows = read_completions(path)
        return [
            Program(r.problem_id, r.name, r.program) for r in rows if not ids or r.problem_id in ids
        ]
    if (language := _language(path)) is not None:
        return [Program(_single_id(ids, path), path.name, read_program(path), language)]
    raise LoaderError(
        f"{path}: expected a .py file (or a .cpp, .java... source file), a folder of them, or "
        "a .jsonl file"
    )


def _language(path: Path) -> str | None:
    """The language of a source file's extension (``.cpp`` -> ``cpp``), or None."""
    found = by_extension(path.suffix) if path.suffix else None
    return found.name if found is not None else None


def _single_id(ids: Sequence[str] | None, path: Path) -> str:
    if not ids or len(ids) != 1:
        raise LoaderError(
            f"{path}: a .py program does not say which problem it solves; pass exactly one "
            f"`ids` (got {len(ids or [])})"
        )
    return ids[0]


def read_program(path: Path) -> str:
    """A program file's text; an unreadable or undecodable one is a DataError naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path}: the program is not UTF-8 text (byte {exc.start}: "
            f"{exc.object[exc.start : exc.start + 4]!r}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read the program ({exc.strerror or exc})") from None


def answered_problems(
    source: str, format: str | None, programs: Sequence[Program]
) -> dict[str, Problem]:
    """The problems the programs answer, by id; for folder sources only their folders are
    read. An id the source lacks is a LoaderError naming the first program that used it."""
    first_use: dict[str, str] = {}
    for program in programs:
        first_use.setdefault(program.problem_id, program.name)
    if format is None and (source == BUNDLED or Path(source).is_dir()):
        problems = {}
        for pid, where in first_use.items():
            try:
                problems[pid] = load_problem(source, pid)
            except LoaderError as exc:
                raise LoaderError(f"{where}: {exc}") from None
        return problems
    everything = load_problems(source, format=format)
    known = {p.id for p in everything}
    for pid, where in first_use.items():
        if pid not in known:
            shown = f"{source}{f' --format {format}' if format else ''}"
            raise LoaderError(
                f"{where}: no problem with id {pid!r} in {source}; "
                f"`execrl problems list {shown}` shows the ids"
            )
    return {p.id: p for p in select_problems(everything, list(first_use))}
