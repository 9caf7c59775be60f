"""Killing RayExecutor's actors mid-batch on a real two-node Ray cluster: every request still
ends exactly once, as its own program's verdict or ``inconclusive``, and the executor keeps
working (Ray restarts a killed actor; a permanently dead one is left out).

Every program sleeps a little, then prints a token of its own that its test expects, so a
success proves the record is that program's, and the batch is still running when the kill
lands. One cluster for the file, each test opening its own executor on it; the lost-node test
starts a cluster of its own and kills every process of its second node.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for tests.service._ray_cluster

import ray

from execrl.problems.models import StdioTest
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status
from execrl.service.ray import RayExecutor
from tests.service._ray_cluster import _descendants as descendants
from tests.service._ray_cluster import ray_cluster

BATCH = int(os.environ.get("EXECRL_RAY_FAULT_BATCH", "24"))
"""Requests per faulted batch (CI scale; set more for a longer run)."""
SLEEP_S = 0.2
KILL_AFTER = 4
"""Records received before the kill: both actors are busy then, with more queued."""


@pytest.fixture(scope="module")
def cluster():
    with ray_cluster(nodes=2, cpus_per_node=1) as running:
        yield running
    assert running.leftover_pids() == []


@contextlib.contextmanager
def opened(cluster, max_restarts: int, **settings) -> Iterator[RayExecutor]:
    """An executor on ``cluster``; closed, it has disconnected (it was the one to connect)."""
    with RayExecutor(cluster.address, max_restarts=max_restarts, **settings) as ray_executor:
        yield ray_executor
    assert not ray.is_initialized()


def token_batch(count: int) -> list[ExecutionRequest]:
    """Requests whose programs each print their own token after a short sleep."""
    limits = Limits(cpu_time_s=2.0, wall_time_s=5.0)
    batch = []
    for _ in range(count):
        token = uuid.uuid4().hex
        program = f"import time\ntime.sleep({SLEEP_S})\nprint({token!r})\n"
        test = StdioTest(id="t1", input="", output=token)
        batch.append(
            ExecutionRequest(program=program, tests=[test], limits=limits, problem_id=token)
        )
    return batch


def run_with_kill(executor: RayExecutor, batch, kill) -> list:
    """Run ``batch`` in request order, calling ``kill()`` after KILL_AFTER records."""
    records = []
    for record in executor.run_batch(batch, progress=False):
        records.append(record)
        if len(records) == KILL_AFTER:
            kill()
    return records


def assert_each_request_answered_once(batch, records) -> dict[str, int]:
    """Every request has exactly one record, in order, that is its own verdict or inconclusive;
    the count of each outcome."""
    assert [r.problem_id for r in records] == [r.problem_id for r in batch]
    outcomes = {"success": 0, "inconclusive": 0}
    for record in records:
        [result] = record.results
        assert result.status in (Status.SUCCESS, Status.INCONCLUSIVE), (result.status, result)
        outcomes[result.status.value] += 1
    return outcomes


def sigkill_actor(executor: RayExecutor, index: int) -> tuple[int, set[int]]:
    """SIGKILL one actor's process; (its pid, its fork servers' pids)."""
    pid = executor.node_stats()[index]["pid"]
    pool = descendants(pid)
    os.kill(pid, signal.SIGKILL)
    return pid, pool


def wait_until_gone(pids: set[int], timeout_s: float = 15.0) -> set[int]:
    deadline = time.monotonic() + timeout_s
    while (alive := {p for p in pids if Path(f"/proc/{p}").exists()}) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.2)
    return alive


def states_within(executor: RayExecutor, states: list[str], timeout_s: float = 20.0) -> list:
    """The executor's node stats once its actors are in ``states`` (a restart takes seconds)."""
    deadline = time.monotonic() + timeout_s
    stats = executor.node_stats()
    while [s["state"] for s in stats] != states:
        assert time.monotonic() < deadline, stats
        time.sleep(0.3)
        stats = executor.node_stats()
    return stats


