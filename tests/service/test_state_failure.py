"""A failing idempotency store (issue 33, item 2): a real ``execrl serve`` whose files can no
longer grow (``RLIMIT_FSIZE`` 0 set on the running server with ``prlimit``: what a full disk
looks like to SQLite) answers a keyed batch 503 with ``Retry-After``, runs nothing of it and
gives back its queue places; once the disk has room the same key runs, and is stored."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import httpx

from execrl.service.idempotency import STATE_RETRY_AFTER_S
from tests.service._server import running_server

TESTS = [{"kind": "stdio", "id": "t1", "input": "21\n", "output": "42\n"}]
BODY = {"requests": [{"program": "print(int(input()) * 2)", "tests": TESTS}] * 2}


def _post(server, key: str | None) -> httpx.Response:
    headers = {"Idempotency-Key": key} if key else {}
    with server.client(timeout=60) as client:
        return client.post("/v1/execute", json=BODY, headers=headers)


def _statuses(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    lines = [json.loads(line) for line in response.text.splitlines()][:-1]
    return [line["record"]["results"][0]["status"] for line in lines]


def _metric(server, name: str) -> float:
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith(f"execrl_{name} "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


def test_a_full_disk_answers_503_and_gives_back_the_queue_places(tmp_path):
    state = ("--state-dir", str(tmp_path / "state"))
    with running_server(workers=1, queue_limit=2, extra_args=state) as server:
        soft, hard = resource.prlimit(server.pid, resource.RLIMIT_FSIZE)
        resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (0, hard))  # the disk is full
        try:
            refused = _post(server, "step-1")
        finally:
            resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (soft, hard))
        assert refused.status_code == 503
        assert refused.headers["Retry-After"] == str(STATE_RETRY_AFTER_S)
        assert refused.json()["error"].startswith("the idempotency store failed: ")
        assert _metric(server, "executions_total") == 0  # nothing of it ran
        assert (_metric(server, "queue_depth"), _metric(server, "in_flight")) == (0, 0)
        # The queue holds 2: the batch of 2 fits again, so its places were given back.
        assert _statuses(_post(server, "step-1")) == ["success", "success"]
        assert _statuses(_post(server, None)) == ["success", "success"]
        assert _metric(server, "executions_total") == 4
    with running_server(workers=1, queue_limit=2, extra_args=state) as restarted:
        assert _statuses(_post(restarted, "step-1")) == ["success", "success"]
        assert _metric(restarted, "executions_total") == 0  # stored once the disk had room


def test_a_state_dir_that_cannot_be_used_is_one_line_before_anything_starts(tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    cli = [
        sys.executable, "-m", "execrl.cli.main", "serve", "--port", "0",
        "--state-dir", str(not_a_dir),
    ]  # fmt: skip
    done = subprocess.run(cli, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (
        f"UsageError: cannot use state dir {not_a_dir}: File exists; give --state-dir a "
        "writable directory\n"
    )
