"""The SandboxFusion-compatible endpoints: the translation functions on their own, then the
official ``sandbox_fusion`` client (unmodified) and the exact JSON verl posts, against a real
``execrl serve`` subprocess."""

from __future__ import annotations

import asyncio
import json
import secrets

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from execrl.problems.models import AssertTest, CallTest, StdioTest
from execrl.sandbox.records import Status, TestResult
from execrl.service.sandbox_fusion import (
    SUBMIT_RUN_TIMEOUT_S,
    RunCodeRequest,
    SubmitError,
    SubmitRequest,
    TestConfig,
    extract_code,
    run_code_outcome,
    run_limits,
    submission,
)

sandbox_fusion = pytest.importorskip("sandbox_fusion")
from tests.service._server import running_server  # noqa: E402

# -- verdicts as SandboxFusion reports them ------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "detail", "expected"),
    [
        (Status.SUCCESS, "", ("Success", "Finished", 0, "")),
        (Status.RUNTIME_ERROR, "exit code 3", ("Failed", "Finished", 3, "")),
        (Status.RUNTIME_ERROR, "ValueError: bad", ("Failed", "Finished", 1, "ValueError: bad")),
        (Status.RUNTIME_ERROR, "killed by SIGSEGV", ("Failed", "Finished", -11, "")),
        (
            Status.RUNTIME_ERROR,
            "killed by SIGKILL; stderr: last words",
            ("Failed", "Finished", -9, "last words"),
        ),
        (Status.COMPILE_ERROR, "SyntaxError: x", ("Failed", "Finished", 1, "SyntaxError: x")),
        (Status.MEMORY_LIMIT, "MemoryError", ("Failed", "Finished", 1, "MemoryError")),
        (Status.OUTPUT_LIMIT, "output exceeded max_output_bytes", ("Failed", "Finished", -9, "")),
        (Status.TIMEOUT, "CPU time limit 1 s exceeded", ("Failed", "TimeLimitExceeded", None, "")),
        (Status.WRONG_ANSWER, "token 0: got '4'", ("Success", "Finished", 0, "")),
    ],
)
def test_each_verdict_reads_as_sandbox_fusion_reports_it(status, detail, expected):
    result = TestResult(test_id="t", status=status, detail=detail, wall_s=0.25, cpu_s=0.2)
    response = run_code_outcome(result, "out\n")
    run = response.run_result
    assert (response.status, run.status, run.return_code, run.stderr) == expected
    assert (run.stdout, run.execution_time, run.cpu_time) == ("out\n", 0.25, 0.2)
    assert response.compile_result is None  # Python is not compiled in SandboxFusion either
    assert response.message == ("" if expected[0] == "Success" else f"{status.value}: {detail}")


def test_an_inconclusive_run_is_a_sandbox_error_never_a_failed_run():
    result = TestResult(test_id="t", status=Status.INCONCLUSIVE, detail="fork server crashed")
    response = run_code_outcome(result, "")
    assert response.status == "SandboxError"
    assert response.message == "fork server crashed"
    assert (response.run_result.status, response.run_result.return_code) == ("Error", None)


def test_a_failed_assertion_of_test_code_is_an_exit_with_code_1():
    result = TestResult(test_id="t", status=Status.WRONG_ANSWER, detail="AssertionError")
    response = run_code_outcome(result, None, assertion_exits=True)
    assert (response.status, response.run_result.return_code) == ("Failed", 1)
    assert response.run_result.stderr == "AssertionError"


def test_run_timeout_is_the_wall_clock_limit_and_memory_limit_applies_when_positive():
    limits = run_limits(3.0, 256)  # SandboxFusion's meaning; a CPU limit is only added
    assert (limits.wall_time_s, limits.cpu_time_s, limits.memory_mb) == (3.0, 6.0, 256)
    assert run_limits(3.0, -1).memory_mb == run_limits(3.0, 0).memory_mb == 1024


