"""SandboxFusion's API complete (issue 31, item 7): its languages, wall-clock timeouts,
``compile_result``, ``files`` and ``fetch_files``; ``/submit`` in any language, built once; the
native API carrying language, build, files and fetch. The translation functions on their own,
then SandboxFusion's own ``/run_code`` examples sent with the official ``sandbox_fusion``
client to a real ``execrl serve``."""

from __future__ import annotations

import base64
import secrets

import httpx
import pytest

from execrl.problems.models import StdioTest
from execrl.sandbox.builds import BuildInfo, BuildOptions
from execrl.sandbox.languages import LANGUAGES, probe
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status, TestResult
from execrl.service.remote import RemoteExecutor
from execrl.service.sandbox_fusion import (
    SubmitRequest,
    compile_result_of,
    extract_code,
    run_code_outcome,
    submission,
)
from execrl.service.sandbox_fusion_io import (
    LANGUAGE_NAMES,
    MAX_FILES_TOTAL_BYTES,
    build_options,
    decode_files,
    encode_fetched,
    fetch_paths,
    run_limits,
    sandbox_language,
    working_path,
)

sandbox_fusion = pytest.importorskip("sandbox_fusion")
from tests.service._server import running_server  # noqa: E402

SLOW_BUILD_S = 120
"""compile_timeout and run_timeout for the JVM and compilers in these tests: generous, as a
loaded CI machine needs (javac took 4 s of wall clock for 0.9 s of CPU beside other suites)."""


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def unb64(text: str) -> str:
    return base64.b64decode(text).decode()


# -- names, limits, paths -----------------------------------------------------------------------


def test_sandbox_fusion_names_map_to_execrl_rows():
    assert {"python", "cpp", "java", "rust", "go", "nodejs"} <= set(LANGUAGE_NAMES)
    names = {n: sandbox_language(n).name for n in ("python", "cpp", "java", "nodejs", "js")}
    assert names == {
        "python": "python",
        "cpp": "cpp",
        "java": "java",
        "nodejs": "javascript",
        "js": "javascript",
    }
    for unknown in ("php", "python3", "c++", 3):
        with pytest.raises(ValueError, match="execrl serve runs cpp, "):
            sandbox_language(unknown)


def test_timeouts_are_wall_clock_with_a_cpu_limit_added_never_substituted():
    limits = run_limits(0.1)
    assert (limits.wall_limit_s, limits.cpu_time_s, limits.memory_mb) == (0.1, 0.2, 1024)
    assert run_limits(600).cpu_time_s == 600  # (Limits' bound)
    options = build_options(7)
    assert (options.profile, options.compile_wall_s, options.compile_cpu_s) == (
        "sandboxfusion",
        7,
        14,
    )


@pytest.mark.parametrize(
    ("name", "inside"),
    [
        ("a.txt", "a.txt"),
        ("./a.txt", "a.txt"),
        ("dir1/dir2/dir3/secret_flag", "dir1/dir2/dir3/secret_flag"),
        ("/mnt/b", "b"),
        ("/mnt/data/x.in", "data/x.in"),
    ],
)
def test_paths_name_the_working_directory(name, inside):
    assert working_path(name) == inside


@pytest.mark.parametrize(
    "name", ["../x", "a/../../x", "/etc/x", "/etc/passwd", "/mnt/../etc/x", "", "a//b", "/mnt/"]
)
def test_paths_outside_the_working_directory_are_refused(name):
    with pytest.raises(ValueError, match="not a path inside the working directory"):
        working_path(name)
    with pytest.raises(ValueError, match="not a path inside"):
        decode_files({name: b64("x")})


def test_files_are_base64_bounded_and_null_is_skipped():
    assert decode_files({"a": b64("hi"), "skip": None, "/mnt/c": ""}) == {"a": b"hi", "c": b""}
    with pytest.raises(ValueError, match="'a' is not base64"):
        decode_files({"a": "not base64!"})
    with pytest.raises(ValueError, match="given twice"):
        decode_files({"a": b64("1"), "./a": b64("2")})
    assert MAX_FILES_TOTAL_BYTES == 64 * 1024 * 1024  # the native runner's bound
    with pytest.raises(ValueError, match="more than 10 bytes"):
        decode_files({"a": b64("123456"), "b": b64("78901")}, max_bytes=10)


