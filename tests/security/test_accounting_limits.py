# ruff: noqa: E501  (hostile programs are kept verbatim, one per case)
"""Issue 16, items 4 and 5: every CPU second of a test is charged, and the kernel's limits hold.

Each case asserts one containment: CPU used by processes the program hides from
``RUSAGE_CHILDREN`` (auto-reaped, re-parented to a subreaper, an assert test's helper) is
charged and counts against the live CPU limit; ``clone()`` cannot make namespaces and
``clone3`` is ENOSYS; real-time and raised priorities are refused; submounts of bound paths
are read-only; memfd cannot hold more than the memory limit; tmpfs inodes are bounded; and
two executors never share a uid. Cases that need a cgroup or root are skipped (with the
reason) where this machine lacks them.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from execrl.problems import AssertTest, StdioTest
from execrl.sandbox import forkserver
from execrl.sandbox.forkserver import ForkServer, cgroup_name
from execrl.sandbox.isolation import CgroupRoot, SandboxConfig, probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.records import Status

LIMITS = Limits(cpu_time_s=5.0, memory_mb=128, max_output_bytes=1 << 20)
NEEDS_CPU_CGROUP = pytest.mark.skipif(
    probe().cpu_cgroup is None, reason="no cpu cgroup here: CPU is RUSAGE_CHILDREN (degraded)"
)
NEEDS_MEMORY_CGROUP = pytest.mark.skipif(
    probe().memory_cgroup is None, reason="no memory cgroup here: RLIMIT_AS only (degraded)"
)
NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (mounts, uids)")

BURN = "def burn(s):\n    t = time.process_time()\n    while time.process_time() - t < s: pass\n"


@pytest.fixture(scope="module")
def server():
    with ForkServer(SandboxConfig(strict=False)) as server:
        yield server


@pytest.fixture(scope="module")
def executor():
    with LocalExecutor(workers=1, config=SandboxConfig(strict=False)) as executor:
        yield executor


def run_raw(server: ForkServer, code: str, limits: Limits = LIMITS) -> dict:
    raw = server.run(textwrap.dedent(code), {"kind": "stdio"}, b"", limits)
    return dict(raw.runs[0], stdout=raw.stdout.decode(), stderr=raw.stderr.decode())


# -- item 4: every CPU second charged ----------------------------------------------------------


@NEEDS_CPU_CGROUP
def test_children_auto_reaped_under_sig_ign_are_charged(server):
    run = run_raw(
        server,
        "import os, signal, time\n"
        + BURN
        + """
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children vanish without a wait: no rusage
r, w = os.pipe()
for _ in range(2):
    if os.fork() == 0:
        burn(0.4)
        os.write(w, b"x")
        os._exit(0)
os.read(r, 1); os.read(r, 1)
time.sleep(0.2)
print("done")
""",
    )
    assert run["stdout"] == "done\n", run
    assert run["cpu_s"] >= 0.7, run  # 2 × 0.4 s of work


@NEEDS_CPU_CGROUP
def test_grandchild_reaped_by_a_subreaper_is_charged(server):
    run = run_raw(
        server,
        "import ctypes, os, signal, time\n"
        + BURN
        + """
libc = ctypes.CDLL(None)
libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come to us, not to pid 1
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
r, w = os.pipe()
if os.fork() == 0:
    if os.fork() == 0:
        burn(0.5)
        os.write(w, b"x")
        os._exit(0)
    os._exit(0)  # the grandchild is re-parented to us, and auto-reaped
os.read(r, 1)
time.sleep(0.2)
print("done")
""",
    )
    assert run["stdout"] == "done\n", run
    assert run["cpu_s"] >= 0.45, run


@NEEDS_CPU_CGROUP
def test_helper_process_of_an_assert_test_candidate_is_charged(executor):
    program = textwrap.dedent(
        "import os, time\n"
        + BURN
        + """
r, w = os.pipe()
if os.fork() == 0:  # a helper that does the work and is never reaped by the candidate
    burn(0.5)
    os.write(w, b"3")
    time.sleep(60)
    os._exit(0)

def answer():
    return int(os.read(r, 1))
