"""What this machine can isolate, and how a sandbox is configured.

execrl uses what Linux offers and degrades explicitly: `probe()` finds out which protections
work here, every ExecutionRecord lists the ones its run had, and `execrl doctor` prints them.
"""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_PREIMPORT = (
    "array",
    "bisect",
    "collections",
    "functools",
    "heapq",
    "itertools",
    "math",
    "operator",
    "re",
    "string",
    "typing",
)
"""Modules the fork server imports once, so programs do not pay for (or time) their import.

Kept small on purpose: every module here is in every forked child's address space, and a
bigger one makes each fork slower (threading alone adds ~0.4 ms per fork). Programs importing
anything else pay its import inside their timed run, as they would outside the sandbox.
``typing`` earns its place: HumanEval and LeetCode-style prompts start with
``from typing import List``, and importing it costs each process ~7 ms (~0.03 ms per fork
once preimported)."""

NAMESPACES = ("net", "pid", "mount", "ipc", "uts")

PROTECTIONS = {
    "network-namespace": "no network: a private network namespace with no interfaces up",
    "pid-namespace": "other processes are invisible; every process of a test is killed at its end",
    "ipc-namespace": "no System V IPC shared with the host",
    "readonly-root": "a minimal read-only root: /usr, Python, synthetic /etc, private /tmp",
    "unprivileged-uid": "programs run as a uid of their own, not root, with no extra groups",
    "seccomp": "escape and introspection syscalls (ptrace, mount, unshare, bpf, SysV IPC, …) "
    "and non-unix sockets refused",
    "rlimits": "memory, processes, file size, open files, stack and CPU limits",
    "pids-cgroup": "a pids cgroup bounds processes and threads of the whole sandbox",
    "cpu-cgroup": "CPU time is counted (and limited) over every process of a test, in a cgroup "
    "of its own (without it: the zygote's RUSAGE_CHILDREN, which misses re-parented children)",
    "memory-cgroup": "a memory cgroup per test bounds all memory of its processes (memfd and "
    "tmpfs included), not only each process's address space",
}


class SandboxConfig(BaseModel):
    """How sandboxes are built. Deny by default; each opt-in is named for the risk it opens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    strict: bool = True
    """Refuse to run when the network cannot be isolated on this machine (see `execrl doctor`).
    Set False to run with whatever protections are available; records say which ones."""
    allow_network: bool = False
    """Keep the host's network (no network namespace). Opens egress to anywhere."""
    seccomp: bool = True
    drop_privileges: bool = True
    """When started as root, run programs as a uid of their own instead of root."""
    uid_base: int = Field(default=61000, ge=1000)
    """Sandbox uids are allocated from ``uid_base`` upwards, one per fork server, each held
    (an ``flock`` on ``/tmp/execrl-uids/<uid>.lock``) while its server lives: no two
    executors on one machine share a uid, so none shares another's process limit."""
    scratch_mb: int = Field(default=64, gt=0)
    """Size of the private /tmp (the only writable place). Full → ENOSPC."""
    shm_mb: int = Field(default=16, gt=0)
    scratch_files: int = Field(default=4096, ge=64)
    """Files and directories the private /tmp (and /dev/shm) may hold (tmpfs ``nr_inodes``).
    Full → ENOSPC, however small the files."""
    max_pids: int = Field(default=64, ge=4)
    """Processes and threads of one whole sandbox (pids cgroup, where delegated)."""
    readonly_paths: tuple[str, ...] = ()
    """Extra host directories made visible, read-only, at the same path inside the sandbox
    (data files, a tool). Visible is not importable: for packages use ``extra_site_paths``."""
    extra_site_paths: tuple[str, ...] = ()
    """Directories of packages programs may import (e.g. ``current_site_packages()``, a
    site-packages with numpy or sortedcontainers): bound read-only like ``readonly_paths``
    and appended to ``sys.path``, after the standard library, in the fork server, so every
    program has them. ``.pth`` files in them are *not* processed (the sandbox runs no site
    module), so editable installs and path hooks do not work; packages with compiled
    extensions do. Opens every package in them to the program (read-only)."""
    preimport: tuple[str, ...] = DEFAULT_PREIMPORT

    @field_validator("extra_site_paths")
    @classmethod
    def _absolute_directories(cls, paths: tuple[str, ...]) -> tuple[str, ...]:
        resolved = []
        for path in paths:
            if not os.path.isdir(path):
                raise ValueError(
                    f"extra site path {path!r} is not a directory: pass a site-packages "
                    "directory (for this interpreter's: execrl.sandbox.isolation."
                    "current_site_packages())"
                )
            resolved.append(os.path.realpath(path))
        return tuple(dict.fromkeys(resolved))


