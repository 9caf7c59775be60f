"""Cancellation end to end (issue 33, item 1) against a real ``execrl serve``.

Every program here would burn a CPU for 30 s per test. Clients give up after 0.5 s (their
connection closes), or cancel with ``DELETE /v1/requests/{key}``; the server must then be idle
(nothing admitted, nothing in flight, no process of a sandbox uid left) well before any
program could have finished by itself. Deadlines are generous (a slow, loaded 2-core CI
machine) and polled; no timing is asserted tightly.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.service._server import Server, running_server

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")

BURN_S = 30
BURN = f"import time\nend = time.time() + {BURN_S}\nwhile time.time() < end:\n    pass\nprint(1)\n"
LIMITS = {"cpu_time_s": 40, "wall_time_s": 60}
IDLE_WITHIN_S = 20.0
"""How long the server may take to be idle after its clients went away (the bound in
docs/service.md is the grace + about a second; this is that with a wide margin)."""
GRACE_S = 3.0


def _request(program: str = BURN, tests: int = 2) -> dict:
    return {
        "program": program,
        "tests": [
            {"kind": "stdio", "id": f"t{i}", "input": "", "output": "1"} for i in range(tests)
        ],
        "limits": LIMITS,
    }


def _metrics(server: Server) -> dict[str, float]:
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    values = {}
    for line in text.splitlines():
        match = re.match(r"^execrl_(\S+) (\S+)$", line)
        if match:
            values[match.group(1)] = float(match.group(2))
    return values


def _cancelled(server: Server, reason: str) -> int:
    return int(_metrics(server)[f'requests_cancelled_total{{reason="{reason}"}}'])


def _sandbox_processes(server: Server) -> list[int]:
    """Processes under the server that run as another uid than the server's (the sandbox
    uids: a spare waits as root, so between tests there are none)."""
    parents: dict[int, int] = {}
    uids: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        parents[int(entry.name)] = int(fields["PPid"])
        uids[int(entry.name)] = int(fields["Uid"].split()[0])
    below, frontier = set(), {server.pid}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - below
        below |= frontier
    return sorted(pid for pid in below if uids.get(pid) != os.getuid())


def _wait_idle(server: Server, *, abandoned: int | None = None) -> dict[str, float]:
    """Poll until nothing is admitted or running and no sandbox process is left (and, if
    given, ``abandoned`` requests were counted); the last metrics."""
    deadline = time.monotonic() + IDLE_WITHIN_S
    while True:
        metrics = _metrics(server)
        counted = metrics['requests_cancelled_total{reason="abandoned"}']
        idle = metrics["in_flight"] == 0 and metrics["queue_depth"] == 0
        if idle and not _sandbox_processes(server) and abandoned in (None, counted):
            return metrics
        if time.monotonic() > deadline:
            raise AssertionError(
                f"not idle {IDLE_WITHIN_S} s after the clients went away: {metrics}, "
                f"sandbox processes {_sandbox_processes(server)}\n{server.log()}"
            )
        time.sleep(0.2)


def _wait_running(server: Server, count: int = 1) -> None:
    deadline = time.monotonic() + IDLE_WITHIN_S
    while _metrics(server)["in_flight"] < count:
        assert time.monotonic() < deadline, f"nothing started running\n{server.log()}"
        time.sleep(0.05)


def _abandon(server: Server, path: str, body: dict, headers: dict | None = None) -> None:
    """Send ``body`` and give up after 0.5 s (the connection closes)."""
    with pytest.raises(httpx.TimeoutException):
        httpx.post(f"{server.url}{path}", json=body, headers=headers or {}, timeout=0.5)


def _records(response: httpx.Response) -> list[dict]:
    lines = [line for line in response.text.splitlines() if line]
    return [item["record"] for item in map(json.loads, lines) if "record" in item]


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2, extra_args=["--abandon-grace-s", str(GRACE_S)]) as running:
        yield running


def test_abandoned_batches_without_key_stop_at_once(server: Server) -> None:
    """100 abandoned requests (25 clients, 4 requests each, every test burning 30 s): the
    server is idle long before one program could have finished, all 100 counted."""
    before = _cancelled(server, "abandoned")
    batch = {"requests": [_request() for _ in range(4)]}
    with ThreadPoolExecutor(max_workers=25) as clients:
        list(clients.map(lambda _: _abandon(server, "/v1/execute", batch), range(25)))
    _wait_idle(server, abandoned=before + 100)
    # and the server still judges: a program that prints 1 passes
    response = httpx.post(
        f"{server.url}/v1/execute",
        json={"requests": [_request("print(1)", tests=1)]},
        timeout=60,
    )
    [record] = _records(response)
    assert record["results"][0]["status"] == "success"


def test_keyed_batch_reattached_within_grace_runs_to_its_end(server: Server) -> None:
    """A client that times out and retries with the same key within the grace gets the first
    attempt's records: real verdicts, nothing cancelled, nothing run twice."""
    before = _cancelled(server, "abandoned")
    key = f"reattach-{uuid.uuid4()}"
    slow = "import time\ntime.sleep(2)\nprint(1)\n"
    body = {"requests": [_request(slow, tests=1)]}
    headers = {"Idempotency-Key": key}
    _abandon(server, "/v1/execute", body, headers)
    response = httpx.post(f"{server.url}/v1/execute", json=body, headers=headers, timeout=60)
    [record] = _records(response)
    assert record["results"][0]["status"] == "success"
    assert _cancelled(server, "abandoned") == before
    assert _metrics(server)["idempotent_replays_total"] >= 1


