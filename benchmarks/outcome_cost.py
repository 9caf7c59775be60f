"""Benchmark d: the cost of turning an execution into a reward, against the execution itself.

Spec acceptance: computing the Outcome and the reward of a rollout with 120 optimization
tests and 100 references costs under 1% of executing it. A synthetic problem (sum n numbers,
a few thousand per input) with 120 optimization stdio tests and 100 references with random
stored durations; the program runs once on all 120 tests (one request, one worker), then
``Environment.outcome`` + the reward are timed on that record under three environments.

    python benchmarks/outcome_cost.py [--tests 120] [--references 100] [--out results/d.json]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_ms, report

from execrl.envs import environment
from execrl.problems.models import Problem, Reference, StdioTest, TestGroup
from execrl.rewards import reward
from execrl.sandbox.pool import LocalExecutor

PROGRAM = (
    "import sys\n"
    "data = sys.stdin.buffer.read().split()\n"
    "n = int(data[0])\n"
    "print(sum(map(int, data[1 : n + 1])))\n"
)
ENVIRONMENTS = ("qp(p=0.3)", "qar", "ranked_timeout")
REWARD = "collapsed"


def synthetic_problem(n_tests: int, n_refs: int, numbers: int, seed: int) -> Problem:
    """``n_tests`` optimization tests of ``numbers`` integers each; ``n_refs`` correct
    references whose stored durations are log-normal around a per-reference speed (2% of the
    entries missing, as when a reference failed a test)."""
    rng = np.random.default_rng(seed)
    tests = []
    for i in range(n_tests):
        values = rng.integers(-(10**9), 10**9, size=numbers)
        text = f"{numbers}\n{' '.join(map(str, values.tolist()))}\n"
        tests.append(
            StdioTest(
                id=f"opt-{i:03d}",
                group=TestGroup.OPTIMIZATION,
                input=text,
                output=f"{int(values.sum())}\n",
            )
        )
    speed = rng.lognormal(np.log(0.004), 0.6, size=n_refs)  # seconds per test, per reference
    noise = rng.lognormal(0.0, 0.1, size=(n_refs, n_tests))
    missing = rng.random((n_refs, n_tests)) < 0.02
    references = [
        Reference(
            name=f"ref-{j:03d}",
            code=PROGRAM,
            label="correct",
            durations_s={
                t.id: float(speed[j] * noise[j, i])
                for i, t in enumerate(tests)
                if not missing[j, i]
            },
        )
        for j in range(n_refs)
    ]
    return Problem(id="bench-sum", time_limit_s=10.0, tests=tests, references=references)


def execute(problem: Problem, runs: int) -> tuple[list[float], object]:
    """Wall time of one request (the program on every test, one worker), ``runs`` times."""
    env = environment(ENVIRONMENTS[0])  # CapLimit: every test runs under the hard cap
    request = env.request(problem, PROGRAM)
    times = []
    with LocalExecutor(workers=1) as executor:
        executor.execute(request)  # warm: first compile, first forks
        for _ in range(runs):
            start = time.perf_counter()
            record = executor.execute(request)
            times.append(time.perf_counter() - start)
    if not record.all_passed:
        raise SystemExit(f"the benchmark program failed: {record.failed()[:1]}")
    return times, record


def time_outcome(problem: Problem, record, spec: str, repetitions: int) -> dict:
    """Median seconds of outcome + reward with the plan shared (as ``score_batch`` does for a
    group), and with the plan (reference pool, filter, limits) rebuilt every time."""
    env, reward_fn = environment(spec), reward(REWARD)
    plan = env.plan(problem)

    def per_rollout() -> float:
        return reward_fn(env.outcome(problem, record, plan=plan))

    def with_plan() -> float:
        return reward_fn(env.outcome(problem, record))

    out = {"reward": per_rollout(), "optimization_tests_used": len(plan.optimization)}
    for name, fn in (("per_rollout", per_rollout), ("with_plan", with_plan)):
        fn()  # warm
        times = []
        for _ in range(repetitions):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        out[f"{name}_ms_median"] = round(median_ms(times), 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=120)
    parser.add_argument("--references", type=int, default=100)
    parser.add_argument("--numbers", type=int, default=3000, help="integers per test input")
    parser.add_argument("--repetitions", type=int, default=50)
    parser.add_argument("--executions", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    problem = synthetic_problem(args.tests, args.references, args.numbers, args.seed)
    exec_times, record = execute(problem, args.executions)
    execution_ms = median_ms(exec_times)
    environments = {}
    for spec in ENVIRONMENTS:
        timed = time_outcome(problem, record, spec, args.repetitions)
        timed["ratio_per_rollout_percent"] = round(
            100 * timed["per_rollout_ms_median"] / execution_ms, 3
        )
        timed["ratio_with_plan_percent"] = round(
            100 * timed["with_plan_ms_median"] / execution_ms, 3
        )
        environments[spec] = timed
    result = {
        "tests": args.tests,
        "references": args.references,
        "numbers_per_input": args.numbers,
        "reward": REWARD,
        "execution_ms_median": round(execution_ms, 1),
        "execution_ms_all": [round(t * 1000, 1) for t in exec_times],
        "cpu_ms_per_test_median": round(
            1000 * statistics.median(r.cpu_s for r in record.results), 2
        ),
        "environments": environments,
        "worst_ratio_per_rollout_percent": max(
            e["ratio_per_rollout_percent"] for e in environments.values()
        ),
        "target_percent": 1.0,
    }
    report("outcome and reward cost (d)", result, args.out)


if __name__ == "__main__":
    main()
