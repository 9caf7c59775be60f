"""``serve()``: run the app on uvicorn, with a clean SIGTERM.

SIGTERM or SIGINT: the server stops accepting work (``/v1/health`` answers 503 ``draining``,
so a balancer or ``RemoteExecutor`` moves on; new work gets 503) but keeps listening until
every admitted request has finished; then uvicorn closes, waiting for the streams still
sending records, the executor (its fork servers and their children) is closed and ``serve``
returns, so the process exits 0 with nothing left behind. A second signal stops at once.

The default bind is loopback-only; a server other machines can reach needs a token (in any
form of ``execrl.service.auth``), or ``insecure_no_auth=True`` to go without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import socket
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType

import uvicorn
from fastapi import APIRouter

from execrl.errors import UsageError
from execrl.sandbox.isolation import SandboxConfig
from execrl.sandbox.pool import LocalExecutor
from execrl.service.app import DEFAULT_MAX_BODY_BYTES, create_app
from execrl.service.auth import AUTH_FORMS, check_bind
from execrl.service.cancel import ABANDON_GRACE_S
from execrl.service.idempotency import (
    DEFAULT_RETENTION_H,
    DurableKeys,
    check_retention_h,
    default_state_dir,
)
from execrl.service.state import Service

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def serve(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    workers: int | None = None,
    token: str | None = None,
    queue_limit: int | None = None,
    port_file: str | Path | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    log_level: str = "warning",
    config: SandboxConfig | None = None,
    insecure_no_auth: bool = False,
    state_dir: str | Path | None = None,
    idempotency_retention_h: float = DEFAULT_RETENTION_H,
    abandon_grace_s: float = ABANDON_GRACE_S,
    routers: Sequence[APIRouter] = (),
) -> None:
    """Serve execrl's API on ``host:port`` until SIGTERM/SIGINT (``port=0``: a free port,
    written to ``port_file`` once it is bound, before the server answers). A ``host`` other
    machines can reach needs ``token`` unless ``insecure_no_auth`` (a UsageError otherwise).
    Idempotency keys are kept ``idempotency_retention_h`` hours in ``state_dir`` (default
    ``default_state_dir(host, port)``; with ``port=0`` and no ``state_dir``, in memory only:
    a restart gets another port, where no retry could find them). A keyed batch whose client
    went away is cancelled after ``abandon_grace_s`` unless a retry re-attaches to it.
    ``routers``: more endpoints (``create_app``)."""
    check_bind(host, token, insecure_no_auth)
    check_retention_h(idempotency_retention_h)
    sock = bind(host, port)
    if state_dir is None and port != 0:
        state_dir = default_state_dir(host, port)
    try:
        keys = (
            None
            if state_dir is None
            else DurableKeys(state_dir, retention_h=idempotency_retention_h)
        )
    except BaseException:
        sock.close()
        raise
    executor = LocalExecutor(workers=workers, reserve_host_core=True, config=config)
    try:
        service = Service(
            executor,
            queue_limit=queue_limit,
            durable_keys=keys,
            abandon_grace_s=abandon_grace_s,
        )
        app = create_app(service, token=token, max_body_bytes=max_body_bytes, routers=routers)
        settings = uvicorn.Config(
            app, log_level=log_level, lifespan="off", timeout_keep_alive=30, access_log=False
        )
        server = _DrainingServer(settings, service)
        bound = sock.getsockname()[1]
        if port_file is not None:
            write_port_file(Path(port_file), bound)
        print(
            f"execrl serve: http://{host}:{bound} · {executor.workers} sandbox workers on cores "
            f"{executor.cores[: executor.workers]} · queue {service.queue_limit} · "
            f"auth {_auth_line(token)} · SIGTERM drains · keys {_keys_line(keys)}",
            file=sys.stderr,
            flush=True,
        )
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        executor.close()
        sock.close()
        if keys is not None:
            keys.close()


def _keys_line(keys: DurableKeys | None) -> str:
    """Where idempotency keys are kept, for the start-up line."""
    if keys is None:
        return "in memory"
    return f"{keys.state_dir} ({keys.retention_s / 3600:g} h)"


def _auth_line(token: str | None) -> str:
    """How clients authenticate, for the start-up line (never the token itself)."""
    return f"token ({', '.join(AUTH_FORMS)})" if token else "none"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; an address in use or not ours is a UsageError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: uvicorn writes a response's head and body separately,
    # and without TCP_NODELAY every answer on a kept-alive connection waited ~40 ms for the
    # client's delayed ACK (Nagle), 44 ms per request instead of 0.5 ms.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        why = "already in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
        raise UsageError(f"cannot listen on {host}:{port}: {why}") from None
    sock.set_inheritable(True)
    return sock


def write_port_file(path: Path, port: int) -> None:
    """Write the bound port atomically (a reader never sees a half-written file)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(f"{port}\n", encoding="utf-8")
    os.replace(partial, path)


class _DrainingServer(uvicorn.Server):
    """uvicorn's Server with execrl's shutdown: drain first, then exit 0 (uvicorn re-raises the
    signal after shutting down, which would end the process with -SIGTERM)."""

    def __init__(self, config: uvicorn.Config, service: Service) -> None:
        super().__init__(config)
        self._service = service

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in HANDLED_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._service.draining:
            self.should_exit = self.force_exit = True  # a second signal: stop now
        self._service.start_draining()

    async def on_tick(self, counter: int) -> bool:
        """Draining: keep listening (health says 503, new work gets 503) until every admitted
        request has finished, then let uvicorn close, which waits for the open streams."""
        if self._service.draining and self._service.admitted == 0:
            self.should_exit = True
        return await super().on_tick(counter)
