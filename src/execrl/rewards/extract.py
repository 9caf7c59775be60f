"""Getting the program out of a model's completion."""

from __future__ import annotations

import re

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_PYTHON_TAGS = {"python", "py", "python3", ""}


def extract_code(completion: str) -> str:
    """The program in a completion: the last fenced block tagged python (or untagged), else
    the last fenced block of any language, else the whole text. An unclosed final fence (a
    truncated generation) still counts."""
    blocks = _FENCE.findall(completion)
    if not blocks:
        return completion
    python = [body for tag, body in blocks if tag.lower() in _PYTHON_TAGS]
    return (python or [body for _, body in blocks])[-1]
