"""Instruction counts of native programs (issue 31, item 5): the same job run again under
cachegrind on the same worker, the empty program's count subtracted.

Real programs, built and counted by the real sandbox: counts are exact and repeatable, scale
with the work, are never given to a program that failed, and a runtime that cannot be counted
(the JVM) is inconclusive with the reason, never a figure."""

from __future__ import annotations

import pytest

from execrl.problems.models import StdioTest
from execrl.sandbox import LocalExecutor, counting, native_counting
from execrl.sandbox.builds import BuildOptions
from execrl.sandbox.counting import Counters
from execrl.sandbox.forkserver import ForkServer
from execrl.sandbox.languages import probe
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.records import Status

pytestmark = pytest.mark.skipif(
    not counting.valgrind_status()[0], reason=f"Valgrind: {counting.valgrind_status()[1]}"
)

LIMITS = Limits(cpu_time_s=2.0, memory_mb=256)
COUNTED = ExecutionOptions(timing="instructions")

LOOP_C = (
    "#include <stdio.h>\n"
    "int main(void) {\n"
    '    long n; if (scanf("%ld", &n) != 1) return 1;\n'
    "    volatile long s = 0;\n"
    "    for (long i = 0; i < n; i++) s += i % 7;\n"
    '    printf("ok\\n");\n'
    "    return 0;\n"
    "}\n"
)
LOOP_CPP = (
    "#include <bits/stdc++.h>\nusing namespace std;\n"
    "int main() { long n; cin >> n; vector<long> v(n); iota(v.begin(), v.end(), 0);\n"
    '  long s = accumulate(v.begin(), v.end(), 0L); cout << (s >= 0 ? "ok" : "no") << \'\\n\'; }\n'
)
LOOP_RUST = (
    "use std::io::*;\n"
    "fn main() { let mut t = String::new(); stdin().read_to_string(&mut t).unwrap();\n"
    "  let n: u64 = t.trim().parse().unwrap(); let mut s: u64 = 0;\n"
    "  for i in 0..n { s = std::hint::black_box(s + i % 7); }\n"
    '  println!("{}", if s < u64::MAX { "ok" } else { "no" }); }\n'
)


def ok_test(n: int) -> StdioTest:
    return StdioTest(id=f"n{n}", input=f"{n}\n", output="ok\n")


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=1) as ex:
        yield ex


def counts(executor, source, tests, language="c", options=COUNTED) -> list:
    record = executor.run(source, tests, LIMITS, options=options, language=language)
    return record.results


def test_counts_are_exact_repeatable_and_scale_with_the_work(executor):
    tests = [ok_test(50_000), ok_test(100_000)]
    first = counts(executor, LOOP_C, tests)
    again = counts(executor, LOOP_C, tests)
    assert [r.status for r in first] == [Status.SUCCESS] * 2, [r.detail for r in first]
    n, two_n = (r.instructions for r in first)
    assert [r.instructions for r in again] == [n, two_n]  # to the instruction
    # the loop's own work is 2x; what is not the loop (scanf, printf) is small beside it
    assert 1.9 < two_n / n < 2.0
    per_iteration = (two_n - n) / 50_000
    assert n == pytest.approx(per_iteration * 50_000, rel=0.05)
    assert first[0].cpu_s is not None and first[0].cycles_estimate is None


def test_an_empty_program_counts_zero_and_the_overhead_figure_is_the_runtime_start_up(executor):
    empty = StdioTest(id="empty", input="", output="")
    for language in ("c", "cpp"):
        [result] = counts(executor, native_counting.EMPTY_PROGRAMS[language], [empty], language)
        assert result.status is Status.SUCCESS and result.instructions == 0, result.detail
    with ForkServer() as server:  # (started only if the figure is not cached yet)
        figure = native_counting.overhead_figure(server, "c")
    assert figure is not None and 10_000 < figure < 10_000_000  # ld.so and libc start-up


def test_cycles_estimate_charges_misses_and_is_repeatable(executor):
    options = ExecutionOptions(timing="cycles_estimate")
    tests = [ok_test(100_000)]
    [first] = counts(executor, LOOP_C, tests, options=options)
    [again] = counts(executor, LOOP_C, tests, options=options)
    assert first.status is Status.SUCCESS, first.detail
    assert first.cycles_estimate is not None and first.cycles_estimate >= first.instructions
    assert (again.instructions, again.cycles_estimate) == (
        first.instructions,
        first.cycles_estimate,
    )


def test_cpp_counts_grow_by_the_same_amount_for_the_same_extra_work(executor):
    # (a C++ program that uses iostream pays its start-up, ~10^6 instructions, at every n)
    tests = [ok_test(20_000), ok_test(40_000), ok_test(60_000)]
    results = counts(executor, LOOP_CPP, tests, "cpp")
    assert all(r.status is Status.SUCCESS for r in results), results[0].detail
    one, two, three = (r.instructions for r in results)
    assert two - one == pytest.approx(three - two, rel=0.01) and two - one > 100_000


