"""Errors raised by execrl.

Every error a user can cause or act on derives from one root::

    ExecrlError
    ├── UsageError              a value given to execrl is invalid (an option, a limit, a spec)
    │   └── ConfigError         a configuration file or spec string cannot be used
    ├── DataError               input data cannot be read or is malformed
    │   ├── ProblemFormatError  a problem file or row is malformed (says which file/field)
    │   └── LoaderError         a dataset cannot be read (missing file, unknown format, extra)
    ├── OutputError             a result cannot be written where it was asked to go
    ├── ExecutionError          the runner itself failed (not the program under test)
    └── ConsensusError          reference solutions disagree on a generated test

Other modules derive their own from these (docs/errors.md draws the whole tree); every
exception class of execrl is under ``ExecrlError`` except in the standard-library-only
in-sandbox package, ``execrl.sandbox.zygote`` (tests/unit/test_error_tree.py).

Messages say what happened, the offending value, and what to do. Library code states the
file, field and value (never a CLI flag name); the CLI (:mod:`execrl.cli.main`) prints any of
these, and the OSError, UnicodeDecodeError, pydantic and YAML errors that escape library code,
as one line, exit code 2.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError


class ExecrlError(Exception):
    """Root of every error execrl raises on purpose."""


class UsageError(ExecrlError, ValueError):
    """A value given to execrl (an argument, a limit, a spec) is invalid; the message names
    it and the accepted range."""


class ConfigError(UsageError):
    """A configuration (a YAML file, a spec string such as ``qp(p=0.5)``) cannot be used."""


class DataError(ExecrlError):
    """Input data (a problem set, a records or responses file) cannot be read or is
    malformed; the message names the file (and line or field)."""


class ProblemFormatError(DataError):
    """A problem definition is malformed; the message names the file and field."""


class LoaderError(DataError):
    """A dataset could not be read in the requested format."""


class OutputError(ExecrlError):
    """A result could not be written (an unwritable or invalid destination)."""


class ExecutionError(ExecrlError):
    """The execution machinery failed; this is never a verdict on the program under test."""


class ConsensusError(ExecrlError):
    """Correct reference solutions disagree, so no expected output can be trusted."""


# -- pydantic's validation errors as one line ----------------------------------------------------
MAX_ISSUES_SHOWN = 5
"""The most validation issues one message lists (the rest are counted)."""

_GOT_WIDTH = 60
"""The longest offending value shown, in characters of its repr (longer ones are cut)."""


@dataclass(frozen=True)
class ValidationIssue:
    """One thing pydantic found wrong: where, what, and the value it got."""

    loc: tuple[str | int, ...]
    """The path to the offending field, as pydantic gives it (empty: the whole value)."""
    where: str
    """``loc`` as a person reads it (``tests[small/a].output``); empty for the whole value."""
    message: str
    """Pydantic's message, without its ``Value error, `` prefix."""
    got: Any
    """The offending input."""
    type: str
    """Pydantic's error type (``greater_than``, ``missing``, ...)."""

    def __str__(self) -> str:
        """``where: message (got value)``; the value is left out when the message already
        shows it or it is a mapping, a list or None."""
        shown = ""
        if "got" not in self.message and not isinstance(self.got, dict | list | None):
            text = repr(self.got)
            shown = f" (got {text if len(text) <= _GOT_WIDTH else text[:_GOT_WIDTH] + '…'})"
        return f"{self.where}: {self.message}{shown}" if self.where else f"{self.message}{shown}"


def validation_issues(
    exc: ValidationError, *, locate: Callable[[tuple[str | int, ...]], str] | None = None
) -> list[ValidationIssue]:
    """What a pydantic ValidationError found, one issue per error, in pydantic's order.
    ``locate`` turns a location into the words shown (default: its parts joined by dots)."""
    locate = locate or _dotted
    return [
        ValidationIssue(
            loc=tuple(err["loc"]),
            where=locate(tuple(err["loc"])),
            message=str(err["msg"]).removeprefix("Value error, "),
            got=err.get("input"),
            type=str(err["type"]),
        )
        for err in exc.errors()
    ]


def describe_validation_error(
    exc: ValidationError, *, locate: Callable[[tuple[str | int, ...]], str] | None = None
) -> str:
    """A pydantic ValidationError as one line: ``field.path: message (got value)`` for each
    issue (at most ``MAX_ISSUES_SHOWN``, then how many more), joined by ``; ``. The one place
    library code turns a validation error into words; the caller adds what was validated
    (``{path}, row 3: …``)."""
    issues = validation_issues(exc, locate=locate)
    shown = "; ".join(map(str, issues[:MAX_ISSUES_SHOWN]))
    more = len(issues) - MAX_ISSUES_SHOWN
    return f"{shown}; and {more} more" if more > 0 else shown


def _dotted(loc: tuple[str | int, ...]) -> str:
    return ".".join(map(str, loc))


# -- names kept for one release ------------------------------------------------------------------
def deprecated_names(module: str, renamed: dict[str, tuple[str, str]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving old public names for one release, with a
    DeprecationWarning: ``renamed`` maps each old name to ``(module, new name)``. Use as
    ``__getattr__ = deprecated_names(__name__, {"Policy": ("execrl.sandbox.protocol",
    "ChatPolicy")})``."""

    def __getattr__(name: str) -> Any:
        if name not in renamed:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        home, new = renamed[name]
        warnings.warn(
            f"{module}.{name} is deprecated: use {home}.{new} (the old name goes away in the "
            "next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), new)

    return __getattr__
