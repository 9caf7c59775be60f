"""``execrl serve`` end to end: a real server subprocess, real HTTP (httpx), real sandboxes."""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx
import psutil
import pytest

from execrl.sandbox import counting
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status
from execrl.service.server import bind
from execrl.service.state import IdempotencyConflict, Service, _Batch, _IdempotencyStore
from execrl.service.wire import DoneLine, RecordLine, decode_line
from tests.service._server import running_server

ECHO = {"kind": "stdio", "id": "t1", "input": "21\n", "output": "42\n"}
DOUBLES = "print(int(input()) * 2)"
PRINTS_FIVE = "print(5)"
RAISES = "raise ValueError('no')"


def request(program: str, *, tests: list | None = None, **fields) -> dict:
    return {"program": program, "tests": tests or [ECHO], **fields}


def sleeper(seconds: float) -> dict:
    return request(f"import time\ntime.sleep({seconds})\nprint(42)")


def execute(client: httpx.Client, requests: list[dict], **kwargs) -> list[RecordLine | DoneLine]:
    response = client.post("/v1/execute", json={"requests": requests}, **kwargs)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [decode_line(line) for line in response.text.splitlines()]


def by_index(lines: list) -> dict[int, str]:
    """index → the status of its only test; checks the stream's shape on the way."""
    *records, done = lines
    assert done == DoneLine(count=len(records))
    assert sorted(r.index for r in records) == list(range(len(records)))
    return {r.index: r.record.results[0].status.value for r in records}


def metric(text: str, name: str) -> float:
    """One sample of the Prometheus text (``name`` with its labels, as written)."""
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert match, f"{name} not in /metrics"
    return float(match.group(1))


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as running:
        yield running


@pytest.fixture
def client(server):
    with server.client(timeout=60) as c:
        yield c


def test_a_batch_streams_each_programs_verdict(client):
    lines = execute(client, [request(DOUBLES), request(PRINTS_FIVE), request(RAISES)])
    assert by_index(lines) == {0: "success", 1: "wrong_answer", 2: "runtime_error"}
    assert lines[0].record.backend == "local-forkserver"


def test_records_come_in_completion_order(client):
    lines = execute(client, [sleeper(1.0), request(DOUBLES)])
    assert [line.index for line in lines[:-1]] == [1, 0]  # the quick one first


def test_the_server_says_where_it_listens_and_with_what(server):
    line = f"execrl serve: {server.url} · 2 sandbox workers on cores"
    assert line in server.log()
    assert "queue 256 · auth none · SIGTERM drains" in server.log()


def test_health_info_and_metrics_follow_executions(client):
    assert client.get("/v1/health").json() == {"status": "ok"}
    info = client.get("/v1/info").json()
    assert info["workers"] == 2 and info["queue_limit"] == 256
    assert info["timing_metrics"][:2] == ["cpu", "wall"] and "seccomp" in info["isolation"]
    counted = ["instructions", "cycles_estimate"] if counting.valgrind_status()[0] else []
    assert info["timing_metrics"][2:] == counted
    assert set(info["machine"]) >= {"cpu_model", "cores", "kernel", "python"}
    before = client.get("/metrics").text
    execute(client, [request(DOUBLES), request(DOUBLES), request(PRINTS_FIVE)])
    after = client.get("/metrics").text
    grown = {
        name: metric(after, name) - metric(before, name)
        for name in (
            "execrl_executions_total",
            'execrl_tests_total{status="success"}',
            'execrl_tests_total{status="wrong_answer"}',
            "execrl_execution_seconds_count",
        )
    }
    assert grown == {
        "execrl_executions_total": 3,
        'execrl_tests_total{status="success"}': 2,
        'execrl_tests_total{status="wrong_answer"}': 1,
        "execrl_execution_seconds_count": 3,
    }
    assert metric(after, 'execrl_window_rate{window="60s",kind="unknown"}') == 0
    assert metric(after, 'execrl_window_tests{window="60s"}') >= 3
    assert metric(after, "execrl_in_flight") == 0 and metric(after, "execrl_queue_depth") == 0


def test_malformed_bodies_get_422_naming_the_field(client):
    response = client.post("/v1/execute", json={"requests": [{"program": 3, "tests": []}]})
    assert response.status_code == 422
    locations = [error["loc"] for error in response.json()["detail"]]
    assert ["body", "requests", 0, "program"] in locations
    response = client.post("/v1/execute", json={"request": []})
    assert response.status_code == 422
    assert ["body", "requests"] in [error["loc"] for error in response.json()["detail"]]


