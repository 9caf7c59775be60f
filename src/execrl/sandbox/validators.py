"""Custom output validators (Kattis / ICPC ``validation: custom``), run in the sandbox.

Kattis runs an output validator as ``validator input_file judge_answer_file feedback_dir
[flags] < team_output``: exit code 42 accepts, 43 rejects, anything else is a judge error. A
validator is trusted code, but it is still run in its own sandboxed process (a fresh fork of
the same fork server, with the deny-by-default isolation every program gets), never in the
host process: ``validator_program`` builds a Python program that writes the test's input and
answer into its scratch directory, sets ``sys.argv``, and runs the validator's source on the
team output it reads from stdin.

Verdicts: 42 → ``success``; 43 → ``wrong_answer`` (with the validator's ``judgemessage.txt``
as the detail); any other outcome (another exit code, a crash, a timeout) → ``inconclusive``:
a validator failure is never scored as the program's wrong answer.
"""

from __future__ import annotations

from execrl.problems.models import Checker, StdioTest
from execrl.sandbox.forkserver import ForkServer, RawRun, SandboxCrashed
from execrl.sandbox.limits import Limits
from execrl.sandbox.records import Status, TestResult

ACCEPTED_EXIT = 42
REJECTED_EXIT = 43
_JUDGED = (Status.SUCCESS, Status.WRONG_ANSWER)
_DETAIL_CHARS = 300

_WRAPPER = """\
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
_path = os.path.join(_dir, "validator.py")
sys.argv = [_path, _input, _answer, _feedback, *{args!r}]
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
try:
    with open(os.path.join(_feedback, "judgemessage.txt"), encoding="utf-8") as f:
        sys.stderr.write("\\n[judgemessage] " + f.read()[-{detail}:])
except OSError:
    pass
sys.stdout.flush()
sys.stderr.flush()
os._exit(_status)
"""


def validator_program(checker: Checker, test: StdioTest) -> str:
    """The Python program that runs ``checker``'s validator on ``test`` (team output on stdin)."""
    if checker.kind != "custom" or not checker.validator:
        raise ValueError(f"checker kind {checker.kind!r} has no validator to run")
    return _WRAPPER.format(
        input=test.input,
        answer=test.output,
        args=list(checker.validator_args),
        source=checker.validator,
        detail=_DETAIL_CHARS,
    )


def validate_output(
    server: ForkServer, checker: Checker, test: StdioTest, team_output: bytes
) -> tuple[Status, str]:
    """Run the validator on ``team_output`` in a sandboxed process on ``server``."""
    program = validator_program(checker, test)
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
