"""Running solver code in the sandbox and reading back what it reports.

**The convention** (docs/solver-rewards.md; bundled responses follow it):

- The program reports with ``print()`` in its own code, one line of an answer convention
  (:mod:`execrl.rewards.solver.answers`; default ``objective: <number>`` or
  ``status: infeasible`` / ``status: unbounded``; the last answer line wins).
- The program writes its model in LP format to ``model.lp`` in its working directory (the
  sandbox's private scratch directory).

**The wrapper.** execrl runs a trusted wrapper around the program (as ``solution.py``, so
tracebacks show its own line numbers). It

- separates the answer channel from solver logs: file descriptor 1 is pointed at stderr (C
  libraries' logs, CBC as a child process) and so is ``sys.stdout`` (Python libraries' logs);
  only the program's own ``print`` writes to the real stdout;
- compiles the program *inside the sandbox* (the host never compiles it: no host warnings,
  no ``-W error`` surprises) and reports a syntax error on the answer channel;
- points ``TMPDIR``, ``TMP`` and ``TEMP`` (and PuLP's ``tmpDir`` when PuLP is preimported)
  at the run's scratch directory, so a solver's temporary files (PuLP's ``*-pulp.mps``, …)
  stay inside the sandbox, even from a run killed mid-solve;
- in a ``finally`` after the program, copies ``model.lp`` (up to ``MAX_MODEL_BYTES``) to the
  answer channel between two marker lines, which the parent cuts out again.

The solver executor (:func:`solver_executor`) adds the solvers' site-packages (and any
``site_paths``: a solver installed elsewhere) to the sandbox's ``extra_site_paths``, so they
import there as on the host. The sandbox keeps every other promise: no network, limits
enforced, a fresh scratch directory per run.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sysconfig
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property

from execrl.errors import ExecutionError
from execrl.problems.optim import Answer
from execrl.rewards.scoring import require_executor
from execrl.rewards.solver.answers import (
    DEFAULT_CONVENTION,
    AnswerConvention,
    AnswerSpec,
    answer_convention,
    parse_report,  # noqa: F401  (its old home)
)
from execrl.rewards.solver.lpfile import (
    DEFAULT_BIG_M_RATIO,
    LpFormatError,
    ModelFeatures,
    lp_features,
)
from execrl.sandbox.batch import parallel_map
from execrl.sandbox.isolation import SandboxConfig
from execrl.sandbox.limits import Limits
from execrl.sandbox.pool import LocalExecutor
from execrl.sandbox.protocol import Executor
from execrl.sandbox.records import Status, TestResult

MODEL_FILE = "model.lp"
MAX_MODEL_BYTES = 4 * 1024 * 1024
"""Larger model files are cut here (and their features are not read)."""
LP_BEGIN = "=====execrl model.lp begin 51c7====="
LP_END = "=====execrl model.lp end 51c7====="
SYNTAX_MARK = "=====execrl syntax error 51c7===== "
OUTPUT_TAIL_CHARS = 2000

DEFAULT_SOLVER_LIMITS = Limits(cpu_time_s=30.0, memory_mb=4096, max_processes=32)
"""Solvers start thread pools (each thread reserves address space, which ``memory_mb``
bounds) and PuLP starts CBC as a child process; a MILP may legitimately take seconds."""

SOLVER_MODULES = ("highspy", "pulp", "ortools", "pyscipopt", "pyomo", "cvxpy")
"""The open-source solver packages execrl runs inside the sandbox (extra ``solver``)."""
LICENSED_SOLVERS = {
    "gurobipy": "Gurobi",
    "coptpy": "COPT",
    "docplex": "CPLEX",
    "cplex": "CPLEX",
    "mosek": "MOSEK",
    "xpress": "FICO Xpress",
}
"""Licensed solvers: gurobipy and coptpy come with the extra ``solver-commercial`` (their pip
wheels carry a size-limited licence that works offline); the others need their vendor's."""
OTHER_SOLVER_MODULES = ("mip", "scipy", "numpy", "casadi")
INSTALL_HINTS = {
    **dict.fromkeys(SOLVER_MODULES, "pip install 'execrl[solver]'"),
    "gurobipy": "pip install 'execrl[solver-commercial]' (size-limited licence included)",
    "coptpy": "pip install 'execrl[solver-commercial]' (size-limited licence included)",
    "scipy": "pip install scipy",
    "numpy": "pip install numpy",
    "mip": "pip install mip",
    "casadi": "pip install casadi",
}
"""How to install each solver module execrl recognises (shown with ``solver_unavailable``)."""


