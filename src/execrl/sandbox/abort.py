"""Stopping a request that is running or waiting: ``Abort``, one per request.

Whoever gives up on a request (the service, when its client went away or asked to cancel it)
calls ``Abort.cancel(reason)``; the request's worker sees it:

- waiting for a worker: it leaves the queue (``LocalExecutor`` polls the abort while it waits);
- running a test: the fork server, which polls the abort every ``POLL_S`` while it waits for
  the zygote's reply, kills every process of the running test (``kill_descendants``: the
  zygote's children and theirs, found in ``/proc``) until the zygote answers, then raises
  ``Aborted`` instead of returning what the killed run looked like;
- between tests: the judge raises ``Aborted`` before the next test starts, so the rest are
  skipped.

``Aborted`` is never a verdict: whoever catches it reports the request as ``inconclusive``
with the abort's reason (``cancelled: ...``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable

from execrl.errors import ExecutionError

POLL_S = 0.05
"""How often a worker waiting on the sandbox looks at its abort (and kills again)."""


class Aborted(ExecutionError):
    """The request was stopped by its ``Abort`` (its message is the abort's reason)."""


class Abort:
    """A request's stop flag, safe to set from any thread; the first reason given wins."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[str], None]] = []
        self.reason = ""

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self, reason: str) -> bool:
        """Stop the request for ``reason`` (``"cancelled: ..."``); False if it already was.
        The ``on_cancel`` callbacks run here, in the caller's thread."""
        with self._lock:
            if self._event.is_set():
                return False
            self.reason = reason
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(reason)
        return True

    def on_cancel(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(reason)`` when the abort is cancelled (now, if it already is)."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback(self.reason)

    def check(self) -> None:
        """Raise ``Aborted`` if the request was stopped."""
        if self._event.is_set():
            raise Aborted(self.reason)


def check(abort: Abort | None) -> None:
    """``abort.check()`` where there is an abort."""
    if abort is not None:
        abort.check()


def kill_descendants(root: int, min_depth: int) -> int:
    """SIGKILL every process under ``root`` at least ``min_depth`` generations below it (its
    children are at depth 1); how many were signalled. Each is signalled through a pidfd opened
    after its parent was checked again, so a pid reused in between is never hit."""
    children: dict[int, list[int]] = {}
    for pid, ppid in _parents().items():
        children.setdefault(ppid, []).append(pid)
    killed = 0
    level, depth = [root], 0
    while level:
        depth += 1
        below = [(parent, child) for parent in level for child in children.get(parent, [])]
        if depth >= min_depth:
            killed += sum(_kill_child(parent, child) for parent, child in below)
        level = [child for _, child in below]
    return killed


def _kill_child(parent: int, pid: int) -> bool:
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return False  # gone already
    try:
        if _parent_of(pid) != parent:
            return False
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            return True
        return False
    finally:
        os.close(pidfd)


def _parents() -> dict[int, int]:
    """pid → parent pid of every process in ``/proc``."""
    parents = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            ppid = _parent_of(int(entry.name))
            if ppid is not None:
                parents[int(entry.name)] = ppid
    return parents


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1])  # (state, ppid, ...) after the command name