# -- requests refused with the field named ---------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"language": "php"}, "language"),  # SandboxFusion's, without a row in execrl
        ({"language": "python3"}, "language"),  # SandboxFusion refuses it too
        ({"files": {"../data.txt": "aGVsbG8="}}, "files"),
        ({"fetch_files": ["/etc/passwd"]}, "fetch_files"),
        ({"run_timeout": 0}, "run_timeout"),
        ({"code": "print('\ud800')"}, "code"),  # a lone surrogate reaches no program
    ],
)
def test_what_execrl_cannot_do_is_refused_naming_the_field(fields, field):
    with pytest.raises(ValueError, match=field):
        RunCodeRequest.model_validate({"code": "pass", "language": "python", **fields})


def test_a_file_without_content_is_skipped_as_sandbox_fusion_skips_it():
    request = RunCodeRequest(code="pass", language="python", files={"IGNORE_THIS_FILE": None})
    assert request.files == {"IGNORE_THIS_FILE": None}


# -- code extraction ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        ("Here:\n```python\nprint(1)\n```\n", ("print(1)", "fenced")),
        ("```text\nnotes\n```\n```py\nprint(2)\n```", ("print(2)", "fenced")),
        ("```\nprint(3)\n```\n```\nprint(4)\n```", ("print(3)", "fenced")),
        ("```python\nprint(5)\n", ("print(5)\n", "incomplete_fenced")),
        ("So:\ndef f(x):\n    return x\n\nDone.", ("def f(x):\n    return x\n", "heuristic")),
        ("print(6)", ("", "empty")),
    ],
)
def test_code_is_extracted_as_sandbox_fusion_extracts_it(completion, expected):
    assert extract_code(completion) == expected


# -- /submit rows as execrl requests --------------------------------------------------------

ADD_STDIO_ROW = {
    "id": 7,
    "content": "Print the sum of two integers.",
    "test": [
        {"input": {"stdin": "1 2\n"}, "output": {"stdout": "3\n"}},
        {"input": {"stdin": "-5 11\n"}, "output": {"stdout": "6\n"}},
    ],
}
ADD_STDIO = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
ADD_STDIO_WRONG = "```python\na, b = map(int, input().split())\nprint(a * b)\n```"
ADD_MBPP_ROW = {
    "id": "add-1",
    "test": json.dumps(["assert add(1, 2) == 3", "assert add(-5, 11) == 6"]),
    "labels": json.dumps({"test_setup_code": "import math"}),
}
ADD_FUNCTION = "```python\ndef add(a, b):\n    return a + b\n```"
ADD_FUNCTION_WRONG = "```python\ndef add(a, b):\n    return a - b\n```"
ADD_CALL_ROW = {"id": 9, "input_output": {"fn_name": "add", "inputs": [[1, 2], [-5, 11]]}}
ADD_CALL_ROW["input_output"]["outputs"] = [[3], [6]]


def submit_body(row, completion, *, problem_id=None, **config) -> SubmitRequest:
    config = {"language": "python", "provided_data": row, **config}
    problem_id = row["id"] if problem_id is None else problem_id
    return SubmitRequest(dataset="mine", id=problem_id, completion=completion, config=config)


def test_a_common_oj_row_becomes_stdio_tests():
    judged = submission(submit_body(ADD_STDIO_ROW, ADD_STDIO))
    assert judged.request.tests == [
        StdioTest(id="test-0", input="1 2\n", output="3\n"),
        StdioTest(id="test-1", input="-5 11\n", output="6\n"),
    ]
    assert judged.request.program == "a, b = map(int, input().split())\nprint(a + b)"
    assert judged.request.limits.wall_time_s == SUBMIT_RUN_TIMEOUT_S
    assert judged.tests.test_info == ADD_STDIO_ROW["test"]


def test_an_mbpp_row_becomes_one_assert_test_with_its_setup_code():
    judged = submission(submit_body(ADD_MBPP_ROW, ADD_FUNCTION, run_timeout=2))
    code = "assert add(1, 2) == 3\nassert add(-5, 11) == 6"
    assert judged.request.tests == [AssertTest(id="test-0", code=code, entry_point="add")]
    assert (judged.request.prelude, judged.request.limits.wall_time_s) == ("import math", 2)


def test_an_autoeval_row_runs_its_test_code_after_the_program():
    row = {"id": 1, "test": {"code": "assert add(2, 2) == 4"}, "labels": {}}
    judged = submission(submit_body(row, ADD_FUNCTION, dataset_type="AutoEvalDataset"))
    assert judged.request.tests == [
        AssertTest(id="test-0", code="assert add(2, 2) == 4", entry_point="add")
    ]