def test_fetched_files_come_back_by_the_name_asked_for():
    paths = fetch_paths(["a.txt", "/mnt/b", "missing"])
    assert paths == {"a.txt": "a.txt", "/mnt/b": "b", "missing": "missing"}
    fetched = encode_fetched(paths, {"a.txt": b"secret", "b": b"sauce", "other": b"x"})
    assert {name: unb64(text) for name, text in fetched.items()} == {
        "a.txt": "secret",
        "/mnt/b": "sauce",
    }
    with pytest.raises(ValueError, match="in a folder"):
        fetch_paths(["out/result.txt"])


# -- compile_result and a build failure ----------------------------------------------------------


def build_info(status, detail="", seconds=0.5) -> BuildInfo:
    command = ["g++", "-std=c++17", "main.cpp", "-o", "main"]
    return BuildInfo(status=status, language="cpp", command=command, detail=detail, seconds=seconds)


@pytest.mark.parametrize(
    ("status", "detail", "expected"),
    [
        ("ok", "warning: unused", ("Finished", 0, "warning: unused")),
        ("compile_error", "main.cpp:1: error: x", ("Finished", 1, "main.cpp:1: error: x")),
        ("compile_error", "the compiler exited with code 4", ("Finished", 4, None)),
        ("compile_error", "the compiler was killed by signal 9", ("Finished", -9, None)),
        (
            "compile_timeout",
            "the build ran past its limit (wall); ",
            ("TimeLimitExceeded", None, None),
        ),
        ("language_unavailable", "the build's sandbox failed: x", ("Error", None, None)),
    ],
)
def test_a_build_reads_as_sandbox_fusions_compile_result(status, detail, expected):
    result = compile_result_of(build_info(status, detail))
    assert (result.status, result.return_code) == expected[:2]
    assert result.stderr == (expected[2] if expected[2] is not None else detail)
    assert (result.execution_time, result.stdout) == (0.5, "")


def test_no_compile_result_for_an_interpreted_language_or_a_missing_toolchain():
    assert compile_result_of(None) is None
    assert compile_result_of(BuildInfo(status="ok", language="javascript")) is None
    missing = BuildInfo(status="language_unavailable", language="go", detail="go: not on PATH")
    assert compile_result_of(missing) is None


def test_a_build_failure_is_failed_with_compile_result_and_no_run_result():
    result = TestResult(test_id="capture", status=Status.COMPILE_ERROR, detail="main.cpp: error")
    response = run_code_outcome(result, "", build=build_info("compile_error", "main.cpp: error"))
    assert response.status == "Failed"
    assert response.run_result is None
    assert (response.compile_result.return_code, response.compile_result.stderr) == (
        1,
        "main.cpp: error",
    )
    ok = TestResult(test_id="capture", status=Status.SUCCESS)
    built = run_code_outcome(ok, "6\n", stderr="", exit_code=0, build=build_info("ok"))
    assert (built.status, built.compile_result.return_code, built.run_result.stdout) == (
        "Success",
        0,
        "6\n",
    )


# -- /submit in another language -----------------------------------------------------------------

CPP_ADD = """#include <iostream>
int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }
"""
CPP_ROW = {
    "id": 11,
    "test": [
        {"input": {"stdin": "1 2\n"}, "output": {"stdout": "3\n"}},
        {"input": {"stdin": "-5 11\n"}, "output": {"stdout": "6\n"}},
        {"input": {"stdin": "40 2\n"}, "output": {"stdout": "42\n"}},
    ],
}


def cpp_completion(source: str) -> str:
    return f"Notes:\n```text\nnot code\n```\nSolution:\n```cpp\n{source}```\n"


def test_the_block_tagged_with_the_language_is_extracted():
    completion = "```python\nprint(1)\n```\n```c++\nint main() {}\n```"
    assert extract_code(completion, LANGUAGES["cpp"]) == ("int main() {}", "fenced")
    assert extract_code(completion) == ("print(1)", "fenced")
    # definitions found in plain text are Python's only
    assert extract_code("def f():\n    return 1\n", LANGUAGES["java"]) == ("", "empty")


def test_a_cpp_submission_becomes_one_cpp_request_built_with_sandbox_fusions_commands():
    body = SubmitRequest(
        dataset="mine",
        id=11,
        completion=cpp_completion(CPP_ADD),
        config={"language": "cpp", "provided_data": CPP_ROW, "compile_timeout": 30},
    )
    request = submission(body).request
    assert (request.language, request.build.profile, request.build.compile_wall_s) == (
        "cpp",
        "sandboxfusion",
        30,
    )
    assert request.program == CPP_ADD.rstrip("\n")
    assert len(request.tests) == 3


# -- against a real `execrl serve` ----------------------------------------------------------------

