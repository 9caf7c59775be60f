"""Read dataset rows from the files public datasets ship as: JSONL, JSON arrays, Parquet."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from execrl.errors import ExecrlError, LoaderError
from execrl.problems._files import read_text
from execrl.problems.jsonl import iter_jsonl_rows


def iter_rows(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(where, row)`` pairs; ``where`` names the file and line/row for error messages."""
    path = Path(path)
    name = path.name
    if name.endswith((".jsonl", ".jsonl.gz")):
        for lineno, row in iter_jsonl_rows(path):
            yield f"{path}:{lineno}", _require_mapping(row, f"{path}:{lineno}")
    elif name.endswith(".json"):
        try:
            data = json.loads(read_text(path, error=LoaderError))
        except json.JSONDecodeError as exc:
            raise LoaderError(
                f"{path}:{exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno})"
            ) from exc
        if isinstance(data, dict):  # a single-object file is one row
            yield str(path), data
            return
        if not isinstance(data, list):
            raise LoaderError(
                f"{path}: expected a JSON object (one row) or an array of rows, "
                f"got {type(data).__name__}"
            )
        for i, row in enumerate(data):
            yield f"{path}[{i}]", _require_mapping(row, f"{path}[{i}]")
    elif name.endswith(".parquet"):
        for i, row in enumerate(_parquet_rows(path)):
            yield f"{path} row {i}", row
    else:
        raise LoaderError(
            f"{path}: unsupported file type; use .jsonl, .jsonl.gz, .json or .parquet"
        )


def _parquet_rows(path: Path) -> Iterator[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise LoaderError(
            "reading Parquet needs pyarrow; install it with `pip install 'execrl[data]'`"
        ) from exc
    try:
        table = pq.ParquetFile(path)
        batches = table.iter_batches(batch_size=64)
        for batch in batches:
            rows = batch.to_pylist()
            yield from rows
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid/ArrowIOError are both
        raise LoaderError(
            f"{path}: not a readable Parquet file ({' '.join(str(exc).split())[:160]})"
        ) from None


def convert_rows(
    path: str | Path,
    convert: Callable[[int, str, dict[str, Any]], Any],
    *,
    dataset: str,
) -> list[Any]:
    """``convert(index, where, row)`` for each row of ``path``. A row whose fields have
    shapes the converter does not expect (a number where a list belongs, ...) is a
    LoaderError naming the row, not a TypeError from deep inside the converter."""
    out = []
    for index, (where, row) in enumerate(iter_rows(path)):
        try:
            out.append(convert(index, where, row))
        except ExecrlError:
            raise
        except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            raise LoaderError(
                f"{where}: not a {dataset} row as expected ({type(exc).__name__}: "
                f"{' '.join(str(exc).split())[:120]}); check the format named and the row's "
                "fields"
            ) from exc
    return out


def _require_mapping(row: Any, where: str) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise LoaderError(f"{where}: expected a JSON object, got {type(row).__name__}")
    return row


def slugify(text: str) -> str:
    """A problem id from a free-form name: letters, digits and ``_`` kept, other runs to ``-``."""
    slug = re.sub(r"[^A-Za-z0-9_]+", "-", text.strip()).strip("-").lower()
    return slug or "problem"


def decode_literal_list(value: Any, *, where: str, field: str) -> list[str]:
    """A list of strings stored as a list, as JSON, or as a Python literal (TACO writes
    ``"['Sorting', 'Greedy algorithms']"``); a lone string is a one-element list. Never
    executes anything: ``ast.literal_eval`` only reads literals."""
    if value is None or value == "":
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    if not isinstance(value, str):
        raise LoaderError(f"{where}: field {field!r} should be a list of strings, got {value!r}")
    text = value.strip()
    if not text.startswith(("[", "(")):
        return [text]
    for parse in (ast.literal_eval, json.loads):
        try:
            decoded = parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(decoded, list | tuple):
            return [str(v) for v in decoded]
    raise LoaderError(
        f"{where}: field {field!r} is neither a Python nor a JSON list: {_clip(text)}"
    )


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def decode_json_field(value: Any, *, where: str, field: str) -> Any:
    """Datasets store nested JSON as strings; decode them with an error naming the field."""
    if not isinstance(value, str):
        return value
    if not value.strip():
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise LoaderError(f"{where}: field {field!r} is not valid JSON: {exc.msg}") from exc


def int_field(row: dict[str, Any], field: str, where: str) -> int:
    """An integer field (0 when absent or empty), with an error naming it otherwise."""
    value = row.get(field)
    if value in (None, ""):
        return 0
    try:
        return int(value)
    except (TypeError, ValueError):
        raise LoaderError(
            f"{where}: field {field!r} should be an integer, got {value!r:.60}"
        ) from None


def mapping_field(row: dict[str, Any], field: str, where: str) -> dict[str, Any]:
    """A nested-object field ({} when absent or empty), with an error naming it otherwise."""
    value = row.get(field)
    if value in (None, "", {}):
        return {}
    if not isinstance(value, dict):
        raise LoaderError(f"{where}: field {field!r} should be an object, got {value!r:.60}")
    return value
