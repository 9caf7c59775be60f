"""Issue 33, item 7: every cgroup protection exercised on the unified (v2) hierarchy.

The per-worker cgroups live in the cgroup2 tree: ``execrl-<pid>-<uid>`` carries ``pids.max``
(the whole sandbox), its ``server`` child holds the zygote and its ``test`` child one test's
processes, with ``memory.max`` (the test's limit), ``memory.swap.max`` 0, ``memory.events``
(the kernel's OOM kills) and ``cpu.stat`` (CPU of the whole process tree). Each case below
runs a real program and reads those files from the host side.

These cases need a cgroup2 host with the ``cpu``, ``memory`` and ``pids`` controllers
delegated to this process's cgroup, and root. On a cgroup v1 host (the controllers bound to
v1 hierarchies) they skip with the reason; ``make test-cgroup2`` runs them in a VM that
mounts cgroup2 (tools/cgroup2_vm.py, tests/security/test_cgroup_v2_vm.py).
"""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from execrl.problems import StdioTest
from execrl.sandbox.forkserver import ForkServer, cgroup_name
from execrl.sandbox.isolation import SandboxConfig, probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.records import Status

LIMITS = Limits(cpu_time_s=5.0, memory_mb=128, max_processes=64, max_output_bytes=1 << 20)
MAX_PIDS = 12  # below max_processes: the fork loop meets pids.max before RLIMIT_NPROC
BURN = "def burn(s):\n    t = time.process_time()\n    while time.process_time() - t < s: pass\n"


def v2_missing() -> str | None:
    """Why the v2 cases cannot run here (None when they can)."""
    if os.geteuid() != 0:
        return "needs root (cgroup directories are made by the host process)"
    found = probe()
    pids = found.pids_cgroup
    missing = [
        name
        for name, ok in (
            ("pids", pids is not None and (pids / "cgroup.controllers").exists()),
            ("cpu", found.cpu_cgroup is not None and found.cpu_cgroup.version == 2),
            ("memory", found.memory_cgroup is not None and found.memory_cgroup.version == 2),
        )
        if not ok
    ]
    if not missing:
        return None
    return (
        f"no cgroup2 {'/'.join(missing)} controller delegated here (a cgroup v1 host binds "
        "them to v1 hierarchies, see /proc/self/cgroup): `make test-cgroup2` runs these in a VM"
    )


pytestmark = pytest.mark.skipif(v2_missing() is not None, reason=str(v2_missing()))


@pytest.fixture(scope="module")
def server():
    with ForkServer(SandboxConfig(strict=False, max_pids=MAX_PIDS)) as server:
        yield server


def worker_dir(server: ForkServer) -> Path:
    root = probe().memory_cgroup
    assert root is not None and root.version == 2
    return root.path / cgroup_name(os.getpid(), server.uid)


def read_keyed(path: Path) -> dict[str, int]:
    """A cgroup2 flat-keyed file (``memory.events``, ``pids.events``, ``cpu.stat``)."""
    pairs = (line.split() for line in path.read_text().splitlines() if line.strip())
    return {key: int(value) for key, value in pairs}


def run_raw(server: ForkServer, code: str, limits: Limits = LIMITS) -> dict:
    raw = server.run(textwrap.dedent(code), {"kind": "stdio"}, b"", limits)
    return dict(raw.runs[0], stdout=raw.stdout.decode(), stderr=raw.stderr.decode())


def test_every_cgroup_protection_comes_from_the_unified_tree(server):
    assert {"pids-cgroup", "cpu-cgroup", "memory-cgroup"} <= set(server.protections)
    worker = worker_dir(server)
    assert (worker / "pids.max").read_text().strip() == str(MAX_PIDS)
    assert "memory" in (worker / "cgroup.subtree_control").read_text().split()
    run = run_raw(server, "print(open('/proc/self/cgroup').read(), end='')\n")
    # one line, v2 only: the program ran in the test cgroup of this worker
    lines = run["stdout"].splitlines()
    assert len(lines) == 1 and lines[0].startswith("0::/"), run
    assert lines[0].endswith(f"/{worker.name}/test"), run


def test_the_compiler_starts_under_the_sandbox_pids_max(server):
    """The zygote's compiler (a second sandboxed process) joins ``server`` at its start, as the
    zygote does: on v2 it once stayed in the host's cgroup, outside pids.max."""
    worker = worker_dir(server)
    assert server._compiler is not None
    compiler = psutil.Process(server._compiler.pid)
    deadline = time.monotonic() + 60  # a bound on the compiler's start-up, not a timing
    while True:
        inner = [p.pid for p in compiler.children(recursive=True)]
        joined = [pid for pid in inner if cgroup_of(pid).endswith(f"/{worker.name}/server")]
        if (inner and joined == inner) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert inner and joined == inner, [(pid, cgroup_of(pid)) for pid in inner]


def cgroup_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cgroup").read_text().strip()
    except OSError:
        return ""


def test_memory_max_is_the_limit_during_a_run_and_swap_is_off(server):
    test = worker_dir(server) / "test"
    limits = {mb: LIMITS.model_copy(update={"memory_mb": mb}) for mb in (128, 96)}
    maxima = {}
    for mb, limit in limits.items():
        # the program reads nothing of the host's; the value it ran under stays written
        run = run_raw(server, "print('ran')\n", limit)
        assert run["stdout"] == "ran\n", run
        maxima[mb] = int((test / "memory.max").read_text())
    assert maxima[128] - maxima[96] == 32 << 20, maxima  # exactly the limit's difference
    assert 128 << 20 <= maxima[128] <= (128 + 512) << 20, maxima  # limit + interpreter base
    assert (test / "memory.swap.max").read_text().strip() == "0"


