"""Checking a Kattis package as Kattis judges it (issue 35): the wall time of
``execrl problems check PACKAGE`` with a cold build cache, then with it warm.

Packages (copied to a temporary folder, since the check stores a derived limit there):
tests/fixtures/kattis_judged/rangehash (12 submissions: C, C++, Python 3 on PyPy, Python 2;
no time limit, so the accepted ones run first to derive it) and
tests/fixtures/kattis_polyglot/bigsum (15 submissions: C, C++, Java, Python 3; a 2 s limit).
Each check is a fresh ``execrl`` process, as a user runs it; the cold run has an empty
``$EXECRL_BUILD_CACHE``, the warm run the cache the cold one left. Printed and written: wall
seconds per run, submissions and how many agreed with their folders, the limit used.

    python benchmarks/kattis_check.py --jobs 2 --out benchmarks/results/kattis_check.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report

ROOT = Path(__file__).parents[1]
PACKAGES = {
    "rangehash": ROOT / "tests" / "fixtures" / "kattis_judged" / "rangehash",
    "bigsum": ROOT / "tests" / "fixtures" / "kattis_polyglot" / "bigsum",
}


def one_check(package: Path, cache: Path, jobs: int, work: Path) -> dict:
    """One ``execrl problems check`` of a fresh copy of ``package`` with ``cache``."""
    copy = work / f"{package.name}-{time.monotonic_ns()}" / package.name
    shutil.copytree(package, copy)
    out = copy.parent / "check.jsonl"
    argv = [sys.executable, "-m", "execrl.cli.main", "problems", "check", str(copy)]
    argv += ["--jobs", str(jobs), "--out", str(out)]
    env = {**os.environ, "EXECRL_BUILD_CACHE": str(cache)}
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1800)
    wall = time.perf_counter() - start
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return {
        "wall_s": round(wall, 2),
        "exit_code": done.returncode,
        "submissions": len(rows),
        "languages": sorted({r["language"] for r in rows}),
        "agreed": sum(r.get("as_expected") is True for r in rows),
        "skipped": sum(bool(r.get("skipped")) for r in rows),
        "time_limit_s": rows[0].get("time_limit_s") if rows else None,
        "time_limit_from": rows[0].get("time_limit_from") if rows else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="sandbox workers per check")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, package in PACKAGES.items():
            cache = work / f"cache-{name}"
            cold = one_check(package, cache, args.jobs, work)
            warm = one_check(package, cache, args.jobs, work)
            results[name] = {"cold": cold, "warm": warm}
            print(
                f"{name}: {cold['submissions']} submissions in {', '.join(cold['languages'])}; "
                f"cold cache {cold['wall_s']:.1f} s, warm {warm['wall_s']:.1f} s "
                f"({cold['wall_s'] / warm['wall_s']:.2f}×); agreed {warm['agreed']}/"
                f"{warm['submissions']}; limit {warm['time_limit_s']} s "
                f"({warm['time_limit_from']})"
            )
    report("kattis_check", {"packages": results, "jobs": args.jobs}, args.out)


if __name__ == "__main__":
    main()
