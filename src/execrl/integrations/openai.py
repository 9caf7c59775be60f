"""OpenAI-compatible chat completions with the standard library only: a client, and a small
server that puts a local chat policy behind the same API.

``OpenAIChatClient(base_url, model)`` posts to ``{base_url}/chat/completions`` (``base_url`` as
OpenAI's SDKs take it, e.g. ``http://127.0.0.1:8000/v1``) and is both an evaluation
:class:`~execrl.sandbox.protocol.CompletionSampler` (``sample(conversation, n)``) and a chat policy
(``generate(conversations)``). vLLM, llama.cpp's server, TGI, Ollama and OpenAI itself speak
this protocol. The key comes from an environment variable, never from a command line.

``ChatCompletionServer(policy)`` serves ``POST /v1/chat/completions`` and ``GET /v1/models``
from any object with ``generate(conversations) -> completions`` — typically
:class:`execrl.rl.generation.HFChatPolicy` — on a ``ThreadingHTTPServer``; generations are
serialised with a lock (one model, one batch at a time). It exists so evaluation against an
endpoint can be run (and tested) against a real server on this machine; it is not a
production server (no streaming, no tools, no logprobs).

Errors a user can act on are :class:`EndpointError` with one line: the endpoint cannot be
reached, refused the key, has no such path or model, or answered something that is not a
chat completion.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from execrl.errors import ExecrlError
from execrl.sandbox.protocol import ChatPolicy, Conversation

DEFAULT_KEY_VARIABLE = "OPENAI_API_KEY"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class EndpointError(ExecrlError):
    """An OpenAI-compatible endpoint could not give a chat completion."""


def api_key_from_env(variable: str = DEFAULT_KEY_VARIABLE) -> str | None:
    """The API key in ``$variable`` (None when unset or empty: local servers need none)."""
    return os.environ.get(variable) or None


# --------------------------------------------------------------------------------------------
# The client


class OpenAIChatClient:
    """Chat completions from an OpenAI-compatible endpoint.

    Sampling settings are fixed per client; ``seed`` is sent when given (servers that honour
    it make runs reproducible). Status 429 and 5xx are retried ``retries`` times with
    exponential backoff starting at ``backoff_s``.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 512,
        seed: int | None = None,
        timeout_s: float = 300.0,
        retries: int = 2,
        backoff_s: float = 1.0,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise EndpointError(f"the endpoint must be an http(s) URL, got {base_url!r}")
        if max_tokens < 1 or temperature < 0 or not 0 < top_p <= 1:
            raise EndpointError(
                "max_tokens >= 1, temperature >= 0 and 0 < top_p <= 1 are needed; got "
                f"{max_tokens}, {temperature}, {top_p}"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.temperature = temperature
        self.top_p = top_p
        self.max_tokens = max_tokens
        self.seed = seed
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self._calls = 0

    def __repr__(self) -> str:
        return f"OpenAIChatClient({self.base_url!r}, model={self.model!r})"

    def complete(self, messages: Conversation, *, n: int = 1) -> list[str]:
        """Up to ``n`` completions of one conversation in one request (a server may return
        fewer: many ignore ``n``)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "n": n,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed + self._calls
        self._calls += 1
        reply = self._request("POST", "/chat/completions", body)
        try:
            return [choice["message"]["content"] or "" for choice in reply["choices"]]
        except (KeyError, TypeError) as exc:
            raise EndpointError(
                f"{self.base_url}/chat/completions answered without choices[].message.content "
                f"(missing {exc}); is it an OpenAI-compatible chat endpoint?"
            ) from None

    def sample(self, conversation: Conversation, n: int) -> list[str]:
        """Exactly ``n`` completions: asks for ``n`` at once, then for what is still missing."""
        out: list[str] = []
        while len(out) < n:
            got = self.complete(conversation, n=n - len(out))
            if not got:
                raise EndpointError(f"{self.base_url} returned no completion")
            out.extend(got[: n - len(out)])
        return out

    def generate(self, conversations: list[Conversation]) -> list[str]:
        """One completion per conversation (the chat-policy protocol)."""
        return [self.complete(c, n=1)[0] for c in conversations]

    def models(self) -> list[str]:
        """The model ids the endpoint lists (``GET {base_url}/models``)."""
        reply = self._request("GET", "/models", None)
        try:
            return [m["id"] for m in reply["data"]]
        except (KeyError, TypeError):
            raise EndpointError(f"{self.base_url}/models answered without data[].id") from None

    def _request(self, method: str, path: str, body: dict | None) -> Any:
        url = self.base_url + path
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode("utf-8") if body is not None else None
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    raw = response.read()
                break
            except urllib.error.HTTPError as exc:
                if exc.code in RETRY_STATUSES and attempt < self.retries:
                    time.sleep(self.backoff_s * 2**attempt)
                    continue
                raise _http_error(url, exc) from None
            except urllib.error.URLError as exc:
                raise EndpointError(
                    f"cannot reach {url}: {exc.reason}; is the server running at that address?"
                ) from None
            except TimeoutError:
                raise EndpointError(
                    f"{url} did not answer within {self.timeout_s:g} s; raise the timeout or "
                    "lower max_tokens"
                ) from None
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise EndpointError(f"{url} answered something that is not JSON") from None


def _http_error(url: str, exc: urllib.error.HTTPError) -> EndpointError:
    try:
        detail = json.loads(exc.read()).get("error", {}).get("message", "")
    except (ValueError, AttributeError, OSError):
        detail = ""
    hint = {
        401: f"the key was refused: set ${DEFAULT_KEY_VARIABLE} (or the variable you named)",
        403: "the key is not allowed to use this model",
        404: "no such path or model: the base URL usually ends in /v1",
    }.get(exc.code, "")
    text = "; ".join(part for part in (detail, hint) if part)
    return EndpointError(f"{url} answered HTTP {exc.code}" + (f": {text}" if text else ""))


# --------------------------------------------------------------------------------------------
# The server


class ChatCompletionServer:
    """Serve a chat policy as an OpenAI-compatible endpoint at :attr:`url`.

    ``port=0`` picks a free port. ``api_key``, when set, is required as a bearer token.
    A request's ``max_tokens`` / ``temperature`` / ``top_p`` apply when the policy has
    attributes of those names (``max_new_tokens`` for the first, as HFChatPolicy does), and
    ``max_tokens`` is never allowed above the policy's own setting.
    """

    def __init__(
        self,
        policy: ChatPolicy,
        *,
        model_name: str = "execrl-local",
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        max_n: int = 64,
    ) -> None:
        self.policy = policy
        self.model_name = model_name
        self.api_key = api_key
        self.max_n = max_n
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        try:
            self._httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        except OSError as exc:
            raise EndpointError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
        self._httpd.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ChatCompletionServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="execrl-chat-server", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted or :meth:`close` is called."""
        self._httpd.serve_forever()

    def close(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ChatCompletionServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the API -----------------------------------------------------------------------------
    def chat_completion(self, body: Any) -> dict[str, Any]:
        """The response to one ``/v1/chat/completions`` body (raises ValueError if invalid)."""
        messages = body.get("messages") if isinstance(body, dict) else None
        if (
            not isinstance(messages, list)
            or not messages
            or not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages)
        ):
            raise ValueError("'messages' must be a non-empty list of {role, content} objects")
        if body.get("model") not in (None, self.model_name):
            raise LookupError(
                f"model {body.get('model')!r} not served here (try {self.model_name!r})"
            )
        n = body.get("n", 1)
        if not isinstance(n, int) or not 1 <= n <= self.max_n:
            raise ValueError(f"'n' must be an integer in [1, {self.max_n}]")
        conversation = [{"role": m.get("role", "user"), "content": m["content"]} for m in messages]
        with self._lock, _sampling(self.policy, body):
            texts = self.policy.generate([conversation] * n)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
                for i, text in enumerate(texts)
            ],
        }

    def model_list(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": self.model_name, "object": "model", "owned_by": "execrl"}],
        }


