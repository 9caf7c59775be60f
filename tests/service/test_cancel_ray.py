"""Cancellation on Ray (issue 33, item 1): an abort stops a request on its node's actor, the
program killed there, and the actor's worker is free again at once.

A one-node Ray cluster (one worker) on this machine; started for this file and stopped at its
end with nothing left running. Deadlines are generous and polled (a loaded 2-core CI machine).
"""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("ray")

from execrl.problems.models import StdioTest
from execrl.sandbox.abort import Abort
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status
from execrl.service.ray import RayExecutor
from tests.service._ray_cluster import ray_cluster

BURN_S = 60
BURN = f"import time\nend = time.time() + {BURN_S}\nwhile time.time() < end:\n    pass\nprint(1)\n"
STOPPED_WITHIN_S = 30.0
"""Far below the 3 x 60 s the request would take if nothing stopped it."""


@pytest.fixture(scope="module")
def executor():
    with (
        ray_cluster(nodes=1, cpus_per_node=1) as cluster,
        RayExecutor(cluster.address, workers_per_node=1) as ray_executor,
    ):
        yield ray_executor
    assert cluster.leftover_pids() == []


def _request(program: str, tests: int) -> ExecutionRequest:
    return ExecutionRequest(
        program=program,
        tests=[StdioTest(id=f"t{i}", input="", output="1") for i in range(tests)],
        limits=Limits(cpu_time_s=BURN_S + 10, wall_time_s=BURN_S + 30),
    )


def test_an_aborted_ray_request_is_stopped_on_its_node(executor: RayExecutor) -> None:
    abort = Abort()
    answer: dict[str, ExecutionRecord] = {}
    runner = threading.Thread(
        target=lambda: answer.update(record=executor.execute(_request(BURN, 3), abort=abort))
    )
    started = time.monotonic()
    runner.start()
    time.sleep(2)  # (running or still queued on the actor: stopped either way)
    abort.cancel("cancelled: test")
    runner.join(timeout=STOPPED_WITHIN_S)
    assert not runner.is_alive(), "the request was not stopped"
    assert time.monotonic() - started < STOPPED_WITHIN_S
    results = answer["record"].results
    assert {(r.status, r.detail) for r in results} == {(Status.INCONCLUSIVE, "cancelled: test")}
    # the node's one worker is free: the next request runs now, not after 3 x 60 s
    record = executor.execute(_request("print(1)", 1))
    assert record.results[0].status is Status.SUCCESS
