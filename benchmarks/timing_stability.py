"""Benchmark c: how much a solution's speed score moves between reruns (spec §2, §6).

Every correct bundled reference runs on its problem's optimization tests ``--reruns`` times
(each rerun a fresh fork). For each rerun, the solution's per-test percentile is its duration
inserted among the other references' median durations on that test (spec §2: rank fastest →
slowest, ties take the earlier rank, p = (rank − 1)/(n − 1)); the mean over tests is its score.
The benchmark reports the standard deviation of that score across reruns, in percentile
points, for CPU and wall time, on an idle machine and with a CPU hog on the other core and on
the same core as the sandbox worker. All conditions run in one invocation.

    python benchmarks/timing_stability.py [--reruns 10] [--tests-per-problem N] [--out FILE]
        [--timing clock|instructions|cycles_estimate]

With ``--timing instructions`` the durations are instruction counts under Valgrind (issue 20):
each rerun is a request of its own, counted once per test.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

from execrl.problems import load_bundled
from execrl.sandbox.limits import ExecutionOptions
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest


def percentile_of(value: float, pool: list[float]) -> float:
    """Spec §2: insert ``value`` into ``pool``, rank fastest→slowest (ties: earlier rank)."""
    rank = 1 + sum(1 for d in pool if d < value)
    n = len(pool) + 1
    return (rank - 1) / (n - 1) if n > 1 else 0.0


@contextlib.contextmanager
def cpu_hog(core: int | None):
    """A busy process pinned to ``core`` (nothing when None)."""
    if core is None:
        yield
        return
    hog = subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        hog.kill()
        hog.wait()


def timed_tests(problem, tests_per_problem: int | None) -> list:
    tests = sorted(problem.optimization_tests, key=lambda t: len(t.input))
    return tests[:tests_per_problem] if tests_per_problem else tests


def measure(problems, executor, reruns: int, tests_per_problem: int | None) -> dict:
    """durations[(problem, reference)][metric][rerun][test] for every correct reference."""
    requests, keys = [], []
    for problem in problems:
        tests = timed_tests(problem, tests_per_problem)
        for ref in problem.references_labelled("correct"):
            requests.append(
                ExecutionRequest.for_problem(
                    problem, ref.code, tests=tests, options=ExecutionOptions(repeats=reruns)
                )
            )
            keys.append((problem.id, ref.name))
    durations = {}
    for key, record in zip(keys, executor.run_batch(requests, description="timing"), strict=True):
        if not record.all_passed:
            continue  # a reference that failed here is not scored
        durations[key] = {
            metric: [
                [getattr(r.repeats[i], f"{metric}_s") for r in record.results]
                for i in range(reruns)
            ]
            for metric in ("cpu", "wall")
        }
    return durations


def measure_counts(problems, executor, reruns: int, tests_per_problem: int | None, timing: str):
    """As ``measure`` for a counted timing: one request per rerun (a request counts each test
    once: a count is not repeated within a request)."""
    requests, keys = [], []
    for problem in problems:
        tests = timed_tests(problem, tests_per_problem)
        for ref in problem.references_labelled("correct"):
            for _ in range(reruns):
                options = ExecutionOptions(timing=timing)
                requests.append(
                    ExecutionRequest.for_problem(problem, ref.code, tests=tests, options=options)
                )
                keys.append((problem.id, ref.name))
    runs = defaultdict(list)
    for key, record in zip(keys, executor.run_batch(requests, description=timing), strict=True):
        runs[key].append(record)
    return {
        key: {timing: [[r.duration_s(timing) for r in rec.results] for rec in records]}
        for key, records in runs.items()
        if all(rec.all_passed for rec in records)  # a reference that failed here is not scored
    }


def rerun_std_points(durations: dict, metric: str) -> list[float]:
    """Per solution: std over reruns of its mean per-test percentile, in points."""
    by_problem = defaultdict(list)
    for (pid, ref), data in durations.items():
        by_problem[pid].append((ref, data[metric]))
    stds = []
    for refs in by_problem.values():
        if len(refs) < 3:
            continue
        pools = {
            ref: [statistics.median(col) for col in zip(*runs, strict=True)] for ref, runs in refs
        }
        for ref, runs in refs:
            others = [pools[o] for o, _ in refs if o != ref]
            scores = []
            for run in runs:
                per_test = [
                    percentile_of(d, [pool[t] for pool in others]) for t, d in enumerate(run)
                ]
                scores.append(statistics.fmean(per_test))
            stds.append(statistics.stdev(scores) * 100)
    return stds


def summary(stds: list[float]) -> dict:
    return {
        "median": round(statistics.median(stds), 2),
        "mean": round(statistics.fmean(stds), 2),
        "p90": round(sorted(stds)[int(0.9 * (len(stds) - 1))], 2),
        "max": round(max(stds), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=10)
    parser.add_argument(
        "--tests-per-problem", type=int, help="the N smallest optimization tests (default: all)"
    )
    parser.add_argument(
        "--problem", action="append", help="only these bundled problems (repeatable)"
    )
    parser.add_argument(
        "--conditions",
        default="idle,hog_other_core,hog_same_core",
        help="comma-separated, run in this order (default: all three)",
    )
    parser.add_argument(
        "--timing",
        choices=("clock", "instructions", "cycles_estimate"),
        default="clock",
        help="clock: CPU and wall time (default); or a count under Valgrind",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    metrics = ("cpu", "wall") if args.timing == "clock" else (args.timing,)
    cores = sorted(os.sched_getaffinity(0))
    worker_core, other_core = cores[-1], cores[0] if len(cores) > 1 else None
    problems = load_bundled(args.problem)
    hogs = {"idle": None, "hog_other_core": other_core, "hog_same_core": worker_core}
    unknown = set(args.conditions.split(",")) - set(hogs)
    if unknown:
        parser.error(f"unknown condition(s) {sorted(unknown)}; choose from {sorted(hogs)}")
    conditions = {name: hogs[name] for name in args.conditions.split(",")}
    results = {}
    with LocalExecutor(workers=1, cores=[worker_core], reserve_host_core=True) as executor:
        for name, hog_core in conditions.items():
            with cpu_hog(hog_core):
                if args.timing == "clock":
                    durations = measure(problems, executor, args.reruns, args.tests_per_problem)
                else:
                    durations = measure_counts(
                        problems, executor, args.reruns, args.tests_per_problem, args.timing
                    )
            results[name] = {
                metric: summary(rerun_std_points(durations, metric)) for metric in metrics
            }
            results[name]["solutions"] = len(durations)
            print(name, results[name], flush=True)
    report(
        "timing stability (c)",
        {
            "reruns": args.reruns,
            "tests_per_problem": args.tests_per_problem or "all",
            "conditions": list(conditions),
            "problems": len(problems),
            "worker_core": worker_core,
            "rerun_std_percentile_points": results,
            "timing": args.timing,
            "target": "cpu std <= 2 points with the other core loaded"
            if args.timing == "clock"
            else f"{args.timing} std <= 0.5 points in every condition",
        },
        args.out,
    )


if __name__ == "__main__":
    main()
