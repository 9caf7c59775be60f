"""Execution records: what running one program on a set of tests produced.

Records are plain data that serialise to JSON lines, so everything after the executor
(environments, rewards, evaluation) is a pure function of stored records.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from execrl.errors import DataError, LoaderError, OutputError, describe_validation_error
from execrl.results import read_rows
from execrl.sandbox.builds import BuildInfo
from execrl.sandbox.limits import Limits
from execrl.sandbox.machine import MachineFingerprint


class ExecutionRequestLike(Protocol):
    """The fields of an ``ExecutionRequest`` a record copies (records do not import the
    executor)."""

    problem_id: str
    program: str
    program_name: str
    tests: list
    options: Any
    limits: Limits


class Status(StrEnum):
    """The closed set of per-test verdicts.

    ``inconclusive`` means the runner failed, not the program; it is never a wrong answer.
    """

    SUCCESS = "success"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    COMPILE_ERROR = "compile_error"
    COMPILE_TIMEOUT = "compile_timeout"
    """The build of a compiled language ran past its compile limits (``BuildOptions``)."""
    INCONCLUSIVE = "inconclusive"


class Timing(BaseModel):
    """The times of one repeat of one test."""

    model_config = ConfigDict(frozen=True)

    cpu_s: float
    wall_s: float


def _count(value: float | None) -> float:
    return float(value) if value is not None else 0.0


class TestResult(BaseModel):
    """One program on one test."""

    __test__ = False
    model_config = ConfigDict(frozen=True)

    test_id: str
    status: Status
    cpu_s: float = 0.0
    """User + system CPU time of the child process, measured from outside it."""
    wall_s: float = 0.0
    max_rss_mb: float = 0.0
    detail: str = ""
    """A short, truncated explanation: the exception line, the first differing token, …"""
    repeats: list[Timing] = Field(default_factory=list)
    """Every repeat's times; ``cpu_s`` and ``wall_s`` above are their medians."""
    limit_hit: Literal["cpu", "wall"] | None = None
    """For a ``timeout``: which limit stopped the program (``Limits.cpu_time_s`` or
    ``Limits.wall_time_s``); ``None`` otherwise (and for an intended limit applied after)."""
    outputs_differ: bool = False
    """With repeats: the repeats' outputs (stdout or returned value) were not all equal. Every
    repeat is judged; the status is the first failing repeat's."""
    fallback: bool = False
    """Spec §6: the verdict came from a fallback run elsewhere, after this test was
    inconclusive where it was sent and again on an immediate retry. Its times are not a
    measurement: an optimization-test success there became a ``timeout`` at the cap; a
    correctness verdict is kept without its time."""

    instructions: int | None = None
    """With ``timing="instructions"`` or ``"cycles_estimate"``: the instructions the program
    itself executed (interpreter start-up and sandbox set-up excluded), counted in a second
    run under Valgrind. Set on every passing test of such a request (a passing test whose
    count could not be taken is ``inconclusive``); None otherwise."""
    cycles_estimate: float | None = None
    """With ``timing="cycles_estimate"``: instructions plus weighted cache misses of the same
    counted run (the formula is ``execrl.sandbox.counting.cycles_estimate``)."""

    @property
    def passed(self) -> bool:
        return self.status is Status.SUCCESS

    def duration_s(self, metric: str = "cpu") -> float:
        """The duration a reward uses, in the metric's unit (``TIMING_UNITS``): CPU (default)
        or wall seconds, or the count for ``instructions`` and ``cycles_estimate`` (0.0 when
        the test has none: only passing tests are counted)."""
        if metric == "instructions":
            return _count(self.instructions)
        if metric == "cycles_estimate":
            return _count(self.cycles_estimate)
        return self.cpu_s if metric == "cpu" else self.wall_s

    def spread_s(self, metric: str = "cpu") -> float:
        """Max minus min over repeats (0 with a single run, and for counts: one counted run,
        exact)."""
        if metric not in ("cpu", "wall"):
            return 0.0
        values = [t.cpu_s if metric == "cpu" else t.wall_s for t in self.repeats]
        return max(values) - min(values) if values else 0.0