def test_an_idempotent_retry_executes_once(client):
    batch = [request(DOUBLES), request(PRINTS_FIVE)]
    key = {"Idempotency-Key": "retry-1"}
    first = execute(client, batch, headers=key)
    executed = metric(client.get("/metrics").text, "execrl_executions_total")
    again = execute(client, batch, headers=key)
    after = client.get("/metrics").text
    assert metric(after, "execrl_executions_total") == executed
    assert metric(after, "execrl_idempotent_replays_total") >= 1
    assert {r.index: r.record for r in again[:-1]} == {r.index: r.record for r in first[:-1]}
    other = client.post(
        "/v1/execute", json={"requests": [request(RAISES)]}, headers=key
    )  # the same key for another body
    assert other.status_code == 409 and "different batch" in other.json()["error"]


def test_a_retry_while_the_first_attempt_runs_waits_for_it(client):
    batch = [sleeper(1.0)]
    key = {"Idempotency-Key": "retry-while-running"}
    first: list = []
    thread = threading.Thread(target=lambda: first.extend(execute(client, batch, headers=key)))
    thread.start()
    time.sleep(0.3)
    with httpx.Client(base_url=str(client.base_url), timeout=60) as second_client:
        again = execute(second_client, batch, headers=key)
    thread.join()
    assert again[0].record == first[0].record  # one execution, two answers


