"""The host stays bounded whatever a program returns or prints (issue 16, items 6 and 7).

Each case asserts the specific containment: host CPU for a returned set of colliding ints,
host memory for a huge output, a limit (not a crash) for deep or exponentially shared values,
and a terminal that sees no markup or control sequence of the program's.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from execrl.problems import CallTest, Checker
from execrl.sandbox.compare import outputs_match, values_match
from execrl.sandbox.judge import _first_difference, _judge_call
from execrl.sandbox.records import Status
from execrl.sandbox.returned import MAX_DEPTH, ValueRejected, decode_returned
from execrl.sandbox.zygote import codec

MERSENNE = 2**61 - 1  # CPython hashes an int as x mod 2**61 - 1: multiples all hash to 0


def _host_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _encoded(value) -> bytes:
    return json.dumps(codec.encode_value(value)).encode()


# -- item 6: returned values ------------------------------------------------------------------


def _colliding(n: int, kind: str = "set") -> bytes:
    """The encoding of ``{k * (2**61 - 1) for k in range(n)}``, written directly: building
    that set in Python (here, or in the host) is itself O(n²)."""
    members = [k * MERSENNE for k in range(n)]
    if kind == "dict":
        table = [["dict", [[m, {"ref": 1}] for m in members]], ["frozenset", members[:3]]]
        return json.dumps({"root": {"ref": 0}, "table": table}).encode()
    return json.dumps({"root": {"ref": 0}, "table": [[kind, members]]}).encode()


@pytest.mark.parametrize("kind", ["set", "frozenset", "dict"])
def test_colliding_set_is_judged_in_bounded_host_cpu(kind):
    """10**5 ints sharing one hash: O(n²) through a hash table (10 s here, hours at the
    output cap), O(n log n) sorted."""
    n = 10**5
    channel = _colliding(n, kind)
    expected = [k * MERSENNE for k in range(n)]  # a list: the set is not it
    test = CallTest(id="c", fn_name="f", args=[], expected=expected)
    start = _host_cpu_s()
    status, detail = _judge_call(test, channel)
    spent = _host_cpu_s() - start
    assert status is Status.WRONG_ANSWER and len(detail) < 400
    # 1.2-1.4 s for the dict alone here, 2.07 s once in a loaded suite run (CPU time grows
    # under contention); O(n²) would be ~10 s, so 4 s still tells the two apart.
    assert spent < 4.0, f"{spent:.2f} s of host CPU for a colliding {kind} of {n}"


def test_colliding_members_still_compare_as_sets():
    members = [k * MERSENNE for k in range(50)]  # small enough to build as a Python set
    forged = members[::-1] + members[:5]  # duplicates too, as a forged encoding could hold
    channel = json.dumps({"root": {"ref": 0}, "table": [["set", forged]]}).encode()
    test = CallTest(id="s", fn_name="f", args=[], expected=set(members))
    assert _judge_call(test, channel) == (Status.SUCCESS, "")
    fewer = CallTest(id="f", fn_name="f", args=[], expected=set(members[1:]))
    assert _judge_call(fewer, channel)[0] is Status.WRONG_ANSWER


def test_exponentially_shared_value_is_a_limit_not_a_hang():
    """60 table entries, each list holding the next twice: 2**60 elements when walked."""
    table = [["list", [{"ref": i + 1}, {"ref": i + 1}]] for i in range(60)] + [["list", []]]
    channel = json.dumps({"root": {"ref": 0}, "table": table}).encode()
    test = CallTest(id="dag", fn_name="f", args=[], expected=[[], []])
    start = time.perf_counter()
    status, detail = _judge_call(test, channel)
    assert time.perf_counter() - start < 1.0
    assert status is Status.WRONG_ANSWER and "holds over" in detail


def test_deep_nesting_is_a_limit_not_a_recursion_error():
    depth = 100_000
    table = [["list", [{"ref": i + 1}]] for i in range(depth)] + [["list", []]]
    channel = json.dumps({"root": {"ref": 0}, "table": table}).encode()
    status, detail = _judge_call(CallTest(id="d", fn_name="f", args=[], expected=[]), channel)
    assert status is Status.WRONG_ANSWER and f"over {MAX_DEPTH} deep" in detail
    within = [[[1]]]
    status, _ = _judge_call(
        CallTest(id="ok", fn_name="f", args=[], expected=within), _encoded(within)
    )
    assert status is Status.SUCCESS


def test_a_value_that_contains_itself_is_a_wrong_answer():
    cyclic: list = [1]
    cyclic.append(cyclic)
    status, detail = _judge_call(
        CallTest(id="cyc", fn_name="f", args=[], expected=[1, [1]]), _encoded(cyclic)
    )
    assert status is Status.WRONG_ANSWER and "contains itself" in detail


def test_unhashable_members_forged_into_a_set_are_unreadable():
    forged = {"root": {"ref": 0}, "table": [["set", [{"ref": 1}]], ["list", []]]}
    with pytest.raises(ValueError, match="unhashable"):
        decode_returned(forged)
    assert not isinstance(ValueError("x"), ValueRejected)
    tuple_of_list = ([1],)  # fine as a value; only hashing it fails
    status, _ = _judge_call(
        CallTest(id="t", fn_name="f", args=[], expected=[[1]]), _encoded(tuple_of_list)
    )
    assert status is Status.SUCCESS


def test_values_match_keeps_python_set_and_dict_semantics():
    assert values_match({1, 2}, {2, 1}) and values_match({1}, {1.0}) and values_match({True}, {1})
    assert not values_match(frozenset({1}), {1})  # as before: set and frozenset differ
    assert values_match({"a": [1, 2.0]}, {"a": (1, 2)})
    assert not values_match(True, 1) and not values_match(float("nan"), float("nan"))
    assert values_match({(1, frozenset({2})): 3}, {(1.0, frozenset({2.0})): 3.0})


# -- item 6: large outputs ---------------------------------------------------------------------

BIG = 16 * 1024 * 1024  # a quarter of the default max_output_bytes (tracemalloc is slow)


@pytest.fixture(scope="module")
def one_char_tokens() -> str:
    return "1 " * (BIG // 2)


@pytest.mark.parametrize(
    "checker",
    [
        Checker(),
        Checker(kind="float"),
        Checker(case_sensitive=False),
        Checker(space_change_sensitive=True),
        Checker(kind="exact"),
        Checker(kind="livecodebench"),
    ],
    ids=["tokens", "float", "case-insensitive", "space-sensitive", "exact", "livecodebench"],
)
def test_huge_output_is_compared_in_bounded_memory(one_char_tokens, checker):
    """8 Mi one-character tokens: ``split()`` alone holds ~0.4 GiB; streaming holds chunks."""
    expected = one_char_tokens[:-2] + "2 "  # differs only at the very end: read everything
    tracemalloc.start()
    try:
        matched = outputs_match(one_char_tokens, expected, checker)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not matched
    # the expected text's own lowered copy (case-insensitive) is the one full-size allocation
    assert peak < 80 * 1024 * 1024, f"{peak / 2**20:.0f} MiB peak for {checker.kind}"


def test_first_difference_streams_too(one_char_tokens):
    expected = one_char_tokens[:-2] + "2 "
    tracemalloc.start()
    try:
        detail = _first_difference(one_char_tokens, expected)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert detail == f"token {BIG // 2 - 1}: got '1', expected '2'"
    assert peak < 10 * 1024 * 1024


def test_apps_comparison_of_many_distinct_lines_is_bounded():
    """Rule 4 (sets of line token sets) stops once the output has more distinct lines."""
    actual = "".join(f"{i}\n" for i in range(300_000))
    tracemalloc.start()
    try:
        matched = outputs_match(actual, "1\n2\n", Checker(kind="apps"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not matched
    assert peak < 3 * len(actual) + 10 * 1024 * 1024  # the joined copies of rule 1, not lists


# -- item 7: what the program wrote reaches the terminal as text ----------------------------------

HOSTILE_STDERR = [
    "[bold red]x[/]",
    "[/]",
    "\x1b]0;pwned title\x07",
    "\x1b[2J\x1b[H",
    "\x1b]52;c;cm0gLXJmIH4K\x07",
    "\x1b[32mPASS\x1b[0m",
    "\x9b31m",
]


@pytest.mark.parametrize("text", HOSTILE_STDERR, ids=range(len(HOSTILE_STDERR)))
def test_execrl_run_prints_program_text_as_text(sum_problem_dir: Path, tmp_path: Path, text):
    program = tmp_path / "hostile.py"
    program.write_text(f"import sys\nsys.stderr.write({text!r})\nraise SystemExit(3)\n")
    source = str(sum_problem_dir.parent)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "execrl.cli.main",
            "run",
            "sum-list",
            str(program),
            "--source",
            source,
        ],
        capture_output=True,
        timeout=300,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out.decode(errors="replace")  # the program failed: no crash
    assert b"runtime_error" in done.stdout
    assert b"MarkupError" not in out and b"Traceback" not in out
    assert b"\x1b" not in out and b"\x07" not in out and b"\xc2\x9b" not in out


def test_safe_text_shows_controls_as_escapes():
    from execrl.cli._common import printable, safe_markup, safe_text

    assert printable("a\x1b[2Jb\tc\nd\x7f\u202e") == "a\\x1b[2Jb\tc\nd\\x7f\\u202e"
    assert safe_text("[bold]x[/]").plain == "[bold]x[/]"
    assert safe_markup("[/]") == "\\[/]"


def test_colliding_set_sent_to_an_assert_checker_is_bounded_by_the_wall_limit(executor):
    """The checker of an assert test builds the real set (its test code compares with ==):
    that O(n²) work happens in the sandbox and ends at the test's wall-clock limit."""
    from execrl.problems import AssertTest
    from execrl.sandbox.limits import Limits

    # The candidate cannot build such a set cheaply either, but it can forge its reply: the
    # zygote's encoder is a global of its own process.
    program = (
        "import sys\n"
        "def forged(value, **_):\n"
        "    table = [['set', [k * (2**61 - 1) for k in range(100_000)]]]\n"
        "    return {'root': {'ref': 0}, 'table': table}\n"
        "sys.modules['_zygote.calls'].encode_value = forged\n"
        "def f():\n"
        "    return set()\n"
    )
    code = "def check(candidate):\n    assert candidate() == set()\n"
    test = AssertTest(id="a", entry_point="f", code=code)
    limits = Limits(cpu_time_s=30.0, wall_time_s=3.0)
    start = time.perf_counter()
    record = executor.run(program, [test], limits)
    elapsed = time.perf_counter() - start
    (result,) = record.results
    assert result.status is Status.TIMEOUT, result.detail  # the checker was still hashing
    assert elapsed < 10.0
