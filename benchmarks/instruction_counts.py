"""Benchmarks of timing by instruction count (issue 20): agreement with CPU time, and cost.

For every correct bundled reference, on its problem's ``--tests-per-problem`` smallest
optimization tests (all 20 when omitted), in one run:

- **agreement (b)**: per problem, the Spearman correlation between the references' order by
  instruction count and their order by CPU time (the median of ``--cpu-reruns`` native runs);
  the problems where they disagree are listed with the pairs that swap;
- **cost (c)**: the counted run's slowdown against the native run of the same tests (a native
  request, and the same request counted: the counted one does the native run and then the
  counted one, so its own cost is the difference); and what starting Valgrind once per
  server saves: the same tests counted by a fresh ``valgrind python program.py`` each.

    python benchmarks/instruction_counts.py [--tests-per-problem N] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

from execrl.problems import load_bundled
from execrl.sandbox.counting import HASH_SEED, parse_summaries, valgrind_path
from execrl.sandbox.limits import ExecutionOptions
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest
from execrl.stats import spearman


def timed(executor, request) -> tuple[float, object]:
    start = time.perf_counter()
    record = executor.execute(request)
    return time.perf_counter() - start, record


def measure_reference(
    executor, problem, ref, tests, cpu_reruns: int, timing: str = "instructions"
) -> dict | None:
    """CPU medians, counts and the three request times of one reference (None if it fails)."""

    def request(**options):
        return ExecutionRequest.for_problem(
            problem, ref.code, tests=tests, options=ExecutionOptions(**options)
        )

    _, clocked = timed(executor, request(repeats=cpu_reruns))
    native_s, _ = timed(executor, request())
    both_s, counted = timed(executor, request(timing=timing))
    if not (clocked.all_passed and counted.all_passed):
        return None
    return {
        "cpu_s": [r.cpu_s for r in clocked.results],
        "count": [r.duration_s(timing) for r in counted.results],
        "native_s": native_s,
        "counted_s": both_s - native_s,
    }


def disagreements(refs: dict) -> list[str]:
    """The pairs of references whose order by count and by CPU time differ."""
    names = sorted(refs)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            by_count = refs[a]["count"] < refs[b]["count"]
            by_cpu = refs[a]["cpu"] < refs[b]["cpu"]
            if by_count != by_cpu:
                ratio = refs[a]["cpu"] / refs[b]["cpu"]
                out.append(f"{a} vs {b} (CPU ratio {ratio:.2f})")
    return out


def fresh_valgrind_s(problem, ref, tests) -> float:
    """Seconds to count ``tests`` with a fresh ``valgrind python program.py`` per test (the
    baseline the counted fork server is measured against)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(ref.code)
    env = {"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": HASH_SEED, "PYTHONMALLOC": "malloc"}
    command = [valgrind_path(), "--tool=cachegrind", "--cache-sim=no"]
    command += ["--cachegrind-out-file=/dev/null", sys.executable, "-s", "-S", f.name]
    start = time.perf_counter()
    for test in tests:
        out = subprocess.run(command, input=test.input, capture_output=True, text=True, env=env)
        assert parse_summaries(out.stderr)[0], out.stderr[-500:]
    os.unlink(f.name)
    return time.perf_counter() - start


def startup_comparison(sampled, cpu_reruns: int) -> list[tuple[float, float]]:
    """(fresh valgrind seconds, counted fork server seconds) per sampled reference, both
    measured here, one at a time on an otherwise idle pool of one worker."""
    pairs = []
    with LocalExecutor(workers=1) as executor:
        for problem, ref, tests, _ in sampled:
            m = measure_reference(executor, problem, ref, tests, cpu_reruns)
            pairs.append((fresh_valgrind_s(problem, ref, tests), m["counted_s"]))
    return pairs


