"""Build throughput (issue 22): generated tests accepted and verified per minute by
``execrl build`` on 2 cores, and what the time goes to.

The set is tests/fixtures/build's CodeContests rows (3 problems, 8-9 correct and 3-4 incorrect
Python solutions each, a generator each), built from an empty cache with ``--jobs 2`` and, as
the baseline in the same run, with ``--jobs 1``. Printed: wall seconds per stage, tests per
minute and the 2-worker / 1-worker ratio, and the sandbox CPU seconds per stage and per
solution (the slow references on the large tests are what dominates).

    python benchmarks/build_throughput.py --out benchmarks/results/build_throughput.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from _common import report

from execrl.datagen.pipeline import BuildSettings, build_problem_set
from execrl.problems.codecontests import load_codecontests
from execrl.sandbox import LocalExecutor

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures" / "build"


def one_build(workers: int, attempts: int) -> dict:
    problems = load_codecontests(FIXTURES / "codecontests" / "problems.jsonl")
    with tempfile.TemporaryDirectory() as tmp, LocalExecutor(workers=workers) as executor:
        start = time.perf_counter()
        result = build_problem_set(
            problems,
            Path(tmp) / "out",
            executor=executor,
            settings=BuildSettings(attempts=attempts),
            generators=FIXTURES / "codecontests-generators",
            show_progress=False,
        )
        wall = time.perf_counter() - start
        cpu = sandbox_cpu(Path(tmp) / "out" / "cache")
    rows = result.summary["problems"]
    stages: Counter[str] = Counter()
    for row in rows:
        stages.update(row["seconds"])
    generated = sum(r["tests"]["generated"] for r in rows)
    return {
        "workers": workers,
        "wall_s": round(wall, 2),
        "stage_wall_s": {k: round(v, 2) for k, v in stages.items()},
        "tests_generated": generated,
        "tests_kept": sum(r["tests"]["kept"] - r["tests"]["original"] for r in rows),
        "tests_per_minute": round(generated / wall * 60, 1),
        "sandbox_cpu_s": cpu,
    }


def sandbox_cpu(cache: Path) -> dict:
    """CPU seconds the solutions spent, from the cached runs: per stage, and the five
    solutions that cost the most on the generated tests."""
    by_stage: dict[str, float] = {}
    by_solution: Counter[str] = Counter()
    for stage in ("verify", "runs"):
        with gzip.open(cache / f"{stage}.jsonl.gz", "rt") as f:
            for line in f:
                row = json.loads(line)
                seconds = sum(cpu for _, cpu in row["runs"].values())
                by_stage[stage] = by_stage.get(stage, 0.0) + seconds
                if stage == "runs":
                    by_solution[f"{row['problem_id']}/{row['reference']}"] += seconds
    return {
        "by_stage": {k: round(v, 2) for k, v in by_stage.items()},
        "costliest_solutions": {k: round(v, 2) for k, v in by_solution.most_common(5)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    baseline = one_build(1, args.attempts)
    pooled = one_build(2, args.attempts)
    ratio = pooled["tests_per_minute"] / baseline["tests_per_minute"]
    for run in (baseline, pooled):
        print(
            f"--jobs {run['workers']}: {run['tests_generated']} tests in {run['wall_s']} s = "
            f"{run['tests_per_minute']} tests/min; stages {run['stage_wall_s']}"
        )
    print(f"2 workers / 1 worker: {ratio:.2f}x tests per minute")
    result = {"attempts": args.attempts, "runs": [baseline, pooled], "ratio": round(ratio, 3)}
    report("build_throughput", result, args.out)


if __name__ == "__main__":
    main()