@pytest.mark.parametrize(
    "hog",
    [
        pytest.param(
            # 16 memfds of 8 MiB (each under RLIMIT_FSIZE)
            "fds = [os.memfd_create(f'h{k}') for k in range(16)]\n"
            "def grow(i): os.pwrite(fds[i // 8], b'x' * (1 << 20), (i % 8) << 20)\n",
            id="memfd",
        ),
        pytest.param(  # /dev/shm is a tmpfs of the sandbox's own, not the program's heap
            "fds = [os.open(f'/dev/shm/h{k}', os.O_CREAT | os.O_WRONLY) for k in range(16)]\n"
            "def grow(i): os.pwrite(fds[i // 8], b'x' * (1 << 20), (i % 8) << 20)\n",
            id="tmpfs",
        ),
    ],
)
def test_pages_outside_the_address_space_meet_the_oom_killer(hog):
    """memfd and tmpfs pages escape RLIMIT_AS; the cgroup's ``memory.max`` stops them, and
    the verdict comes from ``memory.events`` ``oom_kill``."""
    limits = LIMITS.model_copy(update={"memory_mb": 48})
    config = SandboxConfig(strict=False, max_pids=MAX_PIDS, shm_mb=160)
    code = f"import os\n{hog}for i in range(128):\n    grow(i)\n    print(i + 1, flush=True)\n"
    code += "print('held')\n"
    with ForkServer(config) as server:
        events = worker_dir(server) / "test" / "memory.events"
        before = read_keyed(events)["oom_kill"]
        run = run_raw(server, code, limits)
        kills = read_keyed(events)["oom_kill"] - before
    assert "held" not in run["stdout"], run
    held_mb = int(run["stdout"].split()[-1]) if run["stdout"].strip() else 0
    assert held_mb <= 48 + 64, run  # the limit plus the interpreter's base
    assert run["signal"] == 9 and run["memory_exceeded"], run
    assert kills >= 1, "the kernel's OOM kill is counted in memory.events"


def test_memory_limit_verdict_through_the_executor():
    hog = "import os\nfds = [os.memfd_create('h') for _ in range(32)]\nfor i in range(256):\n"
    hog += "    os.pwrite(fds[i // 8], b'x' * (1 << 20), (i % 8) << 20)\nprint('held')\n"
    with LocalExecutor(workers=1, config=SandboxConfig(strict=False)) as executor:
        record = executor.run(hog, [StdioTest(id="t", input="", output="held\n")], LIMITS)
    assert record.results[0].status == Status.MEMORY_LIMIT, record.results[0]
    assert {"memory-cgroup", "cpu-cgroup", "pids-cgroup"} <= set(record.isolation)


def test_a_fork_loop_is_refused_at_pids_max(server):
    run = run_raw(
        server,
        """
import errno, os
r, w = os.pipe()
children = 0
try:
    for _ in range(1000):
        if os.fork() == 0:
            os.read(r, 1)  # held until the test ends (its pid namespace is killed)
            os._exit(0)
        children += 1
except OSError as e:
    print(errno.errorcode[e.errno], children)
""",
    )
    code, children = run["stdout"].split()
    assert code == "EAGAIN" and 0 < int(children) < MAX_PIDS, run
    events = read_keyed(worker_dir(server) / "pids.events")
    assert events["max"] >= 1, events  # refused by the cgroup, not by RLIMIT_NPROC


def test_cpu_of_auto_reaped_children_is_counted_through_cpu_stat(server):
    stat = worker_dir(server) / "test" / "cpu.stat"
    before = read_keyed(stat)["usage_usec"]
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
print("done")
""",
    )
    counted = (read_keyed(stat)["usage_usec"] - before) / 1e6
    assert run["stdout"] == "done\n", run
    assert run["cpu_s"] >= 0.7, run  # 2 × 0.4 s of work, none of it in RUSAGE_CHILDREN
    assert counted >= run["cpu_s"] * 0.9, (counted, run)


def test_a_process_tree_is_held_by_the_cpu_limit(server):
    limits = LIMITS.model_copy(update={"cpu_time_s": 1.0, "wall_time_s": 30.0})
    run = run_raw(
        server,
        "import os, signal, time\n"
        + BURN
        + """
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
for _ in range(3):
    if os.fork() == 0:
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        burn(100)
time.sleep(100)
""",
        limits,
    )
    assert run["outcome"] == "timeout" and run["limit_hit"] == "cpu", run
    assert 1.0 <= run["cpu_s"] < 5.0, run
    assert run["wall_s"] < 15, run  # far below the 30 s wall limit


def test_the_cgroups_are_removed_on_close():
    root = probe().memory_cgroup
    assert root is not None
    with ForkServer(SandboxConfig(strict=False, max_pids=MAX_PIDS)) as server:
        worker = root.path / cgroup_name(os.getpid(), server.uid)
        run_raw(server, "import os\nif os.fork() == 0:\n    os.read(os.pipe()[0], 1)\n")
        made = [worker, worker / "server", worker / "test"]
        assert all(p.is_dir() for p in made)
    assert [p for p in made if p.exists()] == []