def install_hint(module: str) -> str:
    """The install command for a solver module ("" when execrl does not know one)."""
    if module in INSTALL_HINTS:
        return INSTALL_HINTS[module]
    if module in LICENSED_SOLVERS:
        return f"install {module} with a {LICENSED_SOLVERS[module]} licence"
    return ""


class RunStatus(StrEnum):
    """How one solver program's run ended (the closed set)."""

    COMPLETED = "completed"
    """Ran to completion without error (whatever it printed)."""
    NO_CODE = "no_code"
    """There was no code to run (extraction failed)."""
    SYNTAX_ERROR = "syntax_error"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SOLVER_UNAVAILABLE = "solver_unavailable"
    """The program needs a solver that is not installed or not licensed here."""
    INCONCLUSIVE = "inconclusive"
    """The sandbox failed (or was set up without the solvers): not a verdict on the code."""


@dataclass(frozen=True)
class SolveFeatures:
    """The features of a solved model (spec): the run's answer and status, the LP file's
    direction and counts. A feature is None when unknown (no answer, no model file)."""

    objective: Answer | None
    direction: str | None
    n_binary: int | None
    n_integer: int | None
    n_constraints: int | None
    status: str
    """``optimal``, ``infeasible``, ``unbounded`` or ``error``."""


@dataclass(frozen=True)
class SolverRun:
    """One program's run: how it ended, what it reported, the model file it wrote."""

    status: RunStatus
    answer: Answer | None = None
    lp_text: str | None = None
    """``model.lp`` as written (None when the program wrote none)."""
    lp_truncated: bool = False
    detail: str = ""
    """Why it failed: the exception line, the missing solver, …"""
    output_tail: str = ""
    """The end of stdout (model file removed), for inspection."""
    cpu_s: float = 0.0
    wall_s: float = 0.0

    @property
    def completed(self) -> bool:
        return self.status is RunStatus.COMPLETED

    @property
    def solver_status(self) -> str:
        if not self.completed or self.answer is None:
            return "error"
        return self.answer if isinstance(self.answer, str) else "optimal"

    @cached_property
    def model_features(self) -> ModelFeatures | None:
        """Features of ``model.lp`` (None when absent, truncated or unreadable)."""
        return self.read_model_features()

    def read_model_features(
        self, *, big_m_ratio: float = DEFAULT_BIG_M_RATIO
    ) -> ModelFeatures | None:
        if self.lp_text is None or self.lp_truncated:
            return None
        try:
            return lp_features(self.lp_text, big_m_ratio=big_m_ratio)
        except LpFormatError:
            return None

    @property
    def lp_error(self) -> str | None:
        """Why the model file gives no features, or None when it does."""
        if self.lp_text is None:
            return f"the program wrote no {MODEL_FILE}"
        if self.lp_truncated:
            return f"{MODEL_FILE} is larger than {MAX_MODEL_BYTES} bytes"
        try:
            lp_features(self.lp_text)
        except LpFormatError as exc:
            return f"{MODEL_FILE}: {exc}"
        return None

    def features(self) -> SolveFeatures:
        model = self.model_features
        answer = self.answer if self.completed else None
        return SolveFeatures(
            objective=answer,
            direction=model.direction if model else None,
            n_binary=model.n_binary if model else None,
            n_integer=model.n_integer if model else None,
            n_constraints=model.n_constraints if model else None,
            status=self.solver_status,
        )

    def to_dict(self) -> dict:
        return {
            "status": self.status.value,
            "answer": self.answer,
            "detail": self.detail,
            "cpu_s": self.cpu_s,
            "wall_s": self.wall_s,
            "lp_text": self.lp_text,
            "lp_truncated": self.lp_truncated,
            "output_tail": self.output_tail,
        }

    @classmethod
    def from_dict(cls, data: dict) -> SolverRun:
        return cls(
            status=RunStatus(data["status"]),
            answer=data.get("answer"),
            lp_text=data.get("lp_text"),
            lp_truncated=bool(data.get("lp_truncated", False)),
            detail=data.get("detail", ""),
            output_tail=data.get("output_tail", ""),
            cpu_s=float(data.get("cpu_s", 0.0)),
            wall_s=float(data.get("wall_s", 0.0)),
        )