def test_keyed_batch_abandoned_past_the_grace_is_cancelled(server: Server) -> None:
    """No retry within the grace: the batch stops; a later retry with the key gets its
    records, inconclusive ``cancelled: ...``, never a verdict."""
    before = _cancelled(server, "abandoned")
    key = f"abandon-{uuid.uuid4()}"
    body = {"requests": [_request(), _request()]}
    headers = {"Idempotency-Key": key}
    _abandon(server, "/v1/execute", body, headers)
    _wait_idle(server, abandoned=before + 2)
    response = httpx.post(f"{server.url}/v1/execute", json=body, headers=headers, timeout=30)
    records = _records(response)
    assert len(records) == 2
    for record in records:
        for result in record["results"]:
            assert result["status"] == "inconclusive"
            assert result["detail"].startswith("cancelled: the client went away")


def test_delete_cancels_a_running_batch(server: Server) -> None:
    """``DELETE /v1/requests/{key}`` stops the batch at once: its open stream ends with
    inconclusive ``cancelled`` records; an unknown key is a 404."""
    before = _cancelled(server, "cancelled")
    key = f"delete-{uuid.uuid4()}"
    body = {"requests": [_request() for _ in range(3)]}  # 2 run, 1 waits for a worker
    answer: dict[str, httpx.Response] = {}

    def stream() -> None:
        answer["response"] = httpx.post(
            f"{server.url}/v1/execute",
            json=body,
            headers={"Idempotency-Key": key},
            timeout=BURN_S * 3,
        )

    client = threading.Thread(target=stream)
    client.start()
    _wait_running(server, 2)
    deleted = httpx.delete(f"{server.url}/v1/requests/{key}", timeout=10)
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {"key": key, "requests": 3, "cancelled": 3}
    client.join(timeout=IDLE_WITHIN_S)
    assert not client.is_alive(), "the stream did not end after DELETE"
    records = _records(answer["response"])
    assert len(records) == 3
    details = {result["detail"] for record in records for result in record["results"]}
    assert details == {"cancelled: DELETE /v1/requests/{key}"}
    _wait_idle(server)
    assert _cancelled(server, "cancelled") == before + 3
    missing = httpx.delete(f"{server.url}/v1/requests/no-such-key", timeout=10)
    assert missing.status_code == 404
    assert "no-such-key" in missing.json()["error"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/capture", {"program": BURN, "limits": LIMITS}),
        ("/run_code", {"code": BURN, "language": "python", "run_timeout": 60}),
        (
            "/submit",
            {
                "dataset": "mine",
                "id": 1,
                "completion": f"```python\n{BURN}```",
                "config": {
                    "language": "python",
                    "run_timeout": 60,
                    "provided_data": {
                        "id": 1,
                        "test": [{"input": {"stdin": ""}, "output": {"stdout": "1\n"}}],
                    },
                },
            },
        ),
    ],
)
def test_one_answer_endpoints_stop_when_the_client_goes(
    server: Server, path: str, body: dict
) -> None:
    """``/v1/capture``, ``/run_code`` and ``/submit``: a client that disconnects stops its
    program at once."""
    before = _cancelled(server, "abandoned")
    _abandon(server, path, body)
    _wait_idle(server, abandoned=before + 1)
