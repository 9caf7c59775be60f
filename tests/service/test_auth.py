"""Issue 33, item 5: the service token in every form the clients people use can send, against
a real ``execrl serve``: a Bearer header, HTTP Basic from a URL's user-info (the token as the
password: what requests, httpx and aiohttp send for ``http://execrl:TOKEN@host``, so the
unmodified ``sandbox-fusion`` client and verl's sandbox_fusion reward authenticate from the URL
alone) and a ``/t/TOKEN/`` path prefix; a wrong token in any form is a 401 that does not echo
it, the token never reaches the server's log, and a non-loopback bind without a token is
refused unless ``insecure_no_auth``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest
import requests

from execrl.errors import UsageError
from execrl.service.auth import check_bind, is_loopback
from tests.service._server import running_server

sandbox_fusion = pytest.importorskip("sandbox_fusion")

TOKEN = "tok-5f3a9c1e7b"
WRONG = "wrong-8d2e4b6a"


@pytest.fixture(scope="module")
def server():
    with running_server(workers=1, token=TOKEN, extra_args=["--log-level", "debug"]) as running:
        yield running


def _with_userinfo(url: str, password: str, user: str = "execrl") -> str:
    return url.replace("http://", f"http://{user}:{password}@", 1)


def _forms(url: str, token: str) -> dict[str, tuple[str, dict[str, str]]]:
    """Each form a client can send the token in: (base URL, headers)."""
    return {
        "bearer": (url, {"Authorization": f"Bearer {token}"}),
        "basic in the URL": (_with_userinfo(url, token), {}),
        "path prefix": (f"{url}/t/{token}", {}),
    }


def _run_code(endpoint: str):
    request = sandbox_fusion.RunCodeRequest(
        code="print(input()[::-1])", stdin="abc", language="python"
    )
    return sandbox_fusion.run_code(request, endpoint=endpoint, max_attempts=1)


@pytest.mark.parametrize("form", ["bearer", "basic in the URL", "path prefix"])
def test_each_form_of_the_token_is_accepted_and_a_wrong_one_refused(server, form):
    base, headers = _forms(server.url, TOKEN)[form]
    assert requests.get(f"{base}/v1/info", headers=headers, timeout=30).status_code == 200
    with httpx.Client(timeout=30) as client:  # httpx too turns user-info into Basic
        assert client.get(f"{base}/v1/info", headers=headers).status_code == 200
    wrong_base, wrong_headers = _forms(server.url, WRONG)[form]
    refused = requests.get(f"{wrong_base}/v1/info", headers=wrong_headers, timeout=30)
    assert refused.status_code == 401
    assert refused.json() == {"error": "missing or wrong bearer token"}
    assert WRONG not in refused.text


def test_no_token_is_refused_everywhere_but_health(server):
    assert requests.get(f"{server.url}/v1/health", timeout=30).status_code == 200
    assert requests.get(f"{server.url}/t/{TOKEN}/v1/health", timeout=30).status_code == 200
    for path in ("/v1/info", "/run_code", "/metrics", "/openapi.json", f"/t/{WRONG}/v1/health"):
        assert requests.get(f"{server.url}{path}", timeout=30).status_code == 401, path
    # a token elsewhere in the path is not the prefix, and an empty Basic password is none
    assert requests.get(f"{server.url}/v1/t/{TOKEN}/info", timeout=30).status_code == 401
    assert requests.get(_with_userinfo(server.url, "") + "/v1/info", timeout=30).status_code == 401


@pytest.mark.parametrize("form", ["basic in the URL", "path prefix"])
def test_the_unmodified_sandbox_fusion_client_authenticates_from_its_endpoint(server, form):
    endpoint, _ = _forms(server.url, TOKEN)[form]
    response = _run_code(endpoint)
    assert response.status == sandbox_fusion.RunStatus.Success
    assert response.run_result.stdout == "cba\n"
    wrong, _ = _forms(server.url, WRONG)[form]
    with pytest.raises(Exception, match="responded with code 401"):
        _run_code(wrong)


def test_verls_request_with_the_token_from_the_environment(server):
    # verl's sandbox_fusion reward: requests.post(url, headers=..., data=json.dumps(payload))
    # to the configured url; the token comes from the environment into the URL's user-info.
    environ = {"SANDBOX_TOKEN": TOKEN}
    url = _with_userinfo(server.url, environ["SANDBOX_TOKEN"]) + "/run_code"
    payload = {
        "compile_timeout": 10,
        "run_timeout": 10,
        "code": "print(int(input()) * 2)",
        "stdin": "21",
        "memory_limit_MB": 1024,
        "language": "python",
        "files": {},
        "fetch_files": [],
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    response = requests.post(url, headers=headers, data=json.dumps(payload), timeout=30)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "Success"
    assert response.json()["run_result"]["stdout"] == "42\n"


def test_the_token_never_reaches_the_log(server):
    for token in (TOKEN, WRONG):
        for base, headers in _forms(server.url, token).values():
            requests.get(f"{base}/v1/info", headers=headers, timeout=30)
            requests.get(f"{base}/no-such-path", headers=headers, timeout=30)
    log = server.log()
    assert "auth token (bearer, basic, path)" in log
    assert TOKEN not in log and WRONG not in log


def test_loopback_addresses():
    assert all(map(is_loopback, ["127.0.0.1", "127.8.0.1", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "10.1.2.3", "example.org"]))


def test_a_non_loopback_bind_needs_a_token_or_the_explicit_flag():
    with pytest.raises(UsageError, match="`insecure_no_auth`"):
        check_bind("0.0.0.0", None, False)
    check_bind("0.0.0.0", TOKEN, False)
    check_bind("0.0.0.0", None, True)
    check_bind("127.0.0.1", None, False)


def test_execrl_serve_on_a_non_loopback_address_without_a_token_exits_2():
    environ = {k: v for k, v in os.environ.items() if k != "EXECRL_SERVICE_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "execrl.cli.main", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environ,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--insecure-no-auth" in lines[0] and "--token" in lines[0]
    assert "Traceback" not in done.stderr
