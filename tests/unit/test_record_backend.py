"""One ``backend`` convention in records (issue 30.6, docs/scale.md): a record names what ran
the program, on every path; only a record an executor makes without running anything names
that executor."""

from __future__ import annotations

import pytest

from execrl.problems import StdioTest
from execrl.sandbox import ExecutionRecord, ExecutionRequest, LocalExecutor
from execrl.sandbox.records import inconclusive_record

RAN = ExecutionRecord(problem_id="p", program_sha256="0" * 64, backend=LocalExecutor.backend)
REQUEST = ExecutionRequest.of("print(1)", [StdioTest(id="t", input="", output="1")])


def test_a_record_through_ray_keeps_the_backend_that_ran_it() -> None:
    ray = pytest.importorskip("execrl.service.ray", exc_type=ImportError)
    assert ray._as_ray_result(RAN).backend == LocalExecutor.backend
    assert ray._as_ray_result(RAN.model_dump_json()).backend == LocalExecutor.backend


@pytest.mark.parametrize("module", ["execrl.service.ray", "execrl.service.remote"])
def test_a_record_made_without_running_names_the_executor(module: str) -> None:
    executor = pytest.importorskip(module, exc_type=ImportError)
    record = inconclusive_record(REQUEST, "no server", backend=executor.BACKEND)
    assert record.backend == executor.BACKEND != LocalExecutor.backend