class ExecutionRecord(BaseModel):
    """One program on one problem's tests."""

    model_config = ConfigDict(frozen=True)

    problem_id: str
    program_sha256: str
    program_name: str = ""
    results: list[TestResult] = Field(default_factory=list)
    backend: str = "subprocess"
    """What ran the program: the executor whose sandbox judged it (``local-forkserver``), on
    every path — a record from an ``execrl serve`` server or a Ray actor keeps the backend
    that ran it there, as ``isolation`` keeps that machine's protections. A record an executor
    makes without running anything (``inconclusive_record``: every retry failed) names that
    executor instead (``remote``, ``ray``)."""
    isolation: list[str] = Field(default_factory=list)
    """The protections active for this run (see ``execrl doctor``); empty means none."""
    machine: MachineFingerprint | None = None
    """The machine whose sandbox ran the program and measured its times, stamped there: this
    one for the local pool, the server's for ``execrl serve``, the node's for Ray
    (``$EXECRL_MACHINE_ID`` names it in place of the host name). ``None`` when nothing ran
    (``inconclusive_record``) and in records made before machines were stamped. A §6
    fallback keeps the machine that measured the record: the verdicts it took from another
    server carry no time."""
    timing: str = "cpu"
    """Which duration rewards should use: ``cpu``, ``wall``, ``instructions`` or
    ``cycles_estimate`` (``TestResult.duration_s`` gives each in its unit)."""
    limits: Limits | None = None
    language: str = "python"
    """The program's language (execrl's name, ``execrl.sandbox.languages``)."""
    build: BuildInfo | None = None
    """What building it did (a compiled language), or its interpreter's version; None for a
    Python program run by the zygote."""
    """The limits the tests ran under, with the wall-clock limit written out (``None`` in
    records made before limits were stored)."""
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    @property
    def all_passed(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    def statuses(self) -> dict[str, Status]:
        return {r.test_id: r.status for r in self.results}

    def failed(self) -> list[TestResult]:
        return [r for r in self.results if not r.passed]

    @property
    def inconclusive(self) -> bool:
        """Some test's verdict is ``inconclusive`` (the runner failed, not the program)."""
        return any(r.status is Status.INCONCLUSIVE for r in self.results)


def inconclusive_record(
    request: ExecutionRequestLike, reason: str, *, backend: str, isolation: list[str] = ()
) -> ExecutionRecord:
    """The record of a request that could not be run (a server down, a dead actor, a lost
    connection): every test ``inconclusive`` with ``reason`` as its detail."""
    return ExecutionRecord(
        problem_id=request.problem_id,
        program_sha256=program_sha256(request.program),
        program_name=request.program_name,
        results=[
            TestResult(test_id=t.id, status=Status.INCONCLUSIVE, detail=reason[:300])
            for t in request.tests
        ],
        backend=backend,
        isolation=list(isolation),
        timing=request.options.timing,
        limits=request.limits.resolved(),
    )


def program_sha256(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def save_records(records: list[ExecutionRecord], path: str | Path) -> Path:
    """Write records as JSON lines (``.jsonl``, ``.jsonl.gz``) or Parquet (``.parquet``);
    a destination that cannot be written is an OutputError naming it."""
    path = Path(path)
    if not path.name.endswith((".jsonl", ".jsonl.gz", ".parquet")):
        raise OutputError(f"{path}: records are saved as .jsonl, .jsonl.gz or .parquet")
    rows = [r.model_dump(mode="json") for r in records]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.name.endswith(".parquet"):
            pa, pq = _pyarrow()
            pq.write_table(pa.Table.from_pylist(rows), path)
            return path
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "wt", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    except OSError as exc:
        raise OutputError(f"{path}: cannot write records ({exc.strerror or exc})") from None
    return path


def load_records(path: str | Path) -> list[ExecutionRecord]:
    """Read records written by :func:`save_records` (a last row cut short by a crash is
    dropped). A file that cannot be read, is not UTF-8 JSON lines (or Parquet), or holds a
    row that is not a record is a DataError naming the file and the row."""
    path = Path(path)
    # (read_rows: a DataError for an unreadable, non-UTF-8 or non-JSON file, or a bad gzip)
    rows = _parquet_rows(path) if path.name.endswith(".parquet") else read_rows(path)
    return [_record(path, number, row) for number, row in enumerate(rows, start=1)]


def _record(path: Path, number: int, row: dict) -> ExecutionRecord:
    try:
        return ExecutionRecord.model_validate(row)
    except ValidationError as exc:
        raise DataError(
            f"{path}, row {number}: not an execution record ({describe_validation_error(exc)})"
        ) from None


def _parquet_rows(path: Path) -> list[dict]:
    pa, pq = _pyarrow()
    try:
        return pq.read_table(path).to_pylist()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except pa.ArrowException as exc:
        raise DataError(f"{path}: not a Parquet file of records ({exc})") from None


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise LoaderError("Parquet needs pyarrow: pip install 'execrl[data]'") from exc
    return pa, pq
