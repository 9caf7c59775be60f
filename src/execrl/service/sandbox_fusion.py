"""SandboxFusion-compatible endpoints: SandboxFusion users switch to ``execrl serve`` by
changing a URL.

``POST /run_code`` runs one program in any language of SandboxFusion's execrl has a row for
(``python``, ``cpp``, ``java``, ``rust``, ``go``, ``nodejs``), built first with SandboxFusion's
own commands (the ``sandboxfusion`` profile), with its ``files`` placed in the working
directory and its ``fetch_files`` read back, and answers SandboxFusion's ``RunCodeResponse``;
``run_timeout`` and ``compile_timeout`` are wall-clock limits, as in SandboxFusion.
``POST /submit`` judges a completion against a problem sent inline as
``config.provided_data`` (built once, run on every test) and answers its ``EvalResult``;
``GET /v1/ping`` answers ``"pong"``.
The request and response models below follow SandboxFusion's server (``sandbox/server``) and
its official client (``sandbox_fusion.models``) field for field; docs/sandbox-fusion.md lists
what is supported, what is supported differently and what is not, with the reasons.

How execrl's verdicts read in SandboxFusion's terms (``run_code_outcome``):

=================  ============  ===================  ===============================
execrl status      status        run_result.status    run_result.return_code
=================  ============  ===================  ===============================
success            Success       Finished             0
runtime_error      Failed        Finished             the exit code, or -signal
compile_error      Failed        Finished             1 (Python's SyntaxError exit)
memory_limit       Failed        Finished             1 (a MemoryError)
output_limit       Failed        Finished             -9 (killed), 1 for a file
timeout            Failed        TimeLimitExceeded    null
inconclusive       SandboxError  Error                null
=================  ============  ===================  ===============================

A sandbox failure is ``SandboxError`` (never a failed run), as SandboxFusion reports its own.
A program of a compiled language that did not build is ``Failed`` with ``compile_result``
(``Finished`` and the compiler's return code and stderr, or ``TimeLimitExceeded``) and no
``run_result``; one that built has ``compile_result`` beside its ``run_result``
(``compile_result_of``).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
from enum import StrEnum
from typing import Any, Literal, NamedTuple

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, Field, ValidationError, field_validator

from execrl.errors import LoaderError, UsageError, describe_validation_error
from execrl.problems._rows import decode_json_field
from execrl.problems.mbpp import mbpp_entry_point
from execrl.problems.models import AssertTest, Checker, StdioTest, TestCase
from execrl.problems.verl_rows import apps_tests
from execrl.sandbox.builds import BuildInfo
from execrl.sandbox.languages import LANGUAGES, Language
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, Status, TestResult
from execrl.service.sandbox_fusion_io import (
    LANGUAGE_NAMES,
    MAX_RUN_TIMEOUT_S,
    MOUNT,
    build_options,
    decode_files,
    encode_fetched,
    fetch_paths,
    run_limits,
    sandbox_language,
)

router = APIRouter(tags=["sandbox-fusion"])

SUBMIT_RUN_TIMEOUT_S = 20.0
"""``/submit``'s per-test limit when ``config.run_timeout`` is not set (SandboxFusion's)."""
COMPILE_TIMEOUT_S = 10.0
"""The build's wall-clock limit when ``compile_timeout`` is not set (SandboxFusion's)."""

# ---------------------------------------------------------------------------------------------
# SandboxFusion's wire format
# ---------------------------------------------------------------------------------------------


class RunStatus(StrEnum):
    SUCCESS = "Success"
    """The program finished with exit code 0 within its limits."""
    FAILED = "Failed"
    """The program exited non-zero, was killed, or ran out of time."""
    SANDBOX_ERROR = "SandboxError"
    """The sandbox failed, not the program (execrl's ``inconclusive``)."""


class CommandRunStatus(StrEnum):
    FINISHED = "Finished"
    ERROR = "Error"
    TIME_LIMIT_EXCEEDED = "TimeLimitExceeded"


def _known_language(value: Any) -> Any:
    """A language SandboxFusion names and execrl runs, else a message naming them."""
    if value is not None:
        sandbox_language(value)
    return value


def _unicode(value: Any) -> Any:
    """Text with a lone surrogate (a JSON ``\\ud800`` escape) can reach no program and be sent
    back in no answer: refused, naming the field."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode text (it holds a lone surrogate)") from None
    return value


class RunCodeRequest(BaseModel):
    """``POST /run_code``'s body (SandboxFusion's ``RunCodeRequest``; unknown fields are
    ignored, as SandboxFusion ignores them)."""

    code: str = Field(description="the program to run")
    language: str = Field(description=f"SandboxFusion's language name: {', '.join(LANGUAGE_NAMES)}")
    stdin: str | None = Field(default=None, description="the program's standard input")
    run_timeout: float = Field(
        default=10,
        gt=0,
        le=MAX_RUN_TIMEOUT_S,
        description="wall-clock limit of the run, seconds",
    )
    compile_timeout: float = Field(
        default=COMPILE_TIMEOUT_S,
        gt=0,
        le=1800,
        description="wall-clock limit of the build, seconds (compiled languages)",
    )
    memory_limit_MB: int = Field(
        default=-1, description="memory limit, MB on top of the interpreter; <= 0: 1024"
    )
    files: dict[str, str | None] = Field(
        default_factory=dict,
        description="path in the working directory -> base64 content (null: skipped)",
    )
    fetch_files: list[str] = Field(
        default_factory=list,
        description="files of the working directory to send back (base64, in `files`)",
    )
    args: list[str] = Field(default_factory=list, description="pytest's arguments: must be empty")

    check_language = field_validator("language", mode="before")(_known_language)
    check_text = field_validator("code", "stdin")(_unicode)

    @field_validator("files")
    @classmethod
    def _placeable(cls, files: dict[str, str | None]) -> dict[str, str | None]:
        decode_files(files)  # (decoded again to run: a ValueError here is the 422)
        return files

    @field_validator("fetch_files")
    @classmethod
    def _fetchable(cls, names: list[str]) -> list[str]:
        fetch_paths(names)
        return names

    @field_validator("args")
    @classmethod
    def _empty(cls, values: list[str]) -> list[str]:
        if values:
            raise ValueError("not supported by execrl serve (it must be empty)")
        return values

    def names_mount(self) -> bool:
        """Whether a file or fetched file is named under ``/mnt/``."""
        named = [*(n for n, c in self.files.items() if c is not None), *self.fetch_files]
        return any(name.startswith(MOUNT) for name in named)


class CommandRunResult(BaseModel):
    status: CommandRunStatus
    execution_time: float | None = None
    """Wall-clock seconds of the run."""
    cpu_time: float | None = None
    """CPU seconds (user + system) of the program, all its processes together."""
    return_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None


class RunCodeResponse(BaseModel):
    status: RunStatus
    message: str
    compile_result: CommandRunResult | None = None
    run_result: CommandRunResult | None = None
    executor_pod_name: str | None = None
    files: dict[str, str] = Field(default_factory=dict)


class TestConfig(BaseModel):
    """``/submit``'s ``config`` (SandboxFusion's ``TestConfig``)."""

    __test__ = False

    dataset_type: str | None = None
    language: str | None = None
    locale: str | None = None
    is_fewshot: bool | None = None
    compile_timeout: float | None = Field(default=None, gt=0, le=1800)
    run_timeout: float | None = Field(default=None, gt=0, le=600)
    custom_extract_logic: str | None = None
    provided_data: list[dict[str, Any]] | dict[str, Any] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    check_language = field_validator("language", mode="before")(_known_language)
    check_text = field_validator("provided_data")(_unicode)

    @field_validator("custom_extract_logic")
    @classmethod
    def _no_custom_logic(cls, value: str | None) -> str | None:
        if value is not None:
            raise ValueError(
                "not supported: SandboxFusion exec()s it in the server process, outside any "
                "sandbox; extract the code before submitting"
            )
        return value


class SubmitRequest(BaseModel):
    dataset: str
    id: int | str
    completion: str
    config: TestConfig

    check_text = field_validator("dataset", "id", "completion")(_unicode)


class EvalTestCase(BaseModel):
    passed: bool
    exec_info: RunCodeResponse
    test_info: dict[str, Any] | None = None


class EvalResult(BaseModel):
    id: int | str
    accepted: bool
    extracted_code: str
    full_code: str | None = None
    test_code: str | None = None
    tests: list[EvalTestCase]
    extracted_type: Literal["fenced", "incomplete_fenced", "heuristic", "empty"] | None = None
    extra: dict[str, Any] | None = None


# ---------------------------------------------------------------------------------------------
# /run_code: limits in, verdict out
# ---------------------------------------------------------------------------------------------


def run_code_outcome(
    result: TestResult,
    stdout: str | None,
    *,
    assertion_exits: bool = False,
    stderr: str | None = None,
    exit_code: int | None = None,
    build: BuildInfo | None = None,
) -> RunCodeResponse:
    """One execrl verdict as SandboxFusion's response (the table in the module docstring).

    ``assertion_exits``: the test was test code run after the program (SandboxFusion runs them
    as one script), so a failed assertion is an exit with code 1, not a wrong output.
    ``stderr`` and ``exit_code``: the program's own, when the run captured them (``/run_code``);
    else both are read from the verdict (its stderr tail, the exit it names). A program that
    did not compile wrote nothing: its stderr is the SyntaxError, as ``python3`` prints it.
    ``build``: what building the program did (a compiled language), shown as
    ``compile_result``; a build that failed answers without a ``run_result``."""
    compiled = compile_result_of(build)
    if build is not None and build.status in ("compile_error", "compile_timeout"):
        message = f"{result.status.value}: {result.detail}"
        return _response(RunStatus.FAILED, message, None, compiled)
    if result.status is Status.INCONCLUSIVE:
        run = CommandRunResult(status=CommandRunStatus.ERROR, stderr=result.detail)
        return _response(RunStatus.SANDBOX_ERROR, result.detail, run, compiled)
    timed_out = result.status is Status.TIMEOUT
    if timed_out:
        code = None
    elif exit_code is not None:
        code = exit_code
    else:
        code = return_code_of(result, assertion_exits=assertion_exits)
    run = CommandRunResult(
        status=CommandRunStatus.TIME_LIMIT_EXCEEDED if timed_out else CommandRunStatus.FINISHED,
        execution_time=result.wall_s,
        cpu_time=result.cpu_s,
        return_code=code,
        stdout=stdout,
        stderr=stderr or program_stderr(result),  # a compile error never reached stderr
    )
    if code == 0:
        return _response(RunStatus.SUCCESS, "", run, compiled)
    return _response(RunStatus.FAILED, f"{result.status.value}: {result.detail}", run, compiled)


def _response(
    status: RunStatus,
    message: str,
    run: CommandRunResult | None,
    compiled: CommandRunResult | None = None,
) -> RunCodeResponse:
    return RunCodeResponse(
        status=status,
        message=message,
        compile_result=compiled,
        run_result=run,
        executor_pod_name=executor_pod_name(),
    )


_COMPILER_EXIT = re.compile(r"^the compiler exited with code (-?\d+)$")
_COMPILER_SIGNAL = re.compile(r"^the compiler was killed by signal (\d+)$")


def compile_result_of(build: BuildInfo | None) -> CommandRunResult | None:
    """The build as SandboxFusion's ``compile_result``: None for an interpreted language (no
    build command; SandboxFusion does not compile Python either) and for a toolchain that is
    not installed. The return code of a failed build is the compiler's where execrl's
    detail names it (an exit code or a signal, as ``-N``), else 1 (gcc, g++, javac and rustc
    exit 1 on an error); stderr is the compiler's stderr tail (warnings for a success)."""
    if build is None or not build.command:
        return None
    timing = {"execution_time": build.seconds, "cpu_time": build.cpu_s, "stdout": ""}
    if build.status == "ok":
        return CommandRunResult(
            status=CommandRunStatus.FINISHED, return_code=0, stderr=build.detail, **timing
        )
    if build.status == "compile_timeout":
        return CommandRunResult(
            status=CommandRunStatus.TIME_LIMIT_EXCEEDED, stderr=build.detail, **timing
        )
    if build.status == "compile_error":
        code = 1
        if match := _COMPILER_EXIT.match(build.detail):
            code = int(match.group(1))
        elif match := _COMPILER_SIGNAL.match(build.detail):
            code = -int(match.group(1))
        return CommandRunResult(
            status=CommandRunStatus.FINISHED, return_code=code, stderr=build.detail, **timing
        )
    return CommandRunResult(status=CommandRunStatus.ERROR, stderr=build.detail, **timing)


