"""Stage files: one JSONL file per stage, rows written in input order as they finish.

Every input row of a stage gives one or more output rows, each ``{"id", "parent", "kept",
"reason", "provenance", ...}``; dropped rows stay in the file with their reason, so the
funnel is read back from the files. Rows are appended in input order, so a stopped stage's
file is always a prefix of the finished one: resuming skips the inputs whose rows are there
and appends the rest (a torn last line, from a stop mid-write, is cut off first).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from execrl.synthesis.client import Meter

Row = dict[str, Any]
T = TypeVar("T")
R = TypeVar("R")


def read_rows(path: Path) -> list[Row]:
    """The complete rows of a JSONL file ([] when absent); a torn last line is left out."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            break  # a torn line can only be the last one written
    return rows


def kept(rows: Iterable[Row]) -> list[Row]:
    return [row for row in rows if row.get("kept")]


class StageFile:
    """Appending one stage's rows, and its cost ledger beside it (``costs.jsonl``)."""

    def __init__(self, folder: Path, stage: str) -> None:
        self.stage = stage
        self.path = folder / f"{stage}.jsonl"
        self.ledger = folder / "costs.jsonl"
        self._lock = threading.Lock()
        rows = read_rows(self.path)
        _rewrite_if_torn(self.path, rows)
        self.rows = rows

    def done_parents(self) -> set[str]:
        """Input ids whose output rows are all written (an input's rows go in one write)."""
        return {row["input"] for row in self.rows}

    def append(self, input_id: str, rows: list[Row], meter: Meter) -> None:
        """One input's output rows and what they cost, in one write each."""
        for row in rows:
            row["input"] = input_id
        text = "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows)
        cost = {"stage": self.stage, "input": input_id, **meter.to_dict()}
        with self._lock:
            with self.path.open("a", encoding="utf-8") as f:
                f.write(text)
            with self.ledger.open("a", encoding="utf-8") as f:
                f.write(json.dumps(cost) + "\n")
            self.rows.extend(rows)


def _rewrite_if_torn(path: Path, rows: list[Row]) -> None:
    if not path.exists():
        return
    text = path.read_text(encoding="utf-8")
    whole = "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows)
    if text != whole:
        path.write_text(whole, encoding="utf-8")


def ordered_map(fn: Callable[[T], R], items: list[T], *, jobs: int) -> Iterator[tuple[T, R]]:
    """``(item, fn(item))`` in input order, ``jobs`` at a time. When ``fn`` raises, the
    items not started are cancelled, the running ones finish, and the error is raised after
    every earlier item has been yielded."""
    if jobs <= 1:
        for item in items:
            yield item, fn(item)
        return
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="synthesis") as pool:
        futures: list[Future[R]] = [pool.submit(fn, item) for item in items]
        try:
            for item, future in zip(items, futures, strict=True):
                yield item, future.result()
        finally:
            for future in futures:
                future.cancel()
