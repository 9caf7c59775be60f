"""Benchmark a: per-test overhead of a trivial program, execrl's fork server versus a fresh
``python3`` subprocess per test (the common harness). Ratio measured in one run.

    python benchmarks/overhead.py [--tests 300] [--out results/overhead.json]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import median_ms, report

from execrl.problems import StdioTest
from execrl.sandbox.pool import LocalExecutor

TRIVIAL = "print(int(input()) + 1)\n"


def fresh_subprocess(n: int) -> list[float]:
    """One new interpreter per test, as harnesses that shell out do (no isolation at all)."""
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "p.py"
        program.write_text(TRIVIAL)
        for i in range(n):
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, str(program)], input=f"{i}\n", capture_output=True, text=True
            )
            times.append(time.perf_counter() - start)
            assert done.stdout == f"{i + 1}\n"
    return times


def fork_server(n: int) -> list[float]:
    """execrl with every protection on, one worker, timed from the caller's side per test."""
    tests = [StdioTest(id=f"t{i}", input=f"{i}\n", output=f"{i + 1}\n") for i in range(n)]
    times = []
    with LocalExecutor(workers=1) as executor:
        executor.run(TRIVIAL, tests[:5])  # warm: first compile, first fork
        for test in tests:
            start = time.perf_counter()
            record = executor.run(TRIVIAL, [test])
            times.append(time.perf_counter() - start)
            assert record.all_passed, record
        start = time.perf_counter()  # the usual shape: one program, all its tests, one request
        record = executor.run(TRIVIAL, tests)
        per_test_in_suite = (time.perf_counter() - start) / n
        assert record.all_passed, record
        isolation = executor.isolation
    return times, per_test_in_suite, isolation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=300)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    baseline = fresh_subprocess(args.tests)
    ours, in_suite, isolation = fork_server(args.tests)
    result = {
        "tests": args.tests,
        "fresh_python_subprocess_ms_median": round(median_ms(baseline), 2),
        "execrl_forkserver_ms_median": round(median_ms(ours), 2),
        "ratio": round(median_ms(baseline) / median_ms(ours), 1),
        "execrl_ms_per_test_one_request_for_all": round(in_suite * 1000, 2),
        "ratio_one_request_for_all": round(median_ms(baseline) / (in_suite * 1000), 1),
        "target_ratio": 10,
        "execrl_isolation": isolation,
    }
    report("per-test overhead (a)", result, args.out)


if __name__ == "__main__":
    main()