def executor_pod_name() -> str:
    """The pod name SandboxFusion reports (``$MY_POD_NAME``), else this machine's name."""
    return os.environ.get("MY_POD_NAME") or socket.gethostname()


_EXIT_CODE = re.compile(r"^exit code (-?\d+)$")
_KILLED_BY = re.compile(r"^killed by (SIG[A-Z0-9]+)")


def return_code_of(result: TestResult, *, assertion_exits: bool = False) -> int:
    """The exit status SandboxFusion would report (``-N`` for a signal), read from the verdict:
    an uncaught exception, a SyntaxError, a MemoryError and a failed write exit 1 in CPython;
    a bare non-zero exit and a signal are named in the verdict's detail."""
    status, detail = result.status, result.detail
    if status is Status.SUCCESS or (status is Status.WRONG_ANSWER and not assertion_exits):
        return 0
    if status is Status.OUTPUT_LIMIT and detail.startswith("output exceeded"):
        return -signal.SIGKILL  # stopped at max_output_bytes
    if status is Status.RUNTIME_ERROR:
        if match := _EXIT_CODE.match(detail):
            return int(match.group(1))
        if (match := _KILLED_BY.match(detail)) and match.group(1) in signal.Signals.__members__:
            return -signal.Signals[match.group(1)].value
    return 1


