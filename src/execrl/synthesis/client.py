"""The one LLM client every stage uses: bounded concurrency, retries that honour
``Retry-After``, a per-run budget, and a cache keyed by the prompt.

- **Cache.** A call's key is a hash of (model, messages, sampling settings, attempt number);
  its completion is appended to a JSONL file as soon as it arrives, so a rerun, or a run
  resumed after any stop, pays nothing twice. A torn last line (a killed process) is ignored.
- **Budget.** Calls, tokens and sandbox executions are counted against :class:`Budget`
  before they are spent; a spent budget raises :class:`BudgetExhausted`, which the pipeline
  turns into a clean stop.
- **Retries.** HTTP 429 and 5xx, a reset connection and a timeout are retried ``retries``
  times; the wait is the ``Retry-After`` header's seconds when the server sends one, else
  ``backoff_s · 2^attempt``, never more than ``max_backoff_s``.
- **Cost.** Each call is charged to a :class:`Meter` (one per row and stage), which the
  stages write to the run's cost ledger.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from execrl.errors import ExecrlError
from execrl.integrations.openai import api_key_from_env
from execrl.synthesis.config import Budget, EndpointSettings, RunSettings

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
Messages = list[dict[str, str]]


class EndpointFailed(ExecrlError):
    """The endpoint could not give a completion (after the retries)."""


class BudgetExhausted(ExecrlError):
    """The run's budget is spent: stop cleanly, resume with a larger one."""


@dataclass
class Meter:
    """What one row cost in one stage."""

    calls: int = 0
    cached: int = 0
    tokens: int = 0
    executions: int = 0
    sandbox_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cached": self.cached,
            "tokens": self.tokens,
            "executions": self.executions,
            "sandbox_s": round(self.sandbox_s, 6),
        }


@dataclass
class Spending:
    """The run's running totals, checked against the budget (thread-safe)."""

    budget: Budget
    calls: int = 0
    tokens: int = 0
    executions: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take_call(self) -> None:
        with self.lock:
            b = self.budget
            if b.max_calls is not None and self.calls >= b.max_calls:
                raise BudgetExhausted(f"the call budget is spent ({b.max_calls} calls)")
            if b.max_tokens is not None and self.tokens >= b.max_tokens:
                raise BudgetExhausted(f"the token budget is spent ({b.max_tokens} tokens)")
            self.calls += 1

    def add_tokens(self, n: int) -> None:
        with self.lock:
            self.tokens += n

    def take_executions(self, n: int) -> None:
        with self.lock:
            limit = self.budget.max_executions
            if limit is not None and self.executions + n > limit:
                raise BudgetExhausted(f"the execution budget is spent ({limit} programs)")
            self.executions += n


class PromptCache:
    """Completions by key, in memory and appended to a JSONL file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                    self._entries[entry["key"]] = entry
                except (ValueError, KeyError, TypeError):
                    continue  # a line torn by a stop mid-write
        path.parent.mkdir(parents=True, exist_ok=True)

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: str, text: str, tokens: int) -> None:
        entry = {"key": key, "text": text, "tokens": tokens}
        with self._lock:
            self._entries[key] = entry
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def __len__(self) -> int:
        return len(self._entries)


class LLMClient:
    """Chat completions for the pipeline (see the module docstring)."""

    def __init__(
        self,
        settings: EndpointSettings,
        run: RunSettings,
        *,
        cache: PromptCache,
        spending: Spending,
        seed: int = 0,
    ) -> None:
        if not settings.url.startswith(("http://", "https://")):
            raise EndpointFailed(f"the endpoint must be an http(s) URL, got {settings.url!r}")
        self.settings = settings
        self.run = run
        self.cache = cache
        self.spending = spending
        self.seed = seed
        self.api_key = api_key_from_env(settings.api_key_variable)
        self._slots = threading.BoundedSemaphore(run.concurrency)

    def key(self, messages: Messages, attempt: int) -> str:
        s = self.settings
        parts = [s.model, s.temperature, s.top_p, s.max_tokens, self.seed, attempt, messages]
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()

    def chat(self, messages: Messages, meter: Meter, *, attempt: int = 0) -> str:
        """One completion (from the cache when this prompt was asked before)."""
        key = self.key(messages, attempt)
        hit = self.cache.get(key)
        if hit is not None:
            meter.cached += 1
            return hit["text"]
        self.spending.take_call()
        with self._slots:
            text, tokens = self._post(messages, attempt)
        self.spending.add_tokens(tokens)
        meter.calls += 1
        meter.tokens += tokens
        self.cache.put(key, text, tokens)
        return text

    def _post(self, messages: Messages, attempt: int) -> tuple[str, int]:
        s = self.settings
        body = {
            "model": s.model,
            "messages": messages,
            "temperature": s.temperature,
            "top_p": s.top_p,
            "max_tokens": s.max_tokens,
            "seed": self.seed + attempt,
        }
        reply = self._request(json.dumps(body).encode())
        try:
            text = reply["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise EndpointFailed(
                f"{self.url} answered without choices[0].message.content; is it an "
                "OpenAI-compatible chat endpoint?"
            ) from None
        usage = reply.get("usage") if isinstance(reply, dict) else None
        tokens = usage.get("total_tokens") if isinstance(usage, dict) else None
        if not isinstance(tokens, int):
            tokens = (sum(len(m["content"]) for m in messages) + len(text)) // 4
        return text, tokens

    @property
    def url(self) -> str:
        return self.settings.url.rstrip("/") + "/chat/completions"

    def _request(self, data: bytes) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        for attempt in range(self.run.retries + 1):
            last = attempt == self.run.retries
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.run.request_timeout_s) as r:
                    raw = r.read()
                break
            except urllib.error.HTTPError as exc:
                if exc.code not in RETRY_STATUSES or last:
                    raise EndpointFailed(f"{self.url} answered HTTP {exc.code}") from None
                time.sleep(self._wait(attempt, exc.headers.get("Retry-After")))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if last:
                    reason = getattr(exc, "reason", exc)
                    raise EndpointFailed(
                        f"cannot reach {self.url}: {reason}; is the server running there?"
                    ) from None
                time.sleep(self._wait(attempt, None))
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise EndpointFailed(f"{self.url} answered something that is not JSON") from None

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        wait = self.run.backoff_s * 2**attempt
        if retry_after is not None:
            wait = retry_after_seconds(retry_after, default=wait)
        return max(0.0, min(wait, self.run.max_backoff_s))


def retry_after_seconds(value: str, *, default: float) -> float:
    """A ``Retry-After`` header's wait: delta-seconds or an HTTP date (``default`` when
    unreadable)."""
    value = value.strip()
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError):
        return default
