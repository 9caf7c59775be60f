# ruff: noqa: E501  (hostile programs are kept verbatim, one per case)
"""Hostile programs against the sandbox: each asserts the specific containment it tests.

They run in one batch on two workers with benign programs interleaved; every benign program
must still get its correct verdict. Host-side effects (files, connections, surviving
processes, leaked secrets) are checked from outside the sandbox.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import textwrap
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from execrl.problems import AssertTest, CallTest, Checker, StdioTest
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status, TestResult

NONCE = uuid.uuid4().hex[:12]
HOST_SECRET = f"host-secret-{NONCE}"
HOST_FILE = Path(f"/tmp/execrl-host-file-{NONCE}")
ESCAPE_FILES = [
    Path(f"/tmp/execrl-escape-{NONCE}"),
    Path(f"/root/execrl-escape-{NONCE}"),
    Path(f"/work/execrl-escape-{NONCE}"),
]
UNIX_SOCKET = Path(f"/tmp/execrl-host-{NONCE}.sock")
ABSTRACT_SOCKET = f"\0execrl-host-{NONCE}"
SHORT = Limits(timeout_s=2.0, memory_mb=256, max_output_bytes=1 << 20)
ECHO = StdioTest(id="echo", input="41\n", output="42\n")
ANY = StdioTest(id="any", input="", output="__never_matches__\n")


@dataclass
class Case:
    name: str
    code: str
    test: object = ECHO
    limits: Limits = SHORT
    options: ExecutionOptions = field(default_factory=ExecutionOptions)
    expect: set[Status] = field(default_factory=set)
    check: Callable[[TestResult, str], None] | None = None
    starter_code: str | None = None


def checks_inc_returns(expected: object) -> AssertTest:
    """An assert-style test: ``check(inc)`` asserts ``inc(1) == expected``."""
    return AssertTest(
        id="a", entry_point="inc", code=f"def check(c):\n    assert c(1) == {expected!r}\n"
    )


def no_output_containing(*needles: str) -> Callable[[TestResult, str], None]:
    def check(result: TestResult, detail: str) -> None:
        for needle in needles:
            assert needle not in detail, f"{needle!r} leaked: {detail}"

    return check


def code(text: str) -> str:
    return textwrap.dedent(text).strip() + "\n"


CASES = [
    # --- time ------------------------------------------------------------------------------
    Case(
        "busy_loop",
        "while True: pass",
        expect={Status.TIMEOUT},
        check=lambda r, d: _assert(r.limit_hit == "cpu" and r.cpu_s < SHORT.cpu_time_s + 1, r),
    ),
    Case(
        "sleep_forever",
        "import time\ntime.sleep(10**6)",
        expect={Status.TIMEOUT},
        check=lambda r, d: _assert(
            r.limit_hit == "wall" and r.cpu_s < 0.5 and r.wall_s < SHORT.wall_limit_s + 1.5, r
        ),
    ),
    Case(
        "ignore_sigterm_and_spin",
        code("""
        import signal
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGXCPU, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        while True: pass
    """),
        expect={Status.TIMEOUT},
    ),
    Case(
        "signal_handler_tampering",
        code("""
        import signal, os
        signal.signal(signal.SIGXCPU, lambda *a: None)
        signal.pthread_sigmask(signal.SIG_BLOCK, range(1, 32))
        while True: pass
    """),
        expect={Status.TIMEOUT},
    ),
    # --- processes -------------------------------------------------------------------------
    Case(
        "fork_bomb",
        code("""
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """),
        expect={Status.TIMEOUT, Status.RUNTIME_ERROR},
    ),
    Case(
        "thread_bomb",
        code("""
        import threading, time
        n = 0
        try:
            while True:
                threading.Thread(target=time.sleep, args=(100,), daemon=True).start()
                n += 1
        except RuntimeError:
            print(n)
    """),
        test=ANY,
        expect={Status.WRONG_ANSWER},
        check=lambda r, d: _assert(printed_number(d) < 16, r),
    ),
    Case(
        "detached_grandchild_outlives_test",
        code(f"""
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(3)
                open("/tmp/grandchild-{NONCE}", "w").write("alive")
                print("grandchild still alive", flush=True)
            os._exit(0)
        print(42)
    """),
        expect={Status.SUCCESS},
    ),
    Case(
        "kill_parent",
        code("""
        import os, signal
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
            try:
                os.kill(os.getppid(), sig)
            except OSError:
                pass
        print(int(input()) + 1)
    """),
        expect={Status.SUCCESS},
    ),
    Case(
        "kill_everything_visible",
        code("""
        import os, signal
        for pid in range(1, 200):
            if pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        print(int(input()) + 1)
    """),
        expect={Status.SUCCESS},
    ),
    Case(
        "kill_minus_one",
        "import os, signal\nos.kill(-1, signal.SIGKILL)",
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "multiprocess_work_is_still_counted",
        code("""
        import os, time
        def burn(seconds):
            end = time.process_time() + seconds
            while time.process_time() < end:
                pass
        pipes = []
        for _ in range(2):
            r, w = os.pipe()
            if os.fork() == 0:
                burn(0.4)
                os.write(w, b"done")
                time.sleep(100)  # never exits: only its CPU time can betray the work
            pipes.append(r)
        assert all(os.read(r, 4) == b"done" for r in pipes)
        print(42)  # exits without waiting for its workers
    """),
        limits=Limits(timeout_s=8),
        expect={Status.SUCCESS},
        check=lambda r, d: _assert(r.cpu_s >= 0.6, r),
    ),
    # --- memory, output, files ------------------------------------------------------------
    Case("memory_bomb_at_once", "x = bytearray(8 * 1024**3)", expect={Status.MEMORY_LIMIT}),
    Case(
        "memory_bomb_gradual",
        "x = []\nwhile True: x.append(bytearray(10**6))",
        expect={Status.MEMORY_LIMIT},
    ),
    Case(
        "memory_bomb_in_children",
        code("""
        import os
        for _ in range(8):
            if os.fork() == 0:
                x = bytearray(2 * 1024**3)
                os._exit(0)
        x = bytearray(8 * 1024**3)
    """),
        expect={Status.MEMORY_LIMIT},
    ),
    Case(
        "stdout_flood",
        "import sys\nwhile True: sys.stdout.write('x' * 65536)",
        expect={Status.OUTPUT_LIMIT},
    ),
    Case(
        "stderr_flood_is_harmless",
        "import sys\nfor _ in range(5000): sys.stderr.write('e' * 10000)\nprint(42)",
        expect={Status.SUCCESS},
    ),
    Case(
        "disk_fill_one_file",
        "f = open('big', 'wb')\nwhile True: f.write(b'x' * 1048576)",
        expect={Status.OUTPUT_LIMIT},
    ),
    Case(
        "disk_fill_many_files",
        code("""
        i = 0
        try:
            while True:
                with open(f"f{i}", "wb") as f:
                    f.write(b"x" * 4_000_000)
                i += 1
        except OSError as e:
            print("stopped:", e.errno)
    """),
        test=ANY,
        expect={Status.WRONG_ANSWER},
    ),
    Case(
        "fd_exhaustion",
        code("""
        fs = []
        try:
            while True:
                fs.append(open("/dev/null"))
        except OSError:
            print(len(fs))
    """),
        test=ANY,
        expect={Status.WRONG_ANSWER},
        check=lambda r, d: _assert(printed_number(d) < 64, r),
    ),
    Case(
        "segfault_via_ctypes",
        "import ctypes\nctypes.string_at(0)",
        expect={Status.RUNTIME_ERROR},
        check=lambda r, d: _assert("SIGSEGV" in d, r),
    ),
    Case(
        "deep_recursion",
        "def f(n): return f(n + 1)\nf(0)",
        expect={Status.RUNTIME_ERROR},
        check=lambda r, d: _assert("RecursionError" in d, r),
    ),
    Case(
        "unbounded_recursion_limit",
        "import sys\nsys.setrecursionlimit(10**8)\ndef f(n): return f(n + 1) + 1\nf(0)",
        expect={Status.RUNTIME_ERROR, Status.MEMORY_LIMIT, Status.TIMEOUT},
    ),
    Case(
        "invalid_utf8_output",
        "import sys\nsys.stdout.buffer.write(b'4\\xff\\xfe2\\n')",
        expect={Status.WRONG_ANSWER},
        check=lambda r, d: _assert("UTF-8" in d, r),
    ),
    # --- network ---------------------------------------------------------------------------
    Case(
        "tcp_to_host_loopback",
        code("""
        import socket, sys
        port = int(sys.stdin.read())
        s = socket.create_connection(("127.0.0.1", port), timeout=1)
        s.sendall(b"escaped")
        print("connected")
    """),
        test=None,
        expect={Status.RUNTIME_ERROR},
        check=no_output_containing("connected"),
    ),
    Case(
        "udp_egress",
        code("""
        import socket
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"x", ("8.8.8.8", 53))
        print("sent")
    """),
        test=ANY,
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "ipv6_egress",
        "import socket\nsocket.socket(socket.AF_INET6, socket.SOCK_STREAM).connect(('::1', 22))",
        test=ANY,
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "dns_lookup",
        "import socket\nprint(socket.getaddrinfo('pypi.org', 443))",
        test=ANY,
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "raw_and_netlink_sockets",
        code("""
        import socket
        for family, kind in ((socket.AF_PACKET, socket.SOCK_RAW), (socket.AF_NETLINK, socket.SOCK_RAW),
                             (socket.AF_INET, socket.SOCK_RAW)):
            try:
                socket.socket(family, kind)
                print("opened", family)
            except OSError:
                pass
    """),
        test=ANY,
        expect={Status.WRONG_ANSWER},
        check=no_output_containing("opened"),
    ),
    Case(
        "unix_socket_to_host_path",
        f"import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect('{UNIX_SOCKET}')\nprint('connected')",
        test=ANY,
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "abstract_unix_socket_to_host",
        f"import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({ABSTRACT_SOCKET!r})\nprint('connected')",
        test=ANY,
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "docker_and_system_sockets",
        code("""
        import os
        for path in ("/var/run/docker.sock", "/run/docker.sock", "/run/systemd/private", "/var/run/dbus/system_bus_socket"):
            print(path, os.path.exists(path))
    """),
        test=ANY,
        expect={Status.WRONG_ANSWER},
        check=no_output_containing("True"),
    ),
    # --- secrets and the file system -------------------------------------------------------
    Case(
        "read_etc_passwd",
        "print(open('/etc/passwd').read())",
        test=ANY,
        expect={Status.WRONG_ANSWER},
        check=no_output_containing("daemon:", "/root:/bin/bash", "_apt"),
    ),
    Case(
        "read_etc_shadow",
        "print(open('/etc/shadow').read())",
        test=ANY,
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "read_host_environment",
        "import os\nprint(dict(os.environ))",
        test=ANY,
        expect={Status.WRONG_ANSWER},
        check=no_output_containing(HOST_SECRET, "PYTHONPATH", "HOME=/root"),
    ),
    Case(
        "read_parent_environ_via_proc",
        code("""
        import os
        for pid in ("1", str(os.getppid())):
            try:
                print(open(f"/proc/{pid}/environ").read())
            except OSError as e:
                print("denied", pid)
    """),
        test=ANY,
        expect={Status.WRONG_ANSWER},
        check=no_output_containing(HOST_SECRET, "PATH="),
    ),
    Case(
        "other_processes_invisible",
        code("""
        import os
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
        print(pids == [str(os.getpid())] or pids)
    """),
        test=StdioTest(id="t", input="", output="True\n"),
        expect={Status.SUCCESS},
    ),
    Case(
        "read_host_files",
        code(f"""
        import os
        for path in ("{HOST_FILE}", "/root/.bashrc", "/root/.ssh", "/work", "/home", "/etc/hostname.host"):
            print(path, os.path.exists(path))
    """),
        test=ANY,
        expect={Status.WRONG_ANSWER},
        check=no_output_containing("True"),
    ),
    Case(
        "write_outside_scratch",
        code(f"""
        import os
        ok = []
        for path in {[str(p) for p in ESCAPE_FILES] + ["/usr/escape", "/etc/escape", "/escape"]!r}:
            try:
                with open(path, "w") as f:
                    f.write("escaped")
                ok.append(path)
            except OSError:
                pass
        print(ok)
    """),
        test=ANY,
        expect={Status.WRONG_ANSWER},
    ),
    Case(
        "runs_unprivileged",
        "import os\nprint(os.getuid() != 0 and os.geteuid() != 0 and os.getgroups() == [])",
        test=StdioTest(id="t", input="", output="True\n"),
        expect={Status.SUCCESS},
    ),
    Case(
        "escape_syscalls_refused",
        code("""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        # unshare(CLONE_NEWUSER), ptrace(PTRACE_TRACEME), mount, chroot
        results = [libc.unshare(0x10000000), libc.ptrace(0, 0, 0, 0),
                   libc.mount(b"none", b"/tmp", b"tmpfs", 0, None), libc.chroot(b"/tmp")]
        print(results)
    """),
        test=StdioTest(id="t", input="", output="[-1, -1, -1, -1]\n"),
        expect={Status.SUCCESS},
    ),
    # --- cheating the judge ----------------------------------------------------------------
    Case(
        "patch_timers_to_look_fast",
        code("""
        import time
        end = time.process_time() + 0.4
        while time.process_time() < end:
            pass
        time.time = time.perf_counter = time.process_time = time.monotonic = lambda: 0.0
        print(42)
    """),
        expect={Status.SUCCESS},
        check=lambda r, d: _assert(r.cpu_s >= 0.35, r),
    ),
    Case(
        "cache_across_repeats",
        code("""
        import os, time
        marker = "/tmp/cache"  # /tmp itself is read-only: the write below fails
        if not os.path.exists("/dev/shm/cache") and not os.path.exists(marker):
            end = time.process_time() + 0.2
            while time.process_time() < end:
                pass
        for path in (marker, "/dev/shm/cache", os.path.expanduser("~/cache")):
            try:
                open(path, "w").write("1")
            except OSError:
                pass
        print(42)
    """),
        limits=Limits(timeout_s=5),
        options=ExecutionOptions(repeats=3),
        expect={Status.SUCCESS},
        check=lambda r, d: _assert(min(t.cpu_s for t in r.repeats) >= 0.15, r),
    ),
    Case(
        "sysv_shared_memory_cache",
        code("""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        print(libc.shmget(0x4242, 4096, 0o1666 | 0o1000))
    """),
        test=StdioTest(id="t", input="", output="-1\n"),
        expect={Status.SUCCESS},
    ),
    Case(
        "print_fake_verdict_and_close_stdout",
        code("""
        import sys, os
        print("ACCEPTED success PASSED 42")
        sys.stdout.flush()
        os.close(1)
        os.close(3)
    """),
        expect={Status.WRONG_ANSWER},
    ),
    Case(
        "always_equal_return_object",
        code("""
        class Anything:
            def __eq__(self, other): return True
            def __ne__(self, other): return False
        def solve(x): return Anything()
    """),
        test=CallTest(id="c", fn_name="solve", args=[1], expected=2),
        expect={Status.WRONG_ANSWER},
    ),
    Case(
        "rigged_int_subclass",
        code("""
        class Liar(int):
            def __eq__(self, other): return True
            def __repr__(self): return "2"
        def solve(x): return Liar(7)
    """),
        test=CallTest(id="c", fn_name="solve", args=[1], expected=2),
        expect={Status.WRONG_ANSWER},
    ),
    Case(
        "write_fake_result_channel",
        code("""
        import os, json
        os.write(3, json.dumps({"passed": True}).encode())
        def solve(x): raise SystemExit(0)
    """),
        test=CallTest(id="c", fn_name="solve", args=[1], expected=2),
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "system_exit_before_asserts",
        "import sys\nsys.exit(0)\ndef inc(x): return x",
        test=checks_inc_returns(2),
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "os_exit_inside_candidate",
        "import os\ndef inc(x): os._exit(0)",
        test=checks_inc_returns(2),
        expect={Status.RUNTIME_ERROR},
    ),
    Case(
        "always_equal_in_assert_test",
        "class E:\n    def __eq__(s, o): return True\ndef inc(x): return E()",
        test=checks_inc_returns(2),
        expect={Status.RUNTIME_ERROR, Status.WRONG_ANSWER},
    ),
    Case(
        "read_expected_via_frames_and_gc",
        code("""
        import gc, sys
        def inc(x):
            frame = sys._getframe()
            while frame:
                for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
                    if isinstance(value, dict) and "test_code" in value:
                        return value["test_code"]
                frame = frame.f_back
            for obj in gc.get_objects():
                if isinstance(obj, str) and "SECRET-" in obj:
                    return obj[obj.index("SECRET-"):][:11]
            return "nothing"
    """),
        test=checks_inc_returns("SECRET-4242"),
        expect={Status.WRONG_ANSWER},
        check=no_output_containing("SECRET-4242"),
    ),
    Case(
        "read_expected_via_raw_memory",
        code("""
        import ctypes, re
        def inc(x):
            found = []
            for line in open("/proc/self/maps"):
                parts = line.split()
                if not parts[1].startswith("rw") or (len(parts) > 5 and parts[5] != "[heap]"):
                    continue
                lo, hi = (int(v, 16) for v in parts[0].split("-"))
                found += re.findall(rb"SECRET-[0-9]+", ctypes.string_at(lo, hi - lo))
            return found[0].decode() if found else "none"
    """),
        test=checks_inc_returns("SECRET-9191"),
        expect={Status.WRONG_ANSWER},
        check=no_output_containing("SECRET-9191"),
    ),
    Case(
        "read_checker_memory_via_proc",
        code("""
        import os
        def inc(x):
            for pid in os.listdir("/proc"):
                if pid.isdigit() and int(pid) != os.getpid():
                    try:
                        return open(f"/proc/{pid}/mem", "rb").read(1).hex()
                    except OSError:
                        pass
            return "none"
    """),
        test=checks_inc_returns("none-x"),
        expect={Status.WRONG_ANSWER},
    ),
]

BENIGN = Case(
    "benign",
    "print(int(input()) + 1)",
    expect={Status.SUCCESS},
    check=lambda r, d: _assert(r.cpu_s < 0.5, r),
)


def printed_number(detail: str) -> int:
    """The number a program printed, read back from the wrong-answer detail."""
    return int(re.search(r"got '(\d+)'", detail).group(1))


def _assert(condition: bool, result: TestResult) -> None:
    assert condition, result


@pytest.fixture(scope="module")
def host_services():
    """A TCP server and unix sockets on the host that nothing in the sandbox may reach."""
    os.environ["EXECRL_TEST_SECRET"] = HOST_SECRET
    HOST_FILE.write_text(HOST_SECRET)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    tcp.settimeout(0.2)
    unix_path = socket.socket(socket.AF_UNIX)
    unix_path.bind(str(UNIX_SOCKET))
    unix_path.listen()
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(ABSTRACT_SOCKET)
    abstract.listen()
    accepted: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = tcp.accept()
                accepted.append(conn.recv(100))
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield tcp.getsockname()[1], accepted
    stop.set()
    thread.join()
    for s in (tcp, unix_path, abstract):
        s.close()
    UNIX_SOCKET.unlink(missing_ok=True)
    HOST_FILE.unlink(missing_ok=True)
    os.environ.pop("EXECRL_TEST_SECRET", None)


@pytest.fixture(scope="module")
def verdicts(executor, host_services):
    port, _ = host_services
    requests, labels = [], []
    for case in CASES:
        test = case.test or StdioTest(id="t", input=str(port), output="connected\n")
        for item in (case, BENIGN):  # a benign program runs beside every hostile one
            requests.append(
                ExecutionRequest(
                    program=item.code,
                    tests=[test if item is case else BENIGN_TEST],
                    limits=item.limits,
                    options=item.options,
                    starter_code=item.starter_code,
                )
            )
            labels.append(item.name if item is case else f"benign-after-{case.name}")
    records = list(executor.run_batch(requests, progress=False))
    return dict(zip(labels, records, strict=True))


BENIGN_TEST = ECHO


def test_there_are_at_least_forty_hostile_programs():
    assert len(CASES) >= 40
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_program_is_contained(case, verdicts):
    record = verdicts[case.name]
    (result,) = record.results
    assert result.status in case.expect, f"{case.name}: {result.status} ({result.detail})"
    assert result.status is not Status.INCONCLUSIVE
    if case.check:
        case.check(result, result.detail)
    assert "network-namespace" in record.isolation and "seccomp" in record.isolation


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_benign_neighbour_is_unaffected(case, verdicts):
    (result,) = verdicts[f"benign-after-{case.name}"].results
    assert result.status is Status.SUCCESS, result


def test_nothing_reached_the_host(verdicts, host_services):
    _, accepted = host_services
    assert accepted == []
    for path in ESCAPE_FILES:
        assert not path.exists(), path
    assert not Path(f"/tmp/grandchild-{NONCE}").exists()


def test_no_sandbox_process_survives(verdicts, executor):
    uids = set(executor.uids)
    survivors = subprocess.run(
        ["ps", "-eo", "uid=,pid=,comm="], capture_output=True, text=True
    ).stdout
    leftover = [line for line in survivors.splitlines() if int(line.split()[0]) in uids]
    assert leftover == []


def test_grandchild_did_not_write_later(verdicts):
    import time

    time.sleep(3.5)  # the detached grandchild would have written by now
    assert not Path(f"/tmp/grandchild-{NONCE}").exists()


# -- the same programs on a counted server (timing="instructions", issue 20) ---------------------
# A counted run is a second run of a program that passed natively; here every hostile program
# runs on a counted fork server directly (no native gate), so each containment is tried under
# Valgrind too. Limits are scaled for Valgrind's slowdown, except for programs that never end.

COUNTED_REFUSES = re.compile(
    r"\bos\.fork\b|subprocess|multiprocessing|ctypes|mmap|os\.exec|posix_spawn|memfd"
)
"""Programs that start a process, exec, or reach native code: a counted program may not (it
would hide work from the count), so there they fail where natively they may pass."""


COUNTED_DIFFERS = {"kill_minus_one": {Status.WRONG_ANSWER}}
"""Observed under Valgrind: ``kill(-1, SIGKILL)`` returns success (natively EPERM: no process
of the sandbox's uid but the caller), so the program goes on and prints nothing. The judge
lives on either way; that is what the case is for."""


def counted_expectation(case: Case) -> set[Status]:
    expected = case.expect | COUNTED_DIFFERS.get(case.name, set())
    if COUNTED_REFUSES.search(case.code):
        return expected | {Status.RUNTIME_ERROR}
    return expected


@pytest.fixture(scope="module")
def counted_verdicts(host_services):
    from execrl.sandbox import counting
    from execrl.sandbox.forkserver import ForkServer
    from execrl.sandbox.judge import _wire_test, judge

    if not counting.valgrind_status()[0]:
        pytest.skip(f"Valgrind: {counting.valgrind_status()[1]}")
    port, _ = host_services
    out = {}
    with ForkServer(counting="instructions") as server:
        for case in CASES:
            test = case.test or StdioTest(id="t", input=str(port), output="connected\n")
            spec, stdin, secret = _wire_test(test, case.starter_code)
            endless = case.expect <= {Status.TIMEOUT, Status.RUNTIME_ERROR, Status.MEMORY_LIMIT}
            limits = (
                case.limits
                if Status.TIMEOUT in case.expect and endless
                else (
                    counting.counted_limits(case.limits).model_copy(
                        update={
                            "cpu_time_s": case.limits.cpu_time_s * 10,
                            "wall_time_s": case.limits.wall_limit_s * 10,
                        }
                    )
                )
            )
            raw = server.run(case.code, spec, stdin, limits, 1, secret)
            out[case.name] = (judge(test, raw, Checker(), limits), raw)
        benign_spec, benign_stdin, _ = _wire_test(BENIGN_TEST, None)
        raw = server.run(BENIGN.code, benign_spec, benign_stdin, counting.counted_limits(SHORT))
        out["benign-after-all"] = (judge(BENIGN_TEST, raw, Checker(), SHORT), raw)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_program_is_contained_when_counted(case, counted_verdicts):
    result, _ = counted_verdicts[case.name]
    expected = counted_expectation(case)
    assert result.status in expected, f"{case.name}: {result.status} ({result.detail})"
    if case.check and result.status in case.expect and not COUNTED_REFUSES.search(case.code):
        case.check(result, result.detail)


def test_a_counted_server_still_judges_a_benign_program_after_them(counted_verdicts, host_services):
    result, raw = counted_verdicts["benign-after-all"]
    assert result.status is Status.SUCCESS and "counters" in raw.runs[0]
    _, accepted = host_services
    assert accepted == []
    for path in ESCAPE_FILES:
        assert not path.exists(), path