def program_stderr(result: TestResult) -> str:
    """What the program wrote on stderr, as far as the verdict keeps it: its last line (the
    exception, for a crash). execrl's own explanations (limits, exit codes) are not stderr."""
    status, detail = result.status, result.detail
    _, said, last = detail.partition("; stderr: ")
    if said:
        return last
    if status in (Status.RUNTIME_ERROR, Status.COMPILE_ERROR, Status.MEMORY_LIMIT):
        return "" if _EXIT_CODE.match(detail) or _KILLED_BY.match(detail) else detail
    if status is Status.WRONG_ANSWER and detail.startswith("AssertionError"):
        return detail  # an assertion of the test code, as Python prints it
    return ""


# ---------------------------------------------------------------------------------------------
# /submit: the completion's code, the problem's tests, the verdicts as an EvalResult
# ---------------------------------------------------------------------------------------------

ExtractedType = Literal["fenced", "incomplete_fenced", "heuristic", "empty"]

_FENCED = re.compile(r"```([^\n]*)\n(.*?)\n\s*```", re.DOTALL)
_OPEN_FENCE = re.compile(r"```([^\n]*)\n(.*)", re.DOTALL)
_PYTHON_DEFINITION = re.compile(
    r"(?:^(?:import|from|#)[^\n]+\n)*^(?:def|class) [^\n]+\n(?:\s+[^\n]+\n)+", re.MULTILINE
)


