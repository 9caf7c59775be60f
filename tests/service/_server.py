"""A real ``execrl serve`` in a subprocess, for tests: ``with running_server() as server:``.

The server binds port 0 and writes the port it got to a file, so there is no port race; the
context waits for ``/v1/health``, and on exit sends SIGTERM, waits for a clean exit (SIGKILL
after a bound) and fails the test if the server did not exit 0 after its SIGTERM (a server the
test killed itself is only reaped).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0


@dataclass
class Server:
    """A running server: its base URL, process and bearer token (None: no auth)."""

    url: str
    process: subprocess.Popen
    token: str | None = None
    log_path: Path | None = None
    port: int = 0
    exit_code: int | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def headers(self) -> dict[str, str]:
        """The Authorization header this server needs (empty without a token)."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def client(self, **kwargs) -> httpx.Client:
        """An httpx client for this server, with its token."""
        return httpx.Client(base_url=self.url, headers=self.headers, **kwargs)

    def log(self) -> str:
        """What the server wrote on stdout/stderr so far (for failure messages)."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def terminate(self, timeout_s: float = STOP_TIMEOUT_S) -> int:
        """SIGTERM, wait up to ``timeout_s`` (then SIGKILL); the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.exit_code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            self.exit_code = None
        return self.exit_code if self.exit_code is not None else -signal.SIGKILL


@contextlib.contextmanager
def running_server(
    *,
    workers: int = 2,
    token: str | None = None,
    queue_limit: int | None = None,
    extra_args: tuple[str, ...] | list[str] = (),
    env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """Start ``execrl serve`` on 127.0.0.1 and a free port; stop it on exit (see module)."""
    with tempfile.TemporaryDirectory(prefix="execrl-serve-") as tmp:
        port_file = Path(tmp) / "port"
        log_path = Path(tmp) / "server.log"
        command = [
            sys.executable, "-m", "execrl.cli.main", "serve",
            "--host", "127.0.0.1", "--port", "0", "--port-file", str(port_file),
            "--workers", str(workers),
        ]  # fmt: skip
        if token is not None:
            command += ["--token", token]
        if queue_limit is not None:
            command += ["--queue-limit", str(queue_limit)]
        command += list(extra_args)
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
            )
        server = Server(url="", process=process, token=token, log_path=log_path)
        try:
            server.port = _wait_for_port(port_file, server)
            server.url = f"http://127.0.0.1:{server.port}"
            _wait_for_health(server)
            yield server
        finally:
            alive = server.process.poll() is None  # a test may have killed it on purpose
            code = server.terminate()
        if alive and code != 0:
            raise AssertionError(f"execrl serve exited {code} after SIGTERM:\n{server.log()}")


def _wait_for_port(port_file: Path, server: Server) -> int:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"execrl serve exited {server.process.returncode}:\n{server.log()}")
        if port_file.exists():
            return int(port_file.read_text())
        time.sleep(0.05)
    raise TimeoutError(f"execrl serve wrote no port in {START_TIMEOUT_S} s:\n{server.log()}")


def _wait_for_health(server: Server) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{server.url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"execrl serve did not become healthy:\n{server.log()}")
