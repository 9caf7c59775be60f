"""The compact format: one Problem as JSON per line, optionally gzip-compressed (``.jsonl.gz``)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from execrl.errors import ProblemFormatError
from execrl.problems._validation import parse_problem
from execrl.problems.models import Problem


def _open(path: Path, mode: str) -> IO[str]:
    if path.name.endswith(".gz"):
        return gzip.open(path, mode + "t", encoding="utf-8")  # type: ignore[return-value]
    return open(path, mode, encoding="utf-8")


def iter_jsonl_rows(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, decoded object) for each non-blank line of a .jsonl[.gz] file."""
    path = Path(path)
    with _open(path, "r") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                raise ProblemFormatError(f"{path}:{lineno}: not valid JSON: {exc.msg}") from exc


def read_problems_jsonl(path: str | Path) -> list[Problem]:
    path = Path(path)
    return [parse_problem(row, where=f"{path}:{lineno}") for lineno, row in iter_jsonl_rows(path)]


def write_problems_jsonl(problems: Iterable[Problem], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _open(path, "w") as f:
        for problem in problems:
            f.write(problem.model_dump_json())
            f.write("\n")
    return path
