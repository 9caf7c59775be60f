"""Cancelling admitted requests when their client goes away or asks (issue 33, item 1).

Every admitted request has an ``Abort`` (``execrl.sandbox.abort``): cancelled, the request
leaves the queue if it waits for a worker, and its running test's processes are killed if it
runs; its record is ``inconclusive`` with the reason (``cancelled: ...``), never a verdict.

Who cancels:

- ``/v1/execute`` without an ``Idempotency-Key``: the client disconnects (or times out, which
  closes its connection) before the stream's last line: every unfinished request of the batch,
  at once (``ABANDONED``);
- with a key: the same after ``grace_s`` (``--abandon-grace-s``, default 2 s), unless a retry
  with the same key re-attached to the batch by then (``ABANDONED``);
- ``DELETE /v1/requests/{key}``: the batch's unfinished requests, at once (``CANCELLED``);
- ``/v1/capture``, ``/run_code`` and ``/submit``: the client disconnects before its answer: that
  request, at once (``ABANDONED``; the app sets ``request_abort`` for them).

Counted in ``execrl_requests_cancelled_total{reason="abandoned"|"cancelled"}``.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import Counter
from collections.abc import Sequence

from execrl.errors import UsageError
from execrl.sandbox.abort import Abort

ABANDON_GRACE_S = 2.0
"""The default time a keyed batch whose client went away waits for a retry to re-attach."""
MAX_GRACE_S = 600.0
ABANDONED = "cancelled: the client went away (disconnected or timed out)"
CANCELLED = "cancelled: DELETE /v1/requests/{key}"
REASONS = ("abandoned", "cancelled")
"""The ``reason`` label of ``execrl_requests_cancelled_total``."""

request_abort: contextvars.ContextVar[Abort | None] = contextvars.ContextVar(
    "request_abort", default=None
)
"""The abort of the HTTP request being answered, where the app watches its client (the
one-answer endpoints); ``Service.execute`` and ``capture_streams`` take it by default."""


def reason_label(reason: str) -> str:
    """The metric's ``reason`` label for an abort's reason."""
    return "cancelled" if reason == CANCELLED else "abandoned"


class Cancellations:
    """The aborts of the unfinished batch requests and the streams watching keyed batches."""

    def __init__(self, grace_s: float = ABANDON_GRACE_S) -> None:
        if not 0 <= grace_s <= MAX_GRACE_S:
            raise UsageError(f"`abandon_grace_s` must be 0 to {MAX_GRACE_S:g} s (got {grace_s})")
        self.grace_s = grace_s
        self._aborts: dict[asyncio.Future, Abort] = {}
        self._watching: Counter[str] = Counter()  # key -> open streams of its batch
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def track(self, task: asyncio.Future, abort: Abort) -> None:
        """Remember ``task``'s abort until it finishes."""
        self._aborts[task] = abort
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Future) -> None:
        self._aborts.pop(task, None)

    def cancel(self, tasks: Sequence[asyncio.Future], reason: str) -> int:
        """Cancel the unfinished ones of ``tasks`` for ``reason``; how many."""
        stopped = 0
        for task in tasks:
            abort = self._aborts.get(task)
            if abort is not None and not task.done() and abort.cancel(reason):
                stopped += 1
        return stopped

    def attach(self, key: str | None) -> None:
        """A stream of the batch under ``key`` opened (a retry re-attaches to it)."""
        if key:
            self._watching[key] += 1
            timer = self._timers.pop(key, None)
            if timer is not None:
                timer.cancel()

    def detach(self, key: str | None, tasks: Sequence[asyncio.Future]) -> None:
        """A stream of ``tasks`` ended (finished, or its client went away): unfinished work
        without a key is cancelled at once; under a key, once ``grace_s`` passed with no
        stream of it open."""
        if key:
            self._watching[key] -= 1
            if self._watching[key] > 0:
                return
            del self._watching[key]
        if all(task.done() for task in tasks):
            return
        if not key:
            self.cancel(tasks, ABANDONED)
            return
        loop = asyncio.get_running_loop()
        self._timers[key] = loop.call_later(self.grace_s, self._abandon, key, tasks)

    def _abandon(self, key: str, tasks: Sequence[asyncio.Future]) -> None:
        self._timers.pop(key, None)
        if not self._watching[key]:
            self.cancel(tasks, ABANDONED)
