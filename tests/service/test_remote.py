"""RemoteExecutor against real ``execrl serve`` subprocesses (no mocks): verdicts equal the local
pool's, ordering, balancing, failover, idempotent retries, 429, auth and the §6 fallback."""

from __future__ import annotations

import asyncio
import functools
import http.server
import os
import random
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from execrl.errors import ConfigError, ExecutionError, UsageError
from execrl.problems.models import AssertTest, CallTest, StdioTest, TestGroup
from execrl.sandbox.counting import valgrind_status
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest, Executor
from execrl.sandbox.records import Status
from execrl.service.fallback import CAP_DETAIL
from execrl.service.remote import RemoteExecutor, full_jitter, normalise_urls, retry_after_s
from tests.reliability._proxy import FaultyProxy, own_verdicts, token_requests
from tests.service._server import running_server

FAST = {"backoff_base_s": 0.02, "backoff_cap_s": 0.2}


def _metric(url: str, name: str, token: str | None = None) -> float:
    """One unlabelled series of a server's /metrics."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    text = httpx.get(f"{url}/metrics", headers=headers, timeout=5).text
    for line in text.splitlines():
        if line.startswith(f"execrl_{name} "):
            return float(line.split()[1])
    raise AssertionError(f"no execrl_{name} in /metrics")


def _mixed_requests() -> list[ExecutionRequest]:
    """Passing, failing, crashing, timing-out, call and assert programs."""
    stdio = [
        StdioTest(id="a", input="2 3\n", output="5\n"),
        StdioTest(id="b", input="1 1\n", output="2\n"),
    ]
    call = [CallTest(id="c", fn_name="add", args=[2, 3], expected=5)]
    asserted = [AssertTest(id="d", code="assert add(1, 2) == 3\n", entry_point="add")]
    add = "def add(a, b):\n    return a + b\n"
    return [
        ExecutionRequest(program="print(sum(map(int, input().split())))\n", tests=stdio),
        ExecutionRequest(program="print(5)\n", tests=stdio),
        ExecutionRequest(program="raise SystemExit(3)\n", tests=stdio),
        ExecutionRequest(
            program="while True:\n    pass\n", tests=stdio[:1], limits=Limits(cpu_time_s=0.5)
        ),
        ExecutionRequest(program="import sys\nsys.stdout.write('5')\n", tests=stdio[:1]),
        ExecutionRequest(program=add, tests=call),
        ExecutionRequest(program="def add(a, b):\n    return a - b\n", tests=call),
        ExecutionRequest(program=add, tests=asserted),
    ]


def _verdicts(records) -> list[list[tuple[str, Status]]]:
    return [[(r.test_id, r.status) for r in record.results] for record in records]


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as running:
        yield running


def test_pure_helpers() -> None:
    rng = random.Random(0)
    draws = [full_jitter(3, 0.1, 0.5, rng) for _ in range(200)]
    assert min(draws) >= 0 and max(draws) <= 0.5 and max(draws) > 0.4  # capped at 0.5, not 0.8
    assert max(full_jitter(1, 0.1, 5.0, rng) for _ in range(200)) <= 0.2
    assert retry_after_s("2") == 2.0 and retry_after_s(None) == 1.0 and retry_after_s("x") == 1.0
    assert retry_after_s("100000") == 60.0
    assert normalise_urls("http://a:1/, http://b:2") == ["http://a:1", "http://b:2"]
    with pytest.raises(UsageError, match="http"):
        normalise_urls("a:1")
    for bad in ({"retries": -1}, {"timeout_s": 0}, {"batch_size": 0}):
        with pytest.raises(UsageError, match="RemoteExecutor"):
            RemoteExecutor("http://127.0.0.1:9", **bad)


def test_verdicts_equal_the_local_pools_and_stream_in_request_order(server) -> None:
    requests = _mixed_requests()
    with LocalExecutor(workers=1) as local:
        expected = list(local.run_batch(requests, progress=False))
    with RemoteExecutor(server.url, batch_size=3) as remote:
        assert isinstance(remote, Executor)
        assert remote.backend == "remote" and remote.workers == 2
        assert remote.isolation == expected[0].isolation
        records = list(remote.run_batch(requests, progress=False))
        assert remote.stats.attempts == 3  # 8 requests in chunks of 3, no retries
    assert _verdicts(records) == _verdicts(expected)
    assert [r.program_sha256 for r in records] == [r.program_sha256 for r in expected]
    assert records[3].results[0].limit_hit == "cpu"


def test_run_execute_and_capture(server) -> None:
    with RemoteExecutor(server.url) as remote:
        record = remote.run(
            "print(input()[::-1])\n", [StdioTest(id="r", input="abc\n", output="cba\n")]
        )
        assert record.all_passed and record.limits.cpu_time_s == 10.0
        result, stdout = remote.capture("print(input() * 2)\n", "ab\n")
        assert result.status is Status.SUCCESS and stdout == "abab\n"
        result, stdout = remote.capture("raise SystemExit(2)\n", "")
        assert result.status is Status.RUNTIME_ERROR and stdout == ""


@pytest.mark.skipif(not valgrind_status()[0], reason="Valgrind cannot count here")
def test_counts_travel_from_the_server(server) -> None:
    """A counted timing is measured on the server (its Valgrind), and the count comes back."""
    loop = "s = 0\nfor i in range(int(input())):\n    s += i\n"
    tests = [StdioTest(id=f"n{n}", input=f"{n}\n", output="") for n in (10_000, 20_000)]
    assert "instructions" in httpx.get(server.url + "/v1/info").json()["timing_metrics"]
    with RemoteExecutor(server.url) as remote:
        record = remote.run(loop, tests, options=ExecutionOptions(timing="instructions"))
    small, large = (r.instructions for r in record.results)
    assert record.timing == "instructions" and 0 < small < large
    assert large / small == pytest.approx(2.0, rel=0.05)


def test_arun_batch_yields_in_completion_order(server) -> None:
    slow = ExecutionRequest(
        program="import time\ntime.sleep(1.0)\nprint(1)\n",
        tests=[StdioTest(id="s", input="", output="1\n")],
        program_name="slow",
    )
    fast = token_requests(3)

    async def collect(remote: RemoteExecutor) -> list[str]:
        single = await remote.arun(fast[0])
        assert single.all_passed
        return [r.program_name async for r in remote.arun_batch([slow, *fast])]

    with RemoteExecutor(server.url, batch_size=1) as remote:
        names = asyncio.run(collect(remote))
    assert names[-1] == "slow" and sorted(names[:-1]) == ["token-0", "token-1", "token-2"]


def test_a_batch_left_early_is_cancelled_and_the_executor_goes_on(server) -> None:
    with RemoteExecutor(server.url, batch_size=1) as remote:
        for i, _record in enumerate(remote.run_batch(token_requests(8, sleep_s=0.3))):
            if i == 1:
                break

        async def first_of(requests) -> str:
            async for record in remote.arun_batch(requests):
                return record.program_name
            return ""

        assert asyncio.run(first_of(token_requests(6, sleep_s=0.3))).startswith("token-")
        _wait_for(lambda: all(s.in_flight == 0 for s in remote._servers))
        again = token_requests(4)
        assert own_verdicts(again, list(remote.run_batch(again, progress=False))) == {"success": 4}


def test_a_wrong_token_is_one_config_error_and_the_right_one_works() -> None:
    with running_server(workers=1, token="s3cret") as guarded:
        with pytest.raises(ConfigError, match="refused the token"):
            RemoteExecutor(guarded.url, token="wrong")
        os.environ["EXECRL_SERVICE_TOKEN"] = "s3cret"
        try:
            with RemoteExecutor(guarded.url) as remote:  # the token from the environment
                assert remote.execute(token_requests(1)[0]).all_passed
        finally:
            del os.environ["EXECRL_SERVICE_TOKEN"]


def test_no_server_at_all_is_an_execution_error(tmp_path) -> None:
    with pytest.raises(ExecutionError, match="no execrl server answered"):
        RemoteExecutor("http://127.0.0.1:9", connect_timeout_s=1, retries=1, **FAST)
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "info").write_text("<html>not execrl</html>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=tmp_path)
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as other:
        threading.Thread(target=other.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{other.server_address[1]}"
        try:
            with pytest.raises(ExecutionError, match="is not an execrl serve answer"):
                RemoteExecutor(url, retries=1, **FAST)
        finally:
            other.shutdown()


def test_two_servers_share_the_load_and_a_killed_one_fails_over() -> None:
    with running_server(workers=1) as first, running_server(workers=1) as second:
        requests = token_requests(12, sleep_s=0.05)
        with RemoteExecutor([first.url, second.url], batch_size=2, **FAST) as remote:
            assert remote.workers == 2
            assert own_verdicts(requests, list(remote.run_batch(requests, progress=False))) == {
                "success": 12
            }
            counts = [_metric(s.url, "executions_total") for s in (first, second)]
            assert sum(counts) == 12 and min(counts) >= 4, counts  # spread, each ran once
            first.process.send_signal(signal.SIGKILL)
            first.process.wait(10)
            again = token_requests(8)
            assert own_verdicts(again, list(remote.run_batch(again, progress=False))) == {
                "success": 8
            }
            assert remote.stats.marked_down >= 1
        assert _metric(second.url, "executions_total") == counts[1] + 8


def test_a_server_down_is_probed_and_used_again_once_healthy(server) -> None:
    with (
        running_server(workers=1) as other,
        FaultyProxy(server.port, drop=1.0) as flaky,  # every request to `server` is dropped
        RemoteExecutor([flaky.url, other.url], batch_size=1, **FAST) as remote,
    ):
        assert remote.workers == 1  # only `other` answered /v1/info
        before = _metric(server.url, "executions_total")
        first = token_requests(4)
        assert own_verdicts(first, list(remote.run_batch(first, progress=False))) == {"success": 4}
        assert _metric(server.url, "executions_total") == before and remote.stats.probes >= 1
        flaky.weights["drop"] = 0.0  # the network heals
        again = token_requests(8, sleep_s=0.2)
        assert own_verdicts(again, list(remote.run_batch(again, progress=False))) == {"success": 8}
        assert remote.workers == 3  # /v1/info read once it was healthy
        assert _metric(server.url, "executions_total") > before


def test_a_dead_cluster_answers_inconclusive_and_runs_again_once_healed(server) -> None:
    with (
        FaultyProxy(server.port) as flaky,
        RemoteExecutor(flaky.url, batch_size=1, retry_budget_s=1.0, **FAST) as remote,
    ):
        flaky.weights["drop"] = 1.0  # the network fails after the client started
        lost = token_requests(6)
        assert own_verdicts(lost, list(remote.run_batch(lost, progress=False))) == {
            "inconclusive": 6
        }
        time.sleep(1.5)  # longer than the retry budget: the cluster has been down that long
        flaky.weights["drop"] = 0.0
        healed = token_requests(6)
        assert own_verdicts(healed, list(remote.run_batch(healed, progress=False))) == {
            "success": 6
        }


def test_a_retried_batch_whose_first_attempt_went_through_runs_once(server) -> None:
    """The proxy cuts the first stream after the server got the whole batch; the retry goes to
    the same server with the same key, so the server replays instead of running again."""
    before = _metric(server.url, "executions_total")
    requests = token_requests(6, sleep_s=0.1)
    with (
        FaultyProxy(server.port, cut=1.0, cut_bytes=(150, 150), faulty={2}) as proxy,
        RemoteExecutor(proxy.url, batch_size=6, **FAST) as remote,
    ):
        records = list(remote.run_batch(requests, progress=False))
        assert proxy.actions["cut"] == 1 and remote.stats.failures == 1
    assert own_verdicts(requests, records) == {"success": 6}
    time.sleep(0.2)
    assert _metric(server.url, "executions_total") - before == 6
    assert _metric(server.url, "idempotent_replays_total") >= 1


def test_a_full_queue_answers_429_and_the_client_waits_its_retry_after() -> None:
    with running_server(workers=1, queue_limit=1) as tiny:
        blocker = token_requests(1, sleep_s=1.5)
        blocked = threading.Thread(target=_run_directly, args=(tiny.url, blocker))
        blocked.start()
        _wait_for(lambda: _metric(tiny.url, "in_flight") >= 1)
        requests = token_requests(2)
        with RemoteExecutor(tiny.url, **FAST) as remote:
            records = list(remote.run_batch(requests, progress=False))
            assert remote.stats.throttled >= 1 and remote.stats.failures == 0
        blocked.join(30)
        assert own_verdicts(requests, records) == {"success": 2}
        assert _metric(tiny.url, "rejected_total") >= 1


def _run_directly(url: str, requests: list[ExecutionRequest]) -> None:
    with RemoteExecutor(url) as remote:
        list(remote.run_batch(requests, progress=False))


def _wait_for(condition, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)


def _marker_request(tmp_path: Path) -> tuple[ExecutionRequest, Path]:
    """A request whose checker imports a module only one server's sandbox can see: an
    ``inconclusive`` verdict (the test code failed) on the other, a real one where it exists."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "execrl_marker.py").write_text("MARK = 1\n")
    add = "def add(a, b):\n    return a + b\n"
    tests = [
        AssertTest(id="cor", code="assert add(1, 2) == 3\n", entry_point="add"),
        AssertTest(
            id="opt",
            code="assert add(2, 2) == 4\n",
            entry_point="add",
            group=TestGroup.OPTIMIZATION,
        ),
        AssertTest(id="wrong", code="assert add(2, 2) == 5\n", entry_point="add"),
    ]
    request = ExecutionRequest(
        program=add, tests=tests, starter_code="import execrl_marker\n", limits=Limits(cpu_time_s=3)
    )
    return request, site


