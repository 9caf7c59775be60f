"""Getting the program out of a model's completion (a leaf module: every layer may use it)."""

from __future__ import annotations

import re

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_PYTHON_TAGS = {"python", "py", "python3", ""}
_FENCE_LINE = re.compile(r"^[ \t]*```.*$\n?", re.MULTILINE)


def extract_code(completion: str, entry_point: str | None = None) -> str:
    """The program in a completion: the last non-empty fenced block tagged python (or
    untagged), else the last non-empty fenced block of any language, else the whole text. An
    unclosed final fence (a truncated generation) still counts; an empty one does not.

    With ``entry_point`` (the function a call-based or assert-style problem calls), the last
    Python block that defines it wins over later blocks that do not: models often end with a
    usage example (``print(f(3))``) after the function itself."""
    blocks = [(tag, body) for tag, body in _FENCE.findall(completion) if body.strip()]
    if not blocks:
        return completion if "```" not in completion else _FENCE_LINE.sub("", completion)
    python = [body for tag, body in blocks if tag.lower() in _PYTHON_TAGS]
    if entry_point and python:
        defines = re.compile(
            rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(entry_point)}[ \t]*\(", re.M
        )
        defining = [body for body in python if defines.search(body)]
        if defining:
            return defining[-1]
    return (python or [body for _, body in blocks])[-1]
