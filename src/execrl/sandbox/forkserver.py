"""The host side of one sandboxed fork server: start it, send it tests, read raw results."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from execrl.errors import ExecutionError
from execrl.sandbox import _zygote
from execrl.sandbox.isolation import (
    SandboxConfig,
    probe,
    python_paths,
    unshare_command,
    zygote_script,
)
from execrl.sandbox.limits import Limits

START_TIMEOUT_S = 60.0
REPLY_MARGIN_S = 15.0
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
        self, config: SandboxConfig | None = None, *, worker: int = 0, cpu: int | None = None
    ) -> None:
        self.config = config or SandboxConfig()
        self.worker, self.cpu = worker, cpu
        self.probe = probe()
        if self.config.strict and not self.config.allow_network and not self.probe.namespaces:
            raise SandboxUnavailable(
                "this machine cannot isolate the network (no namespaces: "
                + "; ".join(self.probe.notes)
                + "). Run `execrl doctor` for details, or pass SandboxConfig(strict=False) to run "
                "with the protections that are available"
            )
        # A uid per (host process, worker): RLIMIT_NPROC counts per uid, so two executors on
        # one machine (or two test processes) must not share one.
        self.uid = self.config.uid_base + (os.getpid() % 1000) * 64 + worker % 64
        self.protections = self.probe.available(self.config)
        self._cgroup: Path | None = None
        self._proc: subprocess.Popen | None = None
        self._scratch_parent: str | None = None
        self.start()

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        request_r, self._request_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        self._cgroup = self._make_cgroup()
        zconfig = {
            "request_fd": request_r,
            "reply_fd": reply_w,
            "uid": self.uid,
            "gid": self.uid,
            "drop_privileges": self.config.drop_privileges,
            "seccomp": self.config.seccomp,
            "fs_isolation": self.probe.namespaces,
            "scratch": None if self.probe.namespaces else self._host_scratch(),
            "scratch_mb": self.config.scratch_mb,
            "shm_mb": self.config.shm_mb,
            "readonly_paths": [
                *python_paths(),
                *self.config.readonly_paths,
                *self.config.extra_site_paths,
            ],
            "site_paths": list(self.config.extra_site_paths),
            "preimport": list(self.config.preimport),
            "cgroup_procs": str(self._cgroup / "cgroup.procs") if self._cgroup else None,
        }
        argv = [
            *unshare_command(self.probe, self.config),
            sys.executable,
            "-I",
            "-S",
            zygote_script(),
            json.dumps(zconfig),
        ]
        if self.cpu is not None and shutil.which("taskset"):
            argv = ["taskset", "-c", str(self.cpu), *argv]
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
        try:
            self._proc = subprocess.Popen(
                argv,
                pass_fds=(request_r, reply_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr,
                start_new_session=True,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            )
        finally:
            os.close(request_r)
            os.close(reply_w)
        try:
            ready, _ = self._read_reply(START_TIMEOUT_S)
        except SandboxCrashed as exc:
            raise SandboxUnavailable(f"the sandbox did not start: {exc}") from exc
        if not ready.get("ok"):
            self.close()
            raise SandboxUnavailable(ready.get("error", "the sandbox did not start"))

    def _host_scratch(self) -> str:
        """Without a mount namespace the scratch directory lives on the host: a private one
        per server, removed on close."""
        self._scratch_parent = tempfile.mkdtemp(prefix="execrl-scratch-")
        os.chmod(self._scratch_parent, 0o755)
        return os.path.join(self._scratch_parent, "run")

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            _zygote.write_message(self._request_w, {"op": "shutdown"})
        for fd in (self._request_w, self._reply_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self._stderr.close()
        if self._scratch_parent is not None:
            shutil.rmtree(self._scratch_parent, ignore_errors=True)
            self._scratch_parent = None
        if self._cgroup is not None:
            with contextlib.suppress(OSError):
                self._cgroup.rmdir()

    def restart(self) -> None:
        self.close()
        self.start()

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests ----------------------------------------------------------------------------
    def run(
        self,
        code: str,
        test: dict,
        stdin: bytes,
        limits: Limits,
        repeats: int = 1,
        secret: bytes | None = None,
    ) -> RawRun:
        """Run ``code`` on one test. ``secret`` (an assert test's code) reaches only the trusted
        checker process. Raises SandboxCrashed (and restarts) if the server dies."""
        if self._proc is None:
            self.start()
        # The zygote gets the wall-clock limit written out (the default rule lives in Limits).
        wire_limits = limits.resolved().model_dump()
        header = {"op": "run", "test": test, "limits": wire_limits, "repeats": repeats}
        payloads = [code.encode("utf-8", "surrogateescape"), stdin]
        if secret is not None:
            header["secret_last"] = True
            payloads.append(secret)
        wait_s = repeats * (limits.wall_limit_s + REPLY_MARGIN_S)
        try:
            _zygote.write_message(self._request_w, header, *payloads)
            reply, payloads = self._read_reply(wait_s)
        except (OSError, SandboxCrashed) as exc:
            self.restart()
            raise SandboxCrashed(f"the fork server failed: {exc}") from exc
        if not reply.get("ok"):
            raise SandboxCrashed(reply.get("error", "unknown sandbox error"))
        if "compile_error" in reply:
            return RawRun(compile_error=reply["compile_error"])
        stdout, stderr, result = payloads[:3]
        streams, rest = [(stdout, stderr, result)], iter(payloads[3:])
        for run in reply["runs"][1:]:  # a later repeat's streams travel only if they differ
            own = run.pop("own_streams", False)
            streams.append((next(rest), next(rest), next(rest)) if own else streams[0])
        return RawRun(reply["runs"], stdout, stderr, result, reply["outputs_differ"], None, streams)

    def _read_reply(self, timeout_s: float) -> tuple[dict, list[bytes]]:
        ready, _, _ = select.select([self._reply_r], [], [], timeout_s)
        if not ready:
            raise SandboxCrashed(f"no answer within {timeout_s:.0f} s")
        try:
            return _zygote.read_message(self._reply_r)
        except (EOFError, OSError, ValueError) as exc:
            raise SandboxCrashed(f"{exc}; {self._stderr_tail()}") from exc

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no message"

    def _make_cgroup(self) -> Path | None:
        root = self.probe.pids_cgroup
        if root is None:
            return None
        path = root / f"execrl-{os.getpid()}-{self.worker}"
        try:
            path.mkdir(exist_ok=True)
            (path / "pids.max").write_text(str(self.config.max_pids))
        except OSError:
            return None
        return path