needs_cpp = pytest.mark.skipif(not probe("cpp").installed, reason="g++ is not installed")
needs_java = pytest.mark.skipif(not probe("java").installed, reason="javac is not installed")


@pytest.fixture(scope="module")
def server():
    with running_server(workers=1) as running:
        yield running


@pytest.fixture(scope="module")
def own_root(server) -> bool:
    """Whether the server's sandbox has its own root (where /mnt is the working directory)."""
    return "readonly-root" in httpx.get(f"{server.url}/v1/info").json()["isolation"]


def client_run(server, code: str, language: str = "python", **fields):
    request = sandbox_fusion.RunCodeRequest(code=code, language=language, **fields)
    return sandbox_fusion.run_code(request, endpoint=server.url, max_attempts=1)


# SandboxFusion's seven /run_code examples (sandbox/tests/runners/test_python.py), as written
# there, sent with its official client.


def test_sandbox_fusion_python_print(server):
    result = client_run(server, "print(123)", run_timeout=5)
    assert result.status == sandbox_fusion.RunStatus.Success
    assert result.run_result.stdout.strip() == "123"


def test_sandbox_fusion_python_timeout_is_wall_clock(server):
    result = client_run(server, "import time; time.sleep(0.2)", run_timeout=0.1)
    assert result.status == sandbox_fusion.RunStatus.Failed
    assert result.run_result.status == sandbox_fusion.CommandRunStatus.TimeLimitExceeded


def test_sandbox_fusion_python_assertion_error(server):
    result = client_run(server, "assert 1 == 2", run_timeout=5)
    assert result.status == sandbox_fusion.RunStatus.Failed
    assert result.run_result.status == sandbox_fusion.CommandRunStatus.Finished
    assert "AssertionError" in result.run_result.stderr


def test_sandbox_fusion_python_syntax_error(server):
    result = client_run(server, "int a = 1", run_timeout=5)
    assert result.status == sandbox_fusion.RunStatus.Failed
    assert result.run_result.status == sandbox_fusion.CommandRunStatus.Finished
    assert "SyntaxError: invalid syntax" in result.run_result.stderr


def test_sandbox_fusion_python_file_read(server):
    result = client_run(
        server,
        'print(open("dir1/dir2/dir3/secret_flag").read())',
        run_timeout=5,
        files={"dir1/dir2/dir3/secret_flag": "ImhlbGxvLCB0aGlzIGlzIGEgdGVzdCI="},
    )
    assert result.status == sandbox_fusion.RunStatus.Success
    assert result.run_result.status == sandbox_fusion.CommandRunStatus.Finished
    assert "hello, this is a test" in result.run_result.stdout


def test_sandbox_fusion_python_stdin(server):
    result = client_run(server, "print(int(input()))", run_timeout=5, stdin="65535")
    assert result.status == sandbox_fusion.RunStatus.Success
    assert result.run_result.status == sandbox_fusion.CommandRunStatus.Finished
    assert result.run_result.stdout == "65535\n"


def test_sandbox_fusion_python_fetch_files(server, own_root):
    if not own_root:
        pytest.skip("/mnt is the working directory only in a sandbox with its own root")
    result = client_run(
        server,
        'open("a.txt", "w").write("secret"); open("/mnt/b", "w").write("sauce");',
        run_timeout=5,
        fetch_files=["a.txt", "/mnt/b"],
    )
    assert result.status == sandbox_fusion.RunStatus.Success
    assert result.run_result.status == sandbox_fusion.CommandRunStatus.Finished
    assert base64.b64decode(result.files["a.txt"].encode()).decode() == "secret"
    assert base64.b64decode(result.files["/mnt/b"].encode()).decode() == "sauce"


# Compiled languages, with SandboxFusion's fields.


@needs_cpp
def test_cpp_returns_compile_result_and_run_result(server):
    token = secrets.token_hex(4)  # a new source: a real build, not the cache's
    code = f"// {token}\n" + CPP_ADD
    result = client_run(
        server, code, "cpp", stdin="20 22\n", compile_timeout=SLOW_BUILD_S, run_timeout=10
    )
    assert result.status == sandbox_fusion.RunStatus.Success
    compiled, run = result.compile_result, result.run_result
    assert (compiled.status, compiled.return_code) == ("Finished", 0)
    assert compiled.execution_time > 0
    assert (run.status, run.return_code, run.stdout, run.stderr) == ("Finished", 0, "42\n", "")
    assert run.execution_time is not None and result.files == {}


