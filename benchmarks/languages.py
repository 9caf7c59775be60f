"""Programs in other languages (issue 31): what building and running C++ in the sandbox costs,
each figure against a baseline measured in the same run.

- **per test**: a trivial C++ program (a + b) over ``--tests`` tests in one request, its build
  cached, vs a plain fork+exec of the *same binary* on the host (``subprocess.run``, no
  isolation at all), per test;
- **build cache**: a request of one test whose build misses the cache vs the same request
  again (a hit), each with a fresh source;
- **precompiled header**: a ``bits/stdc++.h`` program built under the judge profile with the
  precompiled header vs the same build without it (cold build cache both ways);
- **compile once**: one C++ solution over ``--tests`` tests in one request (built once) vs one
  request per test, each compiling again (SandboxFusion's ``/submit`` way);
- **instruction counts**: the overhead figure subtracted from every count (what an empty
  program counts) for C++ and Python, what an empty program counts after it, and one loop of
  ``--loop`` iterations in both languages: its count, the count per iteration, and the counted
  run's wall time against the native run's.

Everything runs with a fresh build cache in a temporary folder (``$EXECRL_BUILD_CACHE``), one
worker, the judge profile.

    python benchmarks/languages.py [--tests 100] [--reps 3] [--loop 200000] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

from execrl.problems.models import StdioTest
from execrl.sandbox import LocalExecutor, builds, native_counting
from execrl.sandbox.forkserver import ForkServer
from execrl.sandbox.languages import LANGUAGES
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.zygote.native import parse_job

A_PLUS_B = (
    '#include <cstdio>\nint main(){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);}\n'
)
SOLUTION = (
    "#include <bits/stdc++.h>\nusing namespace std;\n"
    "int main(){ios::sync_with_stdio(false);cin.tie(nullptr);long long a,b;cin>>a>>b;\n"
    "  vector<long long> v={a,b};sort(v.begin(),v.end());cout<<v[0]+v[1]<<'\\n';}\n"
)
LOOP_CPP = (
    '#include <cstdio>\nint main(){long n;if(scanf("%ld",&n)!=1)return 1;'
    'volatile long s=0;for(long i=0;i<n;i++)s+=i*i%7;printf("%d\\n",s>=0);}\n'
)
LOOP_PY = "n = int(input())\ns = 0\nfor i in range(n):\n    s += i * i % 7\nprint(int(s >= 0))\n"
LIMITS = Limits(cpu_time_s=5.0, memory_mb=512)


def tests(count: int) -> list[StdioTest]:
    return [
        StdioTest(id=f"t{i}", input=f"{i} {i + 1}\n", output=f"{2 * i + 1}\n") for i in range(count)
    ]


def fresh(source: str, tag: str) -> str:
    """``source`` with a comment that makes it a new program for the build cache."""
    return f"// {tag} {time.perf_counter_ns()}\n{source}"


def timed(call, *args, **kwargs) -> tuple[float, Any]:
    start = time.perf_counter()
    value = call(*args, **kwargs)
    return time.perf_counter() - start, value


# -- a. per test: the sandbox vs a plain fork+exec of the same binary ---------------------------
def per_test(executor: LocalExecutor, server: ForkServer, count: int, reps: int) -> dict:
    prepared = builds.prepare(
        server, LANGUAGES["cpp"], A_PLUS_B, builds.BuildOptions(), memory_mb=512
    )
    assert prepared.job is not None, prepared.info
    header, body = parse_job(prepared.job)
    offset, binary = 0, b""
    for name, size, _mode in header["files"]:
        if name == "main":
            binary = bytes(body[offset : offset + size])
        offset += size
    suite = tests(count)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "main"
        path.write_bytes(binary)
        path.chmod(0o755)
        host, sandbox = [], []
        for _ in range(reps):  # interleaved: the machine's drift hits both
            seconds, _ = timed(
                lambda: [
                    subprocess.run(
                        [str(path)], input=t.input.encode(), capture_output=True, check=True
                    )
                    for t in suite
                ]
            )
            host.append(seconds / count)
            seconds, record = timed(executor.run, A_PLUS_B, suite, LIMITS, language="cpp")
            assert record.all_passed and record.build.cached, record.results[0].detail
            sandbox.append(seconds / count)
    host_ms, sandbox_ms = statistics.median(host) * 1e3, statistics.median(sandbox) * 1e3
    return {
        "tests": count,
        "host_fork_exec_ms": round(host_ms, 3),
        "execrl_ms": round(sandbox_ms, 3),
        "ratio": round(sandbox_ms / host_ms, 2),
    }


# -- b. the build cache: miss vs hit -----------------------------------------------------------
def cache(executor: LocalExecutor, reps: int) -> dict:
    misses, hits, build_s = [], [], []
    one = tests(1)
    for rep in range(reps):
        source = fresh(SOLUTION, f"cache {rep}")
        seconds, record = timed(executor.run, source, one, LIMITS, language="cpp")
        assert record.all_passed and not record.build.cached
        misses.append(seconds)
        build_s.append(record.build.seconds)
        seconds, record = timed(executor.run, source, one, LIMITS, language="cpp")
        assert record.all_passed and record.build.cached
        hits.append(seconds)
    miss, hit = statistics.median(misses), statistics.median(hits)
    return {
        "miss_s": round(miss, 4),
        "hit_s": round(hit, 4),
        "build_s": round(statistics.median(build_s), 4),
        "ratio": round(miss / hit, 1),
    }


# -- c. the precompiled header: with vs without ----------------------------------------------
@contextlib.contextmanager
def no_precompiled_header():
    """The judge profile's build without its precompiled ``bits/stdc++.h`` (the -I that
    finds it is left out)."""
    original = builds.precompiled_header
    builds.precompiled_header = lambda lang, profile: None
    try:
        yield
    finally:
        builds.precompiled_header = original


def precompiled(server: ForkServer, reps: int) -> dict:
    lang, options = LANGUAGES["cpp"], builds.BuildOptions()
    version = builds.probe(lang).version
    start = time.perf_counter()
    folder = builds.precompiled_header(lang, "judge")  # built once on the host (then on disk)
    pch_build_s = time.perf_counter() - start
    assert folder is not None, "no precompiled header could be built here"
    with_pch, without = [], []
    for rep in range(reps):
        for bucket, context in (
            (with_pch, contextlib.nullcontext()),
            (without, no_precompiled_header()),
        ):
            with context, tempfile.TemporaryDirectory() as cold:
                data = fresh(SOLUTION, f"pch {rep}").encode()
                built = builds.build(
                    server, lang, data, "main.cpp", options, version, builds.BuildCache(Path(cold))
                )
                assert built.info.status == "ok", built.info.detail
                bucket.append((built.info.seconds, built.info.cpu_s, built.info.command))
    uses = any(str(folder) in arg for arg in with_pch[0][2])
    pch_s = statistics.median(s for s, _, _ in with_pch)
    none_s = statistics.median(s for s, _, _ in without)
    return {
        "precompiled_header_built_on_host_s": round(pch_build_s, 2),
        "with_pch_s": round(pch_s, 3),
        "with_pch_cpu_s": round(statistics.median(c for _, c, _ in with_pch), 3),
        "without_pch_s": round(none_s, 3),
        "without_pch_cpu_s": round(statistics.median(c for _, c, _ in without), 3),
        "ratio": round(none_s / pch_s, 2),
        "pch_on_the_command_line": uses,
    }


# -- d. one build for all tests vs a build per test (SandboxFusion's /submit) -------------------
def compile_once(executor: LocalExecutor, count: int) -> dict:
    suite = tests(count)
    once_s, record = timed(executor.run, fresh(SOLUTION, "once"), suite, LIMITS, language="cpp")
    assert record.all_passed and not record.build.cached
    per_test_builds = []

    def each() -> None:
        for i, test in enumerate(suite):  # a new program each time: nothing is reused
            one = executor.run(fresh(SOLUTION, f"per-test {i}"), [test], LIMITS, language="cpp")
            assert one.all_passed and not one.build.cached
            per_test_builds.append(one.build.seconds)

    each_s, _ = timed(each)
    return {
        "tests": count,
        "one_request_s": round(once_s, 2),
        "build_per_test_s": round(each_s, 2),
        "median_build_s": round(statistics.median(per_test_builds), 3),
        "ratio": round(each_s / once_s, 1),
    }


# -- e. instruction counts: the overhead figure and one loop, C++ vs Python ----------------------
def counting(executor: LocalExecutor, server: ForkServer, loop: int) -> dict:
    counted = ExecutionOptions(timing="instructions")
    empty_test = [StdioTest(id="empty", input="", output="")]
    loop_test = [StdioTest(id="loop", input=f"{loop}\n", output="1\n")]
    row: dict[str, dict] = {}
    for language, empty, source in (
        ("cpp", native_counting.EMPTY_PROGRAMS["cpp"], LOOP_CPP),
        ("python", "", LOOP_PY),
    ):
        empty_record = executor.run(empty, empty_test, LIMITS, options=counted, language=language)
        executor.run(source, loop_test, LIMITS, language=language)  # (built, warm)
        native_s, _ = timed(executor.run, source, loop_test, LIMITS, language=language)
        both_s, record = timed(
            executor.run, source, loop_test, LIMITS, options=counted, language=language
        )
        result = record.results[0]
        assert result.instructions is not None, result.detail
        row[language] = {
            "empty_program_counts": empty_record.results[0].instructions,
            "loop_instructions": result.instructions,
            "per_iteration": round(result.instructions / loop, 2),
            "native_request_s": round(native_s, 3),
            "counted_run_s": round(both_s - native_s, 3),  # (a counted request runs both)
            "cost_ratio": round((both_s - native_s) / native_s, 1),
        }
    row["cpp"]["overhead_figure"] = native_counting.overhead_figure(server, "cpp")
    with ForkServer(counting="instructions") as python_counter:
        python_counter.run("pass\n", {"id": "x", "kind": "stdio"}, b"", LIMITS)
        row["python"]["overhead_figure"] = python_counter.harness["stdio"].ir
    with_iostream = executor.run(
        "#include <iostream>\nint main(){}\n", empty_test, LIMITS, options=counted, language="cpp"
    )
    row["cpp"]["empty_main_with_iostream_counts"] = with_iostream.results[0].instructions
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=100, help="tests per suite")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of the short figures")
    parser.add_argument("--loop", type=int, default=200_000, help="iterations of the counted loop")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["EXECRL_BUILD_CACHE"] = str(Path(folder) / "builds")  # cold, and not ~/.cache
        with LocalExecutor(workers=1) as executor, ForkServer() as server:
            result = {"precompiled_header": precompiled(server, args.reps)}
            print("PCH vs none:", result["precompiled_header"], flush=True)
            result["per_test"] = per_test(executor, server, args.tests, args.reps)
            print("per test:", result["per_test"], flush=True)
            result["build_cache"] = cache(executor, args.reps)
            print("cache:", result["build_cache"], flush=True)
            result["compile_once"] = compile_once(executor, args.tests)
            print("compile once:", result["compile_once"], flush=True)
            result["instruction_counts"] = counting(executor, server, args.loop)
    report("languages", result, args.out)


if __name__ == "__main__":
    main()
