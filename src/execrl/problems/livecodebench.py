"""LiveCodeBench code-generation rows (``code_generation_lite``).

Field by field:

- ``question_title`` → title; ``question_id`` → id (``lcb-<platform>-<question_id>``);
  ``question_content`` → statement; ``starter_code`` → starter code.
- ``public_test_cases`` and ``private_test_cases``: JSON lists of
  ``{"input", "output", "testtype"}``. Private cases in newer releases are stored compressed
  (base64 of zlib of a pickled JSON string); both forms are read, and the pickle is decoded
  with an unpickler that only admits plain strings, so a crafted file cannot run code.
  ``testtype: "stdin"`` → stdio test; ``"functional"`` → call test whose input lines are JSON
  arguments and whose output is the JSON return value. Public → ``public-i``, private →
  ``private-i``; all are T0 (``original``).
- checker: LiveCodeBench's grader (``Checker(kind="livecodebench")``): stripped lines, each
  pair equal as strings or as lists of Decimals.
- ``metadata`` (JSON string) → ``func_name`` becomes the entry point of functional tests.
- ``difficulty`` (easy/medium/hard), ``platform``, ``contest_id``, ``contest_date`` → ``source``.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import zlib
from pathlib import Path
from typing import Any

from execrl.errors import LoaderError
from execrl.problems._rows import convert_rows, decode_json_field, slugify
from execrl.problems._validation import parse_problem
from execrl.problems.models import Problem


class _StringsOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(
            f"refusing to load {module}.{name}: only plain strings allowed"
        )


def decode_test_cases(value: Any, *, where: str, field: str) -> list[dict[str, Any]]:
    """Decode a test-case field stored as JSON or as base64(zlib(pickle(json)))."""
    if isinstance(value, list):
        return value
    if not value:
        return []
    text = value.strip()
    if not text.startswith("["):
        try:
            raw = zlib.decompress(base64.b64decode(text.encode("utf-8")))
            text = _StringsOnlyUnpickler(io.BytesIO(raw)).load()
        except (ValueError, zlib.error, pickle.UnpicklingError, EOFError) as exc:
            raise LoaderError(
                f"{where}: {field} is neither JSON nor compressed test cases: {exc}"
            ) from exc
        if not isinstance(text, str):
            raise LoaderError(
                f"{where}: {field} decompressed to {type(text).__name__}, expected a JSON string"
            )
    cases = decode_json_field(text, where=where, field=field)
    if not isinstance(cases, list):
        raise LoaderError(f"{where}: {field} is not a list of test cases")
    return cases


def load_livecodebench(path: str | Path) -> list[Problem]:
    """Load LiveCodeBench rows from .jsonl[.gz], .json or .parquet."""
    return convert_rows(
        path,
        lambda _, where, row: parse_problem(lcb_row_to_dict(row, where), where=where),
        dataset="LiveCodeBench",
    )


def lcb_row_to_dict(row: dict[str, Any], where: str) -> dict[str, Any]:
    for field in ("question_id", "question_content"):
        if field not in row:
            raise LoaderError(f"{where}: LiveCodeBench row has no {field!r}")
    metadata = decode_json_field(row.get("metadata"), where=where, field="metadata") or {}
    fn_name = metadata.get("func_name")
    tests = []
    for field, prefix in (("public_test_cases", "public"), ("private_test_cases", "private")):
        for i, case in enumerate(decode_test_cases(row.get(field), where=where, field=field)):
            tests.append(_test(case, f"{prefix}-{i}", fn_name, where))
    platform = row.get("platform") or "unknown"
    return {
        "id": slugify(f"lcb-{platform}-{row['question_id']}"),
        "title": row.get("question_title") or str(row["question_id"]),
        "statement": row["question_content"],
        "difficulty": row.get("difficulty")
        if row.get("difficulty") in ("easy", "medium", "hard")
        else "unknown",
        "tests": tests,
        "checker": {"kind": "livecodebench"},
        "entry_point": fn_name,
        "starter_code": row.get("starter_code") or None,
        "source": {
            "dataset": "livecodebench",
            "id": str(row["question_id"]),
            "difficulty": row.get("difficulty"),
            "extra": {k: row[k] for k in ("platform", "contest_id", "contest_date") if row.get(k)},
        },
    }


def _test(case: dict[str, Any], test_id: str, fn_name: str | None, where: str) -> dict[str, Any]:
    if not isinstance(case, dict) or not {"input", "output"} <= case.keys():
        raise LoaderError(f"{where}: test {test_id} needs 'input' and 'output', got {case!r:.60}")
    kind = case.get("testtype", "stdin")
    if kind == "stdin":
        return {"kind": "stdio", "id": test_id, "input": case["input"], "output": case["output"]}
    if kind != "functional":
        raise LoaderError(f"{where}: test {test_id} has unknown testtype {kind!r}")
    if not fn_name:
        raise LoaderError(f"{where}: functional test {test_id} but metadata has no 'func_name'")
    try:
        args = [json.loads(line) for line in case["input"].split("\n") if line.strip()]
        expected = json.loads(case["output"])
    except json.JSONDecodeError as exc:
        raise LoaderError(
            f"{where}: functional test {test_id} is not JSON lines: {exc.msg}"
        ) from exc
    return {"kind": "call", "id": test_id, "fn_name": fn_name, "args": args, "expected": expected}