def startup_summary(fresh: list[tuple[float, float]]) -> dict | None:
    if not fresh:
        return None
    fresh_s, server_s = sum(f for f, _ in fresh), sum(c for _, c in fresh)
    return {
        "references": len(fresh),
        "fresh_s": round(fresh_s, 2),
        "fork_server_s": round(server_s, 2),
        "ratio_fresh_over_fork_server": round(fresh_s / server_s, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests-per-problem", type=int, help="the N smallest (default: all 20)")
    parser.add_argument("--cpu-reruns", type=int, default=5)
    parser.add_argument("--startup-sample", type=int, default=10, help="references, baseline")
    parser.add_argument("--problem", action="append", help="only these (repeatable)")
    parser.add_argument("--workers", type=int, default=2, help="one per core (2)")
    parser.add_argument(
        "--timing", choices=("instructions", "cycles_estimate"), default="instructions"
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    problems = load_bundled(args.problem)
    per_problem, costs, sampled, all_refs, pooled = {}, [], [], [], []
    jobs = []
    for problem in problems:
        tests = sorted(problem.optimization_tests, key=lambda t: len(t.input))
        tests = tests[: args.tests_per_problem] if args.tests_per_problem else tests
        jobs += [(problem, ref, tests) for ref in problem.references_labelled("correct")]
    with (
        LocalExecutor(workers=args.workers) as executor,
        ThreadPoolExecutor(args.workers) as pool,
    ):
        measured = list(
            pool.map(
                lambda job: measure_reference(executor, *job, args.cpu_reruns, args.timing), jobs
            )
        )
    results = dict(zip([(p.id, r.name) for p, r, _ in jobs], measured, strict=True))
    for problem in problems:
        tests = next(t for p, _, t in jobs if p is problem)
        refs = {}
        for ref in problem.references_labelled("correct"):
            m = results[(problem.id, ref.name)]
            if m is None:
                continue
            refs[ref.name] = {
                "cpu": statistics.fmean(m["cpu_s"]),
                "count": statistics.fmean(m["count"]),
            }
            all_refs.append(refs[ref.name])
            pooled += zip(m["count"], m["cpu_s"], strict=True)
            costs.append((m["native_s"], m["counted_s"]))
            if len(sampled) < args.startup_sample:
                sampled.append((problem, ref, tests, m["counted_s"]))
        if len(refs) >= 3:
            names = sorted(refs)
            rho = spearman([refs[n]["count"] for n in names], [refs[n]["cpu"] for n in names])
            per_problem[problem.id] = {
                "spearman": round(rho, 3),
                "references": len(refs),
                "measured": {n: refs[n] for n in names},
            }
            if rho < 1.0:
                per_problem[problem.id]["disagree"] = disagreements(refs)
        print(problem.id, per_problem.get(problem.id), flush=True)
    fresh = startup_comparison(sampled, args.cpu_reruns)
    rhos = [v["spearman"] for v in per_problem.values()]
    rates = [r["count"] / r["cpu"] for r in all_refs if r["cpu"] >= 0.001]
    ratios = sorted(counted / native for native, counted in costs)
    report(
        "instruction counts (b: agreement, c: cost)",
        {
            "timing": args.timing,
            "tests_per_problem": args.tests_per_problem or "all",
            "cpu_reruns": args.cpu_reruns,
            "problems": len(per_problem),
            "references": len(costs),
            "counts_per_cpu_second": {
                "median": float(f"{statistics.median(rates):.3g}"),
                "p10": float(f"{sorted(rates)[len(rates) // 10]:.3g}"),
                "p90": float(f"{sorted(rates)[9 * len(rates) // 10]:.3g}"),
            },
            "spearman": {
                "mean": round(statistics.fmean(rhos), 3),
                "median": round(statistics.median(rhos), 3),
                "min": round(min(rhos), 3),
                "pooled_all_tests": round(spearman(*zip(*pooled, strict=True)), 3),
                "problems_below_0.9": sorted(
                    k for k, v in per_problem.items() if v["spearman"] < 0.9
                ),
            },
            "per_problem": per_problem,
            "slowdown_counted_vs_native": {
                "overall": round(sum(c for _, c in costs) / sum(n for n, _ in costs), 1),
                "median": round(statistics.median(ratios), 1),
                "p90": round(ratios[int(0.9 * (len(ratios) - 1))], 1),
                "max": round(ratios[-1], 1),
            },
            "startup_once_vs_fresh_valgrind": startup_summary(fresh),
            "targets": "spearman >= 0.9 over all problems; slowdown <= 40x",
        },
        args.out,
    )


if __name__ == "__main__":
    main()