def test_an_input_output_row_with_fn_name_becomes_call_tests():
    judged = submission(submit_body(ADD_CALL_ROW, ADD_FUNCTION))
    assert judged.request.tests == [
        CallTest(id="test-0", fn_name="add", args=[1, 2], expected=3, also_accept=[[3]]),
        CallTest(id="test-1", fn_name="add", args=[-5, 11], expected=6, also_accept=[[6]]),
    ]
    assert judged.request.checker.kind == "apps"


def test_a_null_stdin_or_stdout_is_empty_text():
    row = {"id": 7, "test": [{"input": {"stdin": None}, "output": {"stdout": None}}]}
    tests = submission(submit_body(row, ADD_STDIO)).request.tests
    assert tests == [StdioTest(id="test-0", input="", output="")]


def test_the_row_is_found_by_id_in_a_list():
    other = {**ADD_STDIO_ROW, "id": 8, "test": ADD_STDIO_ROW["test"][:1]}
    body = submit_body([other, ADD_STDIO_ROW], ADD_STDIO, problem_id="7")
    assert len(submission(body).request.tests) == 2


@pytest.mark.parametrize(
    ("row", "config", "status", "words"),
    [
        (None, {}, 404, "keeps no datasets"),
        (ADD_STDIO_ROW, {"dataset_type": "HumanEvalDataset"}, 400, "HumanEvalDataset"),
        ([{"id": 3, "test": []}], {}, 422, "no row with id 7"),
        ({"id": 7, "test": []}, {}, 422, "no tests"),
        ({"id": 7, "test": 5}, {}, 422, "a row needs 'test'"),
        ({"id": 7, "test": "[not json"}, {}, 422, "not valid JSON"),
        (
            {"id": 7, "test": [{"input": {"stdin": "", "a.txt": "x"}, "output": {"stdout": ""}}]},
            {},
            400,
            "files ['a.txt']",
        ),
        ({"id": 7, "test": {"code": "pass", "asset": {"a": "eA=="}}}, {}, 400, "files"),
        (
            {"id": 7, "test": {"code": "pass"}, "labels": {"execution_language": "cpp"}},
            {},
            400,
            "'cpp'",
        ),
        ({"id": 7, "test": ["assert f()"], "labels": {"test_setup_code": 5}}, {}, 422, "prelude"),
        (
            {"id": 7, "input_output": {"inputs": [[1]], "outputs": [1], "fn_name": 5}},
            {},
            422,
            "fn_name",
        ),
    ],
)
def test_a_submit_that_cannot_be_judged_is_a_4xx_naming_why(row, config, status, words):
    body = SubmitRequest(
        dataset="mine", id=7, completion=ADD_STDIO, config={"provided_data": row, **config}
    )
    with pytest.raises(SubmitError, match=words.replace("[", r"\[")) as caught:
        submission(body)
    assert caught.value.status == status
    assert caught.value.http().status_code == status


_KEYS = ["stdin", "stdout", "input", "output", "code", "asset", "inputs", "outputs", "fn_name"]
_KEYS += ["test_setup_code", "execution_language"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner),
    max_leaves=12,
)
fields = json_values | json_values.map(json.dumps)
rows = st.fixed_dictionaries(
    {"id": st.just(7)},
    optional={"test": fields, "input_output": fields, "labels": fields},
)
types = st.sampled_from([None, "CommonOJDataset", "AutoEvalDataset", "MBPPDataset"])


@settings(max_examples=300, deadline=None)
@given(row=rows, kind=types, completion=st.sampled_from([ADD_STDIO, ADD_FUNCTION, "", "x"]))
def test_any_row_is_judged_or_refused_with_a_4xx(row, kind, completion):
    body = submit_body(row, completion, dataset_type=kind)
    try:
        judged = submission(body)
    except SubmitError as exc:
        assert exc.status in (400, 404, 422)
    else:
        assert len(judged.request.tests) == len(judged.tests.test_info) > 0


def test_custom_extract_logic_is_refused_it_would_run_in_the_server():
    with pytest.raises(ValueError, match="custom_extract_logic"):
        TestConfig(custom_extract_logic="submit_code_blocks([])")


