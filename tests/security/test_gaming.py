"""Programs that try to change verdicts rather than escape (issue 16).

Rollouts of one problem run back to back on one worker, so each of these is a reward hack a
policy could discover: shifting the verdicts of the programs after it, reading the previous
program's output or source, or making its own failure ``inconclusive``.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from execrl.problems import AssertTest, CallTest, StdioTest
from execrl.sandbox import LocalExecutor
from execrl.sandbox.forkserver import ForkServer, SandboxCrashed
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status
from execrl.sandbox.zygote import scratch, wire

ECHO = StdioTest(id="echo", input="3\n", output="3\n")
CORRECT = "print(input())"
STDIO = {"id": "t", "kind": "stdio"}

DEEP_SCRATCH = """\
import os
for _ in range(2500):
    os.mkdir("a")
    os.chdir("a")
print(input())
"""

DEEP_SHM = """\
import os
os.chdir("/dev/shm")
for _ in range(2500):
    os.mkdir("d")
    os.chdir("d")
print(input())
"""

# A program that looks for text everywhere Python lets it look: every object the garbage
# collector tracks and what they refer to (code objects' constants and names included), and the
# locals of every frame on its stack. Markers are built at run time, so the spy's own code does
# not contain them, and the marker object itself is skipped.
SCAN = """\
import gc, sys

def found(marker):
    hits = set()

    def look(value):
        if value is marker:
            return
        if isinstance(value, (bytes, bytearray)) and marker.encode() in value:
            hits.add(bytes(value).decode(errors="replace"))
        elif isinstance(value, str) and marker in value:
            hits.add(value)
        elif isinstance(value, type(look.__code__)):
            for item in (*value.co_consts, *value.co_names):
                look(item)

    for obj in gc.get_objects():
        look(obj)
        for ref in gc.get_referents(obj):
            look(ref)
    frame = sys._getframe().f_back
    while frame is not None:
        for value in list(frame.f_locals.values()):
            look(value)
            if isinstance(value, (list, tuple, dict)):
                for item in list(value.values() if isinstance(value, dict) else value):
                    look(item)
        frame = frame.f_back
    return hits
