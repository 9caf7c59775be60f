"""The FastAPI application of ``execrl serve``: the native API (``execrl.service.wire``), the
SandboxFusion-compatible router, token auth (``execrl.service.auth``: a Bearer header, HTTP
Basic from a URL's user-info, or a ``/t/TOKEN/`` path prefix) and the request size limit.

Errors a client causes are one-line JSON bodies ``{"error": "..."}`` with the right status:
401 (no or wrong token), 413 (body over the limit), 409 (an Idempotency-Key reused for another
body), 422 (a malformed body: FastAPI's detail names the field's location), 429 with
``Retry-After`` (the queue is full), 503 (draining after SIGTERM; or, with ``Retry-After``,
the idempotency store failing: ``execrl.service.idempotency``), 404 (``DELETE
/v1/requests/{key}`` of a key no batch has).

A client that goes away stops its work (``execrl.service.cancel``): a ``/v1/execute`` stream
that ends before its last line detaches from its batch, and ``/v1/capture``, ``/run_code`` and
``/submit`` are watched for the client's disconnect (``_WatchDisconnect``).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from fastapi import APIRouter, FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse

from execrl import __version__
from execrl.errors import ExecrlError
from execrl.sandbox import counting
from execrl.sandbox.abort import Abort
from execrl.sandbox.limits import COUNTED_TIMINGS
from execrl.sandbox.machine import MachineFingerprint
from execrl.service import sandbox_fusion
from execrl.service.auth import TokenAuth
from execrl.service.cancel import ABANDONED, request_abort
from execrl.service.idempotency import StateStoreFailed
from execrl.service.state import (
    BatchTooLarge,
    Draining,
    IdempotencyConflict,
    QueueFull,
    Service,
    completion_order,
)
from execrl.service.wire import (
    IDEMPOTENCY_HEADER,
    NDJSON,
    CaptureRequest,
    CaptureResponse,
    DoneLine,
    ExecuteBatch,
    ServiceInfo,
    decode_files,
    encode_line,
)

DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024
"""The default request size limit (64 MiB: a batch of 4096 programs with their tests)."""
OPEN_PATHS = frozenset({"/v1/health", "/v1/ping"})
"""Paths answered without a token."""
WATCHED_PATHS = frozenset({"/v1/capture", "/run_code", "/submit"})
"""One-answer paths that run a program: stopped when their client disconnects."""


def timing_metrics() -> list[str]:
    """The timings this server can measure: the clocks, and the counts where Valgrind can
    count here."""
    return ["cpu", "wall", *(COUNTED_TIMINGS if counting.valgrind_status()[0] else ())]


ASGIApp = Callable[[dict, Callable, Callable], Awaitable[None]]


def create_app(
    service: Service,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    routers: Sequence[APIRouter] = (),
) -> FastAPI:
    """The app serving ``service``; with ``token``, every path but OPEN_PATHS needs it (in
    any form ``execrl.service.auth`` accepts). ``routers``: more endpoints, under the same
    token and limits (``execrl serve`` adds OpenRLHF's ``/get_reward``)."""
    app = FastAPI(
        title="execrl serve",
        version=__version__,
        description="Run untrusted programs against tests in execrl's sandbox.",
    )
    app.state.service = service
    _add_routes(app)
    app.include_router(sandbox_fusion.router)
    for router in routers:  # the trainers' endpoints (execrl.integrations), from the CLI
        app.include_router(router)
    _add_error_handlers(app)
    app.add_middleware(_BodyLimit, max_body_bytes=max_body_bytes)
    app.add_middleware(_WatchDisconnect)  # (inside TokenAuth: it sees the path it routes)
    if token:
        app.add_middleware(TokenAuth, token=token, open_paths=OPEN_PATHS)
    return app


def _add_routes(app: FastAPI) -> None:
    @app.get("/v1/health")
    async def health(request: Request) -> JSONResponse:
        if _service(request).draining:
            return JSONResponse({"status": "draining"}, status_code=503)
        return JSONResponse({"status": "ok"})

    @app.post(
        "/v1/execute",
        response_class=StreamingResponse,
        responses={200: {"content": {NDJSON: {}}, "description": "RecordLines, then a DoneLine"}},
    )
    async def execute(
        batch: ExecuteBatch,
        request: Request,
        idempotency_key: str | None = Header(default=None, alias=IDEMPOTENCY_HEADER),
    ) -> StreamingResponse:
        service = _service(request)
        tasks = await service.submit_batch(batch.requests, idempotency_key)
        return _BatchStream(service, tasks, idempotency_key)

    @app.delete("/v1/requests/{key}")
    async def cancel(key: str, request: Request) -> JSONResponse:
        found = _service(request).cancel_batch(key)
        if found is None:
            return _error(404, f"no batch under Idempotency-Key {key[:80]!r} (unknown or expired)")
        cancelled, requests = found
        return JSONResponse({"key": key, "requests": requests, "cancelled": cancelled})

    @app.post("/v1/capture")
    async def capture(body: CaptureRequest, request: Request) -> CaptureResponse:
        captured = await _service(request).capture_streams(
            body.program,
            body.stdin,
            body.limits,
            language=body.language,
            build=body.build,
            files=decode_files(body.files),
            fetch=body.fetch,
        )
        return CaptureResponse.of(captured)

    @app.get("/v1/info")
    async def info(request: Request) -> ServiceInfo:
        return service_info(_service(request))

    @app.get("/metrics", response_class=PlainTextResponse)
    async def metrics(request: Request) -> PlainTextResponse:
        service = _service(request)
        gauges = {
            "queue_limit": service.queue_limit,
            "queue_depth": service.waiting,
            "in_flight": service.in_flight,
            "workers": service.executor.workers,
        }
        return PlainTextResponse(
            service.metrics.render(gauges), media_type="text/plain; version=0.0.4"
        )


def service_info(service: Service) -> ServiceInfo:
    executor = service.executor
    machine = _machine()
    return ServiceInfo(
        version=__version__,
        backend=executor.backend,
        isolation=list(executor.isolation),
        workers=executor.workers,
        cores=list(getattr(executor, "cores", [])),
        queue_limit=service.queue_limit,
        machine=machine,
        timing_metrics=timing_metrics(),
    )


@functools.cache
def _machine() -> dict[str, str]:
    """The machine fingerprint, read once (it reads /proc and asks for the host name)."""
    return {key: str(value) for key, value in MachineFingerprint.current().model_dump().items()}


async def _stream(tasks: list[asyncio.Task[bytes]]) -> AsyncIterator[bytes]:
    """The NDJSON body: a RecordLine per request in completion order (written from the
    record's stored JSON, as ``RecordLine.model_dump_json`` would), then the DoneLine."""
    async for index, record_json in completion_order(tasks):
        yield b'{"index":%d,"record":%s}\n' % (index, record_json)
    yield encode_line(DoneLine(count=len(tasks)))


class _BatchStream(StreamingResponse):
    """A batch's NDJSON stream, attached to its batch while it is open: when it ends before
    its last line (the client disconnected or timed out), the service decides whether the
    batch is abandoned (``Cancellations.detach``)."""

    def __init__(
        self, service: Service, tasks: list[asyncio.Future[bytes]], key: str | None
    ) -> None:
        super().__init__(_stream(tasks), media_type=NDJSON)
        self._cancellations = service.cancellations
        self._tasks, self._key = tasks, key
        self._cancellations.attach(key)

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._cancellations.detach(self._key, self._tasks)


class _WatchDisconnect:
    """ASGI middleware for WATCHED_PATHS: the request gets an ``Abort`` (as
    ``request_abort``, which the service's calls take), cancelled when the client disconnects
    before its answer was sent. After the body, the only message ``receive`` can bring is the
    disconnect, so a task waits for it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope["path"] not in WATCHED_PATHS:
            await self.app(scope, receive, send)
            return
        abort, body_read = Abort(), asyncio.Event()

        async def receive_body() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "http.disconnect":
                abort.cancel(ABANDONED)
            elif not message.get("more_body"):
                body_read.set()
            return message

        async def answered(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                watcher.cancel()  # (answered: a disconnect now stops nothing)
            await send(message)

        watcher = asyncio.ensure_future(_watch(receive, body_read, abort))
        token = request_abort.set(abort)
        try:
            await self.app(scope, receive_body, answered)
        finally:
            request_abort.reset(token)
            watcher.cancel()


async def _watch(receive: Callable, body_read: asyncio.Event, abort: Abort) -> None:
    """Once the body is read, wait for the client's disconnect and cancel ``abort``."""
    await body_read.wait()
    if (await receive())["type"] == "http.disconnect":
        abort.cancel(ABANDONED)


def _service(request: Request) -> Service:
    return request.app.state.service


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(QueueFull)
    async def queue_full(_request: Request, exc: QueueFull) -> JSONResponse:
        return _error(429, str(exc), {"Retry-After": str(exc.retry_after_s)})

    @app.exception_handler(Draining)
    async def draining(_request: Request, exc: Draining) -> JSONResponse:
        return _error(503, str(exc), {"Retry-After": "1"})

    @app.exception_handler(StateStoreFailed)
    async def state_failed(_request: Request, exc: StateStoreFailed) -> JSONResponse:
        return _error(503, str(exc), {"Retry-After": str(exc.retry_after_s)})

    @app.exception_handler(IdempotencyConflict)
    async def conflict(_request: Request, exc: IdempotencyConflict) -> JSONResponse:
        return _error(409, str(exc))

    @app.exception_handler(_TooLarge)
    async def body_too_large(_request: Request, exc: _TooLarge) -> JSONResponse:
        return _error(413, str(exc.detail))

    @app.exception_handler(BatchTooLarge)
    async def too_large(_request: Request, exc: BatchTooLarge) -> JSONResponse:
        return _error(422, str(exc))


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def _send_error(send: Callable, status: int, message: str, headers: dict) -> None:
    """Answer a raw ASGI request with a one-line JSON error (used before the app runs)."""
    body = json.dumps({"error": message}).encode()
    raw_headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


class _BodyLimit:
    """ASGI middleware: a request body over ``max_body_bytes`` is a 413, whether it declares
    its length or streams it in chunks."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._refuse(send)
            return
        try:
            await self.app(scope, self._counting(receive, send), send)
        except _TooLarge:  # raised outside a route (a route answers it as an HTTPException)
            await self._refuse(send)

    def _counting(self, receive: Callable, send: Callable) -> Callable:
        """``receive`` that stops a chunked body once it passes the limit."""
        seen = 0

        async def counted() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_body_bytes:
                raise _TooLarge(413, f"request body over the limit of {self.max_body_bytes} bytes")
            return message

        return counted

    async def _refuse(self, send: Callable) -> None:
        await _send_error(
            send, 413, f"request body over the limit of {self.max_body_bytes} bytes", {}
        )


class _TooLarge(HTTPException, ExecrlError):
    """A chunked body passed the size limit while it was read (an HTTPException, so FastAPI's
    body reading passes it on as the 413 it is)."""
