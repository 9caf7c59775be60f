"""The host side of one sandboxed fork server: start it, send it tests, read raw results."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from execrl.errors import ExecutionError
from execrl.sandbox import abort as aborts
from execrl.sandbox import counting
from execrl.sandbox.counting import Counters
from execrl.sandbox.isolation import (
    SandboxConfig,
    probe,
    python_paths,
    unshare_command,
    zygote_script,
)
from execrl.sandbox.limits import Limits
from execrl.sandbox.native import sandbox_folders
from execrl.sandbox.zygote import codec, wire

START_TIMEOUT_S = 60.0
REPLY_MARGIN_S = 15.0
UID_LOCK_DIR = "/tmp/execrl-uids"
UID_SLOTS = 64000
"""Sandbox uids are ``uid_base`` … ``uid_base + UID_SLOTS - 1``."""
"""How long past the program's own limits the host waits before declaring the sandbox dead."""


class SandboxUnavailable(ExecutionError):
    """The sandbox cannot be built here with the requested protections."""


class SandboxCrashed(ExecutionError):
    """The fork server died or stopped answering; the execution is inconclusive."""


@dataclass
class RawRun:
    """What the fork server reports for one test: outcomes and times of each repeat."""

    runs: list[dict] = field(default_factory=list)
    stdout: bytes = b""
    stderr: bytes = b""
    result: bytes = b""
    outputs_differ: bool = False
    compile_error: str | None = None
    streams: list[tuple[bytes, bytes, bytes]] = field(default_factory=list)
    """Every repeat's (stdout, stderr, result); ``stdout``/``stderr``/``result`` above are the
    first repeat's."""
    fetched: dict[str, bytes] = field(default_factory=dict)
    """Files read back from the working directory after the first run (a test's ``fetch``)."""
    fetched_sizes: dict[str, int] = field(default_factory=dict)
    """Every matching file's size (-1: past ``fetch_max_bytes``, not read back)."""

    def repeat_views(self) -> list[RawRun]:
        """One RawRun per repeat, each with that repeat's own streams (every repeat is
        judged, not only the first)."""
        streams = self.streams or [(self.stdout, self.stderr, self.result)] * len(self.runs)
        return [
            RawRun([run], out, err, res, self.outputs_differ, None, [(out, err, res)])
            for run, (out, err, res) in zip(self.runs, streams, strict=True)
        ]


