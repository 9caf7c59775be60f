"""Benchmark g: the cost of the dense reward and its advantages for one group.

Issue acceptance: ``dense_rewards`` (pass rates, KDE, calibrated weights, turn rewards,
decayed trajectory rewards, local/global/combined advantages) for a group of 16 rollouts ×
4 turns × 1000 tests in under 5 ms. The group is random (numpy seed 0): each test has its
own pass probability (uniform in [0, 1]); every trajectory uses all 4 turns (M = 64, the
most work; ``--random-turns`` draws 1–4). Building the pass tensor from the array is timed
separately (it validates and copies it), as is building it from 16 × 4 ExecutionRecords of
1000 results each (a Python loop over every result), and the KDE written as the spec's |U| × |U|
sum (``dense_rewards`` sums over the ≤ M + 1 distinct pass rates instead; the two agree).

    python benchmarks/dense_reward_cost.py [--rollouts 16] [--turns 4] [--tests 1000]
        [--runs 200] [--out results/dense_reward_cost.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_ms, report

from execrl.rewards.dense import DenseRewardConfig, PassTensor, dense_rewards
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

TARGET_MS = 5.0


def random_group(
    rollouts: int, turns: int, tests: int, *, random_turns: bool, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    difficulty = rng.uniform(size=tests)  # (|U|,) per-test pass probability
    passes = rng.uniform(size=(turns, rollouts, tests)) < difficulty  # (T, N, |U|)
    if random_turns:
        return passes, rng.integers(1, turns + 1, size=rollouts)
    return passes, np.full(rollouts, turns)


def as_records(passes: np.ndarray, turns: np.ndarray) -> tuple[list, list[str]]:
    """``trajectories[i][t]`` records holding the verdicts of ``passes[t, i]``."""
    test_ids = [f"t{j}" for j in range(passes.shape[2])]
    verdict = {True: Status.SUCCESS, False: Status.WRONG_ANSWER}

    def record(row: np.ndarray) -> ExecutionRecord:
        results = [
            TestResult(test_id=t, status=verdict[bool(ok)])
            for t, ok in zip(test_ids, row, strict=True)
        ]
        return ExecutionRecord(problem_id="p", program_sha256="0" * 64, results=results)

    trajectories = [[record(passes[t, i]) for t in range(k)] for i, k in enumerate(turns)]
    return trajectories, test_ids


def direct_kde(rho: np.ndarray, sigma: float) -> np.ndarray:
    """N̂(ρ_j) = Σ_j' exp(−(ρ_j − ρ_j')² / (2σ²)) as written: a |U| × |U| matrix."""
    return np.exp(-((rho[:, None] - rho[None, :]) ** 2) / (2 * sigma**2)).sum(axis=1)


def timed(fn, runs: int) -> list[float]:
    fn()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--random-turns", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    passes, turns = random_group(
        args.rollouts, args.turns, args.tests, random_turns=args.random_turns, seed=0
    )
    tensor = PassTensor.from_array(passes, turns)
    config = DenseRewardConfig()  # calibrated, adaptive σ: the most expensive variant
    reward_ms = median_ms(timed(lambda: dense_rewards(tensor, config), args.runs))
    build_ms = median_ms(timed(lambda: PassTensor.from_array(passes, turns), args.runs))
    trajectories, test_ids = as_records(passes, turns)
    records_ms = median_ms(timed(lambda: PassTensor.from_records(trajectories, test_ids), 10))
    result = dense_rewards(tensor, config)
    direct = direct_kde(result.pass_rates, result.bandwidth)
    np.testing.assert_allclose(result.density, direct, rtol=1e-9)
    direct_ms = median_ms(timed(lambda: direct_kde(result.pass_rates, result.bandwidth), 20))
    summary = {
        "group": f"{args.rollouts} rollouts x {args.turns} turns x {args.tests} tests",
        "real_turns": tensor.total_turns,
        "runs": args.runs,
        "dense_rewards_ms_median": round(reward_ms, 3),
        "pass_tensor_from_array_ms_median": round(build_ms, 3),
        "target_ms": TARGET_MS,
        "met": reward_ms < TARGET_MS,
        "pass_tensor_from_records_ms_median_10_runs": round(records_ms, 1),
        "direct_kde_ms_median_20_runs": round(direct_ms, 3),
    }
    report("dense reward cost (g)", summary, args.out)


if __name__ == "__main__":
    main()
