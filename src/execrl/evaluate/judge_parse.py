"""Reading a judge's answer (spec pairwise-judge.md): one JSON object after free-text analysis.

Judges, small ones above all, write the object inside a ```json fence or bare, after (or
between) paragraphs, sometimes with a schema echoed first, trailing commas, single quotes,
Python's ``True``/``False``/``None``, or enum values in another spelling. The parser takes the
**last** balanced ``{...}`` in the text that reads as a judgement, repairs those slips, and
maps spellings onto the spec's values. Anything else is a parse error with a reason — a
:class:`ParseResult` without a judgement, counted by the caller, never an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class PrimaryCategory(StrEnum):
    """What made the faster solution faster (the spec's eight categories)."""

    ALGORITHM_CHANGE = "ALGORITHM_CHANGE"
    DATA_STRUCTURE_CHANGE = "DATA_STRUCTURE_CHANGE"
    COMPLEXITY_REDUCTION = "COMPLEXITY_REDUCTION"
    IO_OPTIMIZATION = "IO_OPTIMIZATION"
    CACHING_MEMOIZATION = "CACHING_MEMOIZATION"
    CONSTANT_FACTOR = "CONSTANT_FACTOR"
    IMPLEMENTATION_STYLE = "IMPLEMENTATION_STYLE"
    MATHEMATICAL_SHORTCUT = "MATHEMATICAL_SHORTCUT"


class Classification(StrEnum):
    """Whether the difference is a real algorithmic change or a superficial one."""

    ALGORITHMIC = "ALGORITHMIC"
    SUPERFICIAL = "SUPERFICIAL"


SOLUTION_1, SOLUTION_2, SAME = "Solution 1", "Solution 2", "Same"
FASTER_VALUES = (SOLUTION_1, SOLUTION_2, SAME)
CASES = ("best", "average", "worst")
"""The complexity cases the judge states for each solution."""
SOLUTIONS = ("solution_1", "solution_2")
FIELDS = (
    "faster",
    "primary_category",
    "secondary_categories",
    "classification",
    "classification_reason",
    "complexity",
    "complexity_improves",
    "key_differences",
)
"""The judgement's fields, in the order the prompt lists them."""

_SAME_WORDS = {"same", "equal", "tie", "neither", "none", "both", "identical"}
_TRUE_WORDS = {"true", "yes", "y", "1"}
_FALSE_WORDS = {"false", "no", "n", "0"}
_NULL_WORDS = {"null", "none", "unknown", "n/a", "na", "unclear", ""}


@dataclass(frozen=True)
class Judgement:
    """One judge call's answer, in the spec's values."""

    faster: str
    """``Solution 1``, ``Solution 2`` or ``Same`` (positions as shown to the judge)."""
    primary_category: PrimaryCategory | None
    """None only when ``faster`` is ``Same`` (there is no faster one to explain)."""
    secondary_categories: tuple[PrimaryCategory, ...] = ()
    classification: Classification | None = None
    classification_reason: str = ""
    complexity: dict[str, dict[str, str | None]] = field(default_factory=dict)
    """``{"solution_1": {"best": "O(n)", "average": ..., "worst": ...}, "solution_2": ...}``."""
    complexity_improves: dict[str, bool | None] = field(default_factory=dict)
    """Per case (best, average, worst): does the faster one's complexity improve."""
    key_differences: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "faster": self.faster,
            "primary_category": self.primary_category,
            "secondary_categories": list(self.secondary_categories),
            "classification": self.classification,
            "classification_reason": self.classification_reason,
            "complexity": self.complexity,
            "complexity_improves": self.complexity_improves,
            "key_differences": list(self.key_differences),
        }


@dataclass(frozen=True)
class ParseResult:
    """A judgement, or why none could be read (exactly one of the two is set)."""

    judgement: Judgement | None
    error: str | None = None


