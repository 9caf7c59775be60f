"""The durable half of ``execrl serve``'s ``Idempotency-Key`` store: a small SQLite file in the
server's state directory, so that a retry after a restart replays the first attempt's records
instead of running the programs a second time.

- **What is kept.** Per key: the body's hash and size (a row in ``batches``, written before
  the batch starts), and each request's record JSON as it finishes (a row in ``records``,
  written before the client sees the record: a record a client was sent is a stored one).
- **Retention.** A batch is kept ``retention_h`` hours after it was submitted, then pruned
  (at start-up and at most once a minute while keys arrive).
- **A restart.** A stored batch is answered from its records; a request with no record (the
  server died while running it) gets an ``inconclusive`` record saying so (``RESTARTED``):
  never a second execution.
- **One server per directory.** The directory is locked (``flock``) for the server's life; a
  second server on it is a ``UsageError``.
- **Failures.** Any SQLite or OS error while reading or writing is ``StateStoreFailed`` (the
  HTTP layer answers 503 with ``Retry-After``). SQLite runs on one thread of its own, never
  on the event loop; WAL with ``synchronous=NORMAL``: a commit survives the process dying
  (the restart this store is for), not necessarily the machine losing power.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from execrl.errors import ExecrlError, UsageError

T = TypeVar("T")

DEFAULT_RETENTION_H = 24.0
"""How long a batch's records are kept for a retry, from its submission (hours)."""
MAX_RETENTION_H = 24.0 * 366
DB_NAME = "idempotency.sqlite"
LOCK_NAME = "serve.lock"
PRUNE_EVERY_S = 60.0
STATE_RETRY_AFTER_S = 10
"""``Retry-After`` of a 503 for a failing state store (a full disk needs a person)."""
RESTARTED = "unknown: the server restarted while running it; rerun it under a new key"
"""The detail of a stored batch's request that has no record."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    key TEXT PRIMARY KEY, body_hash TEXT NOT NULL, size INTEGER NOT NULL,
    created REAL NOT NULL);
CREATE INDEX IF NOT EXISTS batches_created ON batches (created);
CREATE TABLE IF NOT EXISTS records (
    key TEXT NOT NULL, idx INTEGER NOT NULL, record BLOB NOT NULL, PRIMARY KEY (key, idx));
"""


class StateStoreFailed(ExecrlError):
    """The state store could not be read or written (disk full, read-only, corrupt)."""

    retry_after_s = STATE_RETRY_AFTER_S


@dataclass(frozen=True)
class StoredBatch:
    """A batch found in the store: its body's hash, its size and the records it has."""

    body_hash: str
    size: int
    records: dict[int, bytes]


def default_state_dir(host: str, port: int) -> Path:
    """``$XDG_STATE_HOME/execrl/serve/HOST-PORT`` (``~/.local/state/...`` without it)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "execrl" / "serve" / f"{host}-{port}"


def check_retention_h(retention_h: float) -> None:
    if not 0 < retention_h <= MAX_RETENTION_H:
        raise UsageError(
            f"`retention_h` {retention_h:g}: must be above 0 and at most {MAX_RETENTION_H:g} hours"
        )


class DurableKeys:
    """Keys and records in ``state_dir``/idempotency.sqlite (see the module docstring).

    ``now`` is the wall clock the retention is measured with (a parameter for tests)."""

    def __init__(
        self,
        state_dir: str | Path,
        *,
        retention_h: float = DEFAULT_RETENTION_H,
        now: Callable[[], float] = time.time,
    ) -> None:
        check_retention_h(retention_h)
        self.state_dir = Path(state_dir)
        self.retention_s = retention_h * 3600.0
        self._now = now
        self._lock_fd = _lock(self.state_dir)
        try:
            self._db = _open(self.state_dir / DB_NAME)
        except BaseException:
            os.close(self._lock_fd)
            raise
        self._pruned_at = -PRUNE_EVERY_S
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="execrl-state")
        self._call(self.prune)

    # -- on the store's thread (each call one short transaction) ---------------------------
    def find(self, key: str) -> StoredBatch | None:
        """The batch stored under ``key``, with the records it has (None: unknown or pruned)."""
        row = self._db.execute(
            "SELECT body_hash, size, created FROM batches WHERE key = ?", (key,)
        ).fetchone()
        if row is None or row[2] < self._now() - self.retention_s:
            return None
        rows = self._db.execute("SELECT idx, record FROM records WHERE key = ?", (key,))
        return StoredBatch(row[0], row[1], {idx: bytes(record) for idx, record in rows})

    def begin(self, key: str, body_hash: str, size: int) -> None:
        """Store a new batch's key (replacing a pruned-to-be one under the same key)."""
        self._maybe_prune()
        with self._db:
            self._db.execute("DELETE FROM records WHERE key = ?", (key,))
            self._db.execute(
                "INSERT OR REPLACE INTO batches VALUES (?, ?, ?, ?)",
                (key, body_hash, size, self._now()),
            )

    def put_record(self, key: str, index: int, record_json: bytes) -> None:
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO records VALUES (?, ?, ?)", (key, index, record_json)
            )

    def prune(self) -> int:
        """Drop the batches older than the retention; how many went."""
        cutoff = self._now() - self.retention_s
        with self._db:
            self._db.execute(
                "DELETE FROM records WHERE key IN (SELECT key FROM batches WHERE created < ?)",
                (cutoff,),
            )
            gone = self._db.execute("DELETE FROM batches WHERE created < ?", (cutoff,)).rowcount
        self._pruned_at = time.monotonic()
        return gone

    def _maybe_prune(self) -> None:
        if time.monotonic() - self._pruned_at >= PRUNE_EVERY_S:
            self.prune()

    # -- from the event loop ---------------------------------------------------------------
    async def run(self, call: Callable[..., T], *args: object) -> T:
        """``call(*args)`` on the store's thread; any store error is ``StateStoreFailed``."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._guarded, call, args)

    def _call(self, call: Callable[..., T], *args: object) -> T:
        """``call(*args)`` now, on the store's thread, for code outside an event loop."""
        return self._thread.submit(self._guarded, call, args).result()

    @staticmethod
    def _guarded(call: Callable[..., T], args: tuple) -> T:
        try:
            return call(*args)
        except (sqlite3.Error, OSError) as exc:
            raise StateStoreFailed(f"the idempotency store failed: {exc}") from exc

    def close(self) -> None:
        """Finish the pending writes, close the database and free the directory."""
        self._thread.shutdown(wait=True)
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        os.close(self._lock_fd)


def _lock(state_dir: Path) -> int:
    """Create and lock ``state_dir`` for this process (its pid in the lock file)."""
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(state_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise UsageError(
            f"cannot use state dir {state_dir}: {exc.strerror or exc}; give `state_dir` a "
            "writable directory"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise UsageError(
            f"state dir {state_dir} is in use by another execrl serve (pid {holder}); give "
            "each server its own `state_dir`"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _open(path: Path) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(path, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=5000")
        db.executescript(_SCHEMA)
    except sqlite3.Error as exc:
        raise UsageError(
            f"cannot open the idempotency store {path}: {exc}; give `state_dir` another "
            "directory or remove the file"
        ) from None
    return db
