"""Turn pydantic validation failures into one-line, actionable ProblemFormatErrors."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from execrl.errors import ProblemFormatError
from execrl.problems.models import Problem

_NAMED_LISTS = {"tests": "id", "references": "name"}
"""List fields whose entries are shown by their own name (``tests[small-3]``), not index."""


def describe_validation_error(exc: ValidationError, data: Any = None) -> str:
    """``field.path: message (got value)`` for each problem pydantic found, joined by ``; ``.
    With the validated ``data``, entries of ``tests`` and ``references`` are named by their
    id / name rather than their position."""
    parts = []
    for err in exc.errors():
        loc = _location(err["loc"], data) or "<root>"
        message = str(err["msg"]).removeprefix("Value error, ")
        got = err.get("input")
        shown = ""
        if "got" not in message and not isinstance(got, dict | list) and got is not None:
            text = repr(got)
            shown = f" (got {text if len(text) <= 60 else text[:60] + '…'})"
        parts.append(f"{loc}: {message}{shown}")
    return "; ".join(parts)


def _location(loc: tuple[Any, ...], data: Any) -> str:
    parts = [str(p) for p in loc]
    if len(loc) >= 2 and isinstance(data, dict) and loc[0] in _NAMED_LISTS:
        entries = data.get(loc[0])
        index = loc[1]
        if isinstance(entries, list) and isinstance(index, int) and index < len(entries):
            entry = entries[index]
            name = entry.get(_NAMED_LISTS[loc[0]]) if isinstance(entry, dict) else None
            if isinstance(name, str):
                group = entry.get("group")
                label = f"{group}/{name}" if loc[0] == "tests" and isinstance(group, str) else name
                kind = loc[2:3] if len(loc) > 2 and loc[2] in ("stdio", "call", "assert") else ()
                rest = [str(p) for p in loc[2 + len(kind) :]]
                return ".".join([f"{loc[0]}[{label}]", *rest])
    return ".".join(parts)


def parse_problem(data: Any, *, where: str) -> Problem:
    """Validate ``data`` as a Problem; ``where`` names the file (and line) it came from."""
    if not isinstance(data, dict):
        raise ProblemFormatError(
            f"{where}: expected a mapping of problem fields, got {type(data).__name__}"
        )
    try:
        return Problem.model_validate(data)
    except ValidationError as exc:
        raise ProblemFormatError(f"{where}: {describe_validation_error(exc, data)}") from exc
