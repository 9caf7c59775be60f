"""Custom output validators (Kattis / ICPC ``validation: custom``), run in the sandbox.

Kattis runs an output validator as ``validator input_file judge_answer_file feedback_dir
[flags] < team_output``: exit code 42 accepts, 43 rejects, anything else is a judge error. A
validator is trusted code, but it is still run in its own sandboxed process (a fresh fork of
the same fork server, with the deny-by-default isolation every program gets), never in the
host process: ``validator_program`` builds a Python program that writes the test's input and
answer into its scratch directory, sets ``sys.argv``, and runs the validator's source on the
team output it reads from stdin. A C++ validator is compiled on the host with ``g++`` (once
per source, cached) and its executable is run by that program as a child process inside the
same sandbox.

Verdicts: 42 → ``success``; 43 → ``wrong_answer`` (with the validator's ``judgemessage.txt``
as the detail); any other outcome (another exit code, a crash, a timeout) → ``inconclusive``:
a validator failure is never scored as the program's wrong answer.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from execrl.errors import ExecutionError
from execrl.problems.models import Checker, StdioTest
from execrl.sandbox.forkserver import ForkServer, RawRun, SandboxCrashed
from execrl.sandbox.limits import Limits
from execrl.sandbox.records import Status, TestResult
from execrl.sandbox.testlib import TESTLIB_DIR

ACCEPTED_EXIT = 42
REJECTED_EXIT = 43
_JUDGED = (Status.SUCCESS, Status.WRONG_ANSWER)
_DETAIL_CHARS = 300

_SETUP = """\
import os, sys, tempfile

def _scratch():
    for base in (os.getcwd(), tempfile.gettempdir()):
        try:
            path = tempfile.mkdtemp(prefix="validator-", dir=base)
        except OSError:
            continue
        return path
    raise OSError("no writable directory for the validator's files")

_dir = _scratch()
_feedback = os.path.join(_dir, "feedback") + os.sep
os.makedirs(_feedback)
_input, _answer = os.path.join(_dir, "testdata.in"), os.path.join(_dir, "testdata.ans")
with open(_input, "w", encoding="utf-8", newline="") as f:
    f.write({input!r})
with open(_answer, "w", encoding="utf-8", newline="") as f:
    f.write({answer!r})
_args = [_input, _answer, _feedback, *{args!r}]
"""

_RUN_PYTHON = """\
_path = os.path.join(_dir, "validator.py")
sys.argv = [_path, *_args]
_globals = {{"__name__": "__main__", "__file__": _path, "__builtins__": __builtins__,
             "exit": sys.exit, "quit": sys.exit}}
_status = 0
try:
    exec(compile({source!r}, _path, "exec"), _globals)
except SystemExit as stop:
    code = stop.code
    _status = code if isinstance(code, int) else (0 if code is None else 1)
except BaseException:
    import traceback
    traceback.print_exc()
    _status = 1
"""

_RUN_BINARY = """\
import base64, subprocess
_path = os.path.join(_dir, "validator")
with open(_path, "wb") as f:
    f.write(base64.b64decode({binary!r}))
os.chmod(_path, 0o700)
sys.stdout.flush()
_status = subprocess.run([_path, *_args]).returncode  # inherits the team output on stdin
_status = _status if _status >= 0 else 1  # killed by a signal: a judge error
"""

_REPORT = """\
try:
    with open(os.path.join(_feedback, "judgemessage.txt"), encoding="utf-8") as f:
        sys.stderr.write("\\n[judgemessage] " + f.read()[-{detail}:])
except OSError:
    pass
