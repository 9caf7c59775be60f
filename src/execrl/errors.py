"""Errors raised by execrl.

Every error a user can cause or act on derives from one root::

    ExecrlError
    ├── ProblemFormatError      a problem file or row is malformed (says which file/field)
    ├── LoaderError             a dataset cannot be read (missing file, unknown format, extra)
    ├── ExecutionError          the runner itself failed (not the program under test)
    └── ConsensusError          reference solutions disagree on a generated test

Messages say what happened, the offending value, and what to do.
"""

from __future__ import annotations


class ExecrlError(Exception):
    """Root of every error execrl raises on purpose."""


class ProblemFormatError(ExecrlError):
    """A problem definition is malformed; the message names the file and field."""


class LoaderError(ExecrlError):
    """A dataset could not be read in the requested format."""


class ExecutionError(ExecrlError):
    """The execution machinery failed; this is never a verdict on the program under test."""


class ConsensusError(ExecrlError):
    """Correct reference solutions disagree, so no expected output can be trusted."""