def test_rust_is_counted_where_it_is_installed(executor):
    if not probe("rust").installed:
        pytest.skip(f"rust is not installed here: {probe('rust').why_not}")
    tests = [ok_test(20_000), ok_test(40_000), ok_test(60_000)]
    results = counts(executor, LOOP_RUST, tests, "rust")
    assert all(r.status is Status.SUCCESS for r in results), results[0].detail
    one, two, three = (r.instructions for r in results)
    assert two - one == pytest.approx(three - two, rel=0.01) and two - one > 100_000


def test_a_wrong_answer_is_never_counted(executor):
    wrong = StdioTest(id="wrong", input="1000\n", output="no\n")
    crash = "#include <stdlib.h>\nint main(void){ abort(); }\n"
    [result] = counts(executor, LOOP_C, [wrong])
    assert result.status is Status.WRONG_ANSWER and result.instructions is None
    [result] = counts(executor, crash, [ok_test(1)])
    assert result.status is Status.RUNTIME_ERROR and result.instructions is None


def test_a_program_that_fails_only_when_counted_is_inconclusive(executor):
    # Valgrind preloads its own library: this program answers otherwise under it
    source = (
        "#include <stdio.h>\n#include <stdlib.h>\n"
        'int main(void){ puts(getenv("LD_PRELOAD") ? "no" : "ok"); return 0; }\n'
    )
    [result] = counts(executor, source, [ok_test(1)])
    assert result.status is Status.INCONCLUSIVE and result.instructions is None
    assert "the counted run did not pass" in result.detail
    assert result.cpu_s is not None  # the native times are kept


def test_a_program_that_starts_another_process_is_not_counted(executor):
    source = (
        "#include <stdio.h>\n#include <unistd.h>\n#include <sys/wait.h>\n"
        "int main(void){ pid_t p = fork(); if (p == 0) _exit(0);\n"
        '  waitpid(p, 0, 0); puts("ok"); return 0; }\n'
    )
    [result] = counts(executor, source, [ok_test(1)])
    assert result.status is Status.INCONCLUSIVE and result.instructions is None
    assert "started other processes" in result.detail


def test_a_binary_holding_valgrind_client_requests_is_not_counted(executor):
    preamble = native_counting.CLIENT_REQUEST_PREAMBLES["x86_64"]
    table = ",".join(str(b) for b in preamble)
    source = (
        "#include <stdio.h>\n"
        f"volatile const unsigned char magic[] = {{{table}}};\n"
        'int main(void){ puts(magic[0] ? "ok" : "no"); return 0; }\n'
    )
    [result] = counts(executor, source, [ok_test(1)])
    assert result.status is Status.INCONCLUSIVE and "client-request" in result.detail


def test_java_is_inconclusive_with_the_reason(executor):
    if not probe("java").installed:
        pytest.skip(f"java is not installed here: {probe('java').why_not}")
    source = (
        'public class Main { public static void main(String[] a) { System.out.println("ok"); } }\n'
    )
    [result] = counts(executor, source, [ok_test(1)], "java")
    assert result.status is Status.INCONCLUSIVE and result.instructions is None
    assert "instruction counts are not available for java: the JVM under Valgrind" in result.detail
    # timed by a clock, the same program passes
    [clocked] = counts(executor, source, [ok_test(1)], "java", ExecutionOptions())
    assert clocked.status is Status.SUCCESS


def test_every_runtime_that_is_not_counted_says_why():
    for language in ("java", "go", "javascript", "pypy", "python2"):
        why = native_counting.why_not_counted(language)
        assert why is not None and why.startswith(
            f"instruction counts are not available for {language}: "
        )
    assert native_counting.why_not_counted("cpp") is None


def test_cachegrind_output_is_read_from_its_summary_line():
    text = (
        "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
        "cmd: ./main\nevents: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
        "fl=???\n0 1 2 3\n"
        "summary: 1000 10 2 400 20 3 300 30 4\n"
    )
    assert native_counting.parse_output(text) == Counters(
        ir=1000, i1mr=10, ilmr=2, d1mr=20, dlmr=3, d1mw=30, dlmw=4
    )
    assert native_counting.parse_output("events: Ir\nsummary: 123\n") == Counters(ir=123)
    assert native_counting.parse_output("events: Ir\n") is None  # cut short: no total
    one = {"7" + native_counting.LOG_SUFFIX: b"", "7" + native_counting.COUNT_SUFFIX: b""}
    sizes = {name: 0 for name in one}
    one["7" + native_counting.COUNT_SUFFIX] = b"events: Ir\nsummary: 5\n"
    assert native_counting.read_counters(one, sizes) == Counters(ir=5)
    two = {**one, "8" + native_counting.LOG_SUFFIX: b""}
    assert native_counting.read_counters(two, {name: 0 for name in two}) is None


def test_a_counted_run_has_room_for_valgrind():
    limits = native_counting.counted_limits(Limits(cpu_time_s=1.0, max_open_files=8))
    assert limits.cpu_time_s == counting.SLOWDOWN_CAP
    assert limits.max_open_files == 8 + native_counting.EXTRA_OPEN_FILES
    assert limits.max_file_bytes >= native_counting.MIN_FILE_BYTES
    assert BuildOptions().profile == "judge"  # (the overhead's key starts from the request's)
