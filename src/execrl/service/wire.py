"""The native HTTP API's wire format, shared by ``execrl serve`` and ``RemoteExecutor``.

``POST /v1/execute``
    Body: ``ExecuteBatch`` (a list of ExecutionRequests). Optional header
    ``Idempotency-Key``: a retried batch with the same key (and the same body) is never
    executed twice — the server replays the records it already has and waits for the ones in
    flight; the same key with a different body is a 409. Response: ``application/x-ndjson``,
    one ``RecordLine`` per request **in completion order** (``index`` says which), then one
    ``DoneLine``. A request the server could not run comes back as a record whose tests are
    ``inconclusive`` (never a missing line). A full queue answers 429 with ``Retry-After``.
``POST /v1/capture``
    Body: ``CaptureRequest``; response ``CaptureResponse`` (the verdict without comparison and
    the program's stdout; ``Executor.capture``).
``GET /v1/health``  → ``{"status": "ok"}`` (503 ``{"status": "draining"}`` after SIGTERM).
``GET /v1/info``    → ``ServiceInfo``.
``GET /metrics``    → Prometheus text format.

Auth: with a token configured, every endpoint but ``/v1/health`` needs
``Authorization: Bearer <token>``; the token comes from ``--token`` or ``EXECRL_SERVICE_TOKEN``.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, TestResult

API_VERSION = "v1"
IDEMPOTENCY_HEADER = "Idempotency-Key"
TOKEN_ENV = "EXECRL_SERVICE_TOKEN"
"""The environment variable a server reads its bearer token from (and a client sends)."""
NDJSON = "application/x-ndjson"
MAX_BATCH = 4096
"""Most requests in one ``/v1/execute`` body (a bigger batch is a 422)."""


class ExecuteBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    requests: list[ExecutionRequest] = Field(min_length=1, max_length=MAX_BATCH)


class RecordLine(BaseModel):
    """One finished request of a batch."""

    index: int = Field(ge=0)
    record: ExecutionRecord


class DoneLine(BaseModel):
    """The last line of a batch's stream: every index has been sent."""

    done: Literal[True] = True
    count: int = Field(ge=0)


class CaptureRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    program: str
    stdin: str = ""
    limits: Limits = Field(default_factory=Limits)


class CaptureResponse(BaseModel):
    result: TestResult
    stdout: str


class ServiceInfo(BaseModel):
    """``GET /v1/info``: what this server is and offers."""

    version: str
    api: str = API_VERSION
    backend: str
    isolation: list[str]
    """The sandbox protections active on this server (``execrl doctor``'s names)."""
    workers: int
    cores: list[int]
    queue_limit: int
    """Most requests admitted at once (in flight + waiting); more get 429."""
    machine: dict[str, str]
    """The machine fingerprint (CPU model, cores, kernel, Python), as timing campaigns store it."""
    timing_metrics: list[str]
    """The ``ExecutionOptions.timing`` values this server can measure."""


def encode_line(line: RecordLine | DoneLine) -> bytes:
    return line.model_dump_json().encode() + b"\n"


def decode_line(raw: bytes | str) -> RecordLine | DoneLine:
    """One NDJSON line of a ``/v1/execute`` stream (raises ``ValueError`` on a bad line)."""
    data = json.loads(raw)
    if isinstance(data, dict) and data.get("done") is True:
        return DoneLine.model_validate(data)
    return RecordLine.model_validate(data)
