"""Turn pydantic validation failures into one-line, actionable ProblemFormatErrors."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from execrl.errors import ProblemFormatError
from execrl.problems.models import Problem


def describe_validation_error(exc: ValidationError) -> str:
    """``field.path: message`` for each problem pydantic found, joined by ``; ``."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "<root>"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def parse_problem(data: Any, *, where: str) -> Problem:
    """Validate ``data`` as a Problem; ``where`` names the file (and line) it came from."""
    if not isinstance(data, dict):
        raise ProblemFormatError(
            f"{where}: expected a mapping of problem fields, got {type(data).__name__}"
        )
    try:
        return Problem.model_validate(data)
    except ValidationError as exc:
        raise ProblemFormatError(f"{where}: {describe_validation_error(exc)}") from exc
