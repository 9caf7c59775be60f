"""A real TCP proxy on 127.0.0.1 that injects network faults between a client and a server.

``with FaultyProxy(upstream_port, drop=0.2, delay=0.2, cut=0.2) as proxy:`` forwards every
connection to ``127.0.0.1:upstream_port`` and, for every HTTP request on it (a client chunk
that starts with a method: HTTP/1.1 clients such as httpx send one request at a time, so a
kept-alive connection is faulted per request too), chooses one action (seeded):

- ``drop``: close the connection instead of forwarding the request (the server gets nothing);
- ``delay``: hold the request ``delay_s`` before forwarding it;
- ``cut``: forward the request, then close both sides after a random number of response
  bytes in ``cut_bytes`` (a stream cut mid-way, after the server got the whole request);
- ``pass``: forward untouched.

``faulty={2}`` makes only those requests faulty, counting from 1 (deterministic tests).
``proxy.actions`` counts the actions taken. The proxy runs its own asyncio loop in a thread
and stops it, and every connection, on exit.

Also here, for the fault and remote tests: :func:`token_requests` (programs printing a token
of their own) and :func:`own_verdicts` (every request answered once, with its own verdict).
"""

from __future__ import annotations

import asyncio
import random
import threading
import uuid
from collections import Counter
from collections.abc import Container
from dataclasses import dataclass

from execrl.problems.models import StdioTest
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, program_sha256

CHUNK = 16 * 1024
METHODS = (b"GET ", b"POST ", b"PUT ", b"DELETE ", b"HEAD ", b"OPTIONS ", b"PATCH ")


@dataclass
class _Exchange:
    """The request in progress on one connection: how many response bytes it may pass."""

    limit: int | None = None
    sent: int = 0


class FaultyProxy:
    """See the module docstring."""

    def __init__(
        self,
        upstream_port: int,
        *,
        drop: float = 0.0,
        delay: float = 0.0,
        cut: float = 0.0,
        delay_s: float = 0.3,
        cut_bytes: tuple[int, int] = (200, 4000),
        faulty: Container[int] | None = None,
        seed: int = 0,
    ) -> None:
        if drop + delay + cut > 1.0:
            raise ValueError("drop + delay + cut must be at most 1")
        self.upstream_port = upstream_port
        self.weights = {"drop": drop, "delay": delay, "cut": cut}
        self.delay_s = delay_s
        self.cut_bytes = cut_bytes
        self.faulty = faulty
        self.actions: Counter[str] = Counter()
        self.port = 0
        self._rng = random.Random(seed)
        self._requests = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FaultyProxy:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def choose(self) -> str:
        """The action for the next request."""
        self._requests += 1
        if self.faulty is not None and self._requests not in self.faulty:
            return "pass"
        draw, edge = self._rng.random(), 0.0
        for action, weight in self.weights.items():
            edge += weight
            if draw < edge:
                return action
        return "pass"

    async def _listen(self) -> asyncio.Server:
        return await asyncio.start_server(self._handle, "127.0.0.1", 0)

    async def _stop(self) -> None:
        self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.transport.abort()
            return
        exchange = _Exchange()
        self._writers |= {writer, up_writer}
        pipes = [
            asyncio.create_task(self._requests_to(reader, up_writer, exchange)),
            asyncio.create_task(_responses_to(up_reader, writer, exchange)),
        ]
        try:
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in pipes:
                task.cancel()
            for side in (writer, up_writer):
                side.transport.abort()
                self._writers.discard(side)

    async def _requests_to(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, exchange: _Exchange
    ) -> None:
        """Client to server, choosing each request's fault; returns to close the connection."""
        while data := await source.read(CHUNK):
            if data.startswith(METHODS):
                action = self.choose()
                self.actions[action] += 1
                if action == "drop":
                    return
                if action == "delay":
                    await asyncio.sleep(self.delay_s)
                exchange.limit = self._rng.randint(*self.cut_bytes) if action == "cut" else None
                exchange.sent = 0
            sink.write(data)
            await sink.drain()


async def _responses_to(
    source: asyncio.StreamReader, sink: asyncio.StreamWriter, exchange: _Exchange
) -> None:
    """Server to client, stopping (a cut) once the request's byte limit has passed."""
    while data := await source.read(CHUNK):
        if exchange.limit is not None:
            data = data[: max(0, exchange.limit - exchange.sent)]
        sink.write(data)
        await sink.drain()
        exchange.sent += len(data)
        if exchange.limit is not None and exchange.sent >= exchange.limit:
            return


# -- programs whose verdict proves it is their own ---------------------------------------------
def token_requests(count: int, *, sleep_s: float = 0.0) -> list[ExecutionRequest]:
    """``count`` requests, each a program printing its own random token (after ``sleep_s``)
    and a test expecting exactly that token: a verdict delivered to the wrong request, or a
    request run twice into one answer, cannot pass."""
    requests = []
    for i in range(count):
        token = uuid.uuid4().hex
        pause = f"import time\ntime.sleep({sleep_s})\n" if sleep_s else ""
        requests.append(
            ExecutionRequest(
                program=f"{pause}print({token!r})\n",
                tests=[StdioTest(id="token", input="", output=f"{token}\n")],
                program_name=f"token-{i}",
            )
        )
    return requests


def own_verdicts(requests: list[ExecutionRequest], records: list[ExecutionRecord]) -> Counter[str]:
    """Check one record per request, each its own program's, each ``success`` or
    ``inconclusive``; the count of each."""
    assert len(records) == len(requests), (len(records), len(requests))
    by_hash = {program_sha256(r.program): r for r in requests}
    assert len(by_hash) == len(requests)
    seen = Counter(record.program_sha256 for record in records)
    assert set(seen) == set(by_hash) and set(seen.values()) == {1}, "lost or duplicated"
    statuses: Counter[str] = Counter()
    for record in records:
        (result,) = record.results
        assert result.test_id == "token"
        assert result.status in (Status.SUCCESS, Status.INCONCLUSIVE), (result, record)
        statuses[result.status.value] += 1
    return statuses
