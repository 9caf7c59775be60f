"""RayExecutor on a real two-node Ray cluster on this machine: the same verdicts as the local
pool, work on both nodes, request order for run_batch and completion order for arun_batch.

The cluster (two raylet processes, one CPU each) starts once for this file and is stopped at
its end, with nothing of it left running.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import uuid

import pytest

pytest.importorskip("ray")

from execrl.errors import ExecutionError, UsageError
from execrl.problems import load_bundled
from execrl.problems.models import CallTest, StdioTest
from execrl.rewards.scoring import Group, score_batch
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest, Executor
from execrl.sandbox.records import Status
from execrl.service.open import open_executor
from execrl.service.ray import RayExecutor, _choose_nodes, share_of_cores
from tests.service._ray_cluster import ray_cluster

FAST = Limits(cpu_time_s=1.0, wall_time_s=3.0)


@pytest.fixture(scope="module")
def cluster():
    with ray_cluster(nodes=2, cpus_per_node=1) as running:
        yield running
    assert running.leftover_pids() == []


@pytest.fixture(scope="module")
def executor(cluster):
    with RayExecutor(cluster.address) as ray_executor:
        yield ray_executor


def stdio(program: str, expected: str, name: str, limits: Limits = FAST) -> ExecutionRequest:
    test = StdioTest(id="t1", input="3 4\n", output=expected)
    return ExecutionRequest(program=program, tests=[test], limits=limits, problem_id=name)


def mixed_batch() -> list[ExecutionRequest]:
    """One request of each verdict the tests compare, twice over (so both nodes get each)."""
    add = "a, b = map(int, input().split())\nprint(a + b)\n"
    call = CallTest(id="c1", fn_name="f", args=[2], expected=4)
    batch = [
        stdio(add, "7", "pass"),
        stdio(add.replace("+", "-"), "7", "wrong"),
        stdio("raise ValueError('boom')\n", "7", "error"),
        stdio("while True:\n    pass\n", "7", "timeout", Limits(cpu_time_s=0.5, wall_time_s=2)),
        ExecutionRequest(program="def f(x):\n    return x * 2\n", tests=[call], problem_id="call"),
    ]
    return batch + [r.model_copy(update={"problem_id": r.problem_id + "-2"}) for r in batch]


EXPECTED = ["success", "wrong_answer", "runtime_error", "timeout", "success"] * 2


def statuses(records) -> list[str]:
    return [r.results[0].status.value for r in records]


def test_it_is_an_executor_with_every_nodes_workers(executor):
    assert isinstance(executor, Executor)
    assert executor.backend == "ray"
    assert executor.workers == 2  # one per node, each node has one CPU
    assert "seccomp" in executor.isolation


def test_verdicts_equal_the_local_pools(executor):
    batch = mixed_batch()
    with LocalExecutor(workers=1) as local:
        expected = statuses(local.run_batch(batch, progress=False))
    records = list(executor.run_batch(batch, progress=False))
    assert expected == EXPECTED
    assert statuses(records) == expected
    assert [r.problem_id for r in records] == [r.problem_id for r in batch]
    # one backend convention (docs/scale.md): a record names what ran it, the actor's pool
    assert {r.backend for r in records} == {LocalExecutor.backend}
    assert records[3].results[0].limit_hit == "cpu"


def test_both_nodes_receive_work_on_their_own_cores(executor):
    before = {s["node_id"]: s["executed"] for s in executor.node_stats()}
    batch = [stdio(f"print({i})", str(i), f"p{i}") for i in range(12)]
    records = list(executor.run_batch(batch, progress=False))
    assert all(r.all_passed for r in records)
    after = executor.node_stats()
    assert len({s["node_id"] for s in after}) == 2
    done = {s["node_id"]: s["executed"] - before[s["node_id"]] for s in after}
    assert sum(done.values()) == 12
    assert min(done.values()) >= 2, done
    assert sorted(core for s in after for core in s["cores"]) == [0, 1]


def test_run_batch_in_request_order_arun_batch_in_completion_order(executor):
    slow = stdio("import time\ntime.sleep(3)\nprint(7)\n", "7", "slow", Limits(wall_time_s=6))
    fast = [stdio("print(7)", "7", f"fast{i}") for i in range(4)]
    ordered = [r.problem_id for r in executor.run_batch([slow, *fast], progress=False)]
    assert ordered == ["slow", "fast0", "fast1", "fast2", "fast3"]

    async def completion_order() -> list[str]:
        return [r.problem_id async for r in executor.arun_batch([slow, *fast])]

    finished = asyncio.run(completion_order())
    assert sorted(finished) == sorted(ordered)
    assert finished[-1] == "slow"  # it held one node while the other ran all four


def test_arun_run_and_capture(executor):
    tokens = [uuid.uuid4().hex for _ in range(4)]

    async def together():
        requests = [stdio(f"print({t!r})", t, t) for t in tokens]
        return await asyncio.gather(*(executor.arun(r) for r in requests))

    records = asyncio.run(together())
    assert [r.problem_id for r in records] == tokens
    assert all(r.all_passed for r in records)
    one = executor.run("print(input())", [StdioTest(id="a", input="hi\n", output="hi")])
    assert one.all_passed
    result, stdout = executor.capture("print(input()[::-1])", "abc\n")
    assert (result.status, stdout) == (Status.SUCCESS, "cba\n")


def test_executors_with_the_same_settings_share_each_nodes_pool(executor):
    with RayExecutor() as second:  # the process is connected: it joins that cluster
        assert sorted(s["pid"] for s in second.node_stats()) == sorted(
            s["pid"] for s in executor.node_stats()
        )
        record = second.run("print(5)", [StdioTest(id="a", input="", output="5")])
        assert record.all_passed
    # the second did not create the actors, so closing it stopped neither
    assert [s["state"] for s in executor.node_stats()] == ["live", "live"]
    assert executor.run("print(6)", [StdioTest(id="a", input="", output="6")]).all_passed


def test_other_settings_start_their_own_pools_on_cores_already_held(executor):
    """The module's executor holds every CPU in Ray; one with other settings reserves what is
    free (nothing) instead of waiting for CPUs that never come free."""
    start = time.monotonic()
    with RayExecutor(workers_per_node=2) as other:
        assert other.workers == 4
        assert time.monotonic() - start < 60
        records = list(other.run_batch([stdio("print(7)", "7", f"o{i}") for i in range(4)]))
        assert all(r.all_passed for r in records)
        mine = {s["pid"] for s in executor.node_stats()}
        assert mine.isdisjoint(s["pid"] for s in other.node_stats())


def test_score_batch_through_the_ray_spec_gives_the_local_rewards(executor, cluster):
    """The spec the CLI and configs use (``ray:HOST:PORT``) opens a RayExecutor; scoring a
    problem's correct and incorrect references on it gives the local pool's rewards and
    per-test verdicts."""
    problem = load_bundled(["balanced-brackets"])[0]
    group = Group(problem, [ref.code for ref in problem.references])

    def scored(backend) -> list[tuple]:
        [results] = score_batch([group], reward="correctness", executor=backend, progress=False)
        return [(s.reward, tuple(s.record.statuses().items())) for s in results]

    with LocalExecutor(workers=1) as local:
        expected = scored(local)
    with open_executor(f"ray:{cluster.address}") as through_ray:
        assert through_ray.backend == "ray"
        assert scored(through_ray) == expected
    labels = [ref.label.value for ref in problem.references]
    assert [reward for reward, _ in expected] == [1.0 if x == "correct" else -1.0 for x in labels]


def test_another_clusters_address_in_a_connected_process_is_a_usage_error(executor):
    with pytest.raises(UsageError, match="already connected to the Ray cluster at"):
        RayExecutor("127.0.0.1:1")


def test_unknown_nodes_are_an_execution_error(executor):
    with pytest.raises(ExecutionError, match="no alive node with a CPU among"):
        RayExecutor(nodes=["10.255.255.1"])


def test_nodes_sharing_a_machine_split_its_cores():
    assert share_of_cores([0, 1, 2, 3], (0, 2)) == [0, 2]
    assert share_of_cores([0, 1, 2, 3], (1, 2)) == [1, 3]
    assert share_of_cores([0], (1, 2)) == [0]  # fewer cores than nodes: all of them


def node(node_id: str, ip: str, cpus: float, gpus: float = 0, alive: bool = True) -> dict:
    """A row of ``ray.nodes()`` with the fields the executor reads."""
    resources = {"CPU": cpus, **({"GPU": gpus} if gpus else {})}
    return {"NodeID": node_id, "NodeManagerAddress": ip, "Alive": alive, "Resources": resources}


def test_gpu_nodes_are_left_to_the_trainer_when_there_are_cpu_nodes():
    table = [node("g", "10.0.0.1", 16, gpus=8), node("c1", "10.0.0.2", 32)]
    table += [node("c2", "10.0.0.3", 32, alive=False), node("c3", "10.0.0.4", 0)]
    choice = _choose_nodes(table, None, None)
    assert [n["NodeID"] for n in choice.nodes] == ["c1"]
    assert choice.workers == [32]
    every_gpu = _choose_nodes([node("g", "10.0.0.1", 16, gpus=8)], None, 4)
    assert (every_gpu.workers, [n["NodeID"] for n in every_gpu.nodes]) == ([4], ["g"])
    named = _choose_nodes(table, ["10.0.0.1"], None)  # by IP address (or node id)
    assert [n["NodeID"] for n in named.nodes] == ["g"]
    with pytest.raises(ExecutionError, match="among"):
        _choose_nodes(table, ["c2"], None)  # dead


def test_without_ray_the_import_is_one_usage_error():
    script = (
        "import sys; sys.modules['ray'] = None\n"
        "from execrl.errors import UsageError\n"
        "try:\n"
        "    import execrl.service.ray\n"
        "except UsageError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.stdout.strip().endswith("install them with `pip install 'execrl[ray]'`")
    assert len(out.stdout.strip().splitlines()) == 1


def test_an_address_where_nothing_listens_is_one_execution_error_at_once():
    script = (
        "from execrl.errors import ExecutionError, UsageError\n"
        "from execrl.service.ray import RayExecutor\n"
        "try:\n"
        "    RayExecutor('127.0.0.1:1')\n"
        "except ExecutionError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().startswith("cannot connect to the Ray cluster at 127.0.0.1:1: ")
