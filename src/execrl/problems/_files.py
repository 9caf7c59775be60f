"""Read the files problem sets are made of, with errors that name the file and say what to do.

Every loader reads text through these: a file that is not UTF-8, not gzip (``.gz``), not JSON
or not YAML, or cannot be read at all, is a :class:`~execrl.errors.DataError` subclass whose
message names the file (and line) — never a bare ``UnicodeDecodeError`` that names nothing.
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

import yaml

from execrl.errors import DataError, ProblemFormatError


def read_bytes(path: Path, *, error: type[DataError] = ProblemFormatError) -> bytes:
    """The file's bytes, gunzipped when its name ends in ``.gz``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    if path.name.endswith(".gz"):
        return gunzip(raw, path, error=error)
    return raw


def gunzip(raw: bytes, path: Path, *, error: type[DataError] = ProblemFormatError) -> bytes:
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error):  # BadGzipFile is an OSError
        raise error(
            f"{path}: not a gzip file (or cut short); recompress it with gzip, or drop the "
            "'.gz' from its name if it is plain text"
        ) from None


def decode_utf8(
    raw: bytes, where: str | Path, *, error: type[DataError] = ProblemFormatError
) -> str:
    """``raw`` as text; bytes that are not UTF-8 name the line and the offending bytes."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise error(
            f"{where}: not UTF-8 text (line {line}: byte {raw[exc.start : exc.start + 1]!r} "
            f"at offset {exc.start}); re-encode the file as UTF-8 "
            "(e.g. iconv -f latin1 -t utf-8)"
        ) from None


def read_text(path: Path, *, error: type[DataError] = ProblemFormatError) -> str:
    """A UTF-8 text file (gzip-compressed when named ``*.gz``), line endings kept as stored."""
    return decode_utf8(read_bytes(path, error=error), path, error=error)


def read_json(path: Path, *, error: type[DataError] = ProblemFormatError) -> Any:
    """A JSON file's value; invalid JSON names the line and column."""
    text = read_text(path, error=error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


def read_yaml(path: Path, *, error: type[DataError] = ProblemFormatError) -> Any:
    """A YAML file's value; a YAML error becomes one line naming the line and column."""
    text = read_text(path, error=error)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise error(f"{path}: not valid YAML ({yaml_problem(exc)})") from None


def yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's several-line message as one: where (line, column) and what is wrong."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    return where + " ".join(str(problem).split())