# -- against a real `execrl serve` ------------------------------------------------------------


@pytest.fixture(scope="module")
def server():
    with running_server(workers=2) as running:
        yield running


def run_code(server, code: str, **fields):
    request = sandbox_fusion.RunCodeRequest(code=code, **{"language": "python", **fields})
    return sandbox_fusion.run_code(request, endpoint=server.url, max_attempts=1)


def test_client_run_code_success_echoes_stdin(server):
    token = secrets.token_hex(8)
    response = run_code(server, "print(input()[::-1])", stdin=token)
    assert response.status == sandbox_fusion.RunStatus.Success
    assert response.run_result.status == sandbox_fusion.CommandRunStatus.Finished
    assert (response.run_result.return_code, response.run_result.stdout) == (0, token[::-1] + "\n")
    assert response.compile_result is None
    assert response.executor_pod_name


def test_client_run_code_non_zero_exit_is_failed_with_its_code(server):
    response = run_code(server, "print('partial')\nraise SystemExit(3)")
    assert response.status == sandbox_fusion.RunStatus.Failed
    assert response.run_result.status == sandbox_fusion.CommandRunStatus.Finished
    assert (response.run_result.return_code, response.run_result.stdout) == (3, "partial\n")


def test_client_run_code_exception_reports_it_on_stderr(server):
    response = run_code(server, "print('before')\n1 / 0")
    assert response.status == sandbox_fusion.RunStatus.Failed
    assert response.run_result.return_code == 1
    assert response.run_result.stdout == "before\n"
    assert "ZeroDivisionError: division by zero" in response.run_result.stderr


def test_client_run_code_returns_the_whole_stderr_and_the_true_exit_code(server):
    # read from the verdict alone, this was return code 1 and only stderr's last line
    code = "import sys\nprint('warn 1', file=sys.stderr)\nprint('warn 2', file=sys.stderr)\n"
    response = run_code(server, code + "sys.exit(3)")
    assert response.status == sandbox_fusion.RunStatus.Failed
    assert response.run_result.return_code == 3
    assert response.run_result.stderr == "warn 1\nwarn 2\n"
    broken = run_code(server, "print(1\n")  # compiled elsewhere: no stderr of its own
    assert (broken.status, broken.run_result.return_code) == (sandbox_fusion.RunStatus.Failed, 1)
    assert "SyntaxError" in broken.run_result.stderr
    success = run_code(server, "import sys\nprint('note', file=sys.stderr)\nprint(7)")
    assert success.status == sandbox_fusion.RunStatus.Success
    assert (success.run_result.stdout, success.run_result.stderr) == ("7\n", "note\n")


def test_client_run_code_timeout_is_time_limit_exceeded(server):
    response = run_code(server, "while True:\n    pass", run_timeout=1)
    assert response.status == sandbox_fusion.RunStatus.Failed
    assert response.run_result.status == sandbox_fusion.CommandRunStatus.TimeLimitExceeded
    assert response.run_result.return_code is None
    assert (
        sandbox_fusion.summary_run_code_result(
            response, sandbox_fusion.SummaryMapping(RunTimeout="TLE")
        )
        == "TLE"
    )


def test_async_client_concurrent_requests_each_get_their_own_output(server):
    tokens = [secrets.token_hex(6) for _ in range(16)]

    async def run_all():
        requests = [
            sandbox_fusion.RunCodeRequest(code=f"print({token!r})", language="python")
            for token in tokens
        ]
        calls = [sandbox_fusion.run_code_async(r, endpoint=server.url) for r in requests]
        return await asyncio.gather(*calls)

    responses = asyncio.run(run_all())
    assert [r.run_result.stdout for r in responses] == [f"{token}\n" for token in tokens]


def client_submit(server, row, completion, dataset="mine"):
    config = sandbox_fusion.TestConfig(language="python", provided_data=row)
    request = sandbox_fusion.SubmitRequest(
        dataset=dataset, id=row["id"], completion=completion, config=config
    )
    return sandbox_fusion.submit(request, endpoint=server.url, max_attempts=1)


