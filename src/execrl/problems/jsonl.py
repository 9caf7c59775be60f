"""The compact format: one Problem as JSON per line, optionally gzip-compressed (``.jsonl.gz``)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from execrl.errors import OutputError, ProblemFormatError
from execrl.problems._files import decode_utf8
from execrl.problems._validation import parse_problem
from execrl.problems.models import Problem


def _open_for_writing(path: Path, *, gzipped: bool) -> IO[str]:
    if gzipped:
        return gzip.open(path, "wt", encoding="utf-8")  # type: ignore[return-value]
    return open(path, "w", encoding="utf-8")


def _lines(path: Path) -> Iterator[bytes]:
    """The file's lines as bytes (gunzipped for ``.gz``), read as they are needed."""
    try:
        with gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb") as f:
            yield from f
    except (gzip.BadGzipFile, EOFError, zlib.error):
        raise ProblemFormatError(
            f"{path}: not a gzip file (or cut short); recompress it with gzip, or name it "
            ".jsonl if it is plain text"
        ) from None
    except OSError as exc:
        raise ProblemFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None


def iter_jsonl_rows(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, decoded object) for each non-blank line of a .jsonl[.gz] file."""
    path = Path(path)
    for lineno, raw in enumerate(_lines(path), start=1):
        line = decode_utf8(raw, f"{path}:{lineno}").removeprefix("\ufeff" if lineno == 1 else "")
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise ProblemFormatError(
                f"{path}:{lineno}: not valid JSON: {exc.msg} (column {exc.colno}); each line "
                "holds one JSON object"
            ) from exc


def read_problems_jsonl(path: str | Path) -> list[Problem]:
    path = Path(path)
    return [parse_problem(row, where=f"{path}:{lineno}") for lineno, row in iter_jsonl_rows(path)]


def write_problems_jsonl(problems: Iterable[Problem], path: str | Path) -> Path:
    """Write ``problems`` to ``path`` atomically: a failure part-way leaves any file already
    there as it was. An unwritable destination is an OutputError naming it."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _open_for_writing(partial, gzipped=path.name.endswith(".gz")) as f:
            for problem in problems:
                f.write(problem.model_dump_json())
                f.write("\n")
        os.replace(partial, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise OutputError(
            f"{path}: cannot write ({exc.strerror or exc}); choose a destination you can write to"
        ) from None
    return path
