"""Idempotency-Keys survive a restart (issue 33, item 2): a real ``execrl serve`` keeps them in
``--state-dir``; the test stops it (SIGTERM, or SIGKILL in the middle of a batch), starts
another on the same directory and retries. Nothing runs a second time: the retry gets the
stored records, and a request the dead server never finished gets ``inconclusive`` with the
``RESTARTED`` detail. Also: one server per state dir, and the retention prunes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import psutil
import pytest

from execrl.service.idempotency import DB_NAME, RESTARTED, DurableKeys
from tests.service._server import running_server

TESTS = [{"kind": "stdio", "id": "t1", "input": "21\n", "output": "42\n"}]
DOUBLES = "print(int(input()) * 2)"
SLOW = "import time\ntime.sleep(20)\nprint(42)"  # still running when the server is killed
WRONG = "print(5)"


def _batch(*programs: str) -> dict:
    limits = {"cpu_time_s": 5, "wall_time_s": 25}
    return {"requests": [{"program": p, "tests": TESTS, "limits": limits} for p in programs]}


def _post(server, key: str, body: dict) -> httpx.Response:
    with server.client(timeout=60) as client:
        return client.post("/v1/execute", json=body, headers={"Idempotency-Key": key})


def _records(response: httpx.Response) -> dict[int, dict]:
    assert response.status_code == 200, response.text
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines[-1] == {"done": True, "count": len(lines) - 1}
    return {line["index"]: line["record"] for line in lines[:-1]}


def _metric(server, name: str) -> float:
    text = httpx.get(f"{server.url}/metrics", headers=server.headers, timeout=10).text
    for line in text.splitlines():
        if line.startswith(f"execrl_{name} "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


def test_a_retry_after_a_restart_replays_the_stored_records_and_runs_nothing(tmp_path):
    state = ("--state-dir", str(tmp_path / "state"))
    body = _batch(DOUBLES, WRONG)
    with running_server(workers=1, extra_args=state) as first:
        original = _records(_post(first, "step-1", body))
        assert [original[i]["results"][0]["status"] for i in (0, 1)] == [
            "success",
            "wrong_answer",
        ]
    with running_server(workers=1, extra_args=state) as second:
        replayed = _records(_post(second, "step-1", body))
        assert replayed == original  # the very records: same times, same timestamps
        assert _metric(second, "executions_total") == 0
        assert _metric(second, "idempotent_replays_total") == 1
        other_body = _post(second, "step-1", _batch(DOUBLES))
        assert other_body.status_code == 409
        assert _metric(second, "executions_total") == 0


def test_a_batch_the_server_died_in_answers_unknown_for_what_it_never_finished(tmp_path):
    state = ("--state-dir", str(tmp_path / "state"))
    body = _batch(DOUBLES, SLOW)
    with running_server(workers=2, extra_args=state) as first:
        seen = _first_record_then_kill(first, "step-2", body)
    assert seen[0]["results"][0]["status"] == "success"
    with running_server(workers=1, extra_args=state) as second:
        replayed = _records(_post(second, "step-2", body))
        assert replayed[0] == seen[0]
        unknown = replayed[1]["results"]
        assert [(r["status"], r["detail"]) for r in unknown] == [("inconclusive", RESTARTED)]
        assert _metric(second, "executions_total") == 0
        again = _records(_post(second, "step-2", body))  # and the same answer from then on
        assert again[1]["results"][0]["detail"] == RESTARTED


def _first_record_then_kill(server, key: str, body: dict) -> dict[int, dict]:
    """Stream the batch until a record arrives, then SIGKILL the server."""
    seen: dict[int, dict] = {}
    with (
        server.client(timeout=60) as client,
        client.stream(
            "POST", "/v1/execute", json=body, headers={"Idempotency-Key": key}
        ) as response,
    ):
        for line in response.iter_lines():
            if line:
                parsed = json.loads(line)
                seen[parsed["index"]] = parsed["record"]
                break
        children = psutil.Process(server.pid).children(recursive=True)
        os.kill(server.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
    for child in children:  # the dead server's sandboxes, the slow program among them
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
    psutil.wait_procs(children, timeout=10)
    return seen


def test_one_server_per_state_dir(tmp_path):
    state = tmp_path / "state"
    with running_server(workers=1, extra_args=("--state-dir", str(state))) as first:
        cli = [
            sys.executable, "-m", "execrl.cli.main", "serve", "--port", "0", "--workers", "1",
            "--state-dir", str(state),
        ]  # fmt: skip
        done = subprocess.run(cli, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (
        f"UsageError: state dir {state} is in use by another execrl serve (pid {first.pid}); "
        "give each server its own --state-dir\n"
    )


@pytest.mark.parametrize("value", ["0", "-1", "1e9"])
def test_the_retention_is_checked_in_one_line(value):
    cli = [sys.executable, "-m", "execrl.cli.main", "serve", "--idempotency-retention-h", value]
    done = subprocess.run(cli, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (
        f"UsageError: --idempotency-retention-h {float(value):g}: expected above 0 and at most "
        "8784 hours\n"
    )


def test_batches_past_the_retention_are_pruned(tmp_path):
    clock = [1_000_000.0]
    keys = DurableKeys(tmp_path, retention_h=1.0, now=lambda: clock[0])
    try:
        keys._call(keys.begin, "old", "hash-old", 1)
        keys._call(keys.put_record, "old", 0, b'{"r": 0}')
        clock[0] += 1800
        keys._call(keys.begin, "new", "hash-new", 1)
        clock[0] += 1801  # "old" is 3601 s old, "new" 1801 s
        assert keys._call(keys.find, "old") is None  # past the retention: unknown at once
        assert keys._call(keys.prune) == 1
        kept = keys._call(keys.find, "new")
        assert kept is not None and (kept.body_hash, kept.size, kept.records) == (
            "hash-new",
            1,
            {},
        )
    finally:
        keys.close()
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("SELECT key FROM batches").fetchall() == [("new",)]
        assert db.execute("SELECT count(*) FROM records").fetchone() == (0,)


def test_the_default_state_dir_is_per_host_and_port(tmp_path, monkeypatch):
    from execrl.service.idempotency import default_state_dir

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_state_dir("127.0.0.1", 8080) == Path(tmp_path, "execrl/serve/127.0.0.1-8080")