@dataclass(frozen=True)
class CgroupRoot:
    """A writable cgroup directory under which execrl makes its per-worker cgroups."""

    path: Path
    version: int
    """1 (a v1 hierarchy: cpuacct or memory) or 2 (the unified hierarchy)."""


@dataclass(frozen=True)
class IsolationProbe:
    """What works on this machine."""

    is_root: bool
    namespaces: bool
    user_namespace: bool
    seccomp: bool
    pids_cgroup: Path | None
    notes: list[str] = field(default_factory=list)
    cpu_cgroup: CgroupRoot | None = None
    """Where per-test CPU accounting cgroups can be made (v1 cpuacct or v2 cpu.stat)."""
    memory_cgroup: CgroupRoot | None = None
    """Where per-test memory cgroups can be made (v1 memory or v2 with the memory controller)."""

    def available(self, config: SandboxConfig) -> list[str]:
        """The protections a sandbox built with ``config`` will have here."""
        found = ["rlimits"]
        if self.namespaces:
            found += ["pid-namespace", "ipc-namespace", "readonly-root"]
            if not config.allow_network:
                found.append("network-namespace")
        if self.is_root and config.drop_privileges:
            found.append("unprivileged-uid")
        if self.seccomp and config.seccomp:
            found.append("seccomp")
        if self.pids_cgroup is not None:
            found.append("pids-cgroup")
        if self.cpu_cgroup is not None:
            found.append("cpu-cgroup")
        if self.memory_cgroup is not None:
            found.append("memory-cgroup")
        return sorted(found)


def unshare_command(probe: IsolationProbe, config: SandboxConfig) -> list[str]:
    """The prefix that starts the fork server in fresh namespaces (empty when unavailable)."""
    if not probe.namespaces:
        return []
    flags = ["--pid", "--fork", "--kill-child", "--mount", "--ipc", "--uts"]
    if not config.allow_network:
        flags.append("--net")
    if not probe.is_root:
        flags += ["--user", "--map-root-user"]
    return [shutil.which("unshare") or "unshare", *flags, "--"]


@functools.cache
def probe() -> IsolationProbe:
    notes = []
    is_root = os.geteuid() == 0
    unshare = shutil.which("unshare")
    namespaces = user_ns = False
    if unshare is None:
        notes.append("the `unshare` program (util-linux) is missing: no namespaces")
    else:
        base = [unshare, "--pid", "--fork", "--mount", "--ipc", "--uts", "--net"]
        if is_root:
            namespaces = _succeeds([*base, "true"])
        else:
            user_ns = namespaces = _succeeds([*base, "--user", "--map-root-user", "true"])
            notes.append(
                "not root: namespaces come from a user namespace, so programs keep "
                "the caller's uid (no unprivileged-uid protection)"
            )
        if not namespaces:
            notes.append(
                "creating namespaces failed (no privileges, or user namespaces are "
                "disabled): no network, pid or mount isolation"
            )
    seccomp = platform.machine() in ("x86_64", "aarch64") and "Seccomp:" in _read(
        "/proc/self/status"
    )
    if not seccomp:
        notes.append(f"seccomp filters are not supported here ({platform.machine()})")
    cgroup = _pids_cgroup_root() if is_root else None
    cpu = _accounting_root("cpuacct", "cpuacct.usage", "cpu.stat") if is_root else None
    memory = _accounting_root("memory", "memory.limit_in_bytes", "memory.max") if is_root else None
    if cpu is None:
        notes.append(
            "no writable cpuacct (v1) or cgroup2 directory: CPU time is the zygote's "
            "RUSAGE_CHILDREN, which misses children re-parented or auto-reaped (no cpu-cgroup)"
        )
    if memory is None:
        notes.append(
            "no writable memory cgroup: memory is bounded per process by RLIMIT_AS only, "
            "which memfd and tmpfs bypass (no memory-cgroup)"
        )
    return IsolationProbe(is_root, namespaces, user_ns, seccomp, cgroup, notes, cpu, memory)


