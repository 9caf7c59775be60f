"""Results written as they finish: a JSON-lines file appended and flushed row by row, so an
interrupted or crashed run keeps every row that finished, and ``resume`` picks up where it
stopped.

    with ResultsFile(path, key=lambda row: (row["problem_id"], row["program_sha256"]),
                     resume=args.resume) as out:
        for job in jobs:
            if out.has(job_key(job)):
                continue            # finished by an earlier, interrupted run
            out.write(run(job))

A ``.jsonl`` file is a valid JSON-lines file after every row; a row cut short by a crash
(the last line, without its newline) is dropped when the file is resumed or read with
:func:`read_rows`. A ``.jsonl.gz`` file gets one gzip member per row (a multi-member gzip
file, which every gzip reader reads whole); a member cut short is dropped the same way.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from execrl.errors import DataError, OutputError

Row = dict[str, Any]


class ResultsFile:
    """Append-only JSON-lines results at ``path``. Without ``resume`` an existing file is
    replaced; with it, its complete rows are kept and their ``key`` values are ``done``."""

    def __init__(
        self,
        path: str | Path,
        *,
        key: Callable[[Row], Hashable] | None = None,
        resume: bool = False,
    ) -> None:
        self.path = Path(path)
        self.key = key
        self.gzipped = self.path.name.endswith(".gz")
        self.rows: list[Row] = []
        self.done: set[Hashable] = set()
        self._broken = False
        if resume and self.path.exists():
            self.rows = read_rows(self.path, drop_torn=True)
            if key is not None:
                self.done = {key(row) for row in self.rows}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if resume and self.rows:
                self._rewrite(self.rows)  # (drops a torn last row)
                self._file = open(self.path, "ab")  # noqa: SIM115 (closed by close())
            else:
                self._file = open(self.path, "wb")  # noqa: SIM115
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot write results ({_reason(exc)})") from None

    @property
    def resumed(self) -> int:
        """How many rows an earlier run had finished."""
        return len(self.rows)

    def has(self, key: Hashable) -> bool:
        return key in self.done

    def write(self, row: Row | BaseModel) -> None:
        """Append one row and flush it to the file (it survives a crash from here on)."""
        data = row.model_dump(mode="json") if isinstance(row, BaseModel) else row
        line = (json.dumps(data) + "\n").encode("utf-8")
        if self.gzipped:
            line = gzip.compress(line)
        try:
            self._file.write(line)
            self._file.flush()
        except OSError as exc:
            self._broken = True
            raise OutputError(f"{self.path}: cannot write results ({_reason(exc)})") from None
        if self.key is not None:
            self.done.add(self.key(data))

    def close(self) -> None:
        """Close the file; after a failed write, quietly (the OutputError already said why,
        and closing would only retry the write that failed)."""
        try:
            self._file.close()
        except OSError:
            if not self._broken:
                raise

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rewrite(self, rows: list[Row]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as f:
            for row in rows:
                line = (json.dumps(row) + "\n").encode("utf-8")
                f.write(gzip.compress(line) if self.gzipped else line)
        os.replace(tmp, self.path)


def read_rows(path: str | Path, *, drop_torn: bool = True) -> list[Row]:
    """The rows of a JSON-lines file (``.jsonl`` or ``.jsonl.gz``). A last row cut short by
    a crash is dropped (``drop_torn``); a malformed row elsewhere is a DataError naming its
    line."""
    return list(iter_rows(path, drop_torn=drop_torn))


def iter_rows(path: str | Path, *, drop_torn: bool = True) -> Iterator[Row]:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({_reason(exc)})") from None
    if path.name.endswith(".gz"):
        data = _gunzip_members(path, data, drop_torn=drop_torn)
    lines = data.split(b"\n")
    torn = lines[-1]  # b"" when the file ends with a newline
    for number, line in enumerate(lines[:-1], 1):
        if line.strip():
            yield _parse(path, number, line)
    if torn.strip():
        try:
            yield _parse(path, len(lines), torn)
        except DataError:
            if not drop_torn:
                raise


def _parse(path: Path, number: int, line: bytes) -> Row:
    try:
        row = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise DataError(f"{path}, line {number}: not UTF-8 text") from None
    except ValueError as exc:
        raise DataError(f"{path}, line {number}: not JSON ({exc})") from None
    if not isinstance(row, dict):
        raise DataError(f"{path}, line {number}: expected a JSON object, got {type(row).__name__}")
    return row


def _gunzip_members(path: Path, data: bytes, *, drop_torn: bool) -> bytes:
    out, rest = [], data
    while rest:
        d = zlib.decompressobj(wbits=31)
        try:
            chunk = d.decompress(rest)
        except zlib.error:
            if drop_torn and out:
                break
            raise DataError(f"{path}: not a gzip file (or corrupt)") from None
        if not d.eof:  # a member cut short by a crash (the first one: not gzip at all)
            if not out and len(data) < 18:
                raise DataError(f"{path}: not a gzip file (or corrupt)")
            if drop_torn:
                break
            raise DataError(f"{path}: the gzip data ends early (an interrupted write?)")
        out.append(chunk)
        rest = d.unused_data
    return b"".join(out)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