@needs_cpp
def test_cpp_files_and_fetch_files(server):
    code = (
        "#include <fstream>\n#include <iostream>\nint main() {\n"
        '  std::ifstream in("data/in.txt"); long long a, b; in >> a >> b;\n'
        '  std::ofstream("out.txt") << a * b << "\\n";\n'
        '  std::cerr << "done" << std::endl; return 3;\n}\n'
    )
    result = client_run(
        server,
        code,
        "cpp",
        files={"data/in.txt": b64("6 7\n")},
        fetch_files=["out.txt", "never-written.txt"],
        compile_timeout=SLOW_BUILD_S,
        run_timeout=10,
    )
    assert result.status == sandbox_fusion.RunStatus.Failed  # exit code 3
    assert (result.run_result.return_code, result.run_result.stderr) == (3, "done\n")
    assert {name: unb64(text) for name, text in result.files.items()} == {"out.txt": "42\n"}


@needs_cpp
def test_cpp_compile_error_is_failed_with_the_compilers_stderr(server):
    result = client_run(
        server, "int main( {\n", "cpp", compile_timeout=SLOW_BUILD_S, run_timeout=10
    )
    assert result.status == sandbox_fusion.RunStatus.Failed
    assert result.run_result is None
    assert result.compile_result.status == sandbox_fusion.CommandRunStatus.Finished
    assert result.compile_result.return_code == 1
    assert "error" in result.compile_result.stderr
    summary = sandbox_fusion.SummaryMapping(CompileFailed="CE")
    assert sandbox_fusion.summary_run_code_result(result, summary) == "CE"


@needs_java
def test_java_returns_compile_result_and_run_result(server):
    code = (
        "import java.util.Scanner;\npublic class Main {\n"
        "  public static void main(String[] args) {\n"
        "    Scanner in = new Scanner(System.in);\n"
        "    System.out.println(in.nextInt() * 2);\n  }\n}\n"
    )
    result = client_run(
        server, code, "java", stdin="21\n", compile_timeout=SLOW_BUILD_S, run_timeout=60
    )
    assert result.status == sandbox_fusion.RunStatus.Success
    assert (result.compile_result.status, result.compile_result.return_code) == ("Finished", 0)
    assert (result.run_result.return_code, result.run_result.stdout) == (0, "42\n")


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"files": {"../x": b64("x")}}, "'../x' is not a path inside"),
        ({"files": {"/etc/x": b64("x")}}, "'/etc/x' is not a path inside"),
        ({"fetch_files": ["../../etc/passwd"]}, "is not a path inside"),
        ({"files": {"a": "***"}}, "not base64"),
        ({"language": "php"}, "execrl serve runs"),
    ],
)
def test_traversal_and_bad_files_are_refused_with_a_422(server, fields, words):
    body = {"code": "print(1)", "language": "python", **fields}
    response = httpx.post(f"{server.url}/run_code", json=body, timeout=30)
    assert response.status_code == 422
    assert words in response.text


@needs_cpp
def test_submit_builds_a_cpp_program_once_for_all_its_tests(server):
    token = secrets.token_hex(4)
    source = f"// {token}\n{CPP_ADD}"

    def submit():
        config = sandbox_fusion.TestConfig(
            language="cpp", provided_data=CPP_ROW, compile_timeout=SLOW_BUILD_S
        )
        request = sandbox_fusion.SubmitRequest(
            dataset="mine", id=11, completion=cpp_completion(source), config=config
        )
        return sandbox_fusion.submit(request, endpoint=server.url, max_attempts=1)

    first = submit()
    assert (first.accepted, len(first.tests)) == (True, 3)
    assert first.extra["build"]["cached"] is False  # built by this submission, once
    compiled = {case.exec_info.compile_result.json() for case in first.tests}
    assert len(compiled) == 1  # every test reports that one build
    again = submit()
    assert again.accepted and again.extra["build"]["cached"] is True
    wrong = source.replace("a + b", "a * b")
    config = sandbox_fusion.TestConfig(
        language="cpp", provided_data=CPP_ROW, compile_timeout=SLOW_BUILD_S
    )
    request = sandbox_fusion.SubmitRequest(
        dataset="mine", id=11, completion=cpp_completion(wrong), config=config
    )
    rejected = sandbox_fusion.submit(request, endpoint=server.url, max_attempts=1)
    assert [case.passed for case in rejected.tests] == [False, False, False]


