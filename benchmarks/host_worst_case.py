"""Host CPU and memory per worst-case result: what judging one hostile result costs execrl.

A program controls what it returns and prints; the host decodes and compares it. For each
worst case this measures host CPU (getrusage) and peak Python memory (tracemalloc, in a
second pass) of the naive way (hash the returned set, ``split()`` the whole output, walk the
value as it is shared — computed here, as the code did before issue 16) and of execrl's way
(``decode_returned`` + ``matches``, ``outputs_match`` + ``_first_difference``), and prints
the ratios. A naive case that does not finish within ``--naive-timeout`` is reported as such
(run in a child process, killed at the timeout).

    python benchmarks/host_worst_case.py [--out benchmarks/results/host_worst_case.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import resource
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import report

from execrl.problems.models import Checker
from execrl.sandbox.compare import outputs_match
from execrl.sandbox.judge import _decode_stdout, _first_difference
from execrl.sandbox.returned import ValueRejected, decode_returned, matches, show
from execrl.sandbox.zygote import codec

MERSENNE = 2**61 - 1


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- the naive baseline: what the host did before --------------------------------------------


def naive_call(channel: bytes, expected) -> str:
    value = codec.decode_value(json.loads(channel))  # builds the set: hashes every member
    ok = type(value) is type(expected) and value == expected
    return "match" if ok else f"returned {repr(value)[:120]}"  # repr walks shared refs again


def naive_tokens(stdout: bytes, expected: str) -> str:
    actual = stdout.decode("utf-8", errors="replace")
    got, want = actual.split(), expected.split()
    if len(got) == len(want) and all(map(str.__eq__, got, want)):
        return "match"
    stdout.decode("utf-8")  # _first_difference decoded it again, then split both again
    got, want = actual.split(), expected.split()
    for i, (a, e) in enumerate(zip(got, want, strict=False)):
        if a != e:
            return f"token {i}"
    return "counts"


# -- execrl's way ------------------------------------------------------------------------------


def bounded_call(channel: bytes, expected) -> str:
    try:
        value = decode_returned(json.loads(channel))
    except ValueRejected as exc:
        return str(exc)
    return "match" if matches(value, expected) else f"returned {show(value)}"


def bounded_tokens(stdout: bytes, expected: str) -> str:
    actual, valid = _decode_stdout(stdout)
    if outputs_match(actual, expected, Checker()):
        return "match"
    return _first_difference(actual, expected, valid)


# -- the cases --------------------------------------------------------------------------------


def colliding_set(n: int) -> tuple[bytes, object]:
    """What ``encode_value`` makes of ``{k * (2**61 - 1) for k in range(n)}``, written
    directly (building the set here would itself take the naive O(n²) time), and a list
    as the expected value (so the set is not it, and is shown in the detail)."""
    members = [k * MERSENNE for k in range(n)]
    return json.dumps({"root": {"ref": 0}, "table": [["set", members]]}).encode(), members


def one_char_tokens(size: int) -> tuple[bytes, str]:
    stdout = b"1 " * (size // 2)
    return stdout, stdout.decode()[:-2] + "2 "


def deep_list(depth: int) -> tuple[bytes, object]:
    table = [["list", [{"ref": i + 1}]] for i in range(depth)] + [["list", []]]
    return json.dumps({"root": {"ref": 0}, "table": table}).encode(), [[1]]


def shared_list(levels: int) -> tuple[bytes, object]:
    table = [["list", [{"ref": i + 1}, {"ref": i + 1}]] for i in range(levels)] + [["list", []]]
    return json.dumps({"root": {"ref": 0}, "table": table}).encode(), [[], []]


def measure(fn: Callable, args: tuple) -> dict:
    start = _cpu_s()
    try:
        outcome = fn(*args)[:60]
    except Exception as exc:  # the naive way crashes on some cases: that is the finding
        outcome = f"{type(exc).__name__} (uncaught)"
    cpu = _cpu_s() - start
    tracemalloc.start()
    with contextlib.suppress(Exception):
        fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"cpu_s": round(cpu, 4), "peak_mib": round(peak / 2**20, 1), "outcome": outcome}


def _child(fn, args, queue) -> None:
    sys.setrecursionlimit(1000)
    queue.put(measure(fn, args))


def measure_with_timeout(fn: Callable, args: tuple, timeout_s: float) -> dict:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    proc = multiprocessing.get_context("fork").Process(target=_child, args=(fn, args, queue))
    proc.start()
    proc.join(timeout_s)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return {"cpu_s": None, "peak_mib": None, "outcome": f"not done in {timeout_s:g} s"}
    return queue.get() if not queue.empty() else {"outcome": f"exit {proc.exitcode}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--naive-timeout", type=float, default=120.0)
    parser.add_argument("--output-mib", type=int, default=64)
    args = parser.parse_args()
    cases = {
        "colliding set, n = 10^4": ("call", colliding_set(10**4)),
        "colliding set, n = 10^5": ("call", colliding_set(10**5)),
        f"{args.output_mib} MiB of one-char tokens": (
            "tokens",
            one_char_tokens(args.output_mib << 20),
        ),
        "list nested 10^5 deep": ("call", deep_list(10**5)),
        "list sharing 2^60 elements": ("call", shared_list(60)),
    }
    rows = {}
    for name, (kind, case) in cases.items():
        naive, bounded = (
            (naive_call, bounded_call)
            if kind == "call"
            else (
                naive_tokens,
                bounded_tokens,
            )
        )
        before = measure_with_timeout(naive, case, args.naive_timeout)
        after = measure(bounded, case)
        row = {"before": before, "after": after}
        if before.get("cpu_s") and after["cpu_s"]:
            row["cpu_ratio"] = round(before["cpu_s"] / after["cpu_s"], 1)
        if before.get("peak_mib") and after["peak_mib"]:
            row["memory_ratio"] = round(before["peak_mib"] / after["peak_mib"], 1)
        rows[name] = row
        print(
            f"{name:34} before {before.get('cpu_s')!s:>8} s {before.get('peak_mib')!s:>8} MiB "
            f"({before['outcome'][:30]}) | after {after['cpu_s']:>7} s {after['peak_mib']:>7} MiB "
            f"({after['outcome'][:40]}) | CPU ×{row.get('cpu_ratio', '—')} "
            f"memory ×{row.get('memory_ratio', '—')}",
            flush=True,
        )
    report("host_worst_case", {"cases": rows}, args.out)


if __name__ == "__main__":
    main()