# -- the sandbox set-up ------------------------------------------------------------------------
def solver_site_paths() -> tuple[str, ...]:
    """The host folders the solver packages import from (site-packages, usually one)."""
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    for module in (*SOLVER_MODULES, *LICENSED_SOLVERS):
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            for location in spec.submodule_search_locations:
                paths.add(str(_parent(location)))
    return tuple(sorted(p for p in paths if os.path.isdir(p)))


def solver_sandbox_config(
    config: SandboxConfig | None = None, *, site_paths: Sequence[str] = ()
) -> SandboxConfig:
    """``config`` (default: the standard sandbox) whose programs can import the solvers: the
    solver packages' site-packages, then ``site_paths`` (a solver installed elsewhere, e.g.
    another virtualenv's site-packages with gurobipy), are added to ``extra_site_paths``
    (read-only, importable)."""
    config = config or SandboxConfig()
    paths = (*config.extra_site_paths, *solver_site_paths(), *site_paths)
    fields = config.model_dump() | {"extra_site_paths": tuple(dict.fromkeys(paths))}
    return SandboxConfig.model_validate(fields)  # (model_copy would skip the path checks)


def solver_executor(
    *,
    workers: int | None = None,
    config: SandboxConfig | None = None,
    site_paths: Sequence[str] = (),
) -> Executor:
    """A local pool whose sandboxes can import the solvers (close it, or use ``with``).
    ``site_paths``: more site-packages directories to import from (a solver installed
    elsewhere; CLI ``--site-path``). Another backend is chosen at the edge:
    ``execrl.service.open_executor(spec, config=solver_sandbox_config(...))`` for the local
    pool or Ray (every node's sandboxes get the same site paths, so the nodes need the solvers
    where this machine has them); a server (``http://...``) uses the sandbox settings it was
    started with, and must have the solvers."""
    return LocalExecutor(
        workers=workers, config=solver_sandbox_config(config, site_paths=site_paths)
    )


def missing_open_solvers() -> list[str]:
    """The open-source solver packages not installed on this machine."""
    return [m for m in SOLVER_MODULES if not _installed(m)]


_WRAPPER = """\
import builtins as _execrl_builtins
import os as _execrl_os
import sys as _execrl_sys

# The answer channel is print() called by the program's own code. Everything else that would
# reach stdout is sent to stderr: what is written to file descriptor 1 below Python (the C
# logs of HiGHS, SCIP and Gurobi, CBC as a child process) and what libraries write to
# sys.stdout (COPT's and pyomo's logs, cvxpy's verbose output). A solver's log line is never
# read as the program's answer.
_execrl_answer_fd = _execrl_os.dup(1)
_execrl_os.dup2(2, 1)
_execrl_answer = open(
    _execrl_answer_fd, "w", encoding="utf-8", errors="backslashreplace", closefd=False
)
_execrl_sys.stdout = _execrl_sys.__stdout__ = open(
    1, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1
)
_execrl_print = _execrl_builtins.print


def _execrl_answer_print(*args, file=None, **kwargs):
    if file is None or file is _execrl_sys.stdout or file is _execrl_sys.__stdout__:
        file = _execrl_answer
    _execrl_print(*args, file=file, **kwargs)


# Temporary files go to the run's scratch directory (its working directory), whatever the
# environment said: PuLP writes its .mps/.sol/.mst files to $TMP, else $TMPDIR, else /tmp
# (read each time a solver object is made; a class default in old versions), and tempfile
# caches the directory it found first.
_execrl_scratch = _execrl_os.getcwd()
for _execrl_name in ("TMPDIR", "TMP", "TEMP"):
    _execrl_os.environ[_execrl_name] = _execrl_scratch
if "tempfile" in _execrl_sys.modules:
    _execrl_sys.modules["tempfile"].tempdir = None
if "pulp" in _execrl_sys.modules:
    _execrl_sys.modules["pulp"].LpSolver_CMD.tmpDir = _execrl_scratch


if not hasattr(_execrl_builtins, "help"):  # python3 adds these in site (not run here)
    import _sitebuiltins

    _execrl_builtins.help = _sitebuiltins._Helper()
    _execrl_builtins.exit = _sitebuiltins.Quitter("exit", "Ctrl-D (i.e. EOF)")
    _execrl_builtins.quit = _sitebuiltins.Quitter("quit", "Ctrl-D (i.e. EOF)")


def _execrl_write(data):
    while data:
        data = data[_execrl_os.write(_execrl_answer_fd, data):]


def _execrl_emit_model(path):
    try:
        _execrl_answer.flush()
    except BaseException:
        pass
    try:
        with open(path, "rb") as f:
            data = f.read({limit} + 1)
    except BaseException:
        return
    end = {end!r} + (" truncated" if len(data) > {limit} else "")
    begin = {begin!r}.encode()
    _execrl_write(b"\\n" + begin + b"\\n" + data[:{limit}] + b"\\n" + end.encode() + b"\\n")


def _execrl_main():
    import linecache
    import warnings
    source = {source!r}
    linecache.cache["solution.py"] = (len(source), None, source.splitlines(True), "solution.py")
    model = _execrl_os.path.join(_execrl_os.getcwd(), {model_file!r})
    try:
        with warnings.catch_warnings():
            for category in (SyntaxWarning, DeprecationWarning):  # to stderr, never fatal
                warnings.simplefilter("default", category)
            code = compile(source, "solution.py", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        where = f" (line {{exc.lineno}})" if isinstance(exc, SyntaxError) else ""
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        _execrl_write(f"\\n{syntax}{{type(exc).__name__}}: {{message}}{{where}}\\n".encode())
        _execrl_os._exit(1)
    try:
        scope = {{
            "__name__": "__main__",
            "__file__": "solution.py",
            "__builtins__": __builtins__,
            "print": _execrl_answer_print,
        }}
        exec(code, scope)
    finally:
        _execrl_emit_model(model)


_execrl_main()
"""


