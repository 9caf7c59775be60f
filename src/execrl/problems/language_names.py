"""The names of the languages a reference may be written in, and the files it is kept in.

A reference's ``language`` is data, so the problem model must know the language names
without importing the sandbox (``problems`` imports no other package: docs/architecture.md).
This module is the names-only view of the sandbox's language table
(``execrl.sandbox.languages.LANGUAGES``): the same canonical names, aliases, SandboxFusion
names, CodeContests enum values and Kattis extensions, resolved the same way.
``tests/unit/test_models.py`` checks that every name the sandbox's table knows resolves to
the same language here and nothing else does, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from execrl.errors import UsageError


@dataclass(frozen=True)
class LanguageNames:
    """What a language is called, and the extension a reference in it is written with."""

    name: str
    """The canonical name (``cpp``), the sandbox table's key."""
    extension: str
    """The extension of its source file in the sandbox (``.cpp``); the folder format writes a
    reference as ``references/<name><extension>``."""
    aliases: tuple[str, ...] = ()
    """Other names, matched without regard to case (``c++``, ``python3``, SandboxFusion's
    ``nodejs``)."""
    codecontests: tuple[int, ...] = ()
    """CodeContests' ``Language`` enum values (1 Python 2, 2 C++, 3 Python 3, 4 Java)."""
    kattis_extensions: tuple[str, ...] = ()
    """File extensions Kattis/problemtools read as this language; case matters (``.C`` is
    C++)."""


LANGUAGE_NAMES: dict[str, LanguageNames] = {
    entry.name: entry
    for entry in (
        LanguageNames("python", ".py", ("python3", "py", "py3", "cpython"), (3,), (".py", ".py3")),
        LanguageNames("python2", ".py", ("py2", "python2.7"), (1,)),
        LanguageNames("pypy", ".py", ("pypy3",)),
        LanguageNames("c", ".c", ("gcc", "c11"), (), (".c",)),
        LanguageNames(
            "cpp",
            ".cpp",
            ("c++", "cxx", "cc", "gnu++17", "g++"),
            (2,),
            (".cpp", ".cc", ".cxx", ".c++", ".C"),
        ),
        LanguageNames("java", ".java", ("java17", "openjdk"), (4,), (".java",)),
        LanguageNames("rust", ".rs", ("rs", "rustc"), (), (".rs",)),
        LanguageNames("go", ".go", ("golang",), (), (".go",)),
        LanguageNames("javascript", ".js", ("node", "nodejs", "js"), (), (".js",)),
    )
}
"""Every language a reference may be in, by canonical name, in the sandbox table's order."""
CODECONTESTS_ENUM_NAMES = {"PYTHON": 1, "CPP": 2, "PYTHON3": 3, "JAVA": 4}
"""CodeContests' enum by name (``PYTHON`` is Python 2 there, but plain ``python`` as a name
is Python 3 everywhere, as in the sandbox's table: a name is matched as an alias first)."""
_SUFFIXES = tuple(dict.fromkeys(e.extension for e in LANGUAGE_NAMES.values()))


def known_languages() -> str:
    """The canonical names, for messages: ``python, python2, pypy, c, ...``."""
    return ", ".join(LANGUAGE_NAMES)


def find_language(name: str | int) -> str | None:
    """The canonical name of ``name`` (an execrl name or alias in any case, a SandboxFusion
    name, a CodeContests enum value or name, or a Kattis extension with its dot), or None."""
    if isinstance(name, bool):
        return None
    if isinstance(name, int):
        return _by_codecontests(name)
    if not isinstance(name, str):
        return None
    if name in LANGUAGE_NAMES:
        return name
    folded = name.strip().lower()
    for entry in LANGUAGE_NAMES.values():
        if folded == entry.name or folded in entry.aliases:
            return entry.name
    if name.startswith("."):
        return by_extension(name)
    number = CODECONTESTS_ENUM_NAMES.get(name.upper())
    return _by_codecontests(number) if number is not None else None


def canonical_language(name: str | int, *, parameter: str = "language") -> str:
    """:func:`find_language`, or a UsageError (a ValueError, so pydantic reports it as the
    field's error) naming ``parameter`` and the known languages."""
    found = find_language(name)
    if found is None:
        raise UsageError(
            f"unknown `{parameter}` {name!r}; known: {known_languages()} (or an alias such as "
            "python3, c++, golang or node; `execrl languages` lists them)"
        )
    return found


def canonical_languages(
    names: Iterable[str | int] | str | None, *, parameter: str = "languages"
) -> frozenset[str] | None:
    """The canonical names of ``names``, a list or a comma-separated string (None stays
    None: every language); a UsageError naming ``parameter`` for an unknown one."""
    if names is None:
        return None
    if isinstance(names, str):
        names = [part.strip() for part in names.split(",") if part.strip()]
    names = list(names)
    if not names:
        raise UsageError(
            f"`{parameter}` names no language; name at least one (e.g. cpp,java) or leave it "
            "out to keep every language"
        )
    return frozenset(canonical_language(n, parameter=parameter) for n in names)


def keeps(languages: frozenset[str] | None, language: str) -> bool:
    """Whether a reference in ``language`` passes the filter ``languages`` (None: all do)."""
    return languages is None or language in languages


def by_extension(extension: str) -> str | None:
    """The language of a Kattis file extension (``.cc`` → ``cpp``; case matters), or None."""
    dotted = extension if extension.startswith(".") else f".{extension}"
    return next((e.name for e in LANGUAGE_NAMES.values() if dotted in e.kattis_extensions), None)


def source_suffix(language: str) -> str:
    """The extension a reference in ``language`` (a canonical name) is written with."""
    return LANGUAGE_NAMES[language].extension


def source_suffixes() -> tuple[str, ...]:
    """Every extension :func:`source_suffix` gives (``.py``, ``.c``, ``.cpp``, ...)."""
    return _SUFFIXES


def _by_codecontests(number: int) -> str | None:
    return next((e.name for e in LANGUAGE_NAMES.values() if number in e.codecontests), None)
