"""Turn pydantic validation failures into one-line, actionable ProblemFormatErrors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from execrl.errors import ProblemFormatError, describe_validation_error
from execrl.problems.models import Problem

_NAMED_LISTS = {"tests": "id", "references": "name"}
"""List fields whose entries are shown by their own name (``tests[small-3]``), not index."""


def problem_locator(data: Any) -> Callable[[tuple[str | int, ...]], str]:
    """Locations in the problem ``data`` as a person reads them: entries of ``tests`` and
    ``references`` named by their id / name (``tests[small/a].output``), not their index."""
    return lambda loc: _location(loc, data)


def _location(loc: tuple[str | int, ...], data: Any) -> str:
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
        message = describe_validation_error(exc, locate=problem_locator(data))
        raise ProblemFormatError(f"{where}: {message}") from exc