class _sampling:
    """Apply a request's sampling settings to the policy for one call, then restore them."""

    FIELDS = (("max_tokens", "max_new_tokens"), ("temperature", "temperature"), ("top_p", "top_p"))

    def __init__(self, policy: Any, body: dict) -> None:
        self.policy = policy
        self.changes: dict[str, Any] = {}
        for key, attr in self.FIELDS:
            value = body.get(key)
            if value is None or not hasattr(policy, attr):
                continue
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise ValueError(f"'{key}' must be a number")
            if key == "max_tokens":
                value = max(1, min(int(value), getattr(policy, attr)))
            elif (key == "temperature" and value < 0) or (key == "top_p" and not 0 < value <= 1):
                raise ValueError(f"'{key}' is out of range: {value}")
            self.changes[attr] = value

    def __enter__(self) -> None:
        self.saved = {attr: getattr(self.policy, attr) for attr in self.changes}
        for attr, value in self.changes.items():
            setattr(self.policy, attr, value)

    def __exit__(self, *exc: object) -> None:
        for attr, value in self.saved.items():
            setattr(self.policy, attr, value)


def _handler_for(server: ChatCompletionServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet by default
            return

        def do_GET(self) -> None:
            if not self._authorised():
                return
            if self.path.rstrip("/") == "/v1/models":
                self._reply(200, server.model_list())
            else:
                self._error(404, f"no route {self.path}; try /v1/models")

        def do_POST(self) -> None:
            if not self._authorised():
                return
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._error(404, f"no route {self.path}; try /v1/chat/completions")
                return
            try:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"null")
                self._reply(200, server.chat_completion(body))
            except LookupError as exc:
                self._error(404, str(exc).strip("'\""))
            except (ValueError, TypeError) as exc:
                self._error(400, str(exc))
            except Exception as exc:  # the model itself failed: a server error, not a reply
                self._error(500, f"generation failed: {type(exc).__name__}: {exc}")

        def _authorised(self) -> bool:
            if server.api_key is None:
                return True
            if self.headers.get("Authorization") == f"Bearer {server.api_key}":
                return True
            self._error(401, "missing or wrong API key")
            return False

        def _error(self, status: int, message: str) -> None:
            self._reply(status, {"error": {"message": message, "type": "invalid_request_error"}})

        def _reply(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