"""
    )
    test = AssertTest(id="a", entry_point="answer", code="def check(c):\n    assert c() == 3\n")
    record = executor.run(program, [test], LIMITS)
    result = record.results[0]
    assert result.status == Status.SUCCESS, result
    assert result.cpu_s >= 0.45, result
    assert "cpu-cgroup" in record.isolation


@NEEDS_CPU_CGROUP
def test_cpu_limit_counts_hidden_children_while_they_run(server):
    """Two auto-reaped children burn forever while the parent sleeps: the supervisor reads
    the test cgroup's clock, so the run stops at the CPU limit, not at the wall limit."""
    limits = Limits(cpu_time_s=1.0, wall_time_s=20.0, memory_mb=128)
    run = run_raw(
        server,
        "import os, signal, time\n"
        + BURN
        + """
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
for _ in range(2):
    if os.fork() == 0:
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        burn(100)
time.sleep(100)
""",
        limits,
    )
    assert run["outcome"] == "timeout" and run["limit_hit"] == "cpu", run
    assert 1.0 <= run["cpu_s"] < 2.5, run
    assert run["wall_s"] < 10, run


@NEEDS_CPU_CGROUP
def test_spare_set_up_is_not_charged(server):
    run = run_raw(server, "pass\n")
    assert run["outcome"] == "exited" and run["exit_code"] == 0, run
    assert run["cpu_s"] < 0.05, run


@NEEDS_ROOT
def test_cpu_accounting_through_cgroup2_cpu_stat(monkeypatch):
    """The v2 path (``cpu.stat`` ``usage_usec``), on a machine that has a cgroup2 mount."""
    unified = next(
        (
            p
            for p in (Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))
            if (p / "cpu.stat").exists()
        ),
        None,
    )
    if unified is None or not os.access(unified, os.W_OK):
        pytest.skip("no writable cgroup2 directory with cpu.stat")
    v2 = dataclasses.replace(probe(), cpu_cgroup=CgroupRoot(unified, 2), memory_cgroup=None)
    monkeypatch.setattr(forkserver, "probe", lambda: v2)
    with ForkServer(SandboxConfig(strict=False)) as server:
        assert "cpu-cgroup" in server.protections and "memory-cgroup" not in server.protections
        run = run_raw(
            server,
            "import os, signal, time\n"
            + BURN
            + """
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
r, w = os.pipe()
if os.fork() == 0:
    burn(0.4); os.write(w, b"x"); os._exit(0)
os.read(r, 1)
print("done")
""",
        )
        dirs = list(unified.glob(cgroup_name(os.getpid(), server.uid)))
        assert dirs, "the per-worker cgroup lives in the v2 hierarchy"
    assert run["stdout"] == "done\n" and run["cpu_s"] >= 0.35, run
    assert not dirs[0].exists(), "removed on close"


def test_cgroups_are_removed_when_the_executor_closes():
    with LocalExecutor(workers=2, config=SandboxConfig(strict=False)) as executor:
        uids = executor.uids
    roots = [r.path for r in (probe().cpu_cgroup, probe().memory_cgroup) if r is not None]
    roots += [probe().pids_cgroup] if probe().pids_cgroup is not None else []
    left = [p for root in roots for uid in uids for p in root.glob(cgroup_name(os.getpid(), uid))]
    assert left == []


# -- item 5a: no namespaces through clone/clone3 -------------------------------------------


def test_clone_with_namespace_flags_is_refused_and_clone3_is_enosys(server):
    if "seccomp" not in server.protections:
        pytest.skip("no seccomp here")
    run = run_raw(
        server,
        """
import ctypes, os, platform
libc = ctypes.CDLL(None, use_errno=True)
SYS_CLONE = {"x86_64": 56, "aarch64": 220}[platform.machine()]
SIGCHLD = 17
for name, flag in [("NEWUSER", 0x10000000), ("NEWNET", 0x40000000), ("NEWNS", 0x20000),
                   ("NEWPID", 0x20000000), ("NEWIPC", 0x08000000), ("NEWUTS", 0x04000000),
                   ("NEWCGROUP", 0x02000000)]:
    r = libc.syscall(SYS_CLONE, flag | SIGCHLD, 0, 0, 0, 0)
    if r == 0:
        os._exit(0)  # (a child in a new namespace: the filter failed)
    print(name, r, ctypes.get_errno())
r = libc.syscall(435, None, 0)  # clone3
print("clone3", r, ctypes.get_errno())
""",
    )
    lines = run["stdout"].splitlines()
    assert len(lines) == 8, run
    for line in lines[:-1]:
        assert line.endswith(" -1 1"), line  # EPERM
    assert lines[-1] == "clone3 -1 38", run  # ENOSYS