def fence_tags(lang: Language) -> frozenset[str]:
    """The fence tags that mark a block as ``lang`` (``cpp``, ``c++``; ``python``, ``py``,
    ``python3``), compared without case."""
    return frozenset({lang.name, *lang.sandboxfusion, *lang.aliases})


def extract_code(
    completion: str, lang: Language = LANGUAGES["python"]
) -> tuple[str, ExtractedType]:
    """The program in a model's completion, chosen as SandboxFusion's default extraction
    chooses it: complete fenced blocks first, then an unclosed fence, then (for Python)
    ``def``/``class`` definitions found in plain text; among the blocks of the first kind
    found, the first tagged as ``lang``, else the first. Nothing found: ``("", "empty")``."""
    fenced = [(m.group(1).strip(), m.group(2)) for m in _FENCED.finditer(completion)]
    unclosed = [(m.group(1).strip(), m.group(2)) for m in _OPEN_FENCE.finditer(completion)]
    definitions = []
    if lang.name == "python":
        compact = "\n".join(line for line in completion.split("\n") if line.strip()) + "\n"
        definitions = [("python", m.group()) for m in _PYTHON_DEFINITION.finditer(compact)]
    kinds: list[tuple[ExtractedType, list[tuple[str, str]]]] = [
        ("fenced", fenced),
        ("incomplete_fenced", unclosed),
        ("heuristic", definitions),
    ]
    tags = fence_tags(lang)
    for kind, blocks in kinds:
        if blocks:
            tagged = [code for tag, code in blocks if tag.lower() in tags]
            return (tagged or [blocks[0][1]])[0], kind
    return "", "empty"