def wrap_program(code: str) -> str:
    """The trusted wrapper that runs ``code`` (compiled inside the sandbox, never here) and
    hands ``model.lp`` back on the answer channel."""
    return _WRAPPER.format(
        limit=MAX_MODEL_BYTES,
        begin=LP_BEGIN,
        end=LP_END,
        syntax=SYNTAX_MARK,
        source=code,
        model_file=MODEL_FILE,
    )


# -- running -----------------------------------------------------------------------------------
def run_solver_code(
    code: str | None,
    *,
    executor: Executor,
    limits: Limits | None = None,
    answers: AnswerSpec = DEFAULT_CONVENTION,
) -> SolverRun:
    """Run one program (None: nothing to run) on ``executor`` (a solver sandbox:
    :func:`solver_executor`)."""
    (run,) = run_solver_codes(
        [code], executor=executor, limits=limits, progress=False, answers=answers
    )
    return run


def run_solver_codes(
    codes: Sequence[str | None],
    *,
    executor: Executor,
    limits: Limits | None = None,
    progress: bool = True,
    description: str = "solving",
    answers: AnswerSpec = DEFAULT_CONVENTION,
) -> list[SolverRun]:
    """Run programs on the executor's pool, in order, with a progress bar. The executor is
    the caller's (a solver sandbox: :func:`solver_executor`); none is opened here.
    ``answers`` names the answer convention (or gives one): how the program's stdout is read
    (:data:`ANSWER_CONVENTIONS`). The code is never compiled here: its syntax is checked
    inside the sandbox."""
    return list(
        iter_solver_runs(
            codes,
            executor=executor,
            limits=limits,
            progress=progress,
            description=description,
            answers=answers,
        )
    )


def iter_solver_runs(
    codes: Sequence[str | None],
    *,
    executor: Executor,
    limits: Limits | None = None,
    progress: bool = True,
    description: str = "solving",
    answers: AnswerSpec = DEFAULT_CONVENTION,
) -> Iterator[SolverRun]:
    """:func:`run_solver_codes` as a stream: one run per code, in order, each yielded as soon
    as it and the ones before it have finished (so a caller can save results as they come)."""
    require_executor(executor, "running solver code")
    limits = limits or DEFAULT_SOLVER_LIMITS
    convention = answer_convention(answers)
    runnable = [i for i, code in enumerate(codes) if code is not None]
    if not runnable:
        yield from (_no_code() for _ in codes)
        return

    def one(i: int) -> SolverRun:
        return _run_one(executor, codes[i] or "", limits, convention)

    results = parallel_map(
        one, runnable, jobs=executor.workers, description=description, show_progress=progress
    )
    done = 0
    for i, run in zip(runnable, results, strict=True):
        yield from (_no_code() for _ in range(done, i))  # the ones before it, nothing to run
        yield run
        done = i + 1
    yield from (_no_code() for _ in range(done, len(codes)))


