"""Completions sampled elsewhere, read from JSONL: the one reader behind ``execrl eval sample
--model FILE.jsonl`` and ``execrl score --programs FILE.jsonl``.

A row is a JSON object with ``problem_id`` and the program's text under ``completion`` (a
model's whole answer: the program is extracted from it with :func:`execrl.extract.extract_code`)
or ``program`` / ``code`` (a program already); ``name`` (or ``program_name``) names it in
reports. The file may be gzipped (``.jsonl.gz``) and may start with a byte-order mark.
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

from execrl.errors import LoaderError
from execrl.extract import extract_code

CODE_FIELDS = ("completion", "program", "code")
"""Row fields holding a program, in order of preference; only ``completion`` goes through
``extract_code`` (the others are programs already)."""

COMPLETION_FILES = (".jsonl", ".jsonl.gz")
"""The names a completions file ends in."""

ROW_NEEDS = "each row needs a 'problem_id' and a 'completion' (or 'program' / 'code') string"


@dataclass(frozen=True)
class Completion:
    """One row of a completions file: the problem it answers, the name it is reported under
    (the row's ``name``, else ``<file name>:<line>``), its text and the program in it."""

    problem_id: str
    name: str
    text: str
    program: str


def read_completions(path: str | Path) -> list[Completion]:
    """Every row of the JSONL file ``path``, in file order (blank lines skipped; an empty file
    gives ``[]``). A file that cannot be read, is not UTF-8, or has a row that is not an
    object with ``problem_id`` and a program is a one-line :class:`LoaderError` naming the
    file and line."""
    path = Path(path)
    rows = []
    for number, line in enumerate(text_lines(path), start=1):
        if line.strip():
            rows.append(completion_row(line, path, number))
    return rows


def completion_row(line: str, path: Path, number: int) -> Completion:
    """One JSONL line as a Completion (``path:number`` names it in errors)."""
    where = f"{path}:{number}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LoaderError(f"{where}: not valid JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise LoaderError(f"{where}: a row is a JSON object, got {type(row).__name__}; {ROW_NEEDS}")
    if not isinstance(row.get("problem_id"), str):
        raise LoaderError(f"{where}: no 'problem_id'; {ROW_NEEDS}")
    field = next((k for k in CODE_FIELDS if isinstance(row.get(k), str)), None)
    if field is None:
        raise LoaderError(f"{where}: no 'completion'; {ROW_NEEDS}")
    text = row[field]
    program = extract_code(text) if field == "completion" else text
    name = str(row.get("name") or row.get("program_name") or f"{path.name}:{number}")
    return Completion(row["problem_id"], name, text, program)


def text_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file, gunzipped when it ends in ``.gz`` (a byte-order mark is
    dropped); a missing, unreadable, cut-short or undecodable file is a LoaderError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LoaderError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if path.name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error):
            raise LoaderError(f"{path}: cannot read it (not a gzip file, or cut short)") from None
    try:
        return raw.decode("utf-8-sig").split("\n")
    except UnicodeDecodeError as exc:
        raise LoaderError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
