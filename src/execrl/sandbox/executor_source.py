"""An executor given either open or as a function that opens one, for library calls that
must check everything a caller can get wrong before a sandbox starts, and may find there is
nothing to run (a resumed results file with every row present starts none)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from execrl.sandbox.protocol import Executor

ExecutorSource = Executor | Callable[[], AbstractContextManager[Executor]]
"""An open executor (used, not closed), or a function that opens one (``lambda:
LocalExecutor(workers=4)``: called when there is work to run, and closed after it)."""


@contextlib.contextmanager
def executor_in_use(source: ExecutorSource) -> Iterator[Executor]:
    """The executor itself, or the one its opener opens now (and closes on exit)."""
    if isinstance(source, Executor):
        yield source
        return
    with source() as opened:
        yield opened
