"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1 for tests: ``POST
/v1/chat/completions`` answered by ``script(body)`` with a complete ``chat.completion``
object (verifiers validates the whole schema)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatEndpoint:
    """``POST /v1/chat/completions`` answered by ``script(body)`` with a complete
    ``chat.completion`` object (verifiers validates the whole schema)."""

    def __init__(self, script: Callable[[dict[str, Any]], str]) -> None:
        self.script = script
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ChatEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._thread.join()
        self._httpd.server_close()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.bodies.append(body)
            index = len(self.bodies)
            text = self.script(body)
        return {
            "id": f"chatcmpl-{index}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


def _handler(endpoint: ChatEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            data = json.dumps(endpoint.answer(body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