def test_a_sigkilled_actor_is_restarted_and_its_requests_retried(cluster):
    batch = token_batch(BATCH)
    killed: dict[str, object] = {}
    with opened(cluster, max_restarts=2) as executor:
        records = run_with_kill(
            executor,
            batch,
            lambda: killed.update(zip(("pid", "pool"), sigkill_actor(executor, 0), strict=True)),
        )
        outcomes = assert_each_request_answered_once(batch, records)
        assert outcomes["success"] == BATCH  # the killed actor's requests ran again elsewhere
        assert wait_until_gone(killed["pool"]) == set()  # its sandbox processes died with it

        stats = states_within(executor, ["live", "live"])  # Ray restarted it: a new process
        assert stats[0]["pid"] != killed["pid"]
        after = token_batch(8)
        assert all(r.all_passed for r in executor.run_batch(after, progress=False))
        assert executor.node_stats()[0]["executed"] >= 1  # the restarted actor works again


def test_an_actor_out_of_restarts_is_left_out(cluster):
    batch = token_batch(BATCH)
    with opened(cluster, max_restarts=0) as executor:
        records = run_with_kill(executor, batch, lambda: sigkill_actor(executor, 0))
        outcomes = assert_each_request_answered_once(batch, records)
        assert outcomes["success"] == BATCH
        states_within(executor, ["dead", "live"])
        after = token_batch(6)
        assert all(r.all_passed for r in executor.run_batch(after, progress=False))


def test_with_every_actor_dead_the_rest_is_inconclusive_not_a_hang(cluster):
    batch = token_batch(BATCH)
    with opened(cluster, max_restarts=0) as executor:

        def kill_all() -> None:
            for index in range(2):
                sigkill_actor(executor, index)

        start = time.monotonic()
        records = run_with_kill(executor, batch, kill_all)
        assert time.monotonic() - start < 30
        outcomes = assert_each_request_answered_once(batch, records)
        assert outcomes["success"] >= KILL_AFTER
        assert outcomes["inconclusive"] >= 1
        for record in records:
            if record.inconclusive:
                detail = record.results[0].detail
                assert detail == "no live Ray actor to run it on" or detail.startswith(
                    "Ray actor failed twice"
                ), detail
        later = list(executor.run_batch(token_batch(2), progress=False))
        assert [r.results[0].status for r in later] == [Status.INCONCLUSIVE] * 2


def test_a_hung_actor_is_given_up_on_and_its_requests_run_elsewhere(cluster):
    """SIGSTOP an actor: Ray sees nothing wrong, its requests never answer; after their
    deadline (limits' budget + answer_slack_s) they run on the other node, and the stopped
    actor, silent to its probe, is left out."""
    limits = Limits(cpu_time_s=0.5, wall_time_s=1.0)  # budget: 3 × (1 + 1) s = 6 s
    batch = [r.model_copy(update={"limits": limits}) for r in token_batch(12)]
    with opened(cluster, max_restarts=0, restart_timeout_s=3, answer_slack_s=2) as executor:
        pid = executor.node_stats()[0]["pid"]
        frozen = {pid} | descendants(pid)
        try:
            records = run_with_kill(executor, batch, lambda: signal_all(frozen, signal.SIGSTOP))
            outcomes = assert_each_request_answered_once(batch, records)
            assert outcomes["success"] == len(batch)
            time.sleep(3.5)  # past restart_timeout_s: still silent, so it is left out
            assert executor.node_stats()[0]["state"] == "dead"
        finally:
            signal_all(frozen, signal.SIGCONT)


def test_a_lost_node_is_left_out_and_its_requests_run_on_the_other():
    batch = token_batch(BATCH)
    with (
        ray_cluster(nodes=2, cpus_per_node=1) as doomed,
        RayExecutor(doomed.address, restart_timeout_s=5) as executor,
    ):
        second = {doomed.nodes[1].pid} | descendants(doomed.nodes[1].pid)  # all of node 2
        lost = next(i for i, s in enumerate(executor.node_stats()) if s["pid"] in second)
        records = run_with_kill(executor, batch, lambda: signal_all(second, signal.SIGKILL))
        outcomes = assert_each_request_answered_once(batch, records)
        assert outcomes["success"] == BATCH
        states_within(executor, ["dead" if i == lost else "live" for i in range(2)])
        after = token_batch(6)
        assert all(r.all_passed for r in executor.run_batch(after, progress=False))
    assert doomed.leftover_pids() == []


def signal_all(pids: set[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)