def parse_judgement(text: str) -> ParseResult:
    """The judgement in a judge's free text: the last balanced JSON object that reads as one
    (an earlier one is tried only when a later one does not); never raises."""
    spans = json_objects(text)
    if not spans:
        truncated = "{" in text
        return ParseResult(
            None, "the JSON object is cut short" if truncated else "no JSON object in the answer"
        )
    error = ""
    for span in reversed(spans):
        try:
            return ParseResult(judgement_from(loads_lenient(span)))
        except ValueError as exc:
            error = error or str(exc)  # the last object's reason is the one reported
    return ParseResult(None, error)


# --------------------------------------------------------------------------------------------
# Finding and loading the object


def json_objects(text: str) -> list[str]:
    """Every outermost balanced ``{...}`` span of ``text``, in order. Braces inside quoted
    strings (double or single quotes, with backslash escapes) do not count; an object left
    open at the end of the text (a truncated answer) is not returned."""
    spans, depth, start, quote, i = [], 0, 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote and not _is_apostrophe(text, i):
                quote = ""
        elif ch in "\"'" and depth > 0 and not _is_apostrophe(text, i):
            quote = ch
        elif ch == "{":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
        i += 1
    return spans


def _is_apostrophe(text: str, i: int) -> bool:
    """A single quote between two letters (``don't``) is prose, not a string delimiter."""
    return (
        text[i] == "'" and 0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha()
    )


def loads_lenient(span: str) -> Any:
    """``span`` as JSON, after repairing what judges get wrong: single-quoted strings,
    trailing commas, Python's True/False/None (any case). A ValueError says what is left."""
    try:
        return json.loads(span, strict=False)
    except ValueError:
        pass
    try:
        return json.loads(_repaired(span), strict=False)
    except ValueError as exc:
        raise ValueError(f"the last JSON object is not valid JSON ({exc})") from None


_WORD = re.compile(r"[A-Za-z_]+")
_LITERALS = {"true": "true", "false": "false", "none": "null", "null": "null"}