def _succeeds(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _pids_cgroup_root() -> Path | None:
    """A writable pids cgroup hierarchy (v1 ``pids`` or a v2 mount with the pids controller)."""
    candidates = [Path("/sys/fs/cgroup/pids")]
    v2 = Path("/sys/fs/cgroup")
    if "pids" in _read(str(v2 / "cgroup.controllers")).split():
        candidates.append(v2)
    for root in candidates:
        probe_dir = root / f"execrl-probe-{os.getpid()}"
        try:
            probe_dir.mkdir()
        except OSError:
            continue
        ok = (probe_dir / "pids.max").exists()
        probe_dir.rmdir()
        if ok:
            return root
    return None


def _own_cgroup(controller: str) -> tuple[Path, int] | None:
    """This process's cgroup directory for a v1 ``controller`` (or, with "", the unified one),
    from /proc/self/cgroup and /proc/self/mountinfo."""
    own = None
    for line in _read("/proc/self/cgroup").splitlines():
        _, names, path = line.split(":", 2)
        if (controller and controller in names.split(",")) or (not controller and names == ""):
            own = path
    if own is None:
        return None
    for line in _read("/proc/self/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        fstype, _, options = [*right.split(" "), "", "", ""][:3]
        mountpoint = left.split(" ")[4]
        if controller and fstype == "cgroup" and controller in options.split(","):
            return Path(mountpoint + own.rstrip("/")), 1
        if not controller and fstype == "cgroup2":
            return Path(mountpoint + own.rstrip("/")), 2
    return None


def _accounting_root(controller: str, v1_file: str, v2_file: str) -> CgroupRoot | None:
    """Where per-test cgroups with ``controller`` can be created: this process's own v1
    cgroup of that controller, else its cgroup2 directory (for memory, only where the
    controller can be delegated there). Probed by creating (and removing) a directory."""
    for version, name, wanted in ((1, controller, v1_file), (2, "", v2_file)):
        found = _own_cgroup(name)
        if found is None:
            continue
        root = found[0]
        probe_dir = root / f"execrl-probe-{os.getpid()}"
        try:
            probe_dir.mkdir()
        except OSError:
            continue
        try:
            if version == 2 and controller == "memory":
                ok = _enables_memory(probe_dir)
            else:
                ok = (probe_dir / wanted).exists()
        finally:
            with contextlib.suppress(OSError):
                (probe_dir / "test").rmdir()
            probe_dir.rmdir()
        if ok:
            return CgroupRoot(root, version)
    return None


def _enables_memory(directory: Path) -> bool:
    """Whether a v2 directory can delegate the memory controller to a child."""
    try:
        (directory / "cgroup.subtree_control").write_text("+memory")
        (directory / "test").mkdir()
        return (directory / "test" / "memory.max").exists()
    except OSError:
        return False


def zygote_script() -> str:
    """The zygote's launcher, ``zygote/launch.py``: run as a script (``python -I -S
    launch.py CONFIG``), it loads the package's modules as ``_zygote.*`` (compiled without a
    bytecode cache; a counted zygote has a child of its own compile them) and calls ``main``.
    See ``execrl.sandbox.zygote``."""
    return str(Path(__file__).with_name("zygote") / "launch.py")


def current_site_packages() -> tuple[str, ...]:
    """This interpreter's site-packages (its virtualenv's, inside one): pass it as
    ``SandboxConfig(extra_site_paths=current_site_packages())`` to let programs import what is
    installed here (CLI: ``--site-path``)."""
    paths = sysconfig.get_paths()
    found = (paths["purelib"], paths["platlib"])
    return tuple(dict.fromkeys(os.path.realpath(p) for p in found if os.path.isdir(p)))


def python_paths() -> tuple[str, ...]:
    """The interpreter's own installation, made visible read-only inside the sandbox."""
    return tuple(sorted({sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}))