def test_auth_needs_the_token_except_for_health():
    with running_server(workers=1, token="s3cret") as server:
        assert httpx.get(f"{server.url}/v1/health").status_code == 200
        for path in ("/v1/info", "/metrics", "/openapi.json"):
            response = httpx.get(f"{server.url}{path}")
            assert response.status_code == 401, path
            assert response.json() == {"error": "missing or wrong bearer token"}
        wrong = httpx.get(f"{server.url}/v1/info", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        with server.client(timeout=60) as client:
            assert client.get("/v1/info").status_code == 200
            assert by_index(execute(client, [request(DOUBLES)])) == {0: "success"}


def test_a_body_over_the_limit_gets_413():
    with running_server(workers=1, extra_args=["--max-body-mb", "1"]) as server:
        big = {"requests": [request("x = 1\n" + "#" * (2 << 20))]}
        response = httpx.post(f"{server.url}/v1/execute", json=big, timeout=30)
        assert response.status_code == 413
        assert "over the limit of 1048576 bytes" in response.json()["error"]

        def chunks():  # no Content-Length: the limit holds while the body streams in
            yield b'{"requests": [{"program": "'
            for _ in range(40):
                yield b"#" * 65536
            yield b'", "tests": []}]}'

        chunked = httpx.post(f"{server.url}/v1/execute", content=chunks(), timeout=30)
        assert chunked.status_code == 413
        assert httpx.get(f"{server.url}/v1/health").status_code == 200


def test_a_full_queue_answers_429_with_retry_after():
    with running_server(workers=1, queue_limit=2) as server, server.client(timeout=60) as client:
        slow: list = []
        thread = threading.Thread(
            target=lambda: slow.extend(execute(client, [sleeper(2.0), sleeper(2.0)]))
        )
        thread.start()
        _wait_until(lambda: metric(client.get("/metrics").text, "execrl_in_flight") == 1)
        refused = client.post("/v1/execute", json={"requests": [request(DOUBLES)]})
        assert refused.status_code == 429
        assert int(refused.headers["Retry-After"]) >= 1
        assert refused.json()["error"] == "queue full: 1 requests asked, 0 free"
        too_big = client.post("/v1/execute", json={"requests": [request(DOUBLES)] * 3})
        assert too_big.status_code == 422 and "queue limit 2" in too_big.json()["error"]
        thread.join()
        assert by_index(slow) == {0: "success", 1: "success"}
        assert by_index(execute(client, [request(DOUBLES)])) == {0: "success"}
        assert metric(client.get("/metrics").text, "execrl_rejected_total") == 1


def test_sigterm_drains_the_batch_and_leaves_no_process():
    with running_server(workers=2) as server, server.client(timeout=60) as client:
        children = psutil.Process(server.pid).children(recursive=True)
        assert children, "a server runs its fork servers as children"
        lines: list = []
        batch = [sleeper(1.5), sleeper(1.5), sleeper(1.5), request(DOUBLES)]
        thread = threading.Thread(target=lambda: lines.extend(execute(client, batch)))
        thread.start()
        _wait_until(lambda: metric(client.get("/metrics").text, "execrl_in_flight") == 2)
        children = psutil.Process(server.pid).children(recursive=True)
        server.process.send_signal(signal.SIGTERM)
        _wait_until(lambda: httpx.get(f"{server.url}/v1/health").status_code == 503)
        assert httpx.get(f"{server.url}/v1/health").json() == {"status": "draining"}
        refused = client.post("/v1/execute", json={"requests": [request(DOUBLES)]})
        assert refused.status_code == 503
        thread.join(timeout=30)
        assert by_index(lines) == {0: "success", 1: "success", 2: "success", 3: "success"}
        assert server.process.wait(timeout=30) == 0
    _, alive = psutil.wait_procs(children, timeout=10)
    assert alive == []


def test_the_cli_refuses_a_port_in_use_in_one_line():
    with running_server(workers=1) as server:
        cli = [sys.executable, "-m", "execrl.cli.main", "serve", "--port", str(server.port)]
        done = subprocess.run(cli, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"UsageError: cannot listen on 127.0.0.1:{server.port}: already in use\n"


def test_the_cli_refuses_bad_values_in_one_line():
    cli = [sys.executable, "-m", "execrl.cli.main", "serve", "--queue-limit", "0"]
    done = subprocess.run(cli, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "UsageError: --queue-limit 0: expected 1 to 1000000 requests\n"


def _wait_until(condition, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_capture_returns_the_verdict_and_stdout(client):
    response = client.post("/v1/capture", json={"program": DOUBLES, "stdin": "4\n"})
    assert response.status_code == 200
    body = response.json()
    assert body["stdout"] == "8\n" and body["result"]["status"] == "success"
    crashed = client.post("/v1/capture", json={"program": RAISES}).json()
    assert crashed["result"]["status"] == "runtime_error" and crashed["stdout"] == ""


def test_kept_alive_answers_do_not_wait_for_delayed_acks(client):
    """Without TCP_NODELAY every answer on a kept-alive connection took >= 40 ms (Nagle and
    the client's delayed ACK); a health check takes well under a millisecond of work."""
    times = []
    for _ in range(30):
        started = time.perf_counter()
        assert client.get("/v1/health").status_code == 200
        times.append(time.perf_counter() - started)
    assert sorted(times)[15] < 0.035
    listening = bind("127.0.0.1", 0)
    try:
        assert listening.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        listening.close()


def test_the_idempotency_store_is_bounded_in_records():
    async def scenario() -> tuple[list[str], bool]:
        store = _IdempotencyStore(records=4, ttl_s=600)
        done = asyncio.get_running_loop().create_future()
        done.set_result(None)
        for key in ("a", "b", "c"):  # 2 records each: "a" must go when "c" arrives
            store.put(key, _Batch("hash-" + key, [done, done]))
        with pytest.raises(IdempotencyConflict):
            store.get("b", "another body")
        return [k for k in "abc" if store.get(k, "hash-" + k)], len(store) == 2

    kept, two = asyncio.run(scenario())
    assert kept == ["b", "c"] and two


def test_a_failing_executor_gives_inconclusive_records_not_errors():
    """A pool that can no longer run anything (closed) is the machinery failing: the request
    still gets a record, inconclusive. (Not capture: LocalExecutor.capture after close()
    restarts a fork server that nobody closes.)"""
    executor = LocalExecutor(workers=1)
    executor.close()
    service = Service(executor, queue_limit=4)
    program_request = ExecutionRequest.model_validate(request(DOUBLES))

    record = asyncio.run(service.execute(program_request))
    assert [r.status.value for r in record.results] == ["inconclusive"]
    assert record.results[0].detail.startswith("execrl could not run the program: RuntimeError")
    assert service.admitted == 0 and service.metrics.tests[Status.INCONCLUSIVE] == 1


def test_solvers_flag_makes_the_solver_packages_importable_by_programs():
    """Solver rewards sent to a server need its sandboxes to import the solvers; without
    ``--solvers`` they cannot (the sandbox's Python sees no site-packages)."""
    probe = "import highspy\nprint('solver ok')"
    with running_server(workers=1) as plain:
        result, stdout = _capture(plain, probe)
        assert (result["status"], stdout) == ("runtime_error", "")
        assert "ModuleNotFoundError" in result["detail"]
    with running_server(workers=1, extra_args=("--solvers",)) as solvers:
        result, stdout = _capture(solvers, probe)
        assert (result["status"], stdout) == ("success", "solver ok\n")


def _capture(server, program: str) -> tuple[dict, str]:
    with server.client() as client:
        answer = client.post("/v1/capture", json={"program": program, "stdin": ""}).json()
    return answer["result"], answer["stdout"]