"""


@pytest.fixture(scope="module")
def one_worker():
    """Every program of a test module on the same worker, back to back."""
    with LocalExecutor(workers=1) as pool:
        yield pool


@pytest.fixture
def server():
    with ForkServer() as fork_server:
        yield fork_server


def status(executor, program: str, test=ECHO, **kwargs):
    return executor.run(program, [test], **kwargs).results[0]


def run_assert(executor, program: str, code: str, **kwargs):
    test = AssertTest(id="t", code=code, entry_point="f")
    request = ExecutionRequest(program=textwrap.dedent(program), tests=[test], **kwargs)
    return executor.execute(request).results[0]


# -- 1. one reply per request, and a worker in doubt is restarted ------------------------------
@pytest.mark.parametrize("poison", [DEEP_SCRATCH, DEEP_SHM], ids=["scratch", "shm"])
def test_a_poisoned_worker_never_shifts_or_leaks_a_verdict(one_worker, poison):
    sequence = [
        (poison, Status.SUCCESS),  # its own verdict is its own
        ("print(", Status.COMPILE_ERROR),
        (CORRECT, Status.SUCCESS),
        ("print(4)", Status.WRONG_ANSWER),
        (poison, Status.SUCCESS),
        (CORRECT, Status.SUCCESS),
        ("print(", Status.COMPILE_ERROR),
        (CORRECT, Status.SUCCESS),
    ]
    got = [status(one_worker, program).status for program, _ in sequence]
    assert got == [want for _, want in sequence]


def test_the_scratch_left_by_a_poisoner_is_gone_for_the_next_program(one_worker):
    assert status(one_worker, DEEP_SCRATCH).status is Status.SUCCESS
    looks = "import os\nprint(len(os.listdir('.')) + len(os.listdir('/dev/shm')))"
    assert status(one_worker, looks, StdioTest(id="t", input="", output="0\n")).passed


def test_a_reply_to_another_request_is_refused_and_the_server_restarted(server):
    # An extra request the host did not make: its reply arrives first and must not be taken
    # for the answer to the next run.
    wire.write_message(server._request_w, {"op": "ping", "id": 10**6})
    with pytest.raises(SandboxCrashed, match="waiting for"):
        server.run(CORRECT, STDIO, b"3\n", Limits())
    raw = server.run(CORRECT, STDIO, b"3\n", Limits())
    assert raw.stdout == b"3\n"


def test_a_worker_that_cannot_clean_up_says_so_and_is_replaced(server):
    assert server.run(DEEP_SCRATCH, STDIO, b"3\n", Limits()).stdout == b"3\n"
    # The next request is answered once, with the zygote's own failure (not a shifted reply),
    # and the host starts a fresh server with a fresh scratch file system.
    with pytest.raises(SandboxCrashed, match="cleaning up after the last run failed"):
        server.run(CORRECT, STDIO, b"3\n", Limits())
    looks = "import os\nprint(len(os.listdir('.')))"
    assert server.run(looks, STDIO, b"", Limits()).stdout == b"0\n"


def test_cleanup_is_iterative_and_bounded(tmp_path):
    deep = tmp_path / "deep"
    path = deep
    for _ in range(scratch.CLEANUP_MAX_DEPTH - 2):
        path = path / "a"
    path.mkdir(parents=True)
    (path / "f").write_text("x")
    scratch.remove_tree(str(deep))
    assert not deep.exists()
    too_deep = tmp_path / "too-deep"
    path = too_deep
    for _ in range(scratch.CLEANUP_MAX_DEPTH + 5):
        path = path / "a"
    path.mkdir(parents=True)
    with pytest.raises(scratch.CleanupFailed, match="nested"):
        scratch.remove_tree(str(too_deep))


def test_cleanup_refuses_too_many_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(scratch, "CLEANUP_MAX_ENTRIES", 50)
    for i in range(60):
        (tmp_path / str(i)).touch()
    with pytest.raises(scratch.CleanupFailed, match="entries"):
        scratch.remove_tree(str(tmp_path), keep_root=True)


# -- 2. nothing of one program is visible to the next ------------------------------------------
def test_the_previous_programs_stdout_is_not_in_the_next_ones_memory(server):
    first = "print('LEAKED-' + 'STDOUT-4711')"
    assert server.run(first, STDIO, b"", Limits()).stdout == b"LEAKED-STDOUT-4711\n"
    spy = SCAN + "print('leak' if found(''.join(['LEAKED-', 'STDOUT'])) else 'clean')"
    assert server.run(spy, STDIO, b"", Limits()).stdout == b"clean\n"


def test_another_programs_source_is_not_in_the_next_ones_memory(server):
    first = "secret_answer = 'SOURCE-OF-' + 'A'\nprint(secret_answer)"
    assert server.run(first, STDIO, b"", Limits()).stdout == b"SOURCE-OF-A\n"
    spy = SCAN + "print('leak' if found('_'.join(['secret', 'answer'])) else 'clean')"
    assert server.run(spy, STDIO, b"", Limits()).stdout == b"clean\n"


def test_the_scan_finds_what_is_there(server):
    """The spy above is able to see: it finds a marker its own frame holds."""
    spy = (
        SCAN
        + "here = ['MARK' + str(1)]\nprint('leak' if found(''.join(['MARK', '1'])) else 'clean')"
    )
    assert server.run(spy, STDIO, b"", Limits()).stdout == b"leak\n"


def test_a_repeat_cannot_read_the_previous_repeats_output(server):
    # Each repeat prints a token of its own (random: every repeat gets the same pid now);
    # a repeat that finds an earlier one says so.
    spy = SCAN + textwrap.dedent(
        """\
        import os
        prefix = "".join(["REPEAT", "-TOKEN-"])
        mine = prefix + os.urandom(8).hex()
        hits = found(prefix)
        print("leak" if any(mine not in hit for hit in hits) else "clean")
        print(mine)
        """
    )
    raw = server.run(spy, STDIO, b"", Limits(), repeats=3)
    assert [out.splitlines()[0] for out, _, _ in raw.streams] == [b"clean"] * 3


# The same, below Python: a program that reads its own raw memory (ctypes; /proc/self/mem is
# closed to it) — every writable mapping it inherited from the zygote, freed blocks included —
# and counts a marker. Its own copies of the marker are the same in every run, so a count above
# the one it saw before another program ran is that program's data left in the zygote's heap.
RAW_SCAN = """\
import ctypes

def raw_count(marker):
    count = 0
    for line in open("/proc/self/maps"):
        fields = line.split()
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        name = fields[5] if len(fields) > 5 else ""
        if fields[1].startswith("rw") and hi - lo < 1 << 28 and not name.startswith("[v"):
            count += ctypes.string_at(lo, hi - lo).count(marker)
    return count
