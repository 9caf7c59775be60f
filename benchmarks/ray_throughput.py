"""Benchmark: the HumanEval workload (every canonical solution and a corrupted variant of each)
through ``RayExecutor`` over two Ray node processes versus ``LocalExecutor`` on the same cores,
in one run. Target (issue 19): Ray's throughput within 20 % of the local pool's (ratio >= 0.8).

Without ``--address`` it starts a two-node cluster on this machine (tests/service/_ray_cluster,
each node half the cores) and stops it at the end; the local pool gets the same number of
workers as the nodes together. Rounds alternate local and Ray; the ratio is of the medians.

    python benchmarks/ray_throughput.py [--rounds 3] [--quick] [--address HOST:PORT]
        [--out results/ray_throughput.json]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1]))  # tests.service._ray_cluster
from _common import report
from humaneval_throughput import canonical_and_corrupted, execrl_requests

from execrl.problems.humaneval import load_humaneval
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest

QUICK_PROBLEMS = 20


def humaneval_requests(quick: bool) -> tuple[list[ExecutionRequest], list[bool]]:
    """(requests, whether each should pass): canonical and corrupted, HumanEval's timeout."""
    problems = load_humaneval()[: QUICK_PROBLEMS if quick else None]
    jobs = canonical_and_corrupted(problems)
    return execrl_requests(jobs), [should_pass for _, _, should_pass in jobs]


def timed(executor, requests: list[ExecutionRequest]) -> tuple[float, list[bool]]:
    start = time.perf_counter()
    records = list(executor.run_batch(requests, progress=False))
    return time.perf_counter() - start, [r.all_passed for r in records]


def mismatches(requests, got: list[bool], expected: list[bool]) -> list[str]:
    pairs = zip(requests, got, expected, strict=True)
    return [r.problem_id for r, ok, want in pairs if ok != want]


def measure(address: str, workers: int, requests, expected, rounds: int) -> dict:
    """Alternate local and Ray rounds on the same requests; medians, ratio, wrong verdicts."""
    from execrl.service.ray import RayExecutor

    times: dict[str, list[float]] = {"local": [], "ray": []}
    wrong: dict[str, set[str]] = {"local": set(), "ray": set()}
    with LocalExecutor(workers=workers) as local, RayExecutor(address) as ray_executor:
        timed(ray_executor, requests[:4])  # warm both: first compiles, worker start-up
        timed(local, requests[:4])
        for _ in range(rounds):
            for name, executor in (("local", local), ("ray", ray_executor)):
                seconds, passed = timed(executor, requests)
                times[name].append(seconds)
                wrong[name].update(mismatches(requests, passed, expected))
        nodes = ray_executor.node_stats()
        ray_workers = ray_executor.workers
    local_s, ray_s = statistics.median(times["local"]), statistics.median(times["ray"])
    return {
        "executions": len(requests),
        "rounds": rounds,
        "local_workers": workers,
        "ray_workers": ray_workers,
        "ray_nodes": [{k: n.get(k) for k in ("node_id", "cores", "executed")} for n in nodes],
        "local_s": [round(t, 2) for t in times["local"]],
        "ray_s": [round(t, 2) for t in times["ray"]],
        "local_exec_per_s": round(len(requests) / local_s, 1),
        "ray_exec_per_s": round(len(requests) / ray_s, 1),
        "ray_over_local_throughput": round(local_s / ray_s, 3),
        "target": ">= 0.8",
        "local_mismatches": sorted(wrong["local"]),
        "ray_mismatches": sorted(wrong["ray"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20 problems, one round")
    parser.add_argument("--address", help="an existing Ray cluster (its GCS HOST:PORT)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    requests, expected = humaneval_requests(args.quick)
    rounds = 1 if args.quick else args.rounds
    if args.address:
        workers = len(os.sched_getaffinity(0))
        result = measure(args.address, workers, requests, expected, rounds)
    else:
        from tests.service._ray_cluster import ray_cluster

        cpus = max(1, len(os.sched_getaffinity(0)) // 2)
        with ray_cluster(nodes=2, cpus_per_node=cpus) as cluster:
            result = measure(cluster.address, 2 * cpus, requests, expected, rounds)
    report("Ray over two node processes vs the local pool", result, args.out)
    if result["ray_mismatches"] or result["local_mismatches"]:
        raise SystemExit(
            f"wrong verdicts: {result['ray_mismatches'] or result['local_mismatches']}"
        )


if __name__ == "__main__":
    main()
