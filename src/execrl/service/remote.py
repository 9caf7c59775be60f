"""``RemoteExecutor``: the Executor protocol over one or more ``execrl serve`` servers.

What it promises (docs/remote-executor.md has the long form):

- **Nothing is lost.** Every request yields exactly one record: a server's verdict, or, when
  every retry failed, ``inconclusive_record(request, reason, backend="remote")``.
- **Retries** with exponential backoff and full jitter (``uniform(0, min(cap, base·2^k))``),
  at most ``retries`` more attempts per chunk after a server failure and none started later
  than ``retry_budget_s`` after the chunk's first failure. A 429 waits its ``Retry-After`` and
  is not a failure (it does not mark the server down).
- **Idempotency.** A chunk gets one ``Idempotency-Key`` per server it is sent to, reused with
  the same body on every retry there: a server that already ran (or is running) it replays
  instead of executing again, so a broken stream is resumed without running anything twice.
  A chunk moved to *another* server sends only the requests not yet answered, under a new key
  (that server never saw the first). Lines already received are dropped from a replay.
- **Several servers.** Chunks of ``batch_size`` go to the up server with the fewest requests
  in flight per worker, at most ``in_flight_per_worker × workers`` (and never more than its
  queue limit) at once, so the client itself never fills a queue. A server that fails is
  marked down, probed on ``/v1/health`` with the same backoff, and used again once healthy.
- **Spec §6 fallback** (``fallback=True``; ``execrl.service.fallback``): a record with
  inconclusive tests is retried at once on the server that ran it, then elsewhere for the
  verdict only. With a single server there is no elsewhere: what the retry leaves
  inconclusive stays so. **Decided in bounded time:** each of the two steps is given up
  ``fallback_timeout_s`` (default 30 s) beyond the longest its tests may legitimately run
  (every test at its wall-clock limit, every repeat) — a server that accepts the request and
  never answers, or none free elsewhere, cannot hold a record longer — and the tests it did
  not settle stay ``inconclusive`` (``RemoteStats.fallback_timeouts`` counts them).
- **After fork.** A forked child (a data-loader worker) that uses an executor its parent
  opened gets, on its first call, an event loop and connection pool of its own; the parent's,
  copied into the child with no thread left to run them, are never used, closed or torn down
  from the child (their sockets are the parent's connections).

One ``httpx.AsyncClient`` (a pooled connection per stream) runs on a private event loop in a
background thread; the sync methods and the async ones (from any event loop) both hand their
work to it, so the retry, balancing and failover state lives in one thread, without locks.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import email.utils
import os
import queue
import random
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from execrl.errors import (
    ConfigError,
    ExecrlError,
    ExecutionError,
    UsageError,
    describe_validation_error,
)
from execrl.sandbox.batch import progress_bar
from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.limits import Limits, wall_limit_for
from execrl.sandbox.protocol import Captured, ExecutionRequest, Executor
from execrl.sandbox.records import ExecutionRecord, Status, TestResult, inconclusive_record
from execrl.service.fallback import apply_fallback, merge_retry, unresolved_request
from execrl.service.wire import (
    IDEMPOTENCY_HEADER,
    MAX_BATCH,
    TOKEN_ENV,
    CaptureRequest,
    CaptureResponse,
    DoneLine,
    ExecuteBatch,
    ServiceInfo,
    decode_line,
    encode_files,
)

try:
    import httpx
except ImportError as exc:  # the serve extra (open_executor turns this into one line)
    raise ImportError("RemoteExecutor needs httpx: pip install 'execrl[serve]'") from exc

BACKEND = "remote"
HEALTH_TIMEOUT_S = 2.0
ONE_SHOT = {"Connection": "close"}
"""Headers of the rare calls (``/v1/info``, ``/v1/health``), which do not keep a connection."""
RETRY_AFTER_MAX_S = 60.0
"""The longest a 429's Retry-After is honoured at once (a longer one is waited in steps)."""

Emit = Callable[[int, ExecutionRecord, "_Server"], None]
Sink = Callable[[int, ExecutionRecord], None]


# -- pure helpers ----------------------------------------------------------------------------
def full_jitter(attempt: int, base_s: float, cap_s: float, rng: random.Random) -> float:
    """Exponential backoff with full jitter: ``uniform(0, min(cap, base · 2**attempt))``."""
    return rng.uniform(0.0, min(cap_s, base_s * 2.0 ** max(0, attempt)))


