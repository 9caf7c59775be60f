"""Conformance with ``python3 prog.py`` under a judge: each behaviour a stdin program might rely
on runs both ways — through execrl's sandbox, and as a judge runs it (a fresh ``python3`` with
a clean environment, the test's input on stdin, the exit code and stdout judged) — and the
verdicts must agree, except where docs/sandbox.md's conformance table says execrl differs on
purpose (``DIFFERS`` below, with the reason)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from execrl.problems import Checker, StdioTest
from execrl.sandbox.compare import outputs_match
from execrl.sandbox.limits import Limits
from execrl.sandbox.records import Status

# (name, program, stdin, expected stdout)
CASES = [
    ("input-lines", "a = input()\nb = input()\nprint(int(a) + int(b))", "2\n3\n", "5"),
    ("input-no-final-newline", "print(int(input()) * 2)", "21", "42"),
    ("stdin-read", "import sys\nprint(sum(map(int, sys.stdin.read().split())))", "1 2\n3\n", "6"),
    (
        "stdin-buffer",
        "import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))",
        "4 5",
        "9",
    ),
    ("stdin-iterate", "import sys\nprint(sum(int(line) for line in sys.stdin))", "1\n2\n3\n", "6"),
    ("open-0", "print(open(0).read().split()[1])", "x y z", "y"),
    ("dev-stdin", "print(open('/dev/stdin').read().strip()[::-1])", "abc\n", "cba"),
    (
        "readline-fast",
        "import sys\ninput = sys.stdin.readline\nprint(int(input()) + 1)",
        "9\n",
        "10",
    ),
    ("input-at-eof", "input()\ninput()", "1\n", ""),
    ("exit-at-end", "print(5)\nexit()", "", "5"),
    ("quit-at-end", "print(5)\nquit()", "", "5"),
    ("sys-exit-0", "import sys\nprint(5)\nsys.exit(0)", "", "5"),
    ("exit-nonzero", "print(5)\nexit(3)", "", "5"),
    ("exit-message", "print(5)\nraise SystemExit('bye')", "", "5"),
    ("os-exit-unflushed", "import os\nprint(5)\nos._exit(0)", "", "5"),
    ("os-exit-flushed", "import os\nprint(5, flush=True)\nos._exit(0)", "", "5"),
    ("stderr-noise", "import sys\nprint('debug', file=sys.stderr)\nprint(5)", "", "5"),
    ("dunder-main", "if __name__ == '__main__':\n    print(5)", "", "5"),
    (
        "multiprocessing-pool",  # (pickle looks the program's function up in __main__)
        "import multiprocessing\ndef sq(x):\n    return x * x\n"
        "if __name__ == '__main__':\n    with multiprocessing.Pool(2) as p:\n"
        "        print(p.map(sq, range(5)))",
        "",
        "[0, 1, 4, 9, 16]",
    ),
    ("import-main", "import __main__\nx = 5\nprint(__main__.x)", "", "5"),
    (
        "environment-clean",  # (the zygote starts with LD_BIND_NOW set, programs never see it)
        "import os\nprint(sorted(k for k in os.environ if k.startswith(('LD_', 'PYTHON'))))",
        "",
        "[]",
    ),
    ("dunder-file", "import os\nprint(os.path.basename(__file__).endswith('.py'))", "", "True"),
    (
        "deep-recursion",
        "import sys\nsys.setrecursionlimit(10**6)\n"
        "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nprint(f(10**5))",
        "",
        "100000",
    ),
    (
        "recursion-in-big-stack-thread",
        textwrap.dedent(
            """\
            import sys, threading
            sys.setrecursionlimit(10**6)
            threading.stack_size(256 * 1024 * 1024)
            def f(n):
                return 0 if n == 0 else 1 + f(n - 1)
            def main():
                print(f(10**5))
            t = threading.Thread(target=main)
            t.start()
            t.join()
            """
        ),
        "",
        "100000",
    ),
    (
        "exception-in-thread",
        "import threading\ndef m():\n    raise ValueError('x')\n"
        "t = threading.Thread(target=m)\nt.start()\nt.join()\nprint(5)",
        "",
        "5",
    ),
    (
        "exit-while-a-thread-works",
        "import sys, threading, time\n"
        "def work():\n    time.sleep(0.2)\n    print(5, flush=True)\n"
        "threading.Thread(target=work).start()\nsys.exit(0)",
        "",
        "5",
    ),
    (
        "atexit-after-exit",
        "import atexit\natexit.register(lambda: print(5))\nexit()",
        "",
        "5",
    ),
    (
        "atexit-after-a-crash",
        "import atexit\natexit.register(lambda: print(5))\nraise ValueError",
        "",
        "5",
    ),
    ("big-int-str-limit", "print(10**5000 > 0)\nprint(len(str(10**5000)))", "", "True 5001"),
    ("big-int-arithmetic", "print(pow(3, 10**6, 10**9 + 7))", "", str(pow(3, 10**6, 10**9 + 7))),
    (
        "import-stdlib",
        "import heapq, bisect, fractions\nprint(fractions.Fraction(1, 3) * 3)",
        "",
        "1",
    ),
    ("trailing-spaces", "print('1 2 ')\nprint()", "", "1 2"),
    ("no-final-newline", "import sys\nsys.stdout.write('5')", "", "5"),
    ("unicode-output", "print('héllo ✓')", "", "héllo ✓"),
]

DIFFERS = {
    "exception-in-thread": (
        Status.RUNTIME_ERROR,
        "python3 prints the thread's traceback and exits 0 (a judge accepts); execrl calls an "
        "uncaught exception in any thread a runtime error",
    ),
    "big-int-str-limit": (
        Status.RUNTIME_ERROR,
        "the same as python3 3.11+: str() of an int over 4,300 digits raises ValueError",
    ),
}
"""Cases whose execrl verdict is fixed here, with the reason; for every other case execrl must
give the verdict a judge gives ``python3 prog.py``."""

QUICK = Limits(timeout_s=10.0, memory_mb=512)


def judge_python3(program: str, stdin: str, expected: str, tmp_path) -> Status:
    """The verdict a judge gives ``python3 prog.py``: clean environment, input on stdin."""
    source = tmp_path / "prog.py"
    source.write_text(program)
    done = subprocess.run(
        [sys.executable, str(source)],
        input=stdin.encode(),
        capture_output=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        cwd=tmp_path,
    )
    if done.returncode != 0:
        return Status.RUNTIME_ERROR
    actual = done.stdout.decode("utf-8", errors="replace")
    ok = outputs_match(actual, expected, Checker())
    return Status.SUCCESS if ok else Status.WRONG_ANSWER


@pytest.mark.parametrize(("name", "program", "stdin", "expected"), CASES, ids=[c[0] for c in CASES])
def test_verdict_agrees_with_python3_under_a_judge(
    executor, tmp_path, name, program, stdin, expected
):
    test = StdioTest(id="t", input=stdin, output=expected)
    mine = executor.run(program, [test], QUICK).results[0]
    theirs = judge_python3(program, stdin, expected, tmp_path)
    if name in DIFFERS:
        wanted, _reason = DIFFERS[name]
        assert mine.status is wanted, (mine.status, mine.detail)
    else:
        assert mine.status is theirs, (mine.status, theirs, mine.detail)


def test_the_python3_baseline_is_not_trivially_accepting(tmp_path):
    """The reference judge itself must tell right from wrong (else agreement means nothing)."""
    assert judge_python3("print(4)", "", "5", tmp_path) is Status.WRONG_ANSWER
    assert judge_python3("raise ValueError", "", "5", tmp_path) is Status.RUNTIME_ERROR
    assert judge_python3("import os\nprint(5)\nos._exit(0)", "", "5", tmp_path) is (
        Status.WRONG_ANSWER  # buffered output is lost, as under any judge without -u
    )