def test_fork_threads_subprocess_and_multiprocessing_still_work(server):
    run = run_raw(
        server,
        """
import multiprocessing, os, subprocess, sys, threading
pid = os.fork()
if pid == 0:
    os._exit(7)
print("fork", os.WEXITSTATUS(os.waitpid(pid, 0)[1]))
out = []
t = threading.Thread(target=lambda: out.append(1)); t.start(); t.join()
print("thread", out)
print("subprocess", subprocess.run(["/bin/sh", "-c", "echo 42"], capture_output=True, text=True).stdout.strip())
ctx = multiprocessing.get_context("fork")
queue = ctx.Queue()
workers = [ctx.Process(target=lambda x=x: queue.put(x * x)) for x in range(4)]
for p in workers: p.start()
for p in workers: p.join()
print("processes", sorted(queue.get() for _ in workers))
""",
        Limits(cpu_time_s=5.0, memory_mb=256, max_output_bytes=1 << 20),
    )
    assert run["stdout"] == "fork 7\nthread [1]\nsubprocess 42\nprocesses [0, 1, 4, 9]\n", run


# -- item 5b: no real-time scheduling, no raised priority ----------------------------------------


@pytest.fixture
def generous_host_limits():
    """The host's own RTPRIO/NICE limits raised (as a root service may have them): the sandbox
    must lower them itself, not inherit the host's."""
    import resource

    saved = {r: resource.getrlimit(r) for r in (resource.RLIMIT_RTPRIO, resource.RLIMIT_NICE)}
    try:  # (needs CAP_SYS_RESOURCE; without it the host's limits stay, and are checked as 0)
        resource.setrlimit(resource.RLIMIT_RTPRIO, (99, 99))
        resource.setrlimit(resource.RLIMIT_NICE, (40, 40))
    except (ValueError, OSError):
        pass
    try:
        with ForkServer(SandboxConfig(strict=False)) as server:
            yield server
    finally:
        for res, value in saved.items():
            resource.setrlimit(res, value)


def test_realtime_scheduling_and_negative_nice_are_refused(generous_host_limits):
    run = run_raw(
        generous_host_limits,
        """
import os, resource
print(resource.getrlimit(resource.RLIMIT_RTPRIO), resource.getrlimit(resource.RLIMIT_NICE))
for name, attempt in [("fifo", lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))),
                      ("rr", lambda: os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1))),
                      ("nice", lambda: os.nice(-1))]:
    try:
        attempt()
        print(name, "allowed")
    except PermissionError:
        print(name, "refused")
""",
    )
    assert run["stdout"] == "(0, 0) (0, 0)\nfifo refused\nrr refused\nnice refused\n", run


# -- item 5c: submounts of bound paths are read-only -------------------------------------------


@NEEDS_ROOT
def test_a_writable_submount_under_a_bound_path_is_read_only():
    if not probe().namespaces:
        pytest.skip("no mount namespace here")
    with tempfile.TemporaryDirectory(prefix="execrl-ro-") as top:
        readonly, site = Path(top, "data"), Path(top, "site")
        mounted = []
        try:
            for base in (readonly, site):
                (base / "inner").mkdir(parents=True)
                subprocess.run(
                    ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(base / "inner")],
                    check=True,
                )
                mounted.append(base / "inner")
                (base / "inner" / "marker").write_text("submount\n")
            config = SandboxConfig(
                strict=False, readonly_paths=(str(readonly),), extra_site_paths=(str(site),)
            )
            with ForkServer(config) as server:
                run = run_raw(
                    server,
                    f"""
import errno
for d in ({str(readonly / "inner")!r}, {str(site / "inner")!r}):
    print(open(d + "/marker").read(), end="")  # the submount itself is visible
for d in ({str(readonly / "inner")!r}, {str(site / "inner")!r}, {str(readonly)!r}):
    try:
        open(d + "/planted", "w").write("x")
        print("written")
    except OSError as e:
        print(errno.errorcode[e.errno])
""",
                )
            assert run["stdout"] == "submount\nsubmount\nEROFS\nEROFS\nEROFS\n", run
            assert not any((p / "planted").exists() for p in mounted)
        finally:
            for path in mounted:
                subprocess.run(["umount", "-l", str(path)], check=False)