@needs_cpp
def test_submit_of_a_program_that_does_not_build_fails_every_test_with_compile_result(server):
    config = sandbox_fusion.TestConfig(
        language="cpp", provided_data=CPP_ROW, compile_timeout=SLOW_BUILD_S
    )
    request = sandbox_fusion.SubmitRequest(
        dataset="mine", id=11, completion=cpp_completion("int main( {\n"), config=config
    )
    result = sandbox_fusion.submit(request, endpoint=server.url, max_attempts=1)
    assert not result.accepted
    for case in result.tests:
        assert (case.passed, case.exec_info.status, case.exec_info.run_result) == (
            False,
            "Failed",
            None,
        )
        assert case.exec_info.compile_result.return_code == 1


# The native API.


@needs_cpp
def test_remote_capture_streams_carries_language_build_files_and_fetch(server):
    code = (
        "#include <fstream>\n#include <iostream>\nint main() {\n"
        '  std::ifstream in("in.txt"); std::string w; in >> w;\n'
        '  std::ofstream("out.bin") << w << w; std::cout << w.size() << std::endl;\n}\n'
    )
    options = BuildOptions(profile="sandboxfusion", compile_wall_s=SLOW_BUILD_S)
    with RemoteExecutor(server.url) as remote:
        captured = remote.capture_streams(
            code,
            "",
            Limits(cpu_time_s=10),
            language="c++",
            build=options,
            files={"in.txt": b"abc"},
            fetch=["*.bin"],
        )
    assert (captured.result.status, captured.stdout, captured.exit_code) == (
        Status.SUCCESS,
        "3\n",
        0,
    )
    assert captured.files == {"out.bin": b"abcabc"}
    assert (captured.build.language, captured.build.profile, captured.build.status) == (
        "cpp",
        "sandboxfusion",
        "ok",
    )


def test_the_native_capture_refuses_a_file_outside_the_working_directory(server):
    body = {"program": "print(1)", "files": {"../x": b64("x")}}
    response = httpx.post(f"{server.url}/v1/capture", json=body, timeout=30)
    assert response.status_code == 422
    assert "'../x' must be a relative path" in response.text


@needs_cpp
def test_a_cpp_request_through_the_server_gives_the_same_record_as_local(server):
    request = ExecutionRequest(
        program=CPP_ADD,
        tests=[StdioTest(id=f"t{i}", **_io(c)) for i, c in enumerate(CPP_ROW["test"])]
        + [StdioTest(id="wrong", input="1 1\n", output="3\n")],
        language="c++",
        build=BuildOptions(compile_wall_s=SLOW_BUILD_S),
        limits=Limits(cpu_time_s=10),
    )
    with RemoteExecutor(server.url) as remote:
        remote_record = remote.execute(request)
    with LocalExecutor(workers=1) as local:
        local_record = local.execute(request)
    for record in (remote_record, local_record):
        assert record.language == "cpp" and record.build.status == "ok"
    assert remote_record.build.command == local_record.build.command
    assert remote_record.build.artifact_sha256 == local_record.build.artifact_sha256

    def verdicts(record):
        return [(r.test_id, r.status, r.detail) for r in record.results]

    assert verdicts(remote_record) == verdicts(local_record)
    assert [status for _, status, _ in verdicts(local_record)] == [Status.SUCCESS] * 3 + [
        Status.WRONG_ANSWER
    ]


def _io(case: dict) -> dict:
    return {"input": case["input"]["stdin"], "output": case["output"]["stdout"]}


JAVA_ADD = (
    "import java.util.Scanner;\npublic class Main {\n"
    "  public static void main(String[] args) {\n"
    "    Scanner in = new Scanner(System.in);\n"
    "    System.out.println(in.nextLong() + in.nextLong());\n  }\n}\n"
)


@pytest.mark.parametrize(
    ("language", "code"),
    [
        pytest.param("cpp", CPP_ADD, marks=needs_cpp),
        pytest.param("java", JAVA_ADD, marks=needs_java),
    ],
)
def test_the_json_verl_posts_for_cpp_and_java_reads_as_verl_expects(server, language, code):
    # verl's call_sandbox_api body (verl/utils/reward_score/sandbox_fusion), its language
    # taken from the data; verl reads status, run_result.stdout and compile_result
    body = {
        "compile_timeout": SLOW_BUILD_S,
        "run_timeout": 60,
        "code": code,
        "stdin": "40 2\n",
        "memory_limit_MB": 1024,
        "language": language,
        "files": {},
        "fetch_files": [],
    }
    response = httpx.post(f"{server.url}/run_code", json=body, timeout=2 * SLOW_BUILD_S + 70)
    response.raise_for_status()
    answer = response.json()
    assert answer["status"] == "Success"
    assert answer["run_result"]["stdout"] == "42\n"
    assert answer["compile_result"]["status"] == "Finished"
    assert answer["compile_result"]["return_code"] == 0
