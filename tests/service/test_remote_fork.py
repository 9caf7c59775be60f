"""``RemoteExecutor`` after ``fork`` (data-loader workers fork): a forked child's first call
opens its own event loop and connection pool, and the parent's keep working — the child never
closes or tears them down. Against a real ``execrl serve``; every wait is bounded (a child
that hangs, as one did before, fails the test instead of holding it)."""

from __future__ import annotations

import json
import os
import select
import signal
import time

import pytest

from execrl.problems.models import StdioTest
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status
from execrl.service.remote import RemoteExecutor
from tests.service._server import running_server

CHILD_TIMEOUT_S = 60.0
"""The most a child may take for one tiny program (it takes well under a second)."""


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as running:
        yield running


def _echo(token: str) -> ExecutionRequest:
    """A program that prints ``token``, with the test that expects it."""
    return ExecutionRequest(
        program=f"print({token!r})\n", tests=[StdioTest(id="t", input="", output=f"{token}\n")]
    )


def _status(remote: RemoteExecutor, token: str) -> str:
    return remote.execute(_echo(token)).results[0].status.value


def _read_bounded(fd: int, pid: int) -> bytes:
    """What the child writes to ``fd`` until it closes it; the child killed and the test failed
    when it takes longer than ``CHILD_TIMEOUT_S``."""
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    data = b""
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(0.0, left))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail(f"the forked child did not answer in {CHILD_TIMEOUT_S:g} s")
        chunk = os.read(fd, 65536)
        if not chunk:
            return data
        data += chunk


def test_a_forked_child_uses_its_own_pool_and_the_parents_goes_on(server) -> None:
    with RemoteExecutor(server.url) as remote:
        assert _status(remote, "parent-before") == "success"  # the parent's loop and pool live
        parent_loop = remote._loop.loop
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report, close its own executor, never return into pytest
            code = 1
            try:
                os.close(read_end)
                report = {
                    "statuses": [_status(remote, f"child-{i}") for i in range(3)],
                    "own_loop": remote._loop.loop is not parent_loop,
                    "attempts": remote.stats.attempts,
                }
                remote.close()  # its own loop and pool only
                os.write(write_end, json.dumps(report).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        try:
            child = json.loads(_read_bounded(read_end, pid))
        finally:
            os.close(read_end)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert child == {"statuses": ["success"] * 3, "own_loop": True, "attempts": 3}
        # The child closed its executor and exited: the parent's loop and pool are untouched.
        assert remote._loop.loop is parent_loop and parent_loop.is_running()
        assert _status(remote, "parent-after") == "success"
        assert remote.stats.attempts == 2  # (the child's calls counted in the child)


def test_a_forking_torch_data_loader_runs_programs_in_its_two_workers(server) -> None:
    torch = pytest.importorskip("torch")

    class Programs(torch.utils.data.Dataset):
        def __init__(self, remote: RemoteExecutor, size: int) -> None:
            self.remote, self.size = remote, size

        def __len__(self) -> int:
            return self.size

        def __getitem__(self, index: int) -> tuple[int, str]:
            return os.getpid(), _status(self.remote, f"item-{index}")

    with RemoteExecutor(server.url) as remote:
        assert _status(remote, "before") == "success"
        loader = torch.utils.data.DataLoader(
            Programs(remote, 6),
            batch_size=None,
            num_workers=2,
            multiprocessing_context="fork",
            timeout=CHILD_TIMEOUT_S,  # a worker that hangs is an error, not a stuck test
        )
        items = list(loader)
        assert [status for _, status in items] == [Status.SUCCESS.value] * 6
        workers = {pid for pid, _ in items}
        assert len(workers) == 2 and os.getpid() not in workers
        assert _status(remote, "after") == "success"