def _repaired(span: str) -> str:
    """Rewrite ``span`` into JSON: every string double-quoted, literals in JSON's spelling,
    commas before a closing bracket dropped."""
    out: list[str] = []
    i = 0
    while i < len(span):
        ch = span[i]
        if ch in "\"'":
            text, i = _read_string(span, i)
            out.append(json.dumps(text))
            continue
        if ch == ",":
            rest = span[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                i += 1
                continue
        match = _WORD.match(span, i)
        if match:
            word = match.group()
            out.append(_LITERALS.get(word.lower(), word))
            i = match.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _read_string(span: str, start: int) -> tuple[str, int]:
    """The string opening at ``span[start]`` (its quote character), unescaped, and the index
    after it. In a single-quoted string an apostrophe between letters (``'don't'``) is part
    of the text; an unterminated string runs to the end."""
    quote, chars, i = span[start], [], start + 1
    escapes = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/"}
    while i < len(span) and (span[i] != quote or _is_apostrophe(span, i)):
        if span[i] == "\\" and i + 1 < len(span):
            nxt = span[i + 1]
            if nxt == "u" and i + 6 <= len(span):
                try:
                    chars.append(chr(int(span[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                except ValueError:
                    pass
            chars.append(escapes.get(nxt, nxt))
            i += 2
            continue
        chars.append(span[i])
        i += 1
    return "".join(chars), i + 1


# --------------------------------------------------------------------------------------------
# Reading the fields


def judgement_from(obj: Any) -> Judgement:
    """A :class:`Judgement` from a loaded object; a ValueError names the field that cannot be
    read. ``faster`` is required; so are ``primary_category`` and ``classification`` unless
    the judge answered ``Same``. The other fields are read as well as they can be."""
    if not isinstance(obj, dict):
        raise ValueError(f"the last JSON value is a {type(obj).__name__}, not an object")
    fields = {_key(k): v for k, v in obj.items()}
    if "faster" not in fields:
        raise ValueError("the JSON object has no 'faster' field")
    faster = faster_value(fields["faster"])
    primary = _category(fields.get("primary_category"))
    classification = _enum(Classification, fields.get("classification"))
    if faster != SAME and primary is None:
        raise ValueError(f"primary_category {fields.get('primary_category')!r} is not a category")
    if faster != SAME and classification is None:
        raise ValueError(
            f"classification {fields.get('classification')!r} is not ALGORITHMIC or SUPERFICIAL"
        )
    return Judgement(
        faster=faster,
        primary_category=primary,
        secondary_categories=_categories(fields.get("secondary_categories")),
        classification=classification,
        classification_reason=_text(fields.get("classification_reason", fields.get("reason", ""))),
        complexity=_complexities(fields.get("complexity", fields.get("complexities"))),
        complexity_improves=_improves(fields.get("complexity_improves")),
        key_differences=_texts(fields.get("key_differences")),
    )


def _key(key: object) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(key).lower()).strip("_")


def _squash(value: object) -> str:
    """Letters and digits only, lower case: 'Solution #1', 'solution_1' → 'solution1'."""
    return re.sub(r"[^a-z0-9]", "", str(value).lower())


def faster_value(value: object) -> str:
    """``Solution 1`` | ``Solution 2`` | ``Same`` from any spelling: 'Solution 1', '1', 1,
    'solution_1', 'SOLUTION 2', 'same', 'equal'. A ValueError otherwise."""
    squashed = _squash(value)
    if squashed in ("1", "solution1", "sol1", "s1", "first", "solutionone"):
        return SOLUTION_1
    if squashed in ("2", "solution2", "sol2", "s2", "second", "solutiontwo"):
        return SOLUTION_2
    if squashed in _SAME_WORDS or str(value).strip().lower() in _SAME_WORDS:
        return SAME
    raise ValueError(f"faster {value!r} is not 'Solution 1', 'Solution 2' or 'Same'")


def _enum(kind: type[StrEnum], value: object) -> Any:
    """The member of ``kind`` whose name matches ``value`` ignoring case and separators."""
    if not isinstance(value, str):
        return None
    squashed = _squash(value)
    for member in kind:
        if _squash(member.value) == squashed:
            return member
    return None


def _category(value: object) -> PrimaryCategory | None:
    if isinstance(value, list) and value:  # a one-element list where a string belongs
        value = value[0]
    return _enum(PrimaryCategory, value)


def _categories(value: object) -> tuple[PrimaryCategory, ...]:
    """Secondary categories: a list (or one string, or a comma-separated string); unknown
    names are dropped."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return ()
    found = (_enum(PrimaryCategory, v.strip() if isinstance(v, str) else v) for v in value)
    return tuple(dict.fromkeys(c for c in found if c is not None))


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else "" if value is None else str(value)


def _texts(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value.strip(),) if value.strip() else ()
    if not isinstance(value, list):
        return ()
    return tuple(_text(v) for v in value if _text(v))


def _complexities(value: object) -> dict[str, dict[str, str | None]]:
    """Per solution, per case, the stated complexity (a string, or None when absent)."""
    if not isinstance(value, dict):
        return {}
    by_solution = {_solution_key(k): v for k, v in value.items()}
    out: dict[str, dict[str, str | None]] = {}
    for solution in SOLUTIONS:
        cases = by_solution.get(solution)
        if isinstance(cases, str):  # one complexity for every case
            cases = dict.fromkeys(CASES, cases)
        if isinstance(cases, dict):
            keyed = {_key(k): v for k, v in cases.items()}
            out[solution] = {c: (_text(keyed.get(c)) or None) for c in CASES}
    return out


def _solution_key(key: object) -> str:
    try:
        return SOLUTIONS[FASTER_VALUES.index(faster_value(key))]
    except (ValueError, IndexError):
        return _key(key)


def _improves(value: object) -> dict[str, bool | None]:
    """Per case: True, False or None (unknown), from booleans or words ('yes', 'null')."""
    if isinstance(value, bool | str):  # one answer for every case
        value = dict.fromkeys(CASES, value)
    if not isinstance(value, dict):
        return {}
    keyed = {_key(k): v for k, v in value.items()}
    return {c: _truth(keyed.get(c)) for c in CASES}


def _truth(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if value is not None else ""
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    return None