class ForkServer:
    """One fork server in fresh namespaces, optionally pinned to a CPU core."""

    def __init__(
        self,
        config: SandboxConfig | None = None,
        *,
        worker: int = 0,
        cpu: int | None = None,
        counting: str | None = None,
    ) -> None:
        self.config = config or SandboxConfig()
        self.worker, self.cpu = worker, cpu
        self.counting = counting
        """``instructions`` or ``cycles_estimate``: this server runs under Valgrind and every
        run reports the program's counters (``execrl.sandbox.counting``); None: native."""
        self.harness: dict[str, Counters] = {}  # (counted) what an empty program counts, by kind
        self.probe = probe()
        if self.config.strict and not self.config.allow_network and not self.probe.namespaces:
            raise SandboxUnavailable(
                "this machine cannot isolate the network (no namespaces: "
                + "; ".join(self.probe.notes)
                + "). Run `execrl doctor` for details, or pass SandboxConfig(strict=False) to run "
                "with the protections that are available"
            )
        # A uid of its own per fork server: RLIMIT_NPROC counts per uid, so two executors on
        # one machine (or two test processes) must not share one.
        self._uid_lock: int | None = None
        self.uid = self._allocate_uid()
        self.protections = self.probe.available(self.config)
        self._cgroup: Path | None = None
        self._cgroup_dirs: list[Path] = []
        self._proc: subprocess.Popen | None = None
        self._compiler: subprocess.Popen | None = None
        self._scratch_parent: str | None = None
        self._request_id = 0  # every request carries the next id; its reply must echo it
        self.abort: aborts.Abort | None = None
        """The abort of the request this server works for (set by its pool): once cancelled,
        a run in progress is killed and raises ``Aborted``, and no new run starts."""
        self.start()

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        request_r, self._request_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        log_r, log_w = os.pipe() if self.counting else (None, None)  # Valgrind's log
        # the zygote's channel to its compiler (a second sandboxed process, see zygote.compiler)
        compile_r, compile_w = os.pipe()
        compiled_r, compiled_w = os.pipe()
        self._cgroup = self._make_cgroup()
        zconfig = {
            "request_fd": request_r,
            "reply_fd": reply_w,
            "compiler_fds": [compile_w, compiled_r],
            "uid": self.uid,
            "gid": self.uid,
            "drop_privileges": self.config.drop_privileges,
            "seccomp": self.config.seccomp,
            "fs_isolation": self.probe.namespaces,
            "own_network": self.probe.namespaces and not self.config.allow_network,
            "scratch": None if self.probe.namespaces else self._host_scratch(),
            "scratch_mb": self.config.scratch_mb,
            "scratch_files": self.config.scratch_files,
            "shm_mb": self.config.shm_mb,
            "readonly_paths": [
                *python_paths(),
                *sandbox_folders(),
                *self.config.readonly_paths,
                *self.config.extra_site_paths,
            ],
            "site_paths": list(self.config.extra_site_paths),
            "preimport": list(self.config.preimport),
            # os.closerange calls close_range(2) only in builds that have it; otherwise it
            # closes descriptor by descriptor up to its bound, so the zygote uses it only then
            "closerange_syscall": bool(sysconfig.get_config_var("HAVE_CLOSE_RANGE")),
            "cgroup_procs": str(self._cgroup / "cgroup.procs") if self._cgroup else None,
            "test_cgroup": self._make_test_cgroups(),
            "counting": self.counting,
            "count_log_fd": log_r,
        }
        compiler_config = dict(
            zconfig,
            role="compiler",
            request_fd=compile_r,
            reply_fd=compiled_w,
            compiler_fds=None,
            test_cgroup=None,
            preimport=[],
            counting=None,
            count_log_fd=None,
        )
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
        try:
            self._compiler = self._spawn(compiler_config, (compile_r, compiled_w))
            zygote_fds = (request_r, reply_w, compile_w, compiled_r)
            if log_r is None:
                self._proc = self._spawn(zconfig, zygote_fds)
            else:
                self._proc = self._spawn_counted(zconfig, log_w)
        finally:
            for fd in (request_r, reply_w, compile_r, compile_w, compiled_r, compiled_w):
                os.close(fd)
            for fd in (log_r, log_w):
                if fd is not None:
                    os.close(fd)
        try:
            ready, _ = self._read_reply(START_TIMEOUT_S)
        except SandboxCrashed as exc:
            raise SandboxUnavailable(f"the sandbox did not start: {exc}") from exc
        if not ready.get("ok"):
            self.close()
            raise SandboxUnavailable(ready.get("error", "the sandbox did not start"))
        if self.counting:
            self._measure_harness()

    def _spawn_counted(self, config: dict, count_log: int) -> subprocess.Popen:
        """The counted zygote: its configuration as ``fixed_width_json``, its working
        directory ``/``, and its descriptors sent over its stdin, so the kernel
        numbers them from the lowest free one, the same on every start. Started with the
        host's numbers (a service may have hundreds of sockets open), a descriptor over 256 is
        an int object the interpreter allocates, not a cached one, and the heap every program
        starts in is laid out another way."""
        # (in the order zygote.main.receive_fds unpacks them; 0 marks where each one goes)
        fds = [config["request_fd"], config["reply_fd"], *config["compiler_fds"]]
        fds.append(config["count_log_fd"])
        config = dict(config, request_fd=0, reply_fd=0, compiler_fds=[0, 0], count_log_fd=0)
        ours, theirs = socket.socketpair()
        with ours, theirs:
            proc = self._spawn(dict(config, fds_on_stdin=True), (count_log,), count_log, theirs)
            socket.send_fds(ours, [b"fds"], fds)
        return proc

    def _spawn(
        self,
        config: dict,
        fds: tuple[int, ...],
        count_log: int | None = None,
        stdin: socket.socket | None = None,
    ) -> subprocess.Popen:
        """One sandboxed process running ``zygote/launch.py`` with ``config`` (the zygote or
        its compiler), on this server's core; under Valgrind (logging to ``count_log``) when it is
        a counted zygote. A counted interpreter has a fixed hash seed, which ``-I`` would
        ignore (it implies ``-E``): it runs with ``-s -P`` instead, in the same bare
        environment."""
        # LD_BIND_NOW: every symbol bound at start, once, not by each child on its first call
        # of a libc or libpython function (~10 page faults and ~20 lookups per child). The
        # zygote removes it from the environment programs see.
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LD_BIND_NOW": "1"}
        python = [sys.executable, "-I", "-S"]
        if count_log is not None:
            env["PYTHONHASHSEED"] = counting.HASH_SEED
            env["PYTHONMALLOC"] = "malloc"
            env["GLIBC_TUNABLES"] = counting.MALLOC_TUNABLES
            python = [
                *counting.fixed_layout_prefix(),
                *counting.valgrind_command(self.counting, count_log),
                sys.executable,
                "-s",
                "-P",
                "-S",
            ]
        argv = [
            *unshare_command(self.probe, self.config),
            *python,
            zygote_script(),
            json.dumps(config) if count_log is None else counting.fixed_width_json(config),
        ]
        if self.cpu is not None and shutil.which("taskset"):
            argv = ["taskset", "-c", str(self.cpu), *argv]
        return subprocess.Popen(
            argv,
            pass_fds=fds,
            stdin=subprocess.DEVNULL if stdin is None else stdin,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            start_new_session=True,
            env=env,
            cwd="/" if count_log is not None else None,  # (the interpreter keeps the path)
        )

    def _warm_up_counted_loop(self) -> None:
        """Send the counted zygote pings until its own loop (wait, fork, reap) is warm: the
        interpreter specialises that code over its first runs, and only then does a request
        start from the same state every time (so the harness is measured in that state)."""
        for _ in range(counting.WARM_UP_REQUESTS):
            self._request_id += 1
            try:
                wire.write_message(self._request_w, {"op": "ping", "id": self._request_id})
                self._read_reply(START_TIMEOUT_S, self._request_id)
            except (OSError, SandboxCrashed) as exc:
                self.close()
                raise SandboxUnavailable(f"the counted fork server failed: {exc}") from exc

    def _measure_harness(self) -> None:
        """What the harness around a program counts, by test kind: an empty program's count,
        measured once per server and subtracted from every count (an empty program counts 0).
        A kind whose empty run cannot be counted makes the server unusable: said at once."""
        self._warm_up_counted_loop()
        empty = Limits(cpu_time_s=5, memory_mb=256)
        probes = {
            "stdio": ("", {"id": "harness", "kind": "stdio"}, b"", None),
            "call": (
                "def f():\n    pass\n",
                {
                    "id": "harness",
                    "kind": "call",
                    "fn_name": "f",
                    "args": json.dumps(codec.encode_value([])),
                    "prelude": "",
                },
                b"",
                None,
            ),
            "assert": (
                "def f():\n    pass\n",
                {
                    "id": "harness",
                    "kind": "assert",
                    "entry_point": "f",
                    "prelude": "",
                    "checker_prelude": "",
                },
                b"",
                b"assert f() is None\n",  # (one call: its harness part is not the program's)
            ),
        }
        for kind, (code, test, stdin, secret) in probes.items():
            raw = self.run(code, test, stdin, empty, 1, secret, raw_counts=True)
            run = raw.runs[0] if raw.runs else {}
            if "counters" not in run or run["exit_code"] != 0:
                self.close()
                raise SandboxUnavailable(
                    f"Valgrind could not count an empty {kind} program here: "
                    f"{run.get('count_error', raw.compile_error or 'no count')}"
                )
            self.harness[kind] = run["counters"]
        # What each further call of an assert test's candidate costs the harness, once warm
        # (20 calls after 20): the first calls cost more (the interpreter specialises them),
        # so this never takes more than the harness's share.
        counts = []
        for calls in (20, 40):
            code, test, stdin, _ = probes["assert"]
            secret = f"for _ in range({calls}):\n    assert f() is None\n".encode()
            raw = self.run(code, test, stdin, empty, 1, secret, raw_counts=True)
            counts.append(raw.runs[0].get("counters") if raw.runs else None)
        if None in counts:
            self.close()
            raise SandboxUnavailable("Valgrind could not count an assert test of many calls")
        step = counts[1] - counts[0]
        self.harness["assert_request"] = Counters(
            *(max(0, v // 20) for v in step.as_dict().values())
        )

    def _host_scratch(self) -> str:
        """Without a mount namespace the scratch directory lives on the host: a private one
        per server, removed on close."""
        self._scratch_parent = tempfile.mkdtemp(prefix="execrl-scratch-")
        os.chmod(self._scratch_parent, 0o755)
        return os.path.join(self._scratch_parent, "run")

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            self._release()  # (a start that failed half-way)
            return
        with contextlib.suppress(OSError):
            wire.write_message(self._request_w, {"op": "shutdown"})
        for fd in (self._request_w, self._reply_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        compiler, self._compiler = self._compiler, None
        for process in (proc, compiler):  # (the compiler ends when the zygote does)
            if process is None:
                continue
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._stderr.close()
        if self._scratch_parent is not None:
            shutil.rmtree(self._scratch_parent, ignore_errors=True)
            self._scratch_parent = None
        self._release()

    def _release(self) -> None:
        """Remove this server's cgroups and give its uid back."""
        self._cgroup = None
        self._remove_test_cgroups()
        if self._uid_lock is not None:
            os.close(self._uid_lock)  # releases the uid
            self._uid_lock = None

    def restart(self) -> None:
        self.close()
        self.uid = self._allocate_uid()
        self.start()

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests ----------------------------------------------------------------------------
    def run(
        self,
        code: str | bytes,
        test: dict,
        stdin: bytes,
        limits: Limits,
        repeats: int = 1,
        secret: bytes | None = None,
        *,
        raw_counts: bool = False,
        address_space: str = "python",
    ) -> RawRun:
        """Run ``code`` on one test. ``secret`` (an assert test's code) reaches only the trusted
        checker process. Raises SandboxCrashed (and restarts) if the server dies. On a counted
        server every run has ``counters`` (the program's own, the harness's subtracted unless
        ``raw_counts``) or ``count_error`` (why it has none)."""
        abort = self.abort
        aborts.check(abort)
        if self._proc is None:
            self.uid = self._allocate_uid()
            self.start()
        # The zygote gets the wall-clock limit written out (the default rule lives in Limits).
        wire_limits = limits.resolved().model_dump()
        # (zygote.server.address_space_bytes; a native test's spec names its runtime's)
        wire_limits["address_space"] = test.get("address_space", address_space)
        self._request_id += 1
        request_id = self._request_id
        header = {
            "op": "run",
            "id": request_id,
            "test": test,
            "limits": wire_limits,
            "repeats": repeats,
        }
        program = code if isinstance(code, bytes) else code.encode("utf-8", "surrogateescape")
        payloads = [program, stdin]
        if secret is not None:
            header["secret_last"] = True
            payloads.append(secret)
        wait_s = repeats * (limits.wall_limit_s + REPLY_MARGIN_S)
        try:
            wire.write_message(self._request_w, header, *payloads)
            reply, payloads = self._read_reply(wait_s, request_id)
            if not reply.get("ok"):  # its own bookkeeping failed: it stops; never reuse it
                raise SandboxCrashed(str(reply.get("error", "unknown sandbox error")))
        except (OSError, SandboxCrashed) as exc:
            if raw_counts:  # (measuring the harness, while starting: the start fails)
                raise SandboxUnavailable(f"the counted fork server failed: {exc}") from exc
            self.restart()
            aborts.check(abort)  # (killing a counted run's handler stops its zygote)
            raise SandboxCrashed(f"the fork server failed: {exc}") from exc
        aborts.check(abort)  # a run killed by its abort is no verdict
        if "compile_error" in reply:
            return RawRun(compile_error=reply["compile_error"])
        stdout, stderr, result = payloads[:3]
        streams, rest = [(stdout, stderr, result)], iter(payloads[3:])
        for run in reply["runs"][1:]:  # a later repeat's streams travel only if they differ
            own = run.pop("own_streams", False)
            streams.append((next(rest), next(rest), next(rest)) if own else streams[0])
        fetched, sizes = {}, {}
        for name, size in reply.get("fetched", []):  # (after every stream)
            sizes[name] = size
            if size >= 0:
                fetched[name] = bytes(next(rest))
        if self.counting:
            harness = None if raw_counts else self.harness.get(test["kind"])
            if harness is not None and test["kind"] == "assert":
                harness = harness + self.harness["assert_request"].times(
                    max(0, _requests_made(result) - 1)
                )
            for run in reply["runs"]:
                counting.attach_counters(run, harness)
        raw = RawRun(reply["runs"], stdout, stderr, result, reply["outputs_differ"], None, streams)
        raw.fetched, raw.fetched_sizes = fetched, sizes
        return raw

    def _read_reply(
        self, timeout_s: float, request_id: int | None = None
    ) -> tuple[dict, list[bytes]]:
        """The one reply to request ``request_id`` (None: the greeting). A reply to any other
        request means the channel is out of step: SandboxCrashed, and the caller restarts."""
        if not self._wait_for_reply(timeout_s, request_id is not None):
            raise SandboxCrashed(f"no answer within {timeout_s:.0f} s")
        try:
            reply, payloads = wire.read_message(self._reply_r)
        except (EOFError, OSError, ValueError) as exc:
            raise SandboxCrashed(f"{exc}; {self._stderr_tail()}") from exc
        if not isinstance(reply, dict) or reply.get("id") != request_id:
            got = reply.get("id") if isinstance(reply, dict) else None
            raise SandboxCrashed(f"a reply to request {got!r} while waiting for {request_id!r}")
        return reply, payloads

    def _wait_for_reply(self, timeout_s: float, abortable: bool) -> bool:
        """Whether a reply came within ``timeout_s``. Waiting for a run (``abortable``) under
        an abort: once it is cancelled, the running test is killed every ``POLL_S`` until the
        zygote answers (a process forked after one sweep dies in the next)."""
        abort = self.abort if abortable else None
        if abort is None:
            return bool(select.select([self._reply_r], [], [], timeout_s)[0])
        deadline = time.monotonic() + timeout_s
        while True:
            if abort.cancelled:
                self.kill_running()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if select.select([self._reply_r], [], [], min(left, aborts.POLL_S))[0]:
                return True

    def kill_running(self) -> int:
        """SIGKILL every process of the test running now (how many were signalled): the
        zygote's children and everything below them (a counted zygote's children are the
        request handlers: what they fork). Between requests the zygote holds only its spare,
        which it replaces when it finds it dead."""
        proc = self._proc
        if proc is None:
            return 0
        zygote_depth = 1 if self.probe.namespaces else 0  # (under ``unshare --fork``)
        program_depth = 2 if self.counting else 1
        return aborts.kill_descendants(proc.pid, zygote_depth + program_depth)

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no message"

    def _make_cgroup(self) -> Path | None:
        root = self.probe.pids_cgroup
        if root is None:
            return None
        path = root / cgroup_name(os.getpid(), self.uid)
        try:
            path.mkdir(exist_ok=True)
            (path / "pids.max").write_text(str(self.config.max_pids))
        except OSError:
            return None
        self._cgroup_dirs.append(path)  # removed on close, with the accounting cgroups
        unified = [r.path for r in (self.probe.cpu_cgroup, self.probe.memory_cgroup) if r]
        if root in unified and (root / "cgroup.controllers").exists():
            # cgroup2, one tree: this directory is also the accounting cgroups' parent (a v2
            # cgroup holding processes cannot pass controllers on), so the zygote and its
            # compiler start in its ``server`` child, under the pids.max here
            try:
                (path / "server").mkdir(exist_ok=True)
            except OSError:
                return None
            return path / "server"
        return path

    def _allocate_uid(self) -> int:
        """A sandbox uid no other fork server on this machine holds: the first free one from
        ``uid_base`` (starting at a guess from pid and worker), locked with ``flock`` on
        ``/tmp/execrl-uids/<uid>.lock`` until close(). Without a lock directory: the guess."""
        if self._uid_lock is not None:
            return self.uid
        base, span = self.config.uid_base, UID_SLOTS
        start = ((os.getpid() % 1000) * 64 + self.worker % 64) % span
        with contextlib.suppress(OSError):
            os.makedirs(UID_LOCK_DIR, exist_ok=True)
            os.chmod(UID_LOCK_DIR, 0o1777)
        for i in range(span):
            uid = base + (start + i) % span
            try:
                fd = os.open(
                    f"{UID_LOCK_DIR}/{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600
                )
            except OSError:
                break  # no lock directory: fall back to the guess
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self._uid_lock = fd
            return uid
        return base + start

    def _make_test_cgroups(self) -> dict | None:
        """Per-worker cgroups for CPU and memory accounting: ``execrl-<pid>-<uid>/server``
        holds the zygote (and an assert test's checker), ``.../test`` the program's processes
        of one test at a time. None where neither hierarchy is writable (the record then
        lacks cpu-cgroup and memory-cgroup)."""
        spec: dict = {"server_procs": [], "test_procs": [], "cpu": None, "memory": None}
        done: dict[Path, Path] = {}
        roots = (self.probe.cpu_cgroup, self.probe.memory_cgroup)
        _remove_stale_cgroups((*(r.path for r in roots if r), self.probe.pids_cgroup))
        for kind, root in (("cpu", self.probe.cpu_cgroup), ("memory", self.probe.memory_cgroup)):
            if root is None:
                continue
            try:
                worker = done.get(root.path) or self._make_worker_cgroup(root, kind)
            except OSError:
                continue
            done[root.path] = worker
            test = worker / "test"
            if str(test / "cgroup.procs") not in spec["test_procs"]:
                spec["server_procs"].append(str(worker / "server" / "cgroup.procs"))
                spec["test_procs"].append(str(test / "cgroup.procs"))
            if kind == "cpu":
                name = "cpuacct.usage" if root.version == 1 else "cpu.stat"
                spec["cpu"] = {"usage": str(test / name), "version": root.version}
            else:
                v1 = root.version == 1
                memsw = test / "memory.memsw.limit_in_bytes"
                spec["memory"] = {
                    "limit": str(test / ("memory.limit_in_bytes" if v1 else "memory.max")),
                    "memsw": str(memsw) if v1 and memsw.exists() else None,
                    "swap": None if v1 else str(test / "memory.swap.max"),
                    "events": str(test / ("memory.oom_control" if v1 else "memory.events")),
                    "version": root.version,
                }
        found = {"cpu-cgroup": spec["cpu"] is not None, "memory-cgroup": spec["memory"] is not None}
        self.protections = sorted(p for p in self.protections if found.get(p, True))
        return spec if spec["test_procs"] else None

    def _make_worker_cgroup(self, root, kind: str) -> Path:
        worker = root.path / cgroup_name(os.getpid(), self.uid)
        worker.mkdir(exist_ok=True)
        if worker not in self._cgroup_dirs:
            self._cgroup_dirs.append(worker)
        if root.version == 2:
            controllers = (worker / "cgroup.controllers").read_text().split()
            if kind == "memory" or "memory" in controllers:
                (worker / "cgroup.subtree_control").write_text("+memory")
        for name in ("server", "test"):
            (worker / name).mkdir(exist_ok=True)
            self._cgroup_dirs.append(worker / name)
        return worker

    def _remove_test_cgroups(self) -> None:
        """Remove this server's accounting cgroups (children first). A cgroup is busy for a
        moment after its last process died, hence the retries."""
        dirs, self._cgroup_dirs = self._cgroup_dirs, []
        for path in reversed(dirs):
            for attempt in range(50):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01 * (attempt + 1))


def _requests_made(report: bytes) -> int:
    """How many requests an assert test's checker made of the candidate (its report says)."""
    try:
        return int(json.loads(report).get("requests", 1))
    except (ValueError, TypeError, AttributeError):
        return 1


def cgroup_name(pid: int, uid: int) -> str:
    """A fork server's cgroups, ``execrl-<host pid>-<uid>`` (the uid is the server's alone), both
    at a fixed width: the names reach a counted zygote in its configuration, and a start-up that
    parses strings of other lengths leaves its heap in another layout, in which a program's
    count moved by up to 0.2 % from one server to the next."""
    return f"execrl-{pid:07d}-{uid:010d}"


@functools.cache
def _remove_stale_cgroups(roots: tuple[Path | None, ...]) -> None:
    """Once per process: remove cgroups a killed host process left behind (``execrl-<pid>-…``
    whose pid is gone and that hold no process; a live server's zygote is always in its
    ``server`` cgroup, so no live server's cgroups qualify)."""
    for root in roots:
        if root is None:
            continue
        with contextlib.suppress(OSError):
            for path in root.glob("execrl-*-*"):
                pid = path.name.split("-")[1]
                if not pid.isdigit() or _alive(int(pid)):
                    continue
                children = [path / name for name in ("test", "server")]
                if any(_read_procs(p) for p in [*children, path]):
                    continue
                for directory in [*children, path]:
                    with contextlib.suppress(OSError):
                        directory.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _read_procs(cgroup: Path) -> str:
    try:
        return (cgroup / "cgroup.procs").read_text().strip()
    except OSError:
        return ""