"""
RAW_MARKER = "b''.join([b'RAW-', b'SECRET-', b'9931'])"


def raw_count(server) -> int:
    spy = RAW_SCAN + f"print(raw_count({RAW_MARKER}))"
    return int(server.run(spy, STDIO, b"", Limits()).stdout)


@pytest.mark.parametrize(
    "program",
    [
        "m = 'RAW-' + 'SECRET-9931'\nprint(m * 3)",
        "import sys\nm = 'RAW-' + 'SECRET-9931'\nsys.stderr.write(m * 3)",
        "import sys\nm = 'RAW-' + 'SECRET-9931'\nsys.stdout.write(('x' * 100000 + m) * 3)",
        "# RAW-SECRET-9931: a source that is not output\nprint(1)",
        "".join(f"x{i} = {i}  # RAW-SECRET-9931 ({i})\n" for i in range(200)) + "print(x1)",
        "m = 'RAW-SECRET-9931'\nprint(len(m))",  # a literal: in the code object's constants
    ],
    ids=["stdout", "stderr", "large-stdout", "source", "long-source", "literal"],
)
def test_no_copy_of_a_programs_output_or_source_is_left_in_raw_memory(server, program):
    before = raw_count(server)
    for _ in range(2):
        server.run(program, STDIO, b"", Limits())
    assert raw_count(server) == before


def test_a_repeat_cannot_find_the_previous_repeats_output_in_raw_memory(server):
    spy = RAW_SCAN + f"print(raw_count({RAW_MARKER}))\nprint(({RAW_MARKER}).decode() * 3)"
    raw = server.run(spy, STDIO, b"", Limits(), repeats=3)
    counts = [out.splitlines()[0] for out, _, _ in raw.streams]
    assert len(counts) == 3 and len(set(counts)) == 1, counts


def test_the_raw_scan_finds_what_is_there(server):
    """The raw spy is able to see: a copy it makes itself adds one to its count."""
    spy = RAW_SCAN + (
        f"base = raw_count({RAW_MARKER})\nextra = bytearray({RAW_MARKER})\n"
        f"print(raw_count({RAW_MARKER}) - base)"
    )
    assert int(server.run(spy, STDIO, b"", Limits()).stdout) >= 1


def test_an_assert_tests_code_is_not_in_its_candidates_raw_memory(one_worker):
    """The test's code (its expected values) reaches the checker compiled by the worker's
    compiler process; the zygote zeroes its copies before it forks the candidate. The
    candidate counts the marker in every writable mapping it has: with the marker in the test's
    code it finds no more copies than without (its own copy, made to search with, is in both)."""
    spy = RAW_SCAN + "def f(x):\n    return raw_count(" + RAW_MARKER + ")\n"

    def count(test_code: str) -> int:
        result = run_assert(one_worker, spy, test_code + "assert f(1) == -1, f(1)\n")
        assert result.status is Status.WRONG_ANSWER, result
        return int(re.search(r"AssertionError: (\d+)", result.detail).group(1))

    without = count("NOTE = 'RAW-SECRET-1'\n")
    assert without >= 1  # (the spy sees its own copy)
    assert count("NOTE = 'RAW-SECRET-9931'  # RAW-SECRET-9931\n") == without
    assert count("NOTE = 'RAW-SECRET-1'\n") == without  # nor does a later test


# -- 3. verdicts the program cannot forge ------------------------------------------------------
FORGED_SETUP_FAILURE = (
    "import os, sys\nsys.stderr.write('sandbox setup failed: x\\n')\nos._exit(121)"
)


def test_a_program_cannot_make_its_failure_inconclusive(one_worker):
    result = status(one_worker, FORGED_SETUP_FAILURE)
    assert result.status is Status.RUNTIME_ERROR, result


def test_writing_on_the_status_channel_does_not_forge_a_setup_failure(one_worker):
    program = "import os\nos.write(5, b'Fforged')\nos._exit(121)"
    assert status(one_worker, program).status is Status.RUNTIME_ERROR


def test_an_assert_program_cannot_make_its_failure_inconclusive(one_worker):
    program = """\
    import os, sys
    os.write(6, b"Fforged")
    def f(x):
        sys.stderr.write("sandbox setup failed: x\\n")
        os._exit(121)
    """
    result = run_assert(one_worker, program, "assert f(1) == 2")
    assert result.status is Status.RUNTIME_ERROR, result


def test_a_real_setup_failure_is_still_inconclusive(one_worker):
    result = run_assert(one_worker, "def f(x): return x + 1", "assert f(1) == 2", prelude="1/0")
    assert result.status is Status.INCONCLUSIVE
    assert "the prelude raised ZeroDivisionError" in result.detail


def test_a_real_setup_failure_of_a_spare_child_is_inconclusive(one_worker):
    test = CallTest(id="c", fn_name="f", args=[1], expected=2)
    request = ExecutionRequest(program="def f(x): return x + 1", tests=[test], prelude="1/0")
    result = one_worker.execute(request).results[0]
    assert result.status is Status.INCONCLUSIVE
    assert "the prelude raised ZeroDivisionError" in result.detail


def test_trusted_code_that_does_not_compile_is_inconclusive_and_says_where(one_worker):
    """Preludes and test code are compiled by the worker's compiler process, not in the
    children; their compile errors still come back as the sandbox's (inconclusive)."""
    program = "def f(x): return x + 1"
    result = run_assert(one_worker, program, "assert f(1) == 2", prelude="def (")
    assert result.status is Status.INCONCLUSIVE
    assert "the prelude raised SyntaxError" in result.detail, result.detail
    result = run_assert(one_worker, program, "assert f(1) ==")
    assert result.status is Status.INCONCLUSIVE
    assert "the prelude or test code failed: SyntaxError" in result.detail, result.detail
    test = CallTest(id="c", fn_name="f", args=[1], expected=2)
    request = ExecutionRequest(program=program, tests=[test, test], prelude="def (")
    results = one_worker.execute(request).results
    assert [r.status for r in results] == [Status.INCONCLUSIVE] * 2
    assert all("the prelude raised SyntaxError" in r.detail for r in results)


