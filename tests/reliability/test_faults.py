"""Fault tests of the remote path: a faulty network, a server killed mid-batch (with and without
a second server), a fork server killed mid-batch. Every request ends as its own verdict or
``inconclusive``; none is lost, none duplicated (each program prints a token of its own).

CI scale by default; ``EXECRL_FAULTS_SCALE=10`` (or more) multiplies every batch for a full run.
"""

from __future__ import annotations

import functools
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from execrl.sandbox.limits import Limits
from execrl.sandbox.records import ExecutionRecord, Status
from execrl.service.remote import RemoteExecutor
from tests.reliability._proxy import FaultyProxy, own_verdicts, token_requests
from tests.service._server import running_server

SCALE = max(1, int(os.environ.get("EXECRL_FAULTS_SCALE", "1")))
FAST = {"backoff_base_s": 0.02, "backoff_cap_s": 0.3}


def _executions(url: str) -> float:
    for line in httpx.get(f"{url}/metrics", timeout=5).text.splitlines():
        if line.startswith("execrl_executions_total "):
            return float(line.split()[1])
    raise AssertionError("no execrl_executions_total in /metrics")


def _descendants(pid: int) -> Iterator[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return
    for child in map(int, children):
        yield child
        yield from _descendants(child)


def _fork_servers(pid: int) -> list[int]:
    """The sandbox fork servers (zygotes) under a server process."""
    found = []
    for child in _descendants(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"zygote/launch.py" in cmdline:
            found.append(child)
    return found


def _left_behind(pids: list[int], grace_s: float = 5.0) -> list[int]:
    """Those of ``pids`` still alive after ``grace_s``."""
    deadline = time.monotonic() + grace_s
    while (
        alive := [p for p in pids if Path(f"/proc/{p}").exists()]
    ) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _run_and_do(remote: RemoteExecutor, requests, after: int, action) -> list[ExecutionRecord]:
    """``run_batch``, calling ``action()`` once ``after`` records have come back."""
    records = []
    for record in remote.run_batch(requests, progress=False):
        records.append(record)
        if len(records) == after:
            action()
    return records


def test_a_proxy_that_drops_delays_and_cuts_loses_and_duplicates_nothing() -> None:
    count = 40 * SCALE
    requests = token_requests(count)
    with running_server(workers=2) as server:
        before = _executions(server.url)
        with (
            FaultyProxy(server.port, drop=0.15, delay=0.15, cut=0.2, delay_s=0.2, seed=7) as proxy,
            RemoteExecutor(proxy.url, batch_size=2, retries=12, **FAST) as remote,
        ):
            records = list(remote.run_batch(requests, progress=False))
        statuses = own_verdicts(requests, records)
        print(f"proxy: {dict(proxy.actions)}; {dict(statuses)}; {remote.stats}")
        assert statuses["success"] + statuses["inconclusive"] == count
        assert statuses["success"] >= count * 0.9, statuses
        assert min(proxy.actions["drop"], proxy.actions["cut"], proxy.actions["delay"]) >= 1
        assert remote.stats.failures >= 1
        # One server, one key per chunk: a cut stream was replayed, never run again.
        assert _executions(server.url) - before == count


def test_a_server_killed_mid_batch_fails_over_to_the_second() -> None:
    count = 16 * SCALE
    requests = token_requests(count, sleep_s=0.2)
    with running_server(workers=1) as doomed, running_server(workers=1) as survivor:
        sandboxes: list[int] = []

        def kill() -> None:
            sandboxes.extend(_descendants(doomed.pid))
            doomed.process.send_signal(signal.SIGKILL)

        with RemoteExecutor([doomed.url, survivor.url], batch_size=2, **FAST) as remote:
            records = _run_and_do(remote, requests, 3, kill)
            assert remote.stats.marked_down >= 1 and remote.stats.failures >= 1
        assert doomed.process.wait(10) == -signal.SIGKILL
        assert own_verdicts(requests, records) == {"success": count}
        assert sandboxes and _left_behind(sandboxes) == []  # its sandboxes died with it


def test_a_hung_server_is_failed_over_after_its_silence() -> None:
    """SIGSTOP: the server accepts nothing and answers nothing (the hang RL users report);
    the client gives up on it after ``timeout_s`` beyond the requests' limits."""
    count = 8 * SCALE
    requests = [
        r.model_copy(update={"limits": Limits(cpu_time_s=0.3)})
        for r in token_requests(count, sleep_s=0.2)
    ]
    with running_server(workers=1) as hung, running_server(workers=1) as survivor:
        stop = functools.partial(os.kill, hung.pid, signal.SIGSTOP)
        try:
            with RemoteExecutor(
                [hung.url, survivor.url], batch_size=1, timeout_s=1.0, **FAST
            ) as remote:
                started = time.monotonic()
                records = _run_and_do(remote, requests, 2, stop)
                elapsed = time.monotonic() - started
        finally:
            os.kill(hung.pid, signal.SIGCONT)  # so it can drain and exit on SIGTERM
        assert own_verdicts(requests, records) == {"success": count}
        assert remote.stats.failures >= 1 and elapsed < 30, (remote.stats, elapsed)


def test_the_only_server_killed_mid_batch_leaves_the_rest_inconclusive() -> None:
    """The chunks still waiting give up together once the only server has been down for the
    retry budget (not one budget after another)."""
    count, budget_s = 20 * SCALE, 2.0
    requests = token_requests(count, sleep_s=0.2)
    with running_server(workers=1) as only:
        killed_at: list[float] = []

        def kill() -> None:
            killed_at.append(time.monotonic())
            only.process.kill()

        with RemoteExecutor(
            only.url, batch_size=1, retries=2, retry_budget_s=budget_s, **FAST
        ) as remote:
            records = _run_and_do(remote, requests, 2, kill)
            after_kill = time.monotonic() - killed_at[0]
        statuses = own_verdicts(requests, records)
    assert statuses["success"] >= 2 and statuses["inconclusive"] >= 1, statuses
    unknown = [r for r in records if r.inconclusive]
    assert {r.backend for r in unknown} == {"remote"}
    assert all(only.url in r.results[0].detail for r in unknown), unknown[0].results[0].detail
    assert remote.stats.gave_up == statuses["inconclusive"]
    assert after_kill < 3 * budget_s + 2, after_kill  # one chunk at a time would take ~6 budgets


def test_fork_servers_killed_mid_batch_lose_nothing() -> None:
    count = 12 * SCALE
    requests = token_requests(count, sleep_s=0.2)
    with running_server(workers=2) as server:
        killed: list[int] = []

        def kill_fork_servers() -> None:
            for pid in _fork_servers(server.pid):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        with RemoteExecutor(server.url, batch_size=2, **FAST) as remote:
            records = _run_and_do(remote, requests, 2, kill_fork_servers)
            assert killed, "no fork server found under the server process"
            statuses = own_verdicts(requests, records)
            print(f"killed {len(killed)} fork servers: {dict(statuses)}; {remote.stats}")
            assert statuses["success"] >= 2, statuses
            again = token_requests(4)  # the server still runs programs afterwards
            assert own_verdicts(again, list(remote.run_batch(again, progress=False))) == {
                "success": 4
            }
    # (a killed zygote is a zombie until its parent reaps it: under load, not at once)
    assert not _left_behind(killed)
    assert all(r.results[0].status in (Status.SUCCESS, Status.INCONCLUSIVE) for r in records)