@pytest.mark.parametrize(
    ("row", "correct", "wrong", "tests"),
    [
        (ADD_STDIO_ROW, ADD_STDIO, ADD_STDIO_WRONG, 2),  # stdin/stdout
        (ADD_MBPP_ROW, ADD_FUNCTION, ADD_FUNCTION_WRONG, 1),  # call-based, assert lines
        (ADD_CALL_ROW, ADD_FUNCTION, ADD_FUNCTION_WRONG, 2),  # call-based, fn_name
    ],
    ids=["stdio", "asserts", "fn_name"],
)
def test_client_submit_accepts_the_correct_and_rejects_the_wrong(
    server, row, correct, wrong, tests
):
    accepted = client_submit(server, row, correct)
    assert (accepted.id, accepted.accepted, len(accepted.tests)) == (row["id"], True, tests)
    assert all(case.passed for case in accepted.tests)
    assert accepted.extracted_type == "fenced"
    rejected = client_submit(server, row, wrong)
    assert (rejected.accepted, len(rejected.tests)) == (False, tests)
    assert not any(case.passed for case in rejected.tests)  # a*b and a-b miss both tests
    assert all(case.exec_info.status != "SandboxError" for case in rejected.tests)


def test_client_refuses_a_language_execrl_lacks_with_the_servers_reason(server):
    with pytest.raises(Exception, match=r"422.*execrl serve runs cpp, .*'php'"):
        run_code(server, "<?php echo 1;", language="php")


def verl_payload(code: str, stdin: str | None, timeout: int = 10) -> str:
    """The body verl's ``call_sandbox_api`` builds (verl/utils/reward_score/sandbox_fusion)."""
    fields = {
        "compile_timeout": timeout,
        "run_timeout": timeout,
        "code": code,
        "stdin": stdin,
        "memory_limit_MB": 1024,
        "language": "python",
        "files": {},
        "fetch_files": [],
    }
    return json.dumps(fields)


def verl_case_result(api_response: dict, expected_output: str) -> bool | int:
    """How verl reads one case's response: True/False, -1 sandbox error, -2 runtime error,
    -3 timeout (the fields and values its ``_process_single_case`` reads)."""
    run = api_response.get("run_result") or {}
    if api_response["status"] == "SandboxError":
        return -1
    if api_response["status"] == "Failed":
        return -3 if run.get("status") == "TimeLimitExceeded" else -2
    return str(run.get("stdout") or "").rstrip("\n") == expected_output.rstrip("\n")


@pytest.mark.parametrize(
    ("code", "stdin", "expected_output", "verdict"),
    [
        ("print(sum(map(int, input().split())))", "2 3", "5", True),
        ("print(sum(map(int, input().split())))", "2 3", "6", False),
        ("import sys\nsys.exit(4)", None, "", -2),
        ("while True:\n    pass", "", "", -3),
    ],
    ids=["right", "wrong", "exit", "timeout"],
)
def test_the_exact_json_verl_posts_and_how_verl_reads_the_answer(
    server, code, stdin, expected_output, verdict
):
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    timeout = 1 if verdict == -3 else 10
    response = httpx.post(
        f"{server.url}/run_code",
        content=verl_payload(code, stdin, timeout),
        headers=headers,
        timeout=3 * timeout + 10,  # verl: compile_timeout + run_timeout + 10
    )
    response.raise_for_status()
    assert verl_case_result(response.json(), expected_output) == verdict
    assert response.json()["compile_result"] is None  # verl: not a compile error


def test_a_submit_the_server_cannot_judge_is_a_4xx_in_sandbox_fusion_style(server):
    body = {"dataset": "humaneval_python", "id": 0, "completion": "", "config": {}}
    missing = httpx.post(f"{server.url}/submit", json=body)
    assert missing.status_code == 404
    assert "keeps no datasets" in missing.json()["detail"]
    body["config"] = {"dataset_type": "HumanEvalDataset", "provided_data": {"id": 0}}
    unsupported = httpx.post(f"{server.url}/submit", json=body)
    assert unsupported.status_code == 400
    assert "HumanEvalDataset" in unsupported.json()["detail"]


def test_the_endpoints_are_in_the_openapi_document_and_ping_answers(server):
    paths = httpx.get(f"{server.url}/openapi.json").json()["paths"]
    assert {"/run_code", "/submit", "/v1/ping"} <= set(paths)
    assert httpx.get(f"{server.url}/v1/ping").json() == "pong"
