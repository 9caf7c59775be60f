"""Getting the program out of a model's completion (a leaf module: every layer may use it).

A utility imports only utilities, so this module does not read the language table itself:
a caller that wants every name of a language (``c++`` and ``cc`` for C++) passes the row,
``execrl.sandbox.languages.language("cpp")``, whose names :class:`FenceNames` reads."""

from __future__ import annotations

import re
from typing import Protocol

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_PYTHON_TAGS = {"python", "py", "python3", ""}
_FENCE_LINE = re.compile(r"^[ \t]*```.*$\n?", re.MULTILINE)


class FenceNames(Protocol):
    """The names a fence may give a language: a row of ``execrl.sandbox.languages``."""

    @property
    def name(self) -> str: ...

    @property
    def aliases(self) -> tuple[str, ...]: ...

    @property
    def sandboxfusion(self) -> tuple[str, ...]: ...

    @property
    def kattis_extensions(self) -> tuple[str, ...]: ...


def extract_code(
    completion: str, entry_point: str | None = None, *, language: FenceNames | str | None = None
) -> str:
    """The program in a completion: the last non-empty fenced block tagged python (or
    untagged), else the last non-empty fenced block of any language, else the whole text. An
    unclosed final fence (a truncated generation) still counts; an empty one does not.

    With ``language``, the last block tagged with that language, or untagged, wins; when there
    is none, the rule above applies. Pass a row of the language table
    (``execrl.sandbox.languages.language("c++")``) to match every name it has (``cpp``,
    ``c++``, ``cc``...); a plain string matches only a tag spelled like it (``python`` also
    matches ``py`` and ``python3``).

    With ``entry_point`` (the function a call-based or assert-style problem calls), the last
    Python block that defines it wins over later blocks that do not: models often end with a
    usage example (``print(f(3))``) after the function itself."""
    blocks = [(tag.lower(), body) for tag, body in _FENCE.findall(completion) if body.strip()]
    if not blocks:
        return completion if "```" not in completion else _FENCE_LINE.sub("", completion)
    tags = _PYTHON_TAGS if language is None else fence_tags(language)
    wanted = [body for tag, body in blocks if tag in tags]
    if language is not None and not wanted:
        return extract_code(completion, entry_point)
    if entry_point and wanted:
        defines = re.compile(
            rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(entry_point)}[ \t]*\(", re.M
        )
        defining = [body for body in wanted if defines.search(body)]
        if defining:
            return defining[-1]
    return (wanted or [body for _, body in blocks])[-1]


def fence_tags(language: FenceNames | str) -> set[str]:
    """The fence tags (lower case) that name ``language``, the empty tag included: an
    untagged block is accepted for any language."""
    if isinstance(language, str):
        names = {language.strip().lower()}
    else:
        # (``.C`` is C++ to Kattis, but a fence tagged ``C`` is C)
        extensions = (e.lstrip(".") for e in language.kattis_extensions if e == e.lower())
        names = {language.name, *language.aliases, *language.sandboxfusion, *extensions}
    tags = {name.lower() for name in names} | {""}
    return tags | _PYTHON_TAGS if "python" in tags else tags
