"""Where a library call's executor comes from: given open, given as a function that opens one
(for calls that check everything a caller can get wrong before a sandbox starts, and may find
there is nothing to run: a resumed results file with every row present starts none), or —
where a call documents that ``executor=None`` is allowed — the one documented default,
``default_executor``. No library call opens an executor of its own in any other way."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from execrl.sandbox.pool import LocalExecutor
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


def default_executor(workers: int | None = None) -> LocalExecutor:
    """The executor a library call opens when it is given none and says so in its docstring
    (``execrl.run``, ``datagen.verify_problem``, ``datagen.build_tests``): a local pool of
    ``workers`` sandboxes (None: one per core the machine can spare), every protection on,
    the default ``SandboxConfig``. Open it with ``with``; the call closes it when done. Pass an
    executor explicitly for anything else (another backend, other sandbox settings, one pool
    shared by many calls)."""
    return LocalExecutor(workers=workers)


@contextlib.contextmanager
def given_or_default(executor: Executor | None, workers: int | None = None) -> Iterator[Executor]:
    """``executor`` itself (not closed), or ``default_executor(workers)`` for this call."""
    if executor is not None:
        yield executor
        return
    with default_executor(workers) as fresh:
        yield fresh
