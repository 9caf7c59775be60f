"""What ``execrl serve`` holds between requests: one executor, the bounded queue in front of it,
the idempotency store, the draining flag and the counters ``/metrics`` reports.

Admission control: the queue counts *admitted* requests (waiting for a worker + running). A
batch is admitted whole or refused whole (``QueueFull``, which the HTTP layer answers with 429
and ``Retry-After``), so the server never holds an unbounded backlog. Once admitted, every
request runs as its own task, independent of the client's connection: a client that drops
and retries with the same ``Idempotency-Key`` gets the records of the first attempt, never a
second execution (with a ``DurableKeys`` store, also after a restart:
``execrl.service.idempotency``). Any failure of the machinery (a crashed sandbox, a bug)
becomes an ``inconclusive`` record, never an exception for the client and never a wrong
answer.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
import logging
import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from execrl.errors import ExecrlError, UsageError
from execrl.sandbox.abort import Abort, Aborted
from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Captured, ExecutionRequest, Executor
from execrl.sandbox.records import (
    ExecutionRecord,
    Status,
    TestResult,
    inconclusive_record,
)
from execrl.service.cancel import ABANDON_GRACE_S, CANCELLED, Cancellations, request_abort
from execrl.service.idempotency import RESTARTED, DurableKeys, StateStoreFailed, StoredBatch
from execrl.service.metrics import Metrics

T = TypeVar("T")
_log = logging.getLogger("execrl.serve")

QUEUE_PER_WORKER = 32
"""Default queue limit per worker: deep enough that 128 concurrent single-program clients
(verl's reward loop) are admitted on a 4-core node, shallow enough that a request waits at most
~32 executions' time for a worker."""
MIN_QUEUE_LIMIT = 256
"""The default queue limit is never below this (a small node still takes a training step's
batch at once)."""
IDEMPOTENCY_RECORDS = 16384
"""Most records remembered under ``Idempotency-Key``s, all batches together (least recently
used batch dropped first; a batch still running is kept): two training steps of 8,192
programs, a few tens of MB. A client's retries come within seconds."""
IDEMPOTENCY_TTL_S = 300.0
"""How long a finished batch's records are kept for a retry (from its last use)."""


def default_queue_limit(workers: int) -> int:
    return max(MIN_QUEUE_LIMIT, QUEUE_PER_WORKER * workers)


class QueueFull(ExecrlError):
    """The batch does not fit in the queue now; retry after ``retry_after_s``."""

    def __init__(self, requested: int, free: int, retry_after_s: int) -> None:
        super().__init__(f"queue full: {requested} requests asked, {free} free")
        self.requested = requested
        self.free = free
        self.retry_after_s = retry_after_s


class BatchTooLarge(UsageError):
    """A batch bigger than the whole queue: it can never be admitted (split it)."""


class IdempotencyConflict(UsageError):
    """The same ``Idempotency-Key`` was sent with a different body."""


class Draining(ExecrlError):
    """The server is shutting down and takes no new work."""


@dataclass
class _Batch:
    """An admitted batch, remembered under its idempotency key."""

    body_hash: str
    tasks: list[asyncio.Future[bytes]]
    used: float = field(default_factory=time.monotonic)
    """When it was stored or last replayed (the TTL runs from there)."""


class _IdempotencyStore:
    """Key → batch, an LRU bounded in records, with a TTL (a batch still running is kept)."""

    def __init__(self, records: int = IDEMPOTENCY_RECORDS, ttl_s: float = IDEMPOTENCY_TTL_S):
        self.records = records
        self.ttl_s = ttl_s
        self._batches: OrderedDict[str, _Batch] = OrderedDict()
        self._held = 0  # records of the stored batches

    def get(self, key: str, body_hash: str) -> _Batch | None:
        """The batch stored under ``key`` (None if unknown); a different body is a conflict."""
        self._expire()
        batch = self._batches.get(key)
        if batch is None:
            return None
        if batch.body_hash != body_hash:
            raise IdempotencyConflict(
                f"Idempotency-Key {key[:80]!r} was used for a different batch"
            )
        self._batches.move_to_end(key)
        batch.used = time.monotonic()
        return batch

    def peek(self, key: str) -> _Batch | None:
        """The batch stored under ``key`` (None if unknown), its TTL not renewed."""
        return self._batches.get(key)

    def put(self, key: str, batch: _Batch) -> None:
        self._batches[key] = batch  # a new key: get() found none
        self._held += len(batch.tasks)
        self._expire()

    def _expire(self) -> None:
        """Drop finished batches over the TTL or over the record bound, oldest first."""
        now = time.monotonic()
        for key in list(self._batches):
            batch = self._batches[key]
            too_many = self._held > self.records
            if not too_many and now - batch.used <= self.ttl_s:
                break  # least recently used first: the rest are fresher
            if _finished(batch):
                del self._batches[key]
                self._held -= len(batch.tasks)

    def __len__(self) -> int:
        return len(self._batches)


def _finished(batch: _Batch) -> bool:
    return all(task.done() for task in batch.tasks)


def body_hash(batch_requests: list[ExecutionRequest]) -> str:
    """The identity of a batch's body, whatever its JSON spacing or key order."""
    digest = hashlib.sha256()
    for request in batch_requests:
        digest.update(request.model_dump_json().encode())
        digest.update(b"\n")
    return digest.hexdigest()


class Service:
    """One executor behind a bounded queue (see the module docstring)."""

    def __init__(
        self,
        executor: Executor,
        *,
        queue_limit: int | None = None,
        durable_keys: DurableKeys | None = None,
        abandon_grace_s: float = ABANDON_GRACE_S,
    ) -> None:
        if queue_limit is not None and queue_limit < 1:
            raise UsageError(f"queue limit must be at least 1 (got {queue_limit})")
        self.executor = executor
        self.queue_limit = queue_limit or default_queue_limit(executor.workers)
        self.metrics = Metrics()
        self.draining = False
        self.admitted = 0
        """Requests admitted and not finished (waiting + in flight)."""
        self.in_flight = 0
        self._workers: asyncio.Semaphore | None = None  # made on the serving event loop
        self._idempotency = _IdempotencyStore()
        self.durable_keys = durable_keys
        self._keyed: asyncio.Lock | None = None  # made on the serving event loop
        self._tasks: set[asyncio.Task] = set()
        self.cancellations = Cancellations(abandon_grace_s)
        """The batch requests' aborts and who watches them (``execrl.service.cancel``)."""

    # -- the two calls every endpoint uses -------------------------------------------------
    async def execute(
        self, request: ExecutionRequest, *, abort: Abort | None = None
    ) -> ExecutionRecord:
        """Run one request (raises ``QueueFull`` or ``Draining`` when it is not admitted);
        stopped once ``abort`` (default: the HTTP request's, ``request_abort``) is cancelled."""
        self.admit(1)
        return await self._spawn(request, abort or request_abort.get())

    async def capture(
        self, program: str, stdin: str, limits: Limits | None = None
    ) -> tuple[TestResult, str]:
        """Run ``program`` on ``stdin``: (verdict without comparison, stdout). A failure of the
        machinery is an ``inconclusive`` verdict with empty output."""
        captured = await self.capture_streams(program, stdin, limits)
        return captured.result, captured.stdout

    async def capture_streams(
        self,
        program: str,
        stdin: str,
        limits: Limits | None = None,
        *,
        language: str = "python",
        build: BuildOptions | None = None,
        files: dict[str, bytes] | None = None,
        fetch: Sequence[str] = (),
        abort: Abort | None = None,
    ) -> Captured:
        """``capture`` with the program's stderr and exit status (``/run_code``), in
        ``language`` (built with ``build``), ``files`` placed in its working directory and the
        ``fetch`` ones it left there read back (the executor's ``capture_streams``); stopped
        as ``execute`` is by ``abort``."""
        self.admit(1)
        abort = abort or request_abort.get()
        run = functools.partial(
            self.executor.capture_streams,  # type: ignore[attr-defined]
            language=language,
            build=build,
            files=files,
            fetch=fetch,
            **_abort_argument(self.executor.capture_streams, abort),  # type: ignore[attr-defined]
        )
        try:
            async with self._worker_slot(abort):
                captured = await asyncio.to_thread(run, program, stdin, limits)
            _check_stopped(abort)
            return captured
        except Exception as exc:  # the sandbox or execrl failed, not the program
            reason = f"execrl could not run the program: {type(exc).__name__}: {exc}"
            if isinstance(exc, Aborted):
                reason = str(exc)
                self.metrics.count_cancelled(reason)
            unknown = TestResult(test_id="capture", status=Status.INCONCLUSIVE, detail=reason)
            return Captured(result=unknown, stdout="", stderr="", exit_code=None)
        finally:
            self._release()

    # -- batches -------------------------------------------------------------------------
    async def submit_batch(
        self, requests: list[ExecutionRequest], key: str | None = None
    ) -> list[asyncio.Future[bytes]]:
        """Admit a batch whole and start it: its per-index tasks, each ending with its record
        as JSON (those of the batch already stored under ``key``, if any: a replay needs no
        admission). Raises ``QueueFull``, ``Draining``, ``BatchTooLarge``,
        ``IdempotencyConflict`` or ``StateStoreFailed`` (its places given back). Stored
        records are kept as JSON: a sixth of the memory of the record objects."""
        if not key:
            return self._admit_and_start(requests)
        if self._keyed is None:
            self._keyed = asyncio.Lock()
        async with self._keyed:  # one keyed batch at a time: a key is looked up, then stored
            digest = body_hash(requests)
            stored = self._idempotency.get(key, digest)
            if stored is None and self.durable_keys is not None:
                stored = await self._stored_batch(self.durable_keys, key, digest, requests)
            if stored is not None:
                self.metrics.replays += 1
                return stored.tasks
            tasks = await self._admit_and_start_keyed(requests, key, digest)
            self._idempotency.put(key, _Batch(digest, tasks))
            return tasks

    def _admit_and_start(self, requests: list[ExecutionRequest]) -> list[asyncio.Future[bytes]]:
        self._admit_batch(requests)
        return self._start_batch(requests)

    def _admit_batch(self, requests: list[ExecutionRequest]) -> None:
        if len(requests) > self.queue_limit:
            raise BatchTooLarge(
                f"requests: a batch of {len(requests)} is larger than this server's queue "
                f"limit {self.queue_limit} (see /v1/info); split it"
            )
        self.admit(len(requests))

    def _start_batch(
        self, requests: list[ExecutionRequest], key: str | None = None
    ) -> list[asyncio.Future[bytes]]:
        tasks: list[asyncio.Future[bytes]] = []
        for index, request in enumerate(requests):
            abort = Abort()
            task = self._start(self._run_to_json(request, key, index, abort))
            self.cancellations.track(task, abort)
            tasks.append(task)
        return tasks

    def cancel_batch(self, key: str) -> tuple[int, int] | None:
        """``DELETE /v1/requests/{key}``: stop the unfinished requests of the batch under
        ``key`` at once; (requests stopped, requests in the batch), None if no batch has it."""
        batch = self._idempotency.peek(key)
        if batch is None:
            return None
        return self.cancellations.cancel(batch.tasks, CANCELLED), len(batch.tasks)

    async def _admit_and_start_keyed(
        self, requests: list[ExecutionRequest], key: str, digest: str
    ) -> list[asyncio.Future[bytes]]:
        """Admit, store the key durably (its places given back if that fails), start."""
        store = self.durable_keys
        self._admit_batch(requests)  # first: a full queue is a 429 whatever the store says
        if store is None:
            return self._start_batch(requests)
        try:
            await store.run(store.begin, key, digest, len(requests))
        except BaseException:
            self.admitted -= len(requests)  # nothing of it runs: give its places back
            raise
        return self._start_batch(requests, key)

    async def _stored_batch(
        self, store: DurableKeys, key: str, digest: str, requests: list[ExecutionRequest]
    ) -> _Batch | None:
        """The batch ``store`` holds under ``key`` as finished futures (a request without a
        record: inconclusive, ``RESTARTED``), kept in memory from here on."""
        found: StoredBatch | None = await store.run(store.find, key)
        if found is None:
            return None
        if found.body_hash != digest or found.size != len(requests):
            raise IdempotencyConflict(
                f"Idempotency-Key {key[:80]!r} was used for a different batch"
            )
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[bytes]] = []
        for index, request in enumerate(requests):
            future: asyncio.Future[bytes] = loop.create_future()
            future.set_result(found.records.get(index) or self._restarted_json(request))
            futures.append(future)
        batch = _Batch(digest, futures)
        self._idempotency.put(key, batch)
        return batch

    def _restarted_json(self, request: ExecutionRequest) -> bytes:
        record = inconclusive_record(
            request, RESTARTED, backend=self.executor.backend, isolation=self.executor.isolation
        )
        return record.model_dump_json().encode()

    # -- admission -------------------------------------------------------------------------
    def admit(self, count: int) -> None:
        """Take ``count`` places in the queue, or refuse them all."""
        if self.draining:
            raise Draining("the server is shutting down")
        free = self.queue_limit - self.admitted
        if count > free:
            self.metrics.rejected += 1
            raise QueueFull(count, max(free, 0), self.retry_after_s())
        self.admitted += count

    def retry_after_s(self) -> int:
        """Seconds until the queue has probably drained: the work ahead of a new request
        (admitted requests × the recent mean execution time) spread over the workers."""
        mean = self.metrics.mean_execution_s() or 1.0
        return max(1, math.ceil(self.admitted * mean / max(self.executor.workers, 1)))

    def _release(self) -> None:
        self.admitted -= 1

    @property
    def waiting(self) -> int:
        return self.admitted - self.in_flight

    # -- running one admitted request ------------------------------------------------------
    def _start(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """A task for the work of one admitted request; kept alive by ``_tasks`` until done."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _spawn(self, request: ExecutionRequest, abort: Abort | None) -> ExecutionRecord:
        """Run an admitted request as its own task: only its ``abort`` stops it, not the
        cancellation of the task awaiting it."""
        return await asyncio.shield(self._start(self._run(request, abort)))

    async def _run(self, request: ExecutionRequest, abort: Abort | None = None) -> ExecutionRecord:
        """The record of an admitted request; ``inconclusive``, ``cancelled: ...`` once
        ``abort`` is cancelled (waiting, it leaves the queue; running, it is killed)."""
        started = time.monotonic()
        try:
            async with self._worker_slot(abort):
                record = await self._execute_safely(request, abort)
            _check_stopped(abort)
        except Aborted as exc:
            self.metrics.count_cancelled(str(exc))
            record = inconclusive_record(
                request, str(exc), backend=self.executor.backend, isolation=self.executor.isolation
            )
        finally:
            self._release()
        self.metrics.observe(record, time.monotonic() - started)
        return record

    async def _run_to_json(
        self,
        request: ExecutionRequest,
        key: str | None = None,
        index: int = 0,
        abort: Abort | None = None,
    ) -> bytes:
        """The record as JSON; under a durable ``key``, stored before it is returned (a store
        that fails then is logged: after a restart that record is unknown, never rerun)."""
        record_json = (await self._run(request, abort)).model_dump_json().encode()
        if key is not None and self.durable_keys is not None:
            try:
                await self.durable_keys.run(self.durable_keys.put_record, key, index, record_json)
            except StateStoreFailed as exc:
                _log.warning("record %d of key %.80r not stored: %s", index, key, exc)
        return record_json

    async def _execute_safely(
        self, request: ExecutionRequest, abort: Abort | None = None
    ) -> ExecutionRecord:
        try:
            return await self.executor.arun(request, **_abort_argument(self.executor.arun, abort))
        except Aborted:
            raise
        except Exception as exc:  # the machinery failed: inconclusive, never a wrong answer
            return inconclusive_record(
                request,
                f"execrl could not run the program: {type(exc).__name__}: {exc}",
                backend=self.executor.backend,
                isolation=self.executor.isolation,
            )

    def _worker_slot(self, abort: Abort | None = None) -> _WorkerSlot:
        if self._workers is None:
            self._workers = asyncio.Semaphore(self.executor.workers)
        return _WorkerSlot(self._workers, self._count_in_flight, abort)

    def _count_in_flight(self, change: int) -> None:
        self.in_flight += change

    # -- shutting down ---------------------------------------------------------------------
    def start_draining(self) -> None:
        """Take no new work (health answers 503); what is admitted still runs."""
        self.draining = True


class _WorkerSlot:
    """``async with``: hold one of the executor's workers, counted as in flight; ``Aborted``
    (out of the queue) once ``abort`` is cancelled while it waits."""

    def __init__(
        self, semaphore: asyncio.Semaphore, count: Callable[[int], None], abort: Abort | None
    ) -> None:
        self._semaphore = semaphore
        self._count = count
        self._abort = abort

    async def __aenter__(self) -> None:
        if self._abort is None:
            await self._semaphore.acquire()
        else:
            await _acquire_unless(self._semaphore, self._abort)
        self._count(+1)

    async def __aexit__(self, *exc: object) -> None:
        self._count(-1)
        self._semaphore.release()


async def _acquire_unless(semaphore: asyncio.Semaphore, abort: Abort) -> None:
    """Acquire ``semaphore``, or raise ``Aborted`` if ``abort`` is cancelled first."""
    abort.check()
    if not semaphore.locked():  # (a free worker: taken at once)
        await semaphore.acquire()
        return
    loop = asyncio.get_running_loop()
    acquiring = loop.create_task(semaphore.acquire())
    abort.on_cancel(lambda _reason: loop.call_soon_threadsafe(acquiring.cancel))
    try:
        await acquiring
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if abort.cancelled and not (current is not None and current.cancelling()):
            raise Aborted(abort.reason) from None
        raise


def _check_stopped(abort: Abort | None) -> None:
    """``Aborted`` if ``abort`` was cancelled (an executor that cannot stop ran to the end:
    what it returned is still no answer to a request given up)."""
    if abort is not None:
        abort.check()


def _abort_argument(method: Callable, abort: Abort | None) -> dict[str, Abort]:
    """``{"abort": abort}`` for an executor method that takes one (LocalExecutor's, Ray's),
    else nothing."""
    if abort is None or not _takes_abort(getattr(method, "__func__", method)):
        return {}
    return {"abort": abort}


@functools.cache
def _takes_abort(function: Callable) -> bool:
    try:
        return "abort" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


async def completion_order(tasks: list[asyncio.Task[T]]) -> AsyncIterator[tuple[int, T]]:
    """(index, result) for each task as it finishes (done ones first, in index order)."""
    finished: asyncio.Queue[int] = asyncio.Queue()
    for index, task in enumerate(tasks):
        task.add_done_callback(lambda _task, i=index: finished.put_nowait(i))
    for _ in tasks:
        index = await finished.get()
        yield index, tasks[index].result()
