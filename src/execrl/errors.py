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

Messages say what happened, the offending value, and what to do. Library code states the
file, field and value (never a CLI flag name); the CLI (:mod:`execrl.cli.main`) prints any of
these, and the OSError, UnicodeDecodeError, pydantic and YAML errors that escape library code,
as one line, exit code 2.
"""

from __future__ import annotations


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
