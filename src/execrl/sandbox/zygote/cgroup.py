"""Accounting: the worker's test cgroup (CPU time of a test's whole process tree, its memory
limit and the kernel's OOM kills), and a process's own CPU clock where there is no cgroup."""

from __future__ import annotations

import contextlib
import os
import time


def process_cpu_s(pid: int) -> float:
    """CPU time used so far by another process (its process CPU clock), 0 if unreadable."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)  # MAKE_PROCESS_CPUCLOCK(pid, SCHED)
    except OSError:
        return 0.0


class TestCgroup:
    """The worker's accounting cgroups, held open from before pivot_root. The zygote lives in
    ``server``; a test's processes in ``test`` (a spare is moved there right after its fork,
    an assert test's candidate is forked there), one test at a time. ``test`` counts the CPU
    time of its whole process tree (v1 ``cpuacct.usage``, v2 ``cpu.stat``) — whatever
    reaps or re-parents them — and bounds its memory, memfd and tmpfs pages included."""

    def __init__(self, spec: dict) -> None:
        self.server = [os.open(p, os.O_WRONLY) for p in spec["server_procs"]]
        self.test = [os.open(p, os.O_WRONLY) for p in spec["test_procs"]]
        cpu, memory = spec.get("cpu"), spec.get("memory")
        self.cpu_fd = os.open(cpu["usage"], os.O_RDONLY) if cpu else -1
        self.cpu_v2 = bool(cpu) and cpu["version"] == 2
        self.limit_fd = self.memsw_fd = self.events_fd = -1
        self.memory_v2 = bool(memory) and memory["version"] == 2
        if memory:
            self.limit_fd = os.open(memory["limit"], os.O_WRONLY)
            self.events_fd = os.open(memory["events"], os.O_RDONLY)
            if memory.get("memsw"):
                self.memsw_fd = os.open(memory["memsw"], os.O_WRONLY)
            if memory.get("swap") and os.path.exists(memory["swap"]):
                with open(memory["swap"], "w") as f:
                    f.write("0")  # (v2) no swapping instead of failing
        self.memory_bytes = 1 << 62  # a fresh cgroup is unlimited
        self.oom_kills = self.read_oom_kills()
        self.leave()

    @classmethod
    def open(cls, spec: dict | None) -> TestCgroup | None:
        return cls(spec) if spec else None

    @property
    def counts_cpu(self) -> bool:
        return self.cpu_fd >= 0

    def join(self, pid: int) -> None:
        """Move ``pid`` (a spare that has not got its task yet) into the test cgroup."""
        for fd in self.test:
            os.write(fd, b"%d" % pid)

    def enter(self) -> None:
        """Move the zygote itself into the test cgroup (what it forks now starts there)."""
        for fd in self.test:
            os.write(fd, b"0")

    def leave(self) -> None:
        for fd in self.server:
            os.write(fd, b"0")

    def cpu_s(self) -> float:
        """CPU time (user + system) the test cgroup's processes used so far, alive or dead."""
        data = os.pread(self.cpu_fd, 4096, 0)
        if not self.cpu_v2:
            return int(data) / 1e9
        for line in data.split(b"\n"):
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) / 1e6
        return 0.0

    def limit_memory(self, limit_bytes: int) -> None:
        """The memory limit of the test cgroup (written only when it changes)."""
        if self.limit_fd < 0 or limit_bytes == self.memory_bytes:
            return
        value = b"%d" % limit_bytes
        # v1: memory+swap must stay >= memory, so raising writes it first and lowering last.
        # Which one this is is not taken from memory_bytes: a counted zygote's requests are
        # answered by forks, whose writes its own copy never sees.
        if self.memsw_fd >= 0:
            with contextlib.suppress(OSError):  # (EINVAL when lowering: written again below)
                os.write(self.memsw_fd, value)
        os.write(self.limit_fd, value)
        if self.memsw_fd >= 0:
            os.write(self.memsw_fd, value)
        self.memory_bytes = limit_bytes

    def read_oom_kills(self) -> int:
        if self.events_fd < 0:
            return 0
        for line in os.pread(self.events_fd, 4096, 0).split(b"\n"):
            if line.startswith(b"oom_kill "):
                return int(line.split()[1])
        return 0

    def memory_exceeded(self) -> bool:
        """Whether the kernel killed a process of the test cgroup for memory since the last
        call (v1 ``memory.oom_control``, v2 ``memory.events``: ``oom_kill``)."""
        if self.events_fd < 0:
            return False
        kills = self.read_oom_kills()
        exceeded, self.oom_kills = kills > self.oom_kills, kills
        return exceeded
