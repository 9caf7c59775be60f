"""A real, small Ray cluster on 127.0.0.1 for tests: a head node and a second node, two raylet
processes on this machine, started with ``ray start --block`` and stopped by the test that
started them.

Each node is one ``ray start --block`` process in its own session; stopping the cluster sends
it SIGTERM (Ray's own shutdown hook stops that node's processes), then SIGKILLs by pid whatever
of the processes it started is still there, so nothing is left behind and nothing another user
of this machine started (another Ray cluster) is touched: ``ray stop`` would stop them all.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
OBJECT_STORE_BYTES = 100 * 1024 * 1024
"""Per node: the smallest store Ray accepts comfortably; the records are small."""
START_TIMEOUT_S = 60.0
QUIET_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_DEDUP_LOGS": "0", "RAY_AUTH_MODE": "disabled"}
"""No usage stats; no token auth (``ray start`` turns it on by itself when ``~/.ray/auth_token``
exists, while a driver without ``RAY_AUTH_MODE=token`` sends no token: nothing could connect)."""


_GIVEN: set[int] = set()
"""Ports this process has handed out: the kernel may offer a just-closed port again, and two
of one node's components on one port make ``ray start`` exit (seen once in the suite)."""


def free_port() -> int:
    """A free port on 127.0.0.1 that this process has not handed out before."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _GIVEN:
            _GIVEN.add(port)
            return port


@dataclass
class LocalRayCluster:
    """A running cluster: its GCS ``address`` and one ``ray start --block`` process per node."""

    address: str
    temp_dir: Path
    nodes: list[subprocess.Popen] = field(default_factory=list)
    started: set[int] = field(default_factory=set)
    """Every process below the nodes when ``stop`` began (Ray's daemons, workers, actors and
    their sandboxes' fork servers)."""

    def stop(self) -> None:
        """Stop every node and every process they started; remove the temp dir."""
        self.started = {pid for node in self.nodes for pid in _descendants(node.pid)}
        for node in reversed(self.nodes):  # the second node first, the head last
            _terminate(node)
        for pid in self.started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    def leftover_pids(self, timeout_s: float = 10.0) -> list[int]:
        """Processes of this cluster still running ``timeout_s`` after ``stop`` (none): those
        it had started, and any whose command line names its temp dir."""
        deadline = time.monotonic() + timeout_s
        while (left := self._running()) and time.monotonic() < deadline:
            time.sleep(0.2)
        return left

    def _running(self) -> list[int]:
        mine = {pid for pid in _all_pids() if str(self.temp_dir) in _cmdline(pid)}
        return sorted(pid for pid in self.started | mine if _alive(pid))


def start_cluster(nodes: int = 2, cpus_per_node: int = 1) -> LocalRayCluster:
    """A head and ``nodes - 1`` more node processes on 127.0.0.1, ready to connect to."""
    temp_dir = Path(tempfile.mkdtemp(prefix="execrl-ray-", dir="/tmp"))
    port = free_port()
    cluster = LocalRayCluster(address=f"127.0.0.1:{port}", temp_dir=temp_dir)
    try:
        cluster.nodes.append(_start_node(cluster, cpus_per_node, head_port=port))
        for _ in range(nodes - 1):  # they wait for the head's GCS themselves
            cluster.nodes.append(_start_node(cluster, cpus_per_node))
        _wait_for_nodes(cluster, nodes)
    except BaseException:
        cluster.stop()
        raise
    return cluster


@contextlib.contextmanager
def ray_cluster(nodes: int = 2, cpus_per_node: int = 1) -> Iterator[LocalRayCluster]:
    cluster = start_cluster(nodes, cpus_per_node)
    try:
        yield cluster
    finally:
        cluster.stop()


def _start_node(
    cluster: LocalRayCluster, cpus: int, head_port: int | None = None
) -> subprocess.Popen:
    """One ``ray start --block`` process; its own ports so it collides with no other node."""
    args = [
        RAY, "start", "--block", "--disable-usage-stats",
        "--node-ip-address", "127.0.0.1",
        "--num-cpus", str(cpus), "--num-gpus", "0",
        "--object-store-memory", str(OBJECT_STORE_BYTES),
        "--dashboard-agent-listen-port", str(free_port()), "--dashboard-port", str(free_port()),
        "--metrics-export-port", str(free_port()),
        "--runtime-env-agent-port", str(free_port()),
    ]  # fmt: skip
    if head_port is not None:
        args += ["--head", "--port", str(head_port), "--include-dashboard", "false"]
        args += ["--temp-dir", str(cluster.temp_dir)]
    else:
        args += ["--address", cluster.address]
    log = open(cluster.temp_dir / f"node-{len(cluster.nodes)}.log", "wb")  # noqa: SIM115
    return subprocess.Popen(
        args,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **QUIET_ENV},
        start_new_session=True,
    )


def _wait_for_nodes(cluster: LocalRayCluster, count: int) -> None:
    """Block until the cluster has ``count`` alive nodes (a node process that exited is a
    RuntimeError quoting its log). A driver in a subprocess asks the GCS, so this process
    does not connect to Ray (and Ray's token auth, when on, is handled by Ray itself)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        _raise_if_exited(cluster)
        if _alive_nodes(cluster.address, count, deadline - time.monotonic()) >= count:
            return
        time.sleep(0.5)
    _raise_if_exited(cluster)
    raise RuntimeError(f"the Ray cluster at {cluster.address} has not {count} nodes after 60 s")


def _raise_if_exited(cluster: LocalRayCluster) -> None:
    for i, node in enumerate(cluster.nodes):
        if node.poll() is not None:
            log = (cluster.temp_dir / f"node-{i}.log").read_text(errors="replace")
            raise RuntimeError(f"ray node {i} exited {node.returncode}:\n{log[-3000:]}")


def _alive_nodes(address: str, count: int, timeout_s: float) -> int:
    """How many alive nodes the cluster at ``address`` has, once it has ``count`` or after
    ``timeout_s`` (0 while its GCS is not up)."""
    script = (
        "import sys, time, logging, ray\n"
        f"ray.init(address={address!r}, logging_level=logging.ERROR, log_to_driver=False)\n"
        f"end = time.monotonic() + {max(1.0, timeout_s - 5):.1f}\n"
        "while (n := sum(x['Alive'] for x in ray.nodes())) < "
        f"{count} and time.monotonic() < end:\n"
        "    time.sleep(0.3)\n"
        "print(n)\n"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=max(5.0, timeout_s),
            env={**os.environ, **QUIET_ENV},
        )
        return int(out.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return 0


def _terminate(node: subprocess.Popen) -> None:
    if node.poll() is None:
        node.send_signal(signal.SIGTERM)
        try:
            node.wait(timeout=20)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait()


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _all_pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _descendants(root: int) -> set[int]:
    """Every process below ``root`` now (children, grandchildren, ...)."""
    children: dict[int, list[int]] = {}
    for pid in _all_pids():
        parent = _parent(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found, stack = set(), [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.add(child)
            stack.append(child)
    return found