sys.stdout.flush()
sys.stderr.flush()
os._exit(_status)
"""


class ValidatorBuildError(ExecutionError):
    """A compiled validator could not be built on the host (reported as inconclusive)."""


def validator_program(checker: Checker, test: StdioTest) -> str:
    """The Python program that runs ``checker``'s validator on ``test`` (team output on stdin).

    A Python validator's source runs inside it; a C++ validator is compiled on the host once
    (``compile_cpp_validator``) and its binary travels inside the program, which writes it to
    the scratch directory and runs it as a child process, still inside the sandbox."""
    if checker.kind != "custom" or not checker.validator:
        raise ValueError(f"checker kind {checker.kind!r} has no validator to run")
    setup = _SETUP.format(input=test.input, answer=test.output, args=list(checker.validator_args))
    if checker.validator_language == "cpp":
        binary = base64.b64encode(compile_cpp_validator(checker.validator)).decode("ascii")
        run = _RUN_BINARY.format(binary=binary)
    else:
        run = _RUN_PYTHON.format(source=checker.validator)
    return setup + run + _REPORT.format(detail=_DETAIL_CHARS)


def compile_cpp_validator(source: str) -> bytes:
    """The executable of a C++ validator, built with ``g++`` on the host and cached by the
    source's hash (in the temporary directory), so each validator is compiled once; execrl's
    ``testlib.h`` is on its include path (docs/testlib.md)."""
    compiler = shutil.which("g++")
    if compiler is None:
        raise ValidatorBuildError("a C++ output validator needs g++ on the host; none found")
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:24]
    cache = Path(tempfile.gettempdir()) / "execrl-validators"
    binary = cache / f"{digest}.bin"
    if binary.is_file():
        return binary.read_bytes()
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as work:
        src, out = Path(work) / "validator.cpp", Path(work) / "validator"
        src.write_text(source, encoding="utf-8")
        done = subprocess.run(
            [compiler, "-O2", "-std=gnu++17", "-I", str(TESTLIB_DIR), "-o", str(out), str(src)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise ValidatorBuildError(f"g++ could not compile the output validator: {tail}")
        os.replace(out, binary)  # atomic: concurrent workers never see a partial file
    return binary.read_bytes()


def validate_output(
    server: ForkServer, checker: Checker, test: StdioTest, team_output: bytes
) -> tuple[Status, str]:
    """Run the validator on ``team_output`` in a sandboxed process on ``server``."""
    try:
        program = validator_program(checker, test)
    except ValidatorBuildError as exc:
        return Status.INCONCLUSIVE, f"output validator: {exc}"
    spec = {"id": f"{test.id}.validator", "kind": "stdio"}
    try:
        raw = server.run(program, spec, team_output, Limits())
    except SandboxCrashed as exc:
        return Status.INCONCLUSIVE, f"output validator: the sandbox failed: {exc}"
    return interpret_validator_run(raw)


def interpret_validator_run(raw: RawRun) -> tuple[Status, str]:
    """42 → success, 43 → wrong answer, anything else → inconclusive (a judge error)."""
    stderr = raw.stderr.decode("utf-8", errors="replace")
    message = stderr.rpartition("[judgemessage] ")[2].strip() if "[judgemessage] " in stderr else ""
    if raw.compile_error is not None:
        return Status.INCONCLUSIVE, f"output validator does not compile: {raw.compile_error}"
    run = raw.runs[0]
    if run.get("outcome") == "timeout":
        return Status.INCONCLUSIVE, "output validator timed out"
    if run.get("signal") is None and run.get("exit_code") == ACCEPTED_EXIT:
        return Status.SUCCESS, ""
    if run.get("signal") is None and run.get("exit_code") == REJECTED_EXIT:
        return Status.WRONG_ANSWER, ("validator: " + message if message else "validator: rejected")
    tail = (stderr.strip().splitlines() or [""])[-1][-_DETAIL_CHARS:]
    how = (
        f"signal {run['signal']}"
        if run.get("signal") is not None
        else f"exit {run.get('exit_code')}"
    )
    return Status.INCONCLUSIVE, f"output validator failed ({how}, expected 42 or 43): {tail}"


def revalidate(
    server: ForkServer, checker: Checker, test: object, raw: RawRun, result: TestResult
) -> TestResult:
    """The executor's hook: when a stdio test ran cleanly under a custom checker, replace the
    preliminary verdict with the validator's. Every other result is returned unchanged.

    With repeats, each distinct output is validated; the verdict is the first that is not
    ``success`` (a nondeterministic wrong answer is caught)."""
    if checker.kind != "custom" or not isinstance(test, StdioTest) or result.status not in _JUDGED:
        return result
    outputs = list(dict.fromkeys([raw.stdout, *(s[0] for s in getattr(raw, "streams", []))]))
    status, detail = Status.SUCCESS, ""
    for team_output in outputs:
        status, detail = validate_output(server, checker, test, team_output)
        if status is not Status.SUCCESS:
            break
    return result.model_copy(update={"status": status, "detail": detail})
