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
    Body: ``CaptureRequest``; response ``CaptureResponse`` (the verdict without comparison,
    the program's stdout, stderr and exit status, the files asked for and what building it
    did; ``LocalExecutor.capture_streams``). Files travel as base64.
``GET /v1/health``  → ``{"status": "ok"}`` (503 ``{"status": "draining"}`` after SIGTERM).
``GET /v1/info``    → ``ServiceInfo``.
``GET /metrics``    → Prometheus text format.

Auth: with a token configured, every endpoint but ``/v1/health`` needs
``Authorization: Bearer <token>``; the token comes from ``--token`` or ``EXECRL_SERVICE_TOKEN``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from execrl.errors import ExecrlError
from execrl.sandbox.builds import BuildInfo, BuildOptions
from execrl.sandbox.languages import language as language_row
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Captured, ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, TestResult
from execrl.sandbox.zygote.native import safe_name

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
    """``LocalExecutor.capture_streams``' arguments."""

    model_config = ConfigDict(extra="forbid")

    program: str
    stdin: str = ""
    limits: Limits = Field(default_factory=Limits)
    language: str = "python"
    """Any name the language table knows; sent canonical (``c++`` → ``cpp``)."""
    build: BuildOptions = Field(default_factory=BuildOptions)
    files: dict[str, str] = Field(default_factory=dict)
    """Name (relative, inside the working directory) → base64 content."""
    fetch: list[str] = Field(default_factory=list)
    """Names (or ``*suffix`` patterns) of files to read back from the working directory."""

    @field_validator("language", mode="before")
    @classmethod
    def _canonical(cls, value: object) -> str:
        try:
            return language_row(value).name  # type: ignore[arg-type]
        except (ExecrlError, AttributeError, TypeError) as exc:
            raise ValueError(str(exc)) from None

    @field_validator("files")
    @classmethod
    def _placeable(cls, files: dict[str, str]) -> dict[str, str]:
        unsafe = [name for name in files if not safe_name(name)]
        if unsafe:
            raise ValueError(
                f"file name {unsafe[0]!r} must be a relative path inside the working "
                "directory (no leading '/', no '..')"
            )
        decode_files(files)
        return files


class CaptureResponse(BaseModel):
    result: TestResult
    stdout: str
    stderr: str = ""
    exit_code: int | None = None
    """The exit status (``-N`` for signal N; None when it never ran)."""
    files: dict[str, str] = Field(default_factory=dict)
    """The fetched files, base64."""
    build: BuildInfo | None = None

    @classmethod
    def of(cls, captured: Captured) -> CaptureResponse:
        return cls(
            result=captured.result,
            stdout=captured.stdout,
            stderr=captured.stderr,
            exit_code=captured.exit_code,
            files=encode_files(captured.files),
            build=captured.build,
        )

    def captured(self) -> Captured:
        return Captured(
            result=self.result,
            stdout=self.stdout,
            stderr=self.stderr,
            exit_code=self.exit_code,
            files=decode_files(self.files),
            build=self.build,
        )


def encode_files(files: Mapping[str, bytes]) -> dict[str, str]:
    """Files as they travel: base64 text by name."""
    return {name: base64.b64encode(data).decode("ascii") for name, data in files.items()}


def decode_files(files: Mapping[str, str]) -> dict[str, bytes]:
    """The bytes of files sent as base64 (a ValueError naming one that is not)."""
    try:
        return {name: base64.b64decode(text, validate=True) for name, text in files.items()}
    except (binascii.Error, ValueError):
        raise ValueError("a file's content is not base64") from None


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