class SubmitError(UsageError):
    """A /submit the server cannot judge: ``status`` 400 (unsupported), 404 (no such data) or
    422 (a malformed field, named by ``loc``)."""

    def __init__(self, status: int, message: str, loc: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.loc = loc

    def http(self) -> HTTPException:
        """As FastAPI's errors read: ``{"detail": ...}`` (a list naming the field for 422)."""
        if self.status != 422:
            return HTTPException(self.status, detail=str(self))
        location = ["body", "config", "provided_data", *self.loc]
        detail = [{"type": "value_error", "loc": location, "msg": str(self)}]
        return HTTPException(422, detail=detail)


class Tests(NamedTuple):
    """A problem's tests in execrl's terms, with what ``/submit`` reports of each."""

    tests: list[TestCase | dict[str, Any]]
    """The tests (as models, or as dicts the ExecutionRequest validates)."""
    test_info: list[dict[str, Any]]
    """Per test: the test case as the row gave it (SandboxFusion's ``test_info``)."""
    checker: Checker = Checker()
    prelude: str | None = None
    stdin_as_function: bool = False
    test_code: str | None = None


class Submission(NamedTuple):
    """A /submit translated: the request to execute and what the answer reports."""

    request: ExecutionRequest
    tests: Tests
    code: str
    extracted_type: ExtractedType


def submission(body: SubmitRequest) -> Submission:
    """The ExecutionRequest that judges ``body`` (raises ``SubmitError``)."""
    row = provided_row(body)
    config = body.config
    lang = sandbox_language(config.language or "python")
    code, extracted_type = extract_code(body.completion, lang)
    tests = _PARSERS[dataset_type(body, row)](row, code)
    if not tests.tests:
        raise SubmitError(422, "the problem has no tests", ("test",))
    try:
        request = ExecutionRequest(
            program=code,
            tests=tests.tests,
            checker=tests.checker,
            limits=run_limits(config.run_timeout or SUBMIT_RUN_TIMEOUT_S),
            problem_id=f"{body.dataset}/{body.id}",
            prelude=tests.prelude,
            stdin_as_function=tests.stdin_as_function,
            language=lang.name,
            build=build_options(config.compile_timeout or COMPILE_TIMEOUT_S),
        )
    except ValidationError as exc:  # e.g. a setup code that is not a string
        message = f"the row does not make a valid request ({describe_validation_error(exc)})"
        raise SubmitError(422, message) from None
    return Submission(request, tests, code, extracted_type)


def provided_row(body: SubmitRequest) -> dict[str, Any]:
    """The problem's row: ``provided_data`` itself, or its row whose ``id`` is ``body.id``."""
    data = body.config.provided_data
    if data is None:
        raise SubmitError(
            404,
            f"dataset {body.dataset!r}: execrl serve keeps no datasets; send the problem's row "
            "as config.provided_data (docs/sandbox-fusion.md)",
        )
    if isinstance(data, dict):
        return data
    rows = [row for row in data if str(row.get("id")) == str(body.id)]
    if not rows and len(data) == 1 and "id" not in data[0]:
        rows = data
    if not rows:
        raise SubmitError(422, f"no row with id {body.id!r} among {len(data)} rows")
    return rows[0]


def dataset_type(body: SubmitRequest, row: dict[str, Any]) -> str:
    """``config.dataset_type``, else the type the row's shape is written in."""
    given = body.config.dataset_type
    if given is not None:
        if given not in _PARSERS:
            raise SubmitError(
                400,
                f"dataset type {given!r} is not supported by execrl serve; supported: "
                f"{', '.join(sorted(_PARSERS))} (docs/sandbox-fusion.md)",
            )
        return given
    if "input_output" in row:
        return "CommonOJDataset"
    test = _json_field(row, "test")
    if isinstance(test, dict) and "code" in test:
        return "AutoEvalDataset"
    if isinstance(test, list) and test and all(isinstance(t, str) for t in test):
        return "MBPPDataset"
    if isinstance(test, list):
        return "CommonOJDataset"
    raise SubmitError(
        422,
        "a row needs 'test' (a list of {input: {stdin}, output: {stdout}}, a list of asserts, "
        "or {code}) or 'input_output' ({inputs, outputs, fn_name?})",
        ("test",),
    )


def _json_field(row: dict[str, Any], field: str) -> Any:
    """A field that SandboxFusion's rows may hold as a JSON string."""
    try:
        return decode_json_field(row.get(field), where="provided_data", field=field)
    except LoaderError as exc:
        raise SubmitError(422, str(exc), (field,)) from None


def _stdio_tests(row: dict[str, Any], code: str) -> Tests:
    """CommonOJDataset: ``test`` = ``[{"input": {"stdin"}, "output": {"stdout"}}, ...]``, or
    the APPS/TACO ``input_output`` (call tests with ``fn_name``), read as execrl's TACO
    loader reads it."""
    if "input_output" in row:
        return _input_output_tests(_json_field(row, "input_output"))
    cases = _json_field(row, "test")
    if not isinstance(cases, list) or not all(isinstance(case, dict) for case in cases):
        raise SubmitError(422, "'test' should be a list of {input, output} objects", ("test",))
    tests = [_stdio_case(i, case) for i, case in enumerate(cases)]
    return Tests(tests, cases)


def _stdio_case(index: int, case: dict[str, Any]) -> StdioTest:
    given, wanted = case.get("input"), case.get("output")
    if not isinstance(given, dict) or not isinstance(wanted, dict):
        raise SubmitError(422, "should be {input: {stdin}, output: {stdout}}", ("test", str(index)))
    files = sorted({*given, *wanted} - {"stdin", "stdout"})
    if files:
        raise SubmitError(
            400,
            f"test {index} reads or writes files {files}: execrl's /submit places and "
            "compares no files (send the program to /run_code with `files`)",
        )
    stdin, stdout = given.get("stdin"), wanted.get("stdout")
    return StdioTest(id=f"test-{index}", input=_text(stdin), output=_text(stdout))


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _input_output_tests(io: Any) -> Tests:
    inputs, outputs = (io.get("inputs"), io.get("outputs")) if isinstance(io, dict) else (0, 0)
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise SubmitError(
            422, "should be {inputs: [...], outputs: [...], fn_name?}", ("input_output",)
        )
    try:
        apps = apps_tests(io, "provided_data.input_output")
    except LoaderError as exc:
        raise SubmitError(422, str(exc), ("input_output",)) from None
    info = [
        {"input": given, "output": wanted} for given, wanted in zip(inputs, outputs, strict=True)
    ]
    checker = Checker.model_validate(apps["checker"])
    return Tests(apps["tests"], info, checker, stdin_as_function=apps["stdin_as_function"])


def _assert_tests(row: dict[str, Any], code: str) -> Tests:
    """AutoEvalDataset: ``test`` = ``{"code": <test code run after the program>}``; the code
    must run as Python (``labels.execution_language``)."""
    test = _json_field(row, "test")
    if not isinstance(test, dict) or not isinstance(test.get("code"), str):
        raise SubmitError(422, "should be {code: <test code>}", ("test",))
    if test.get("asset"):
        raise SubmitError(
            400, "test.asset holds files: execrl's /submit places no files (see /run_code)"
        )
    labels = _labels(row)
    language = labels.get("execution_language") or "python"
    if language != "python":
        raise SubmitError(
            400, f"execution_language {language!r}: execrl runs test code in python only"
        )
    return _one_assert_test(code, test["code"], {"code": test["code"]})


def _mbpp_tests(row: dict[str, Any], code: str) -> Tests:
    """MBPPDataset: ``test`` = a list of assert lines, ``labels.test_setup_code`` run first."""
    lines = _json_field(row, "test")
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise SubmitError(422, "should be a list of assert lines", ("test",))
    setup = _labels(row).get("test_setup_code") or None
    tests = _one_assert_test(code, "\n".join(lines), {"asserts": lines})
    return tests._replace(prelude=setup)


def _one_assert_test(code: str, test_code: str, info: dict[str, Any]) -> Tests:
    """One assert test (SandboxFusion runs the program and its test code as one script: one
    verdict); the test code calls the program's functions by name."""
    test = AssertTest(id="test-0", code=test_code, entry_point=_entry_point(code, test_code))
    return Tests([test], [info], test_code=test_code)


def _entry_point(code: str, test_code: str) -> str:
    """The function under test: one the test code calls that the program defines (the names
    are only used to connect the two processes; the verdict does not depend on the choice)."""
    try:
        return mbpp_entry_point(code, test_code.splitlines(), where="completion")
    except (LoaderError, ValueError, RecursionError, MemoryError):
        # no function found (or code too deep to parse): the test code's calls will fail
        return "solution"


def _labels(row: dict[str, Any]) -> dict[str, Any]:
    labels = _json_field(row, "labels") or {}
    if not isinstance(labels, dict):
        raise SubmitError(422, "should be an object", ("labels",))
    return labels


_PARSERS = {
    "CommonOJDataset": _stdio_tests,
    "AutoEvalDataset": _assert_tests,
    "MBPPDataset": _mbpp_tests,
}
"""Dataset type → how its rows' tests read (SandboxFusion's dataset classes)."""


def eval_result(body: SubmitRequest, judged: Submission, record: ExecutionRecord) -> EvalResult:
    """The record as SandboxFusion's EvalResult: one EvalTestCase per test, in test order;
    ``accepted`` when every test passed. A test execrl could not run is ``SandboxError`` in
    its ``exec_info`` (never a failed run), and ``extra.inconclusive`` lists it. A compiled
    program was built once: every test's ``exec_info.compile_result`` is that one build, and
    ``extra.build`` says what it did (execrl's ``BuildInfo``: command, cached, seconds)."""
    results = {result.test_id: result for result in record.results}
    assertion = judged.tests.test_code is not None
    cases = []
    for test, info in zip(judged.request.tests, judged.tests.test_info, strict=True):
        result = results.get(test.id) or TestResult(
            test_id=test.id, status=Status.INCONCLUSIVE, detail="no verdict came back"
        )
        exec_info = run_code_outcome(result, None, assertion_exits=assertion, build=record.build)
        cases.append(EvalTestCase(passed=result.passed, exec_info=exec_info, test_info=info))
    inconclusive = [r.test_id for r in record.results if r.status is Status.INCONCLUSIVE]
    extra: dict[str, Any] = {"inconclusive": inconclusive} if inconclusive else {}
    if record.build is not None and record.build.command:
        extra["build"] = record.build.model_dump(mode="json")
    return EvalResult(
        id=body.id,
        accepted=bool(cases) and all(case.passed for case in cases),
        extracted_code=judged.code,
        test_code=judged.tests.test_code,
        tests=cases,
        extracted_type=judged.extracted_type,
        extra=extra or None,
    )


# ---------------------------------------------------------------------------------------------
# The routes
# ---------------------------------------------------------------------------------------------


@router.post("/run_code", response_model=RunCodeResponse)
async def run_code(body: RunCodeRequest, request: Request) -> RunCodeResponse:
    """Run a program on a stdin (SandboxFusion's ``/run_code``): built first for a compiled
    language, its ``files`` placed beside it, its ``fetch_files`` sent back."""
    service = request.app.state.service
    if body.names_mount() and "readonly-root" not in service.executor.isolation:
        detail = f"{MOUNT} is the working directory only where the sandbox has its own root"
        raise HTTPException(422, detail=[{"type": "value_error", "loc": ["body"], "msg": detail}])
    lang = sandbox_language(body.language)
    fetch = fetch_paths(body.fetch_files)
    captured = await service.capture_streams(
        body.code,
        body.stdin or "",
        run_limits(body.run_timeout, body.memory_limit_MB),
        language=lang.name,
        build=build_options(body.compile_timeout),
        files=decode_files(body.files),
        fetch=list(fetch.values()),
    )
    response = run_code_outcome(
        captured.result,
        captured.stdout,
        stderr=captured.stderr,
        exit_code=captured.exit_code,
        build=captured.build,
    )
    response.files = encode_fetched(fetch, captured.files)
    return response


@router.post("/submit", response_model=EvalResult)
async def submit(body: SubmitRequest, request: Request) -> EvalResult:
    """Judge a completion against a problem sent as ``config.provided_data``."""
    try:
        judged = submission(body)
    except SubmitError as exc:
        raise exc.http() from None
    record = await request.app.state.service.execute(judged.request)
    return eval_result(body, judged, record)


@router.get("/v1/ping")
async def ping() -> str:
    """SandboxFusion's liveness probe."""
    return "pong"