def test_inconclusive_is_retried_at_once_then_run_elsewhere_for_the_verdict_only(tmp_path) -> None:
    request, site = _marker_request(tmp_path)
    with (
        running_server(workers=1) as lacking,
        running_server(workers=1, extra_args=("--site-path", str(site))) as having,
        RemoteExecutor([lacking.url, having.url], **FAST) as remote,  # the first gets it
    ):
        record = remote.execute(request)
        assert remote.stats.immediate_retries == 1 and remote.stats.fallback_runs == 1
        assert _metric(lacking.url, "executions_total") == 2  # the original and its retry
        assert _metric(having.url, "executions_total") == 1
    cor, opt, wrong = record.results
    assert (cor.status, cor.cpu_s, cor.wall_s, cor.fallback) == (Status.SUCCESS, 0.0, 0.0, True)
    assert (opt.status, opt.cpu_s, opt.fallback, opt.detail) == (
        Status.TIMEOUT,
        3.0,
        True,
        CAP_DETAIL,
    )
    assert (wrong.status, wrong.fallback) == (Status.WRONG_ANSWER, True)


def test_with_one_server_an_inconclusive_is_retried_once_and_stays_unknown(
    tmp_path, server
) -> None:
    request, _ = _marker_request(tmp_path)
    before = _metric(server.url, "executions_total")
    with RemoteExecutor(server.url, **FAST) as remote:
        record = remote.execute(request)
        assert remote.stats.immediate_retries == 1 and remote.stats.fallback_runs == 0
    assert _metric(server.url, "executions_total") - before == 2
    assert [r.status for r in record.results] == [Status.INCONCLUSIVE] * 3
    assert not any(r.fallback for r in record.results)
    assert "No module named 'execrl_marker'" in record.results[0].detail
    with RemoteExecutor(server.url, fallback=False) as plain:
        assert plain.execute(request).inconclusive and plain.stats.immediate_retries == 0