def retry_after_s(header: str | None, default_s: float = 1.0) -> float:
    """A ``Retry-After`` value in seconds (delta-seconds or an HTTP date), within
    ``[0, RETRY_AFTER_MAX_S]``; ``default_s`` when absent or unreadable."""
    if not header:
        return default_s
    try:
        seconds = float(header)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(header)
        except (TypeError, ValueError):
            return default_s
        seconds = (when - datetime.now(UTC)).total_seconds()
    return min(max(0.0, seconds), RETRY_AFTER_MAX_S)


def normalise_urls(urls: str | Sequence[str]) -> list[str]:
    """Server base URLs without a trailing slash; a comma-separated string is several."""
    items = urls.split(",") if isinstance(urls, str) else list(urls)
    cleaned = [u.strip().rstrip("/") for u in items if u.strip()]
    bad = [u for u in cleaned if not u.startswith(("http://", "https://"))]
    if not cleaned or bad:
        raise UsageError(f"RemoteExecutor needs http(s) URLs of execrl serve servers, got {urls!r}")
    return list(dict.fromkeys(cleaned))


# -- what goes wrong on one attempt ----------------------------------------------------------
class _ServerFailed(ExecutionError):
    """The server did not answer (connection, timeout, 5xx, a cut stream): try elsewhere."""


