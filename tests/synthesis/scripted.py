"""A real OpenAI-compatible HTTP endpoint on 127.0.0.1 that answers each prompt from a script
(a function of the request body), and the scripted solver programs the tests answer with."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any]], str]


class ScriptedEndpoint:
    """``POST /v1/chat/completions`` answered by ``script(body)``. ``fail_next`` requests
    get ``fail_status`` (with ``Retry-After: 0``) before the script is asked; ``down`` makes
    every request fail with 503."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.calls = 0
        self.bodies: list[dict[str, Any]] = []
        self.fail_next = 0
        self.fail_status = 429
        self.down = False
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._thread.join()
        self._httpd.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if self.down:
                return 503, {"error": {"message": "down"}}
            if self.fail_next > 0:
                self.fail_next -= 1
                return self.fail_status, {"error": {"message": "slow down"}}
            self.calls += 1
            self.bodies.append(body)
        text = self.script(body)
        return 200, {
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
            "usage": {"total_tokens": 10},
        }


def _handler(endpoint: ScriptedEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            status, payload = endpoint.answer(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status != 200:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(data)

    return Handler


def program(
    objective: float | None = 100.0,
    *,
    direction: str = "max",
    n_binary: int = 0,
    n_integer: int = 0,
    status: str | None = None,
    crash: bool = False,
) -> str:
    """A tiny solver-convention program: writes an LP model with the given features and
    prints its answer (or crashes, or reports a status)."""
    sense = "Maximize" if direction == "max" else "Minimize"
    names = [f"b{i}" for i in range(n_binary)] + [f"z{i}" for i in range(n_integer)]
    terms = " + ".join(["x", *names])
    lines = [sense, f" obj: {terms}", "Subject To", f" c1: {terms} <= 10", "Bounds", " x <= 10"]
    if n_integer:
        lines += ["General", *(f" z{i}" for i in range(n_integer))]
    if n_binary:
        lines += ["Binary", *(f" b{i}" for i in range(n_binary))]
    lp = "\\n".join([*lines, "End", ""])
    body = f'open("model.lp", "w").write("{lp}")\n'
    if crash:
        body += "raise ValueError('scripted failure')\n"
    body += f'print("status: {status}")\n' if status else f'print("objective: {objective}")\n'
    return body


def response(code: str) -> str:
    return f"<think>scripted</think>\n<model>scripted</model>\n<python>\n{code}</python>"