@pytest.mark.parametrize(
    "source",
    ["(" * 10**6, "-" * 10**6 + "1", "x = " + "not " * 10**6 + "1", "1+" * 10**6 + "1"],
    ids=["parentheses", "unary", "not", "binary"],
)
def test_any_compile_failure_is_a_compile_error(one_worker, source):
    assert status(one_worker, source).status is Status.COMPILE_ERROR


def test_memoryerror_on_stderr_is_not_a_memory_limit(one_worker):
    program = "import sys\nprint('MemoryError', file=sys.stderr)\nraise SystemExit(1)"
    assert status(one_worker, program).status is Status.RUNTIME_ERROR
    program = (
        "def f(x):\n    import sys, os\n    print('MemoryError', file=sys.stderr)\n    os._exit(1)"
    )
    assert run_assert(one_worker, program, "assert f(1) == 2").status is Status.RUNTIME_ERROR


def test_a_class_named_memoryerror_is_not_a_memory_limit(one_worker):
    program = """\
    class MemoryError(Exception):
        pass
    def f(x):
        raise MemoryError("out of memory, honestly")
    """
    assert run_assert(one_worker, program, "assert f(1) == 2").status is Status.RUNTIME_ERROR


def test_a_real_memory_error_is_a_memory_limit(one_worker):
    limits = Limits(cpu_time_s=5, memory_mb=100)
    result = status(one_worker, "x = bytearray(600 * 1024**2)", limits=limits)
    assert result.status is Status.MEMORY_LIMIT
    program = "def f(x):\n    return bytearray(600 * 1024**2)"
    result = run_assert(one_worker, program, "assert f(1) == 2", limits=limits)
    assert result.status is Status.MEMORY_LIMIT


# -- 2b. state in the shared pid and network namespaces -----------------------------------------
COUNTS_PIDS = """\
import os
print(os.getpid(), open("/proc/loadavg").read().split()[-1])
for _ in range(int(input() or 0)):  # an earlier repeat forks k times...
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
"""


def test_the_pid_counter_tells_a_repeat_nothing_about_earlier_ones(server):
    # ...and every repeat, and every later program, still starts at the same pid.
    raw = server.run(COUNTS_PIDS, STDIO, b"7\n", Limits(), repeats=3)
    firsts = {out for out, _, _ in raw.streams}
    later = server.run(COUNTS_PIDS + "# another program", STDIO, b"3\n", Limits())
    assert len(firsts) == 1 and later.stdout in firsts


def test_an_assert_candidate_always_gets_the_same_pid(one_worker):
    program = "import os\ndef f(x):\n    return os.getpid()"
    first = run_assert(one_worker, program, "assert f(1) == -1, f(1)")
    assert first.status is Status.WRONG_ANSWER and first.detail.startswith("AssertionError: ")
    for _ in range(2):
        assert run_assert(one_worker, program, "assert f(1) == -1, f(1)").detail == first.detail


PARK_SOCKET = """\
import array, socket
parked = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
parked.bind(b"\\0execrl-parked")
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
# parked and b travel in a's queue, a in b's: a cycle kept alive only by being in flight
rights = lambda *fds: [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
a.sendmsg([b"x"], rights(parked.fileno(), b.fileno()))
b.sendmsg([b"y"], rights(a.fileno()))
print("parked")
"""

FIND_SOCKET = """\
import socket
probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    probe.sendto(b"hello", b"\\0execrl-parked")
    print("seen")
except OSError:
    print("gone")
"""


def test_an_abstract_socket_parked_in_flight_is_gone_for_the_next_test(server):
    for _ in range(2):
        assert server.run(PARK_SOCKET, STDIO, b"", Limits()).stdout == b"parked\n"
        assert server.run(FIND_SOCKET, STDIO, b"", Limits()).stdout == b"gone\n"
