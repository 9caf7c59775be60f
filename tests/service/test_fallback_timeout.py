"""The spec §6 fallback decides in bounded time: a server that accepts the fallback run and never
answers leaves the tests inconclusive within ``fallback_timeout_s`` beyond their own limits
(before, the run elsewhere could wait ``timeout_s`` per attempt, retried for up to 300 s).

The first server is a real ``execrl serve`` whose sandbox lacks a module the tests' checker
imports (so its verdicts are ``inconclusive``); the second is a real HTTP server on 127.0.0.1
that answers ``/v1/info`` and ``/v1/health`` like a server and then holds every
``/v1/execute`` without a byte of answer, until the test stops it.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from execrl.cli.main import build_parser, main
from execrl.errors import UsageError
from execrl.problems.models import AssertTest, TestGroup
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status
from execrl.service.remote import RemoteExecutor
from tests.service._server import running_server

FALLBACK_TIMEOUT_S = 1.0
WALL_S = 1.0
HOLD_S = 120.0
"""How long the silent server holds a request at most (it is released when the test ends)."""


class _SilentServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _SilentHandler)
        self.release = threading.Event()
        self.executes = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _SilentHandler(http.server.BaseHTTPRequestHandler):
    """Up and healthy by its answers, but ``/v1/execute`` is read and never answered."""

    server: _SilentServer

    def do_GET(self) -> None:
        if self.path == "/v1/health":
            self._json({"status": "ok"})
        elif self.path == "/v1/info":
            self._json(
                {
                    "version": "0", "backend": "local-forkserver", "isolation": [],
                    "workers": 1, "cores": [0], "queue_limit": 8,
                    "machine": {}, "timing_metrics": ["cpu"],
                }
            )  # fmt: skip
        else:
            self.send_error(404)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.executes += 1
        self.server.release.wait(HOLD_S)  # accepted, never answered

    def _json(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def silent_server() -> Iterator[_SilentServer]:
    server = _SilentServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _inconclusive_here(tmp_path: Path) -> ExecutionRequest:
    """A request whose checker imports a module no test server's sandbox has: every test is
    ``inconclusive`` there (the test code failed, not the program)."""
    add = "def add(a, b):\n    return a + b\n"
    tests = [
        AssertTest(id="cor", code="assert add(1, 2) == 3\n", entry_point="add"),
        AssertTest(
            id="opt", code="assert add(2, 2) == 4\n", entry_point="add",
            group=TestGroup.OPTIMIZATION,
        ),
        AssertTest(id="wrong", code="assert add(2, 2) == 5\n", entry_point="add"),
    ]  # fmt: skip
    return ExecutionRequest(
        program=add,
        tests=tests,
        starter_code="import execrl_marker_absent\n",
        limits=Limits(cpu_time_s=0.5, wall_time_s=WALL_S),
    )


def test_a_fallback_server_that_never_answers_leaves_the_tests_inconclusive_in_bound(
    tmp_path,
) -> None:
    request = _inconclusive_here(tmp_path)
    # (each step's bound: the timeout beyond every test at its wall-clock limit)
    bound_s = FALLBACK_TIMEOUT_S + len(request.tests) * WALL_S
    with (
        running_server(workers=1) as lacking,
        silent_server() as silent,
        RemoteExecutor(
            [lacking.url, silent.url],  # (the first gets the request: both are idle)
            timeout_s=60.0,  # what the fallback waited for a silent stream before
            fallback_timeout_s=FALLBACK_TIMEOUT_S,
            backoff_base_s=0.02,
            backoff_cap_s=0.2,
        ) as remote,
    ):
        started = time.monotonic()
        record = remote.execute(request)
        elapsed = time.monotonic() - started
        assert silent.executes == 1  # the run elsewhere went there, and was never answered
        assert remote.stats.immediate_retries == 1 and remote.stats.fallback_runs == 1
        assert remote.stats.fallback_timeouts == 1
    assert [r.status for r in record.results] == [Status.INCONCLUSIVE] * 3
    assert not any(r.fallback for r in record.results)
    assert "execrl_marker_absent" in record.results[0].detail
    # The retry on the first server is quick; the silent one is given up after `bound_s`.
    # (5x margin; before, one silent attempt alone waited timeout_s = 60 s.)
    assert bound_s <= elapsed < 5 * bound_s + 10, elapsed


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan")])
def test_a_fallback_timeout_that_is_not_positive_is_refused(value: float) -> None:
    with pytest.raises(UsageError, match="fallback_timeout_s"):
        RemoteExecutor("http://127.0.0.1:9", fallback_timeout_s=value)


def test_the_cli_flag_reaches_the_remote_executor() -> None:
    from execrl.cli._executor import open_executor_from_args

    with running_server(workers=1) as server:
        args = build_parser().parse_args(
            ["run", "prog.py", "--executor", server.url, "--fallback-timeout-s", "7.5"]
        )
        with open_executor_from_args(args) as executor:
            assert isinstance(executor, RemoteExecutor)
            assert executor.fallback_timeout_s == 7.5
        plain = build_parser().parse_args(["run", "prog.py", "--executor", server.url])
        with open_executor_from_args(plain) as executor:
            assert executor.fallback_timeout_s == 30.0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--executor", "http://127.0.0.1:9", "--fallback-timeout-s", "0"], "more than 0"),
        (["--executor", "http://127.0.0.1:9", "--fallback-timeout-s", "1e9"], "at most 3600"),
        (["--executor", "local", "--fallback-timeout-s", "5"], "local executor has none"),
    ],
)
def test_a_bad_or_misplaced_flag_is_one_line_and_exit_2(tmp_path, capsys, argv, message) -> None:
    program = tmp_path / "prog.py"
    program.write_text("print(1)\n")
    tests = tmp_path / "tests.jsonl"
    tests.write_text(json.dumps({"id": "t", "input": "", "output": "1\n"}) + "\n")
    assert main(["run", str(program), "--tests", str(tests), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "--fallback-timeout-s" in err