class _Throttled(ExecrlError):
    """429: the server's queue is full; wait ``retry_after`` and send again."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Rejected(ExecrlError):
    """A 4xx other than 429: no server will take this body; give up at once."""


# -- state -----------------------------------------------------------------------------------
@dataclass
class _Server:
    """One server as the client sees it."""

    url: str
    workers: int = 0
    isolation: list[str] = field(default_factory=list)
    queue_limit: int = 0
    in_flight: int = 0
    up: bool = True
    failures: int = 0
    """Consecutive failures (the probe's backoff exponent)."""
    probe_at: float = 0.0
    probing: bool = False
    last_error: str = ""

    def capacity(self, per_worker: int) -> int:
        wanted = max(1, per_worker * max(1, self.workers))
        return min(wanted, self.queue_limit) if self.queue_limit > 0 else wanted

    @property
    def load(self) -> float:
        return self.in_flight / max(1, self.workers)


@dataclass
class RemoteStats:
    """What the client did, for logs and tests (counts since it was opened; in a forked
    child, since its first call)."""

    attempts: int = 0
    """``/v1/execute`` and ``/v1/capture`` calls started."""
    failures: int = 0
    """Attempts that failed on a server (connection, timeout, 5xx, a cut stream)."""
    throttled: int = 0
    """429 answers."""
    marked_down: int = 0
    probes: int = 0
    immediate_retries: int = 0
    """Spec §6 step 1: inconclusive records retried at once on their server."""
    fallback_runs: int = 0
    """Spec §6 step 2: records run elsewhere for the verdict only."""
    fallback_timeouts: int = 0
    """§6 steps given up after ``fallback_timeout_s`` (their tests stayed inconclusive)."""
    gave_up: int = 0
    """Requests answered with an inconclusive record because every retry failed."""


@dataclass(frozen=True)
class _Route:
    """Where an attempt may go: ``pin`` (only that server, never waiting for it), ``avoid``
    (not those), ``retries`` (after a failure), ``force`` (ignore the in-flight cap: the §6
    steps are single requests that must not queue behind the batch they came from)."""

    pin: _Server | None = None
    avoid: frozenset[str] = frozenset()
    retries: int = 0
    force: bool = False

    def allows(self, server: _Server) -> bool:
        return (self.pin is None or server is self.pin) and server.url not in self.avoid


@dataclass
class _Budget:
    """A chunk's retries: failures so far and the time after which none is started."""

    failures: int = 0
    deadline: float | None = None


class _LoopThread:
    """A private asyncio loop in a daemon thread: every coroutine of the client runs here."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="execrl-remote", daemon=True
        )
        self._thread.start()

    def submit(self, coroutine: Awaitable[Any]) -> concurrent.futures.Future:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def call(self, coroutine: Awaitable[Any]) -> Any:
        return self.submit(coroutine).result()

    def close(self) -> None:
        """Stop the loop from its own thread: the caller may be inside a running event loop of
        its own (an async trainer), where ``run_until_complete`` here would fail."""
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                self.submit(self.loop.shutdown_asyncgens()).result(timeout=10)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join()
        self.loop.close()


_DONE = object()
"""Put in a result queue when a batch's coroutine has finished (or failed)."""

_fork_lock = threading.Lock()
"""Held while a forked child opens its own loop (made anew in every child: a copy could have
been held by a parent thread at the fork)."""


def _new_fork_lock() -> None:
    global _fork_lock
    _fork_lock = threading.Lock()


os.register_at_fork(after_in_child=_new_fork_lock)


class RemoteExecutor(Executor):
    """Runs ExecutionRequests on ``execrl serve`` servers (see the module docstring).

    ``urls``: one base URL, a comma-separated string or a list. ``token``: the bearer token
    (default ``$EXECRL_SERVICE_TOKEN``). ``timeout_s``: how long a stream may stay silent
    beyond the longest its requests may run (a hung server is failed over after that);
    ``connect_timeout_s``: for a connection. ``batch_size``: requests per chunk (default: the
    smallest server's workers). ``fallback_timeout_s``: how long each spec §6 step may take
    beyond the longest its tests may run, before what it left unresolved stays inconclusive.
    ``seed``: the backoff jitter's. docs/remote-executor.md describes the others.
    """

    backend = BACKEND

    def __init__(
        self,
        urls: str | Sequence[str],
        *,
        token: str | None = None,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 5.0,
        retries: int = 5,
        retry_budget_s: float = 300.0,
        backoff_base_s: float = 0.1,
        backoff_cap_s: float = 10.0,
        batch_size: int | None = None,
        in_flight_per_worker: int = 2,
        fallback: bool = True,
        fallback_timeout_s: float = 30.0,
        seed: int | None = None,
    ) -> None:
        self._servers = [_Server(url) for url in normalise_urls(urls)]
        token = token if token is not None else os.environ.get(TOKEN_ENV)
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.retries = retries
        self.retry_budget_s = retry_budget_s
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.in_flight_per_worker = max(1, in_flight_per_worker)
        self.fallback = fallback
        self.fallback_timeout_s = fallback_timeout_s
        self._check_settings(batch_size)
        self.stats = RemoteStats()
        self._seed = seed
        self._rng = random.Random(seed)
        self._pid = os.getpid()
        """The process that opened the loop below (another one: a forked child)."""
        self._inherited: list[object] = []
        """In a forked child: the parent's loop and client, kept from being collected (their
        finalisers would act on descriptors the parent still uses)."""
        self._loop = _LoopThread()
        self._closed = False
        self._all_down_since: float | None = None
        """When the last server went down (None while one is up)."""
        try:
            self._loop.call(self._open())
        except BaseException:
            self.close()
            raise
        smallest = min((s.workers for s in self._servers if s.workers), default=1)
        self.batch_size = min(batch_size or smallest, MAX_BATCH)

    # -- the protocol ------------------------------------------------------------------------
    @property
    def workers(self) -> int:
        """The servers' workers together (a server never reached counts 0 until it answers)."""
        return sum(s.workers for s in self._servers)

    @property
    def isolation(self) -> list[str]:
        """The protections every reachable server has (the weakest guarantee of the set)."""
        known = [s.isolation for s in self._servers if s.workers]
        common = set.intersection(*(set(i) for i in known)) if known else set()
        return [name for name in known[0] if name in common] if known else []

    @property
    def urls(self) -> list[str]:
        return [s.url for s in self._servers]

    def execute(self, request: ExecutionRequest) -> ExecutionRecord:
        """Run one request (blocks until its record is back)."""
        [record] = self.run_batch([request], progress=False)
        return record

    def run_batch(
        self,
        requests: Iterable[ExecutionRequest],
        *,
        progress: bool = True,
        description: str = "executing",
    ) -> Iterator[ExecutionRecord]:
        """Yields records in request order as they complete (the bar counts completions)."""
        requests = list(requests)
        results: queue.Queue = queue.Queue()
        future = self._start(requests, lambda i, r: results.put((i, r)), results.put)
        buffered: dict[int, ExecutionRecord] = {}
        following = 0
        try:
            with progress_bar(progress) as bar:
                task = bar.add_task(description, total=len(requests))
                for received in range(len(requests)):
                    index, record = _next_result(results.get(), future, received, len(requests))
                    buffered[index] = record
                    bar.advance(task)
                    while following in buffered:
                        yield buffered.pop(following)
                        following += 1
        finally:
            future.cancel()

    async def arun(self, request: ExecutionRequest) -> ExecutionRecord:
        """asyncio: run one request without blocking the event loop."""
        async for record in self.arun_batch([request]):
            return record
        raise ExecutionError("RemoteExecutor: a request came back without a record")

    async def arun_batch(
        self, requests: Iterable[ExecutionRequest]
    ) -> AsyncIterator[ExecutionRecord]:
        """asyncio: yields records as they complete (completion order)."""
        requests = list(requests)
        caller = asyncio.get_running_loop()
        results: asyncio.Queue = asyncio.Queue()

        def put(item: object) -> None:
            with contextlib.suppress(RuntimeError):  # the caller's loop closed after it left
                caller.call_soon_threadsafe(results.put_nowait, item)

        future = self._start(requests, lambda i, r: put((i, r)), put)
        try:
            for received in range(len(requests)):
                _, record = _next_result(await results.get(), future, received, len(requests))
                yield record
        finally:
            future.cancel()

    def capture(
        self,
        program: str,
        stdin: str,
        limits: Limits | None = None,
        *,
        language: str = "python",
        build: BuildOptions | None = None,
    ) -> tuple[TestResult, str]:
        """``/v1/capture`` on a server: (verdict without comparison, stdout); an ``inconclusive``
        verdict with empty stdout when no server could run it."""
        captured = self.capture_streams(program, stdin, limits, language=language, build=build)
        return captured.result, captured.stdout

    def capture_streams(
        self,
        program: str,
        stdin: str,
        limits: Limits | None = None,
        *,
        language: str = "python",
        build: BuildOptions | None = None,
        files: dict[str, bytes] | None = None,
        fetch: Sequence[str] = (),
    ) -> Captured:
        """``LocalExecutor.capture_streams`` on a server (``/v1/capture``): the verdict, stdout,
        stderr, exit status, the ``fetch`` files and the build; an ``inconclusive`` verdict
        and nothing else when no server could run it."""
        body = CaptureRequest(
            program=program,
            stdin=stdin,
            limits=limits or Limits(),
            language=language,
            build=build or BuildOptions(),
            files=encode_files(files or {}),
            fetch=list(fetch),
        )
        timeout_s = self.timeout_s + body.limits.wall_limit_s
        timeout_s += body.build.compile_wall_s or wall_limit_for(body.build.compile_cpu_s)
        self._own_loop()
        return self._loop.call(self._capture(body.model_dump_json(), timeout_s))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._pid != os.getpid():  # a forked child that never called: the loop is the parent's
            return
        self._loop.call(self._shutdown())
        self._loop.close()

    def _check_settings(self, batch_size: int | None) -> None:
        times = (self.retry_budget_s, self.backoff_base_s, self.backoff_cap_s)
        if self.retries < 0 or min(times) < 0:
            raise UsageError("RemoteExecutor: retries and the retry/backoff times must be >= 0")
        if self.timeout_s <= 0 or self.connect_timeout_s <= 0:
            raise UsageError("RemoteExecutor: timeout_s and connect_timeout_s must be > 0")
        if not self.fallback_timeout_s > 0:  # (NaN too)
            raise UsageError(
                f"RemoteExecutor: `fallback_timeout_s` must be > 0 seconds, got "
                f"{self.fallback_timeout_s!r}"
            )
        if batch_size is not None and not 1 <= batch_size <= MAX_BATCH:
            raise UsageError(
                f"RemoteExecutor: batch_size must be in 1..{MAX_BATCH}, got {batch_size}"
            )

    # -- the bridge between callers and the private loop -------------------------------------
    def _start(
        self, requests: list[ExecutionRequest], sink: Sink, done: Callable[[object], None]
    ) -> concurrent.futures.Future:
        if self._closed:
            raise UsageError("this RemoteExecutor is closed")
        self._own_loop()
        future = self._loop.submit(self._stream(requests, sink))
        future.add_done_callback(lambda _: done(_DONE))
        return future

    def _own_loop(self) -> None:
        """In a forked child, on its first call: a loop thread and connection pool of its own
        (the servers as the parent knew them, nothing in flight, counts from zero). The
        parent's loop and client are kept, unused and unclosed: closing them here would
        unregister the parent's descriptors from the epoll set both processes share."""
        if self._pid == os.getpid():
            return
        with _fork_lock:
            if self._pid == os.getpid():  # (another thread of the child did it meanwhile)
                return
            self._inherited.append((self._loop, getattr(self, "_client", None)))
            for server in self._servers:
                server.in_flight, server.probing = 0, False
            self.stats = RemoteStats()
            seed = None if self._seed is None else f"{self._seed}:{os.getpid()}"
            self._rng = random.Random(seed)  # (not the parent's jitter draws again)
            self._loop = _LoopThread()
            try:
                self._loop.call(self._open())
            except BaseException:
                self._loop.call(self._shutdown())
                self._loop.close()
                raise
            self._pid = os.getpid()

    # -- set-up --------------------------------------------------------------------------------
    async def _open(self) -> None:
        self._client = httpx.AsyncClient(
            headers=self._headers,
            timeout=httpx.Timeout(self.timeout_s, connect=self.connect_timeout_s),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
        )
        self._changed = asyncio.Condition()
        for attempt in range(self.retries + 1):  # a flaky network at start is retried too
            await asyncio.gather(*(self._discover(s) for s in self._servers if not s.workers))
            if any(s.workers for s in self._servers):
                return
            await asyncio.sleep(self._jitter(attempt + 1))
        why = "; ".join(f"{s.url}: {s.last_error}" for s in self._servers)
        raise ExecutionError(
            f"no execrl server answered ({why}): start one with `execrl serve` or check the URLs"
        )

    async def _shutdown(self) -> None:
        """Cancel what still runs on the loop (probes, an abandoned batch), close the pool."""
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        client = getattr(self, "_client", None)
        if client is not None:
            await client.aclose()

    async def _discover(self, server: _Server) -> None:
        """Read a server's ``/v1/info``; an unreachable one starts marked down."""
        try:  # (a connection of its own: the pool is for streams)
            response = await self._client.get(f"{server.url}/v1/info", headers=ONE_SHOT)
        except httpx.HTTPError as exc:
            self._mark_down(server, f"{type(exc).__name__}: {exc}")
            return
        if response.status_code in (401, 403):
            raise ConfigError(
                f"{server.url} refused the token ({response.status_code}): pass token= or set "
                f"{TOKEN_ENV} to the server's token"
            )
        if response.status_code != 200:
            self._mark_down(server, f"/v1/info answered HTTP {response.status_code}")
            return
        try:
            info = ServiceInfo.model_validate_json(response.content)
        except ValueError:
            self._mark_down(server, "/v1/info is not an execrl serve answer")
            return
        server.workers, server.isolation = info.workers, info.isolation
        server.queue_limit = info.queue_limit

    # -- a batch -------------------------------------------------------------------------------
    async def _stream(self, requests: list[ExecutionRequest], sink: Sink) -> None:
        """Send every request; ``sink(index, record)`` exactly once each (completion order)."""
        # As many chunks active as the servers have room for (plus one each): the others wait
        # their turn in FIFO order instead of all waking on every release.
        room = sum(s.capacity(self.in_flight_per_worker) for s in self._servers if s.workers)
        slots = asyncio.Semaphore(room // self.batch_size + len(self._servers))

        async def run_chunk(chunk: dict[int, ExecutionRequest]) -> None:
            async with slots:
                await self._run_chunk(chunk, sink, group)

        indexed = dict(enumerate(requests))
        order = list(indexed)
        async with asyncio.TaskGroup() as group:
            for start in range(0, len(order), self.batch_size):
                group.create_task(
                    run_chunk({i: indexed[i] for i in order[start : start + self.batch_size]})
                )

    async def _run_chunk(
        self, chunk: dict[int, ExecutionRequest], sink: Sink, group: asyncio.TaskGroup
    ) -> None:
        """One chunk: its records to ``sink`` (inconclusive ones through the §6 policy first);
        what no server answered becomes an inconclusive record."""

        def on_record(index: int, record: ExecutionRecord, server: _Server) -> None:
            if self.fallback and record.inconclusive:
                group.create_task(self._resolve(chunk[index], record, server, index, sink))
            else:
                sink(index, record)

        pending = set(chunk)
        try:
            reason = await self._send(chunk, pending, on_record, _Route(retries=self.retries))
        except Exception as exc:  # a bug of the client must not lose results either
            reason = f"RemoteExecutor failed: {type(exc).__name__}: {exc}"
        for index in sorted(pending):
            self.stats.gave_up += 1
            sink(index, inconclusive_record(chunk[index], reason, backend=BACKEND))

    async def _resolve(
        self,
        request: ExecutionRequest,
        record: ExecutionRecord,
        origin: _Server,
        index: int,
        sink: Sink,
    ) -> None:
        """Spec §6: retry at once where it ran, then elsewhere for the verdict only (each step
        bounded by ``fallback_timeout_s``: :meth:`_policy_step`)."""
        self.stats.immediate_retries += 1
        record = await self._policy_step(request, record, _Route(pin=origin, force=True))
        if record.inconclusive and len(self._servers) > 1:
            self.stats.fallback_runs += 1
            elsewhere = _Route(avoid=frozenset({origin.url}), retries=self.retries, force=True)
            record = await self._policy_step(request, record, elsewhere, apply_fallback)
        sink(index, record)

    async def _policy_step(
        self,
        request: ExecutionRequest,
        record: ExecutionRecord,
        route: _Route,
        merge: Callable[..., ExecutionRecord] = merge_retry,
    ) -> ExecutionRecord:
        """Run ``record``'s unresolved tests on ``route`` and ``merge`` what comes back; given up
        ``fallback_timeout_s`` beyond the longest those tests may run (a server that accepted
        them and never answers, no server free), leaving them as they were."""
        sub = unresolved_request(request, record)
        if sub is None:
            return record
        got: dict[int, ExecutionRecord] = {}
        try:
            async with asyncio.timeout(self.fallback_timeout_s + _longest_run_s([sub])):
                await self._send({0: sub}, {0}, lambda i, r, _s: got.setdefault(i, r), route)
        except TimeoutError:
            self.stats.fallback_timeouts += 1
        except Exception:  # keep the record we have: it is still a record
            pass
        return merge(record, got[0], request) if 0 in got else record

    async def _send(
        self, requests: dict[int, ExecutionRequest], pending: set[int], emit: Emit, route: _Route
    ) -> str:
        """POST ``requests`` until every index in ``pending`` has been emitted (and removed) or
        the retries are spent; returns the last failure ("" when all were answered)."""
        keys: dict[str, tuple[str, list[int]]] = {}

        async def attempt(server: _Server) -> None:
            # Same server → same key and body (it replays); a new server → the rest, new key.
            key, indices = keys.setdefault(server.url, (uuid.uuid4().hex, sorted(pending)))
            await self._post_execute(
                server, key, [requests[i] for i in indices], indices, pending, emit
            )

        return await self._retrying(len(pending), route, attempt)

    async def _post_execute(
        self,
        server: _Server,
        key: str,
        batch: list[ExecutionRequest],
        indices: list[int],
        pending: set[int],
        emit: Emit,
    ) -> None:
        """One ``/v1/execute`` stream; raises ``_ServerFailed`` unless it ended with its done
        line and every index of the body."""
        body = ExecuteBatch(requests=batch).model_dump_json()
        headers = {IDEMPOTENCY_HEADER: key, "Content-Type": "application/json"}
        timeout = httpx.Timeout(self._read_timeout_s(batch), connect=self.connect_timeout_s)
        done = False
        async with self._client.stream(
            "POST", f"{server.url}/v1/execute", content=body, headers=headers, timeout=timeout
        ) as response:
            await _check_status(server, response)
            async with contextlib.aclosing(response.aiter_lines()) as lines:
                async for line in lines:
                    if not line.strip():
                        continue
                    item = _decode(server, line, len(indices))
                    if isinstance(item, DoneLine):
                        done = True
                        break
                    index = indices[item.index]
                    if index in pending:
                        pending.discard(index)
                        emit(index, item.record, server)
        missing = pending.intersection(indices)
        if not done or missing:
            raise _ServerFailed(
                f"{server.url}: the stream ended with {len(missing)} of {len(indices)} "
                "records missing"
            )

    def _read_timeout_s(self, batch: list[ExecutionRequest]) -> float:
        """The longest silence to wait for between two lines: ``timeout_s`` beyond the longest
        a request of the batch may legitimately run (every test at its wall-clock limit, every
        repeat)."""
        return self.timeout_s + _longest_run_s(batch)

    async def _capture(self, body: str, timeout_s: float) -> Captured:
        got: list[Captured] = []

        async def attempt(server: _Server) -> None:
            response = await self._client.post(
                f"{server.url}/v1/capture",
                content=body,
                headers={"Content-Type": "application/json"},
                timeout=httpx.Timeout(timeout_s, connect=self.connect_timeout_s),
            )
            await _check_status(server, response)
            got.append(CaptureResponse.model_validate_json(response.content).captured())

        try:
            reason = await self._retrying(1, _Route(retries=self.retries), attempt)
        except (httpx.HTTPError, ValueError) as exc:
            reason = f"capture failed: {type(exc).__name__}: {exc}"
        if got:
            return got[0]
        unknown = TestResult(test_id="capture", status=Status.INCONCLUSIVE, detail=reason[:300])
        return Captured(result=unknown, stdout="", stderr="", exit_code=None)

    # -- retries, balancing, failover ---------------------------------------------------------
    async def _retrying(
        self, size: int, route: _Route, attempt: Callable[[_Server], Awaitable[None]]
    ) -> str:
        """Call ``attempt(server)`` on servers ``route`` allows until one succeeds, a 4xx says
        no server will, or the retries are spent; returns the last failure ("" on success)."""
        budget = _Budget()
        reason = ""
        while True:
            server = await self._acquire(size, route, budget)
            if server is None:
                return reason or self._unavailable(route)
            self.stats.attempts += 1
            try:
                await _translated(attempt(server), server)
                server.failures = 0
                return ""
            except _Throttled as exc:  # not a failure: the server is up, only full
                self.stats.throttled += 1
                reason, delay = str(exc), exc.retry_after + self._jitter(0)
            except _Rejected as exc:
                return str(exc)
            except _ServerFailed as exc:
                self.stats.failures += 1
                reason, delay = str(exc), self._jitter(budget.failures + 1)
                self._mark_down(server, reason)
                budget.failures += 1
            finally:
                await self._release(server, size)
            if budget.deadline is None:
                budget.deadline = time.monotonic() + self.retry_budget_s
            if budget.failures > route.retries or time.monotonic() + delay >= budget.deadline:
                return reason
            await asyncio.sleep(delay)

    async def _acquire(self, size: int, route: _Route, budget: _Budget) -> _Server | None:
        """The least-loaded server ``route`` allows, with ``size`` counted in flight on it.
        Waits while the allowed servers are busy; while they are all down, only until the
        retry deadline (a pinned route does not wait for its server)."""
        async with self._changed:
            while True:
                self._start_probes()
                allowed = [s for s in self._servers if route.allows(s)]
                up = [s for s in allowed if s.up]
                free = [s for s in up if route.force or self._fits(s, size)]
                if free:
                    server = min(free, key=lambda s: s.load)
                    server.in_flight += size
                    return server
                if not allowed or (not up and route.pin is not None):
                    return None
                probing = any(s.probing for s in allowed)  # its answer is worth waiting for
                if not up and not probing and time.monotonic() >= self._wait_deadline(budget):
                    return None
                with contextlib.suppress(TimeoutError):  # (asyncio.timeout keeps a cancel)
                    async with asyncio.timeout(self._next_probe_in()):
                        await self._changed.wait()

    def _fits(self, server: _Server, size: int) -> bool:
        return server.in_flight == 0 or (
            server.in_flight + size <= server.capacity(self.in_flight_per_worker)
        )

    async def _release(self, server: _Server, size: int) -> None:
        async with self._changed:
            server.in_flight -= size
            self._changed.notify_all()

    def _wait_deadline(self, budget: _Budget) -> float:
        """Until when a chunk waits for a down server: its retry budget, and no longer than the
        budget after every server went down (a dead cluster fails a batch at once, not one
        chunk's budget after another)."""
        if budget.deadline is None:
            budget.deadline = time.monotonic() + self.retry_budget_s
        if self._all_down_since is None:
            return budget.deadline
        return min(budget.deadline, self._all_down_since + self.retry_budget_s)

    def _mark_down(self, server: _Server, reason: str) -> None:
        if server.up:
            self.stats.marked_down += 1
        server.up, server.last_error = False, reason
        server.failures += 1
        server.probe_at = time.monotonic() + self._jitter(server.failures)
        if self._all_down_since is None and not any(s.up for s in self._servers):
            self._all_down_since = time.monotonic()

    def _start_probes(self) -> None:
        now = time.monotonic()
        for server in self._servers:
            if not server.up and not server.probing and server.probe_at <= now:
                server.probing = True
                asyncio.get_running_loop().create_task(self._probe(server))

    async def _probe(self, server: _Server) -> None:
        """``/v1/health``: up again on a 200 (reading ``/v1/info`` if it was never seen)."""
        self.stats.probes += 1
        try:
            response = await self._client.get(
                f"{server.url}/v1/health", timeout=HEALTH_TIMEOUT_S, headers=ONE_SHOT
            )
            healthy = response.status_code == 200
            if healthy and not server.workers:
                await self._discover(server)
                healthy = bool(server.workers)
        except (httpx.HTTPError, ValueError):
            healthy = False
        async with self._changed:
            server.probing = False
            if healthy:
                server.up, server.failures = True, 0
                self._all_down_since = None
            else:
                server.failures += 1
                server.probe_at = time.monotonic() + self._jitter(server.failures)
            self._changed.notify_all()

    def _unavailable(self, route: _Route) -> str:
        """Why no server could take an attempt: each allowed server's last failure."""
        down = [f"{s.url}: {s.last_error or 'down'}" for s in self._servers if route.allows(s)]
        return "no server available" + (f" ({'; '.join(down)})" if down else "")

    def _next_probe_in(self) -> float:
        waits = [s.probe_at - time.monotonic() for s in self._servers if not s.up]
        return min(1.0, max(0.01, min(waits, default=1.0)))

    def _jitter(self, attempt: int) -> float:
        return full_jitter(attempt, self.backoff_base_s, self.backoff_cap_s, self._rng)


# -- module helpers ----------------------------------------------------------------------------
def _longest_run_s(batch: list[ExecutionRequest]) -> float:
    """The longest a request of ``batch`` may legitimately run: every test at its wall-clock
    limit, every repeat."""
    return max(len(r.tests) * r.options.repeats * r.limits.wall_limit_s for r in batch)


async def _translated(attempt: Awaitable[None], server: _Server) -> None:
    """Run an attempt, turning transport errors and unreadable answers into ``_ServerFailed``."""
    try:
        await attempt
    except httpx.HTTPError as exc:
        raise _ServerFailed(f"{server.url}: {type(exc).__name__}: {exc}") from exc


async def _check_status(server: _Server, response: httpx.Response) -> None:
    """Raise the attempt's error for a non-200 answer."""
    status = response.status_code
    if status == 200:
        return
    text = (await response.aread()).decode("utf-8", errors="replace")[:200]
    if status == 429:
        wait = retry_after_s(response.headers.get("Retry-After"))
        raise _Throttled(f"{server.url}: queue full (429)", wait)
    if status >= 500:
        raise _ServerFailed(f"{server.url}: HTTP {status}: {text}")
    raise _Rejected(f"{server.url}: HTTP {status}: {text}")


def _decode(server: _Server, line: str, count: int) -> Any:
    try:
        item = decode_line(line)
    except ValidationError as exc:  # (a ValueError too: caught first, for its one line)
        reason = describe_validation_error(exc)
        raise _ServerFailed(f"{server.url}: unreadable stream line ({reason})") from exc
    except ValueError as exc:  # not JSON
        raise _ServerFailed(f"{server.url}: unreadable stream line ({exc})") from exc
    if not isinstance(item, DoneLine) and item.index >= count:
        raise _ServerFailed(f"{server.url}: a record for index {item.index} of {count}")
    return item


def _next_result(
    item: object, future: concurrent.futures.Future, received: int, total: int
) -> tuple[int, ExecutionRecord]:
    """A (index, record) from a batch's result queue; a finished batch with records missing
    is an ExecutionError (the client's own failure, raised with its cause)."""
    if item is not _DONE:
        return item  # type: ignore[return-value]
    cause = None if future.cancelled() else future.exception()
    raise ExecutionError(
        f"RemoteExecutor: the batch stopped after {received} of {total} records"
        + (f" ({type(cause).__name__}: {cause})" if cause else "")
    ) from cause
