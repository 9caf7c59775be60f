"""The local worker pool: sandboxed fork servers on this machine, one per worker.

``LocalExecutor`` owns the workers and what keeps them: it starts one fork server per worker
(one worker per core by default), pins each to its core and keeps the caller off those cores
when asked, queues requests for a free worker, runs batches on a thread pool (streaming
records with a progress bar) and in asyncio, starts a worker's counted fork server on first
use (or says why it cannot), refuses work once closed, stops a request once its ``Abort`` is
cancelled (``execrl.sandbox.abort``), and closes every server it started.

It does not own what a request means: running a request's tests on a worker's fork servers
and deciding the verdicts is the judge's (``execrl.sandbox.judge``); the request and result
types are in ``execrl.sandbox.protocol``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import queue
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

from execrl.errors import ConfigError, ExecutionError
from execrl.sandbox import counting
from execrl.sandbox.abort import POLL_S, Abort
from execrl.sandbox.batch import progress_bar
from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.forkserver import ForkServer
from execrl.sandbox.isolation import SandboxConfig
from execrl.sandbox.judge import capture_on, run_request
from execrl.sandbox.limits import Limits, is_counted
from execrl.sandbox.machine import executing_machine
from execrl.sandbox.protocol import Captured, ExecutionRequest, Executor
from execrl.sandbox.records import ExecutionRecord, TestResult


class LocalExecutor(Executor):
    """A pool of sandboxed fork servers on this machine.

    ``workers`` defaults to one per available core; ``cores`` pins worker i to ``cores[i]``.
    With ``reserve_host_core=True`` the calling process is kept off the workers' cores, so
    timed runs do not share a core with execrl's own bookkeeping (until ``close()``, which
    restores the caller's affinity).
    """

    backend = "local-forkserver"

    def __init__(
        self,
        *,
        workers: int | None = None,
        cores: list[int] | None = None,
        reserve_host_core: bool = False,
        config: SandboxConfig | None = None,
    ) -> None:
        available = sorted(os.sched_getaffinity(0))
        self.config = config or SandboxConfig()
        self._host_affinity: set[int] | None = None  # the caller's own, restored on close
        if reserve_host_core and len(available) > 1:
            host, timed = available[:1], available[1:]
            self._host_affinity = set(available)
            os.sched_setaffinity(0, host)
        else:
            timed = available
        self.cores = cores or timed
        self.workers = workers or len(self.cores)
        self._closed = False
        self._servers: queue.Queue[ForkServer] = queue.Queue()
        self._all: list[ForkServer] = []
        # (worker, timing) -> that worker's counted fork server, started on first use
        self._counters: dict[tuple[int, str], ForkServer] = {}
        for i in range(self.workers):
            server = ForkServer(self.config, worker=i, cpu=self.cores[i % len(self.cores)])
            self._all.append(server)
            self._servers.put(server)
        self._pool = ThreadPoolExecutor(
            max_workers=self.workers, thread_name_prefix="execrl-worker"
        )

    @property
    def uids(self) -> list[int]:
        """The uid each worker's programs run as."""
        return [server.uid for server in self._all]

    @property
    def isolation(self) -> list[str]:
        return self._all[0].protections if self._all else []

    # -- the common case ---------------------------------------------------------------------
    def execute(self, request: ExecutionRequest, *, abort: Abort | None = None) -> ExecutionRecord:
        """Run one request on a free worker (blocks until done). Once ``abort`` is cancelled
        the request stops, waiting or running, and ``Aborted`` is raised
        (``execrl.sandbox.abort``)."""
        server = self._take(abort)
        try:
            return self._execute_on(server, request, abort)
        finally:
            self._servers.put(server)

    def capture(
        self,
        program: str,
        stdin: str,
        limits: Limits | None = None,
        *,
        language: str = "python",
        build: BuildOptions | None = None,
    ) -> tuple[TestResult, str]:
        """Run ``program`` on ``stdin`` and return (verdict without comparison, stdout).

        The verdict is ``success`` when the program finished cleanly within its limits; what
        its output means is the caller's business (datagen uses it to build expected outputs).
        """
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
        abort: Abort | None = None,
    ) -> Captured:
        """``capture`` with the program's stderr and exit status too (SandboxFusion's
        ``/run_code`` answers with both); ``files`` are placed in its working directory
        first, and the ``fetch`` ones it left there come back in ``Captured.files``.
        ``abort`` as in ``execute``."""
        server = self._take(abort)
        server.abort = abort
        try:
            return capture_on(
                server,
                program,
                stdin,
                limits or Limits(),
                language=language,
                build=build,
                files=files,
                fetch=fetch,
            )
        finally:
            server.abort = None
            self._servers.put(server)

    def run_batch(
        self,
        requests: Iterable[ExecutionRequest],
        *,
        progress: bool = True,
        description: str = "executing",
    ) -> Iterator[ExecutionRecord]:
        """Run requests on all workers; yields records in request order as they complete."""
        requests = list(requests)
        with progress_bar(progress) as bar:
            task = bar.add_task(description, total=len(requests))
            for record in self._pool.map(self.execute, requests):
                bar.advance(task)
                yield record

    async def arun(
        self, request: ExecutionRequest, *, abort: Abort | None = None
    ) -> ExecutionRecord:
        """asyncio: run one request without blocking the event loop (``abort`` as in
        ``execute``)."""
        run = functools.partial(self.execute, request, abort=abort)
        return await asyncio.get_running_loop().run_in_executor(self._pool, run)

    async def arun_batch(
        self, requests: Iterable[ExecutionRequest]
    ) -> AsyncIterator[ExecutionRecord]:
        """asyncio: yields records as they complete (completion order)."""
        for next_done in asyncio.as_completed([self.arun(r) for r in requests]):
            yield await next_done

    def _take(self, abort: Abort | None = None) -> ForkServer:
        """A free worker; an ``ExecutionError`` once closed (a closed pool must not quietly
        restart fork servers nobody will close), ``Aborted`` once ``abort`` is cancelled."""
        if self._closed:
            raise ExecutionError("this LocalExecutor is closed; open a new one")
        if abort is None:
            return self._servers.get()
        while True:
            abort.check()  # (a waiting request leaves the queue)
            try:
                return self._servers.get(timeout=POLL_S)
            except queue.Empty:
                continue

    def close(self) -> None:
        self._closed = True
        self._pool.shutdown(wait=True)
        for server in [*self._all, *self._counters.values()]:
            server.close()
        self._all.clear()
        self._counters.clear()
        if self._host_affinity is not None:
            os.sched_setaffinity(0, self._host_affinity)
            self._host_affinity = None

    # -- one request on one worker -----------------------------------------------------------
    def _execute_on(
        self, server: ForkServer, request: ExecutionRequest, abort: Abort | None = None
    ) -> ExecutionRecord:
        """The judge's record of ``request`` on ``server``, with the worker's counted server
        (or the reason there is none) found before any work when the timing is a count; both
        servers stop at ``abort``."""
        timing = request.options.timing
        counter = None
        if is_counted(timing):
            counting.require_valgrind()
            if request.language == "python":  # (a built program is counted on ``server``)
                counter = self._counter_for(server, timing)
        servers = [server] if counter is None else [server, counter]
        for each in servers:
            each.abort = abort
        try:
            record = run_request(server, request, counter=counter, backend=self.backend)
        finally:
            for each in servers:
                each.abort = None
        return record.model_copy(update={"machine": executing_machine()})  # where it ran

    def _counter_for(self, server: ForkServer, timing: str) -> ForkServer:
        """The counted fork server of ``server``'s worker (same core), started on first use; a
        ConfigError (with the install command) where Valgrind cannot count."""
        key = (server.worker, timing)
        counter = self._counters.get(key)
        if counter is None:
            counting.require_valgrind()
            if "seccomp" not in server.protections:  # (it refuses fork and exec to a count)
                raise ConfigError(
                    "timing by instruction count needs the sandbox's seccomp filter, which is "
                    "off or unavailable here: a counted program could hide work in a child "
                    "process (see `execrl doctor`)"
                )
            counter = ForkServer(self.config, worker=server.worker, cpu=server.cpu, counting=timing)
            self._counters[key] = counter
        return counter