# -- item 5d: memory beyond the address space, and inodes -------------------------------------


@NEEDS_MEMORY_CGROUP
def test_memfd_cannot_hold_more_than_the_memory_limit(server, executor):
    hog = """
import os
fds = []
for i in range(20):  # 20 memfds of 16 MiB (each under RLIMIT_FSIZE): 320 MiB outside RLIMIT_AS
    fd = os.memfd_create("hog")
    for j in range(16):
        os.pwrite(fd, b"x" * (1 << 20), j << 20)
    fds.append(fd)
    print((i + 1) * 16, flush=True)
print("held")
"""
    run = run_raw(server, hog)  # memory_mb=128
    assert "held" not in run["stdout"], run
    held_mb = int(run["stdout"].split()[-1]) if run["stdout"].strip() else 0
    assert held_mb <= 128 + 64, run  # the limit plus the interpreter's base
    assert run["signal"] == 9 and run["memory_exceeded"], run
    result = executor.run(hog, [StdioTest(id="t", input="", output="held\n")], LIMITS).results[0]
    assert result.status == Status.MEMORY_LIMIT, result  # judged from the kernel's accounting
    assert "memory-cgroup" in executor.isolation


def test_an_inode_flood_hits_enospc_quickly(server):
    run = run_raw(
        server,
        """
import errno, time
start = time.perf_counter()
try:
    for i in range(10**6):
        open(f"f{i}", "w")
except OSError as e:
    print(errno.errorcode[e.errno], i, round(time.perf_counter() - start, 2))
""",
    )
    if "readonly-root" not in server.protections:
        pytest.skip("no private tmpfs scratch here")
    code, count, seconds = run["stdout"].split()
    assert code == "ENOSPC" and int(count) <= SandboxConfig().scratch_files, run
    assert float(seconds) < 5, run


def test_shared_memory_inodes_are_bounded_too(server):
    if "readonly-root" not in server.protections:
        pytest.skip("no private /dev/shm here")
    run = run_raw(
        server,
        """
import errno
try:
    for i in range(10**6):
        open(f"/dev/shm/f{i}", "w")
except OSError as e:
    print(errno.errorcode[e.errno], i)
""",
    )
    code, count = run["stdout"].split()
    assert code == "ENOSPC" and int(count) <= SandboxConfig().scratch_files, run


# -- item 5e: distinct uids per executor -------------------------------------------------------

HOLD_EXECUTOR = """
import sys
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.isolation import SandboxConfig
with LocalExecutor(workers=2, config=SandboxConfig(strict=False)) as executor:
    print(" ".join(map(str, executor.uids)), flush=True)
    sys.stdin.read()
"""


@NEEDS_ROOT
def test_executors_in_one_process_and_in_two_processes_get_disjoint_uids():
    config = SandboxConfig(strict=False)
    with LocalExecutor(workers=2, config=config) as a, LocalExecutor(workers=2, config=config) as b:
        other = subprocess.Popen(
            [sys.executable, "-c", HOLD_EXECUTOR],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            c = [int(u) for u in other.stdout.readline().split()]
        finally:
            other.stdin.close()
            other.wait(timeout=60)
        uids = [*a.uids, *b.uids, *c]
        assert len(c) == 2 and len(set(uids)) == 6, uids
        run = a.run("import os; print(os.getuid())", [StdioTest(id="t", input="", output="")])
        assert run.results[0].status in (Status.SUCCESS, Status.WRONG_ANSWER)


@NEEDS_CPU_CGROUP
def test_cgroups_of_a_killed_host_process_are_removed_by_the_next_one(server):
    dead = subprocess.Popen(["true"])
    dead.wait()
    root = probe().cpu_cgroup.path
    stale = root / cgroup_name(dead.pid, 1)
    for path in (stale, stale / "server", stale / "test"):
        path.mkdir(exist_ok=True)
    live = list(root.glob(cgroup_name(os.getpid(), server.uid)))
    forkserver._remove_stale_cgroups.__wrapped__((root,))
    assert not stale.exists()
    assert live and all(p.exists() for p in live), "a live server's cgroups stay"
    assert run_raw(server, "print(1)")["stdout"] == "1\n"