def _no_code() -> SolverRun:
    return SolverRun(RunStatus.NO_CODE, detail="no code could be extracted")


def _run_one(
    executor: Executor, code: str, limits: Limits, convention: AnswerConvention
) -> SolverRun:
    try:
        result, stdout = executor.capture(wrap_program(code), "", limits)
    except ExecutionError as exc:  # the sandbox (SandboxCrashed) or the service failed
        return SolverRun(RunStatus.INCONCLUSIVE, detail=f"the sandbox failed: {exc}")
    syntax = stdout.rfind(f"\n{SYNTAX_MARK}")
    if syntax >= 0:
        detail = stdout[syntax + len(SYNTAX_MARK) + 1 :].strip()
        return SolverRun(RunStatus.SYNTAX_ERROR, detail=detail, cpu_s=result.cpu_s)
    output, lp_text, truncated = split_model(stdout)
    status, detail = _classify(result)
    return SolverRun(
        status=status,
        answer=convention.parse(output),
        lp_text=lp_text,
        lp_truncated=truncated,
        detail=detail,
        output_tail=output[-OUTPUT_TAIL_CHARS:],
        cpu_s=result.cpu_s,
        wall_s=result.wall_s,
    )


def split_model(stdout: str) -> tuple[str, str | None, bool]:
    """(stdout without the model block, the model text or None, whether it was cut)."""
    start = stdout.rfind(f"\n{LP_BEGIN}\n")
    if start < 0:
        return stdout, None, False
    body_start = start + len(LP_BEGIN) + 2
    end = stdout.find(f"\n{LP_END}", body_start)
    if end < 0:  # killed while writing it
        return stdout[:start], None, True
    line_end = stdout.find("\n", end + 1)
    line_end = len(stdout) if line_end < 0 else line_end
    truncated = stdout[end + 1 : line_end].endswith("truncated")
    rest = stdout[:start] + stdout[line_end + 1 :]
    return rest, stdout[body_start:end], truncated


_STATUS_OF = {
    Status.SUCCESS: RunStatus.COMPLETED,
    Status.WRONG_ANSWER: RunStatus.COMPLETED,
    Status.TIMEOUT: RunStatus.TIMEOUT,
    Status.MEMORY_LIMIT: RunStatus.MEMORY_LIMIT,
    Status.OUTPUT_LIMIT: RunStatus.OUTPUT_LIMIT,
    Status.COMPILE_ERROR: RunStatus.SYNTAX_ERROR,
    Status.COMPILE_TIMEOUT: RunStatus.SYNTAX_ERROR,
    Status.RUNTIME_ERROR: RunStatus.RUNTIME_ERROR,
    Status.INCONCLUSIVE: RunStatus.INCONCLUSIVE,
}
_MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")
_LICENCE = re.compile(
    r"(gurobi|copt|cplex|mosek|xpress)\w*\.?\w*(?:Error|Exception)?\b.*"
    r"(licen[cs]e|size[- ]limited|too large)",
    re.IGNORECASE,
)


def _classify(result: TestResult) -> tuple[RunStatus, str]:
    status = _STATUS_OF[result.status]
    detail = result.detail
    if status is not RunStatus.RUNTIME_ERROR:
        return status, detail
    missing = _MISSING_MODULE.search(detail)
    module = missing.group(1).split(".")[0] if missing else ""
    if module in (*SOLVER_MODULES, *OTHER_SOLVER_MODULES, *LICENSED_SOLVERS):
        if _installed(module):  # here, but not in the sandbox
            return RunStatus.INCONCLUSIVE, (
                f"{module} is installed but not importable inside the sandbox: run solver code "
                "on execrl.rewards.solver.solver_executor(), which makes site-packages "
                "importable (or pass its folder with site_paths / --site-path)"
            )
        return RunStatus.SOLVER_UNAVAILABLE, (
            f"solver not available: {module} is not installed; install it with: "
            f"{install_hint(module)}"
        )
    licence = _LICENCE.search(detail)
    if licence:
        return RunStatus.SOLVER_UNAVAILABLE, f"solver not available (licence): {detail}"
    return status, detail


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _parent(location: str) -> str:
    return os.path.dirname(os.path.realpath(location))
