"""A candidate holds exactly the descriptors docs/sandbox.md lists (issue 33, item 8).

Every descriptor number a process can have (0..65535: ``os.fstat`` and ``fcntl`` in Python,
``fcntl(F_GETFD)`` in C) is probed from inside the program, in stdio, call and assert tests,
and from a program it executes:

- a Python program: 0-2, and 3 (/dev/null in stdio and assert tests, the result pipe in call
  tests); in an assert test also 4 and 5, the call channel it serves the checker's calls on.
  Every descriptor from 3 up is close-on-exec;
- what it executes, and a native (C) program: exactly 0-2.

The zygote's status channel (a pipe at fd 5 of a spare, fd 6 of an assert candidate) is
closed before the program's first line.
"""

from __future__ import annotations

import textwrap

import pytest

from execrl.problems import AssertTest, CallTest, StdioTest
from execrl.sandbox.languages import probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status

LIMITS = Limits(timeout_s=10.0, memory_mb=256)

PROBE = textwrap.dedent(
    '''
    import fcntl, os, stat, subprocess, sys

    KINDS = {stat.S_ISCHR: "null", stat.S_ISFIFO: "pipe", stat.S_ISREG: "file"}

    def held():
        """Every open descriptor: number, what it is, and "cloexec" when it is."""
        found = []
        for fd in range(65536):
            try:
                mode = os.fstat(fd).st_mode
            except OSError:
                continue
            kind = next((name for test, name in KINDS.items() if test(mode)), "other")
            cloexec = fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
            found.append(f"{fd}:{kind}" + (":cloexec" if cloexec and fd > 2 else ""))
        return " ".join(found)

    CHILD = (
        "import os\\n"
        "found = []\\n"
        "for fd in range(65536):\\n"
        "    try:\\n"
        "        os.fstat(fd)\\n"
        "    except OSError:\\n"
        "        continue\\n"
        "    found.append(str(fd))\\n"
        "print(' '.join(found))\\n"
    )

    def executed():
        """What a program it executes holds (nothing closed for it: close_fds=False)."""
        python = sys.base_prefix + "/bin/python3"
        run = subprocess.run(
            [python, "-S", "-c", CHILD], close_fds=False, stdout=subprocess.PIPE, text=True
        )
        return run.stdout.strip()

    def probe(x=None):
        return held() + " | " + executed()
    '''
)

STDIO_PROGRAM = PROBE + "print(probe())\n"
EXPECTED = {
    "stdio": "0:file 1:pipe 2:pipe 3:null:cloexec | 0 1 2",
    "call": "0:file 1:pipe 2:pipe 3:pipe:cloexec | 0 1 2",
    "assert": "0:file 1:pipe 2:pipe 3:null:cloexec 4:pipe:cloexec 5:pipe:cloexec | 0 1 2",
}
"""Stdin is a memfd (a regular file), stdout and stderr pipes; then what the program execs."""

C_PROGRAM = textwrap.dedent(
    """
    #include <fcntl.h>
    #include <stdio.h>
    #include <string.h>
    #include <sys/wait.h>
    #include <unistd.h>
    static void held(const char *who) {
        printf("%s:", who);
        for (int fd = 0; fd < 65536; fd++)
            if (fcntl(fd, F_GETFD) != -1) printf(" %d", fd);
        printf("\\n");
        fflush(stdout);
    }
    int main(int argc, char **argv) {
        if (argc > 1) { held("executed"); return 0; }
        held("program");
        pid_t pid = fork();
        if (pid == 0) {
            char *args[] = {"probe", "again", NULL};
            execv("/proc/self/exe", args);
            execv(argv[0], args);
            _exit(111);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    """
)


def _run_one(executor, program: str, test, language: str = "python"):
    request = ExecutionRequest(program=program, language=language, tests=[test], limits=LIMITS)
    (record,) = list(executor.run_batch([request], progress=False))
    return record.results[0]


def test_stdio_program_holds_0_to_3_and_what_it_executes_0_to_2(executor):
    test = StdioTest(id="fds", input="", output=EXPECTED["stdio"] + "\n")
    result = _run_one(executor, STDIO_PROGRAM, test)
    assert result.status is Status.SUCCESS, result.detail


def test_call_program_holds_the_result_channel_and_nothing_more(executor):
    test = CallTest(id="fds", fn_name="probe", args=[1], expected=EXPECTED["call"])
    result = _run_one(executor, PROBE, test)
    assert result.status is Status.SUCCESS, result.detail


def test_assert_candidate_holds_the_call_channel_and_nothing_more(executor):
    code = f"def check(c):\n    got = c(1)\n    assert got == {EXPECTED['assert']!r}, got\n"
    test = AssertTest(id="fds", entry_point="probe", code=code)
    result = _run_one(executor, PROBE, test)
    assert result.status is Status.SUCCESS, result.detail


def test_a_second_run_on_the_same_worker_holds_the_same(executor):
    """Spares are forked ahead of their test: the next one holds nothing of the last."""
    test = StdioTest(id="fds", input="", output=EXPECTED["stdio"] + "\n")
    requests = [
        ExecutionRequest(program=STDIO_PROGRAM, tests=[test], limits=LIMITS) for _ in range(4)
    ]
    for record in executor.run_batch(requests, progress=False):
        assert record.results[0].status is Status.SUCCESS, record.results[0].detail


def test_native_program_and_what_it_executes_hold_exactly_0_to_2(executor):
    toolchain = probe("c")
    if not toolchain.installed:
        pytest.skip(f"c: {toolchain.why_not}")
    test = StdioTest(id="fds", input="", output="program: 0 1 2\nexecuted: 0 1 2\n")
    result = _run_one(executor, C_PROGRAM, test, language="c")
    assert result.status is Status.SUCCESS, result.detail
