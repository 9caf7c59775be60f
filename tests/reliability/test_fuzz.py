"""Fuzz ``execrl serve`` from its own OpenAPI document (schemathesis): every operation, valid
and invalid bodies, and no answer is a 5xx or takes longer than a bound.

Bounded for CI (``EXECRL_FUZZ_EXAMPLES`` per operation, default 50); a real server
subprocess with a token, so the requests also pass the auth and size-limit layers.
"""

from __future__ import annotations

import os
import time

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from tests.service._server import running_server

EXAMPLES = int(os.environ.get("EXECRL_FUZZ_EXAMPLES", "50"))
RESPONSE_BOUND_S = 30.0
"""No answer may take longer (the generated programs run under their own limits, but a
hang of the server itself would show here)."""
TOKEN = "fuzz-token"


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2, token=TOKEN) as running:
        yield running


def operations(server) -> list:
    """Every operation of the live /openapi.json."""
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json", headers=server.headers)
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_errors_and_no_hangs(server, mode):
    """Each operation with EXAMPLES generated requests (schemathesis' own pytest plugin,
    ``from_fixture``, breaks on pytest 9: it sets ``Function._nodeid``; so hypothesis drives
    the operations' strategies here)."""
    ops = operations(server)
    assert {op.path for op in ops} >= {"/v1/execute", "/v1/capture", "/v1/info", "/metrics"}
    calls = {operation.label: fuzz(operation, mode, server) for operation in ops}
    print(f"\n{mode.value}: {calls}")
    assert calls["POST /v1/execute"] >= EXAMPLES // 2  # the operation that runs programs


def fuzz(operation, mode: GenerationMode, server) -> int:
    """Send the operation's generated requests; how many were sent (an operation without
    parameters or body has no invalid request to make: 0 in negative mode)."""
    sent = 0

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def call(case) -> None:
        nonlocal sent
        sent += 1
        started = time.monotonic()
        response = case.call(base_url=server.url, headers=server.headers, timeout=RESPONSE_BOUND_S)
        took = time.monotonic() - started
        assert response.status_code < 500, (operation.label, response.text[:500])
        assert took < RESPONSE_BOUND_S, (operation.label, took)

    try:
        call()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE and sent == 0, operation.label
    assert server.process.poll() is None, server.log()
    return sent
