"""DeepMind CodeContests rows (the Hugging Face ``deepmind/code_contests`` schema).

Field by field:

- ``name`` → title and (slugified) id; ``description`` → statement.
- ``public_tests``, ``private_tests``, ``generated_tests`` (``{input: [...], output: [...]}``)
  → stdio tests in group T0 (``original``), ids ``public-0``, ``private-3``, ``generated-17``.
- ``solutions`` / ``incorrect_solutions`` (``{language: [int], solution: [str]}``) → correct /
  incorrect references ``correct-<i>`` / ``incorrect-<i>`` (``i`` the position in the row, so
  a name does not change with the filter), in every language unless ``languages`` names some.
  Language codes: 1 Python 2 → ``python2`` (never run as Python 3), 2 C++ → ``cpp``,
  3 Python 3 → ``python``, 4 Java → ``java``; 0 (unknown) cannot be run and is dropped.
- checker: DeepMind's own tester's comparison (``CODECONTESTS_CHECKER``): tokens compared
  case-insensitively, numeric tokens within 1e-5 (absolute or relative).
- ``time_limit`` (``{seconds, nanos}``) → ``time_limit_s``; ``memory_limit_bytes`` →
  ``memory_limit_mb``.
- ``difficulty`` (enum: 1 EASY, 2 MEDIUM, 3-5 HARD/HARDER/HARDEST, 6 EXTERNAL, 7+ letters A, B, …)
  and ``cf_rating`` → normalised difficulty (see ``normalise_difficulty``); raw values kept in
  ``source``.
- ``source`` (enum: 1 CodeChef, 2 Codeforces, 3 HackerEarth, 4 Code Jam, 5 AtCoder, 6 Aizu),
  ``cf_contest_id``, ``cf_index``, ``cf_points``, ``cf_tags``, ``is_description_translated``,
  ``untranslated_description``, ``input_file``, ``output_file`` → ``source`` / ``tags``.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from execrl.errors import LoaderError
from execrl.problems._rows import convert_rows, int_field, mapping_field, slugify
from execrl.problems._validation import parse_problem
from execrl.problems.language_names import canonical_languages, keeps
from execrl.problems.models import Difficulty, Problem, TestGroup

LANGUAGES = {1: "python2", 2: "cpp", 3: "python", 4: "java"}
"""CodeContests' ``Language`` enum → execrl's language name (0, UNKNOWN_LANGUAGE, has none)."""
SOURCES = {
    0: "unknown",
    1: "codechef",
    2: "codeforces",
    3: "hackerearth",
    4: "codejam",
    5: "atcoder",
    6: "aizu",
}
_NAMED_DIFFICULTIES = {
    0: "UNKNOWN_DIFFICULTY",
    1: "EASY",
    2: "MEDIUM",
    3: "HARD",
    4: "HARDER",
    5: "HARDEST",
    6: "EXTERNAL",
}
_LETTER_BASE = 7  # 7 = A, 8 = B, ...
CODECONTESTS_CHECKER = {"kind": "float", "abs_tol": 1e-5, "rel_tol": 1e-5, "case_sensitive": False}
"""DeepMind's tester: tokens equal ignoring case; numeric tokens equal within 1e-5 (absolute
or relative), so ``0.5`` matches ``0.5000000000`` and ``YES`` matches ``yes``."""
TEST_FIELDS = {"public_tests": "public", "private_tests": "private", "generated_tests": "generated"}


def difficulty_name(code: int) -> str:
    """The enum name of a CodeContests difficulty code (``3`` → ``HARD``, ``9`` → ``C``)."""
    if code in _NAMED_DIFFICULTIES:
        return _NAMED_DIFFICULTIES[code]
    index = code - _LETTER_BASE
    if 0 <= index < len(string.ascii_uppercase):
        return string.ascii_uppercase[index]
    return "UNKNOWN_DIFFICULTY"


def normalise_difficulty(code: int, cf_rating: int | None) -> Difficulty:
    """Map to easy/medium/hard: named levels directly; otherwise the Codeforces rating
    (< 1400 easy, < 2000 medium, else hard); otherwise the problem letter (A-B easy, C-D medium,
    E+ hard)."""
    name = difficulty_name(code)
    if name == "EASY":
        return "easy"
    if name == "MEDIUM":
        return "medium"
    if name in {"HARD", "HARDER", "HARDEST"}:
        return "hard"
    if cf_rating:
        return "easy" if cf_rating < 1400 else "medium" if cf_rating < 2000 else "hard"
    if len(name) == 1:
        return "easy" if name in "AB" else "medium" if name in "CD" else "hard"
    return "unknown"


def load_codecontests(
    path: str | Path,
    *,
    languages: Iterable[str] | str | None = None,
    include_generated: bool = True,
) -> list[Problem]:
    """Load CodeContests rows from .parquet, .jsonl[.gz] or .json.

    ``languages`` keeps only the solutions in those languages (any name or alias the language
    table knows: ``["cpp", "python3"]`` or ``"cpp,java"``); None keeps every language.
    ``include_generated=False`` drops the (numerous) generated tests.
    """
    wanted = canonical_languages(languages)
    return convert_rows(
        path,
        lambda _, where, row: parse_problem(
            codecontests_row_to_dict(row, where, wanted, include_generated), where=where
        ),
        dataset="CodeContests",
    )


def codecontests_row_to_dict(
    row: dict[str, Any],
    where: str,
    languages: frozenset[str] | None = None,
    include_generated: bool = True,
) -> dict[str, Any]:
    if not row.get("name"):
        raise LoaderError(f"{where}: CodeContests row has no 'name'")
    tests = []
    for field, prefix in TEST_FIELDS.items():
        if field == "generated_tests" and not include_generated:
            continue
        block = mapping_field(row, field, where)
        inputs, outputs = block.get("input") or [], block.get("output") or []
        if len(inputs) != len(outputs):
            raise LoaderError(
                f"{where}: {field} has {len(inputs)} inputs but {len(outputs)} outputs"
            )
        tests += [
            {
                "kind": "stdio",
                "id": f"{prefix}-{i}",
                "group": TestGroup.ORIGINAL.value,
                "input": inp,
                "output": out,
            }
            for i, (inp, out) in enumerate(zip(inputs, outputs, strict=True))
        ]
    references = _references(row.get("solutions"), "correct", languages, where) + _references(
        row.get("incorrect_solutions"), "incorrect", languages, where
    )
    code = int_field(row, "difficulty", where)
    rating = int_field(row, "cf_rating", where) or None
    data: dict[str, Any] = {
        "id": slugify(row["name"]),
        "title": row["name"],
        "statement": row.get("description") or "",
        "difficulty": normalise_difficulty(code, rating),
        "tests": tests,
        "checker": CODECONTESTS_CHECKER,
        "references": references,
        "tags": list(row.get("cf_tags") or []),
        "source": {
            "dataset": "codecontests",
            "id": row["name"],
            "difficulty": difficulty_name(code),
            "rating": rating,
            "extra": {
                "platform": SOURCES.get(int_field(row, "source", where), "unknown"),
                **{
                    k: row[k]
                    for k in (
                        "cf_contest_id",
                        "cf_index",
                        "cf_points",
                        "is_description_translated",
                        "untranslated_description",
                        "input_file",
                        "output_file",
                    )
                    if row.get(k) not in (None, "")
                },
            },
        },
    }
    time_limit = mapping_field(row, "time_limit", where)
    if time_limit and (time_limit.get("seconds") or time_limit.get("nanos")):
        data["time_limit_s"] = (
            int(time_limit.get("seconds") or 0) + int(time_limit.get("nanos") or 0) / 1e9
        )
    if memory := int_field(row, "memory_limit_bytes", where):
        data["memory_limit_mb"] = max(1, memory // (1024 * 1024))
    return data


def _references(
    block: Any, label: str, languages: frozenset[str] | None, where: str
) -> list[dict[str, Any]]:
    block = block or {}
    codes, sources = block.get("language") or [], block.get("solution") or []
    if len(codes) != len(sources):
        raise LoaderError(
            f"{where}: {label} solutions have {len(codes)} languages for {len(sources)} programs"
        )
    refs = []
    for i, (lang_code, code) in enumerate(zip(codes, sources, strict=True)):
        language = LANGUAGES.get(int(lang_code))
        if language is not None and keeps(languages, language):
            refs.append(
                {"name": f"{label}-{i}", "code": code, "label": label, "language": language}
            )
    return refs
