"""TACO and APPS rows (they share the ``input_output`` / ``solutions`` convention).

Field by field:

- ``question`` → statement; ``name`` (TACO) or the problem id → title.
- ``input_output`` (a JSON string ``{"inputs": [...], "outputs": [...], "fn_name"?: str}``):
  without ``fn_name`` each pair is a stdio test (an input or output given as a list of lines is
  joined with newlines); with ``fn_name`` each input is the list of call arguments and each
  output the return value. APPS/TACO usually wrap a call's return value in a one-element list
  and their checker accepts either form, so such a test expects the unwrapped value and
  ``also_accept``s the wrapped one. All tests are T0 (``original``).
- checker: the APPS/TACO harness's own comparison (``Checker(kind="apps")``), and
  ``stdin_as_function`` for stdio problems: their harness runs a stdin program as the body of
  a function, so a top-level ``return`` is allowed (``execrl.sandbox.wrapping``).
- ``solutions`` (a JSON string list of programs) → correct references ``solution-0``, …, in
  ``python``: TACO's and APPS' solutions are all Python 3 programs (the field carries no
  language). ``languages`` filters them as it does every loader's (a list without
  ``python`` keeps none).
- ``starter_code`` → ``starter_code``; ``fn_name`` → ``entry_point``.
- ``difficulty``: APPS ``introductory`` / ``interview`` / ``competition`` and TACO ``EASY`` /
  ``MEDIUM`` / ``MEDIUM_HARD`` / ``HARD`` / ``VERY_HARD`` → easy / medium / hard.
- ``problem_id`` (APPS) → id; TACO rows have none, so the id is ``<prefix>-<row number>``.
- TACO's ``time_limit`` ("2 seconds") and ``memory_limit`` ("256 megabytes") → limits;
  ``tags``, ``raw_tags``, ``skill_types`` (TACO stores these three as Python-literal strings
  such as ``"['Sorting', 'Greedy algorithms']"``; read with ``ast.literal_eval``, JSON as a
  fallback), ``source``, ``url``, ``date``, ``picture_num``,
  ``Expected Time Complexity`` and ``Expected Auxiliary Space`` → ``source`` / ``tags``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from execrl.errors import LoaderError
from execrl.problems._rows import convert_rows, decode_json_field, decode_literal_list, slugify
from execrl.problems._validation import parse_problem
from execrl.problems.language_names import canonical_languages, keeps
from execrl.problems.models import Difficulty, Problem

DIFFICULTIES: dict[str, Difficulty] = {
    "introductory": "easy",
    "interview": "medium",
    "competition": "hard",
    "EASY": "easy",
    "MEDIUM": "medium",
    "MEDIUM_HARD": "hard",
    "HARD": "hard",
    "VERY_HARD": "hard",
}
_LIST_FIELDS = ("raw_tags", "skill_types")
"""TACO stores these (and ``tags``) as Python-literal strings: ``"['Sorting', 'Greedy']"``."""
_EXTRA_FIELDS = (
    "raw_tags",
    "skill_types",
    "source",
    "date",
    "picture_num",
    "Expected Time Complexity",
    "Expected Auxiliary Space",
)


SOLUTIONS_LANGUAGE = "python"
"""The language of every TACO/APPS solution."""


def load_taco(
    path: str | Path,
    *,
    id_prefix: str | None = None,
    languages: Iterable[str] | str | None = None,
) -> list[Problem]:
    """Load TACO or APPS rows from .parquet, .jsonl[.gz] or .json. ``languages`` (names the
    language table knows; None: all) keeps the solutions in those languages: all of them are
    Python, so a list without ``python`` keeps no references."""
    prefix = id_prefix or slugify(Path(path).name.split(".")[0])
    keep_solutions = keeps(canonical_languages(languages), SOLUTIONS_LANGUAGE)

    def convert(index: int, where: str, row: dict[str, Any]) -> Problem:
        data = taco_row_to_dict(row, where, f"{prefix}-{index}")
        if not keep_solutions:
            data["references"] = []
        return parse_problem(data, where=where)

    return convert_rows(path, convert, dataset="TACO/APPS")


def taco_row_to_dict(row: dict[str, Any], where: str, fallback_id: str) -> dict[str, Any]:
    if "question" not in row:
        raise LoaderError(f"{where}: TACO/APPS row has no 'question'")
    io = decode_json_field(row.get("input_output"), where=where, field="input_output") or {}
    if not isinstance(io, dict):
        raise LoaderError(
            f"{where}: field 'input_output' should be a JSON object with 'inputs' and "
            f"'outputs', got {io!r:.60}"
        )
    fn_name = io.get("fn_name")
    inputs, outputs = io.get("inputs") or [], io.get("outputs") or []
    if len(inputs) != len(outputs):
        raise LoaderError(
            f"{where}: input_output has {len(inputs)} inputs but {len(outputs)} outputs"
        )
    pairs = list(zip(inputs, outputs, strict=True))
    tests = (
        [call_test_dict(i, fn_name, inp, out) for i, (inp, out) in enumerate(pairs)]
        if fn_name
        else [
            {
                "kind": "stdio",
                "id": f"test-{i}",
                "input": stdio_text(inp),
                "output": stdio_text(out),
            }
            for i, (inp, out) in enumerate(pairs)
        ]
    )
    solutions = decode_json_field(row.get("solutions"), where=where, field="solutions") or []
    problem_id = str(row["problem_id"]) if row.get("problem_id") not in (None, "") else fallback_id
    raw_difficulty = row.get("difficulty")
    data: dict[str, Any] = {
        "id": slugify(problem_id) if row.get("problem_id") in (None, "") else f"apps-{problem_id}",
        "title": row.get("name") or problem_id,
        "statement": row["question"],
        "difficulty": DIFFICULTIES.get(str(raw_difficulty), "unknown"),
        "tests": tests,
        "references": [
            {
                "name": f"solution-{i}",
                "code": code,
                "label": "correct",
                "language": SOLUTIONS_LANGUAGE,
            }
            for i, code in enumerate(solutions)
        ],
        "entry_point": fn_name,
        "starter_code": row.get("starter_code") or None,
        "checker": {"kind": "apps"},
        "stdin_as_function": not fn_name,
        "tags": decode_literal_list(row.get("tags"), where=where, field="tags"),
        "source": {
            "dataset": "apps" if "problem_id" in row else "taco",
            "id": problem_id,
            "url": row.get("url") or None,
            "difficulty": raw_difficulty,
            "extra": _extra_fields(row, where),
        },
    }
    if (seconds := _seconds(row.get("time_limit"))) is not None:
        data["time_limit_s"] = seconds
    if (megabytes := _number(row.get("memory_limit"))) is not None:
        data["memory_limit_mb"] = int(megabytes)
    return data


def call_test_dict(index: int, fn_name: str, args: Any, expected: Any) -> dict[str, Any]:
    args = args if isinstance(args, list) else [args]
    test: dict[str, Any] = {"kind": "call", "id": f"test-{index}", "fn_name": fn_name, "args": args}
    if isinstance(expected, list) and len(expected) == 1:
        test["expected"], test["also_accept"] = expected[0], [expected]
    else:
        test["expected"] = expected
    return test


def stdio_text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(str(v) for v in value) + "\n"
    return str(value)


def _extra_fields(row: dict[str, Any], where: str) -> dict[str, Any]:
    extra = {k: row[k] for k in _EXTRA_FIELDS if row.get(k) not in (None, "", [])}
    for field in _LIST_FIELDS:
        if field in extra:
            extra[field] = decode_literal_list(extra[field], where=where, field=field)
    return extra


def _number(value: Any) -> float | None:
    """The leading number of ``"2 seconds"`` / ``"256 megabytes"`` (``None`` if absent)."""
    if value in (None, ""):
        return None
    if isinstance(value, int | float):
        return float(value)
    match = re.search(r"\d+(\.\d+)?", str(value))
    return float(match.group()) if match else None


def _seconds(value: Any) -> float | None:
    """``"2 seconds"`` → 2.0; ``"1500 ms"`` / ``"1500 milliseconds"`` → 1.5."""
    number = _number(value)
    if number is not None and re.search(r"\d\s*(ms|millisec)", str(value), re.IGNORECASE):
        return number / 1000
    return number
