"""Benchmark h: the offline simulator's full screening grid, vectorised, against execrl's own
per-outcome path in the same run.

Issue acceptance: the full grid (every environment family of spec §2 at every parameter value
× the 28 reward shapes of spec §4) over a synthetic corpus of 1,000 problems × 120 tests × 100
references runs in under a minute on the development machine (2 cores). The baseline replays
the same corpus one Outcome at a time (``Environment.outcome`` on each reference's record
against the other references, then all 28 rewards), as ``execrl.simulate.replay`` does, on
``--baseline-problems`` problems × ``--per-family`` environments of every family; its cost
per (problem, environment) is extrapolated to the whole grid family by family.

    python benchmarks/simulator_speed.py [--problems 1000] [--tests 120] [--references 100]
        [--baseline-problems 2] [--per-family 3] [--out results/h.json]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

from execrl.rewards import reward
from execrl.simulate import (
    FAMILIES,
    REWARD_SHAPES,
    Schedule,
    environment_grid,
    replay_problem,
    sweep,
    synthetic_runs,
)


def baseline(runs, grid, problems: int, per_family: int, seed: int) -> dict:
    """Seconds per (problem, environment) of the per-outcome path, by family."""
    rng = random.Random(seed)
    rewards = [reward(r) for r in REWARD_SHAPES]
    materialised = [runs.problem_runs(p) for p in range(problems)]
    by_family: dict[str, dict] = {}
    for family in FAMILIES:
        points = [p for p in grid if p.family == family]
        sample = rng.sample(points, min(per_family, len(points)))
        start = time.perf_counter()
        for point in sample:
            for problem_runs in materialised:
                for _, _, _, outcome in replay_problem(problem_runs, point.config, rewards[0]):
                    for fn in rewards:  # every shape, both group parities
                        fn(outcome, 0), fn(outcome, 1)
        seconds = time.perf_counter() - start
        by_family[family] = {
            "environments": len(points),
            "sampled": [p.name for p in sample],
            "seconds_per_problem_environment": seconds / (len(sample) * problems),
        }
    return by_family


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--tests", type=int, default=120)
    parser.add_argument("--references", type=int, default=100)
    parser.add_argument("--baseline-problems", type=int, default=2)
    parser.add_argument("--per-family", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    start = time.perf_counter()
    runs = synthetic_runs(args.problems, args.tests, args.references, seed=args.seed)
    generate_s = time.perf_counter() - start
    start = time.perf_counter()
    schedule = Schedule.build(runs)
    schedule_s = time.perf_counter() - start
    grid = environment_grid()
    start = time.perf_counter()
    result = sweep(runs, grid, schedule=schedule, progress=False)
    sweep_s = time.perf_counter() - start

    families = baseline(runs, grid, args.baseline_problems, args.per_family, args.seed)
    extrapolated = sum(
        f["seconds_per_problem_environment"] * f["environments"] * args.problems
        for f in families.values()
    )
    result_json = {
        "corpus": {
            "problems": args.problems,
            "tests": args.tests,
            "references": args.references,
            "pairs": runs.pairs,
        },
        "grid": {
            "environments": len(grid),
            "rewards": len(REWARD_SHAPES),
            "configurations": len(result.rows),
            "degenerate": len(result.degenerate),
            "points": schedule.points,
        },
        "generate_s": round(generate_s, 2),
        "schedule_s": round(schedule_s, 2),
        "sweep_s": round(sweep_s, 2),
        "total_s": round(generate_s + schedule_s + sweep_s, 2),
        "target_s": 60,
        "baseline": {
            "problems_timed": args.baseline_problems,
            "per_family": families,
            "extrapolated_s": round(extrapolated),
            "extrapolated_days": round(extrapolated / 86400, 2),
        },
        "speedup_vs_per_outcome": round(extrapolated / sweep_s),
        "best": {k: result.ranked[0][k] for k in ("environment", "reward", "deviation")}
        if result.ranked
        else None,
    }
    report("offline simulator, full grid (h)", result_json, args.out)


if __name__ == "__main__":
    main()
