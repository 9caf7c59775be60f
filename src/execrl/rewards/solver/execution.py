"""Running solver code in the sandbox and reading back what it reports.

**The convention** (documented in docs/solver-rewards.md; bundled responses follow it):

- The program prints, on stdout, a line ``objective: <number>`` for an optimal solve, or
  ``status: infeasible`` / ``status: unbounded``. The last such line wins; the match is
  case-insensitive and other output is allowed around it (``Optimal objective: 39.0`` counts).
  The number may be followed by punctuation (``objective: 34.0 (optimal)``) but not by a word
  (``objective: 3 x + 4 y`` is a printed model, not a result).
- The program writes its model in LP format to ``model.lp`` in its working directory (the
  sandbox's private scratch directory).

**How the parent reads the model back, without changing the sandbox:** execrl runs a trusted
wrapper around the program (as ``solution.py``, so tracebacks show its own line numbers); in
a ``finally`` after the program, the wrapper copies ``model.lp`` (up to
``MAX_MODEL_BYTES``) to stdout between two marker lines, and the parent cuts it out again.
The wrapper also puts the host's site-packages on ``sys.path``: the solver executor
(:func:`solver_executor`) mounts them read-only inside the sandbox, so highspy, PuLP (with
its bundled CBC binary) and OR-Tools import there as they do on the host. The sandbox keeps
every other promise: no network, limits enforced, a fresh scratch directory per run.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Protocol

from execrl.problems.optim import Answer
from execrl.rewards.solver.lpfile import (
    DEFAULT_BIG_M_RATIO,
    LpFormatError,
    ModelFeatures,
    lp_features,
)
from execrl.sandbox.batch import default_jobs, parallel_map
from execrl.sandbox.forkserver import SandboxCrashed
from execrl.sandbox.isolation import SandboxConfig
from execrl.sandbox.limits import Limits
from execrl.sandbox.records import Status, TestResult

MODEL_FILE = "model.lp"
MAX_MODEL_BYTES = 4 * 1024 * 1024
"""Larger model files are cut here (and their features are not read)."""
LP_BEGIN = "=====execrl model.lp begin 51c7====="
LP_END = "=====execrl model.lp end 51c7====="
OUTPUT_TAIL_CHARS = 2000

DEFAULT_SOLVER_LIMITS = Limits(timeout_s=30.0, memory_mb=4096, max_processes=32)
"""Solvers start thread pools (each thread reserves address space, which ``memory_mb``
bounds) and PuLP starts CBC as a child process; a MILP may legitimately take seconds."""

SOLVER_MODULES = ("highspy", "pulp", "ortools")
"""The open-source solvers execrl expects inside the sandbox (extra ``solver``)."""
LICENSED_SOLVERS = {
    "gurobipy": "Gurobi",
    "coptpy": "COPT",
    "docplex": "CPLEX",
    "cplex": "CPLEX",
    "mosek": "MOSEK",
    "xpress": "FICO Xpress",
}
OTHER_SOLVER_MODULES = ("pyscipopt", "pyomo", "cvxpy", "mip", "scipy", "numpy", "casadi")


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


_REPORT = re.compile(
    r"""\b(?:
        objective\s*:\s*(?P<number>[-+]?(?:inf(?:inity)?|nan|
            (?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))
        (?![\w.])(?!\s*[A-Za-z_])
      | status\s*:\s*(?P<status>infeasible|unbounded)\b(?!_)
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def parse_report(stdout: str) -> Answer | None:
    """What the program reported (module docstring): a float, a status, or None."""
    found: Answer | None = None
    for line in stdout.splitlines():
        for match in _REPORT.finditer(line):
            if match.group("status"):
                found = match.group("status").lower()  # type: ignore[assignment]
            else:
                found = float(match.group("number").replace(",", ""))
    return found


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
class CapturingExecutor(Protocol):
    """What running solver code needs of an executor (``LocalExecutor`` has it)."""

    workers: int

    def capture(
        self, program: str, stdin: str, limits: Limits | None = None
    ) -> tuple[TestResult, str]: ...


def solver_site_paths() -> tuple[str, ...]:
    """The host folders the solver packages import from (site-packages, usually one)."""
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    for module in (*SOLVER_MODULES, *LICENSED_SOLVERS):
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.submodule_search_locations:
            for location in spec.submodule_search_locations:
                paths.add(str(_parent(location)))
    return tuple(sorted(paths))


def solver_sandbox_config(config: SandboxConfig | None = None) -> SandboxConfig:
    """``config`` (default: the standard sandbox) with the solver packages' site-packages
    visible read-only."""
    config = config or SandboxConfig()
    extra = tuple(p for p in solver_site_paths() if p not in config.readonly_paths)
    return config.model_copy(update={"readonly_paths": (*config.readonly_paths, *extra)})


def solver_executor(*, workers: int | None = None, config: SandboxConfig | None = None):
    """A ``LocalExecutor`` whose sandboxes can import the solvers (close it, or use ``with``)."""
    from execrl.sandbox.executor import LocalExecutor

    return LocalExecutor(workers=workers, config=solver_sandbox_config(config))


def missing_open_solvers() -> list[str]:
    """The open-source solver packages not installed on this machine."""
    return [m for m in SOLVER_MODULES if importlib.util.find_spec(m) is None]


_WRAPPER = """\
import sys as _execrl_sys
_execrl_sys.path[:0] = {paths!r}


def _execrl_emit_model(path):
    import os
    try:
        _execrl_sys.stdout.flush()
    except BaseException:
        pass
    try:
        with open(path, "rb") as f:
            data = f.read({limit} + 1)
    except BaseException:
        return
    end = {end!r} + (" truncated" if len(data) > {limit} else "")
    out = b"\\n" + {begin!r}.encode() + b"\\n" + data[:{limit}] + b"\\n" + end.encode() + b"\\n"
    while out:
        out = out[os.write(1, out):]


def _execrl_main():
    import linecache
    import os
    source = {source!r}
    linecache.cache["solution.py"] = (len(source), None, source.splitlines(True), "solution.py")
    model = os.path.join(os.getcwd(), {model_file!r})
    try:
        code = compile(source, "solution.py", "exec")
        scope = {{"__name__": "__main__", "__file__": "solution.py", "__builtins__": __builtins__}}
        exec(code, scope)
    finally:
        _execrl_emit_model(model)


_execrl_main()
"""


def wrap_program(code: str, *, site_paths: Sequence[str] | None = None) -> str:
    """The trusted wrapper that runs ``code`` and hands ``model.lp`` back on stdout."""
    return _WRAPPER.format(
        paths=list(solver_site_paths() if site_paths is None else site_paths),
        limit=MAX_MODEL_BYTES,
        begin=LP_BEGIN,
        end=LP_END,
        source=code,
        model_file=MODEL_FILE,
    )


# -- running -----------------------------------------------------------------------------------
def run_solver_code(
    code: str | None,
    *,
    executor: CapturingExecutor | None = None,
    limits: Limits | None = None,
) -> SolverRun:
    """Run one program (None: nothing to run) in the solver sandbox."""
    (run,) = run_solver_codes([code], executor=executor, limits=limits, progress=False)
    return run


def run_solver_codes(
    codes: Sequence[str | None],
    *,
    executor: CapturingExecutor | None = None,
    limits: Limits | None = None,
    progress: bool = True,
    description: str = "solving",
) -> list[SolverRun]:
    """Run programs on the executor's pool, in order, with a progress bar. Without an
    executor, a solver executor is opened for the call (one worker per core, at most one per
    program) and closed after it."""
    limits = limits or DEFAULT_SOLVER_LIMITS
    runnable = [i for i, code in enumerate(codes) if code is not None and _compiles(code)]
    runs: list[SolverRun] = [_not_run(code) for code in codes]
    if not runnable:
        return runs
    own = None
    if executor is None:
        own = executor = solver_executor(workers=min(len(runnable), default_jobs()))
    try:
        site_paths = solver_site_paths()

        def one(i: int) -> SolverRun:
            return _run_one(executor, codes[i] or "", limits, site_paths)

        results = parallel_map(
            one, runnable, jobs=executor.workers, description=description, show_progress=progress
        )
        for i, run in zip(runnable, results, strict=True):
            runs[i] = run
    finally:
        if own is not None:
            own.close()
    return runs


def _compiles(code: str) -> bool:
    return _syntax_error(code) is None


def _syntax_error(code: str) -> str | None:
    try:
        compile(code, "solution.py", "exec")
    except SyntaxError as exc:
        return f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _not_run(code: str | None) -> SolverRun:
    if code is None:
        return SolverRun(RunStatus.NO_CODE, detail="no code could be extracted")
    error = _syntax_error(code)
    if error is not None:
        return SolverRun(RunStatus.SYNTAX_ERROR, detail=error)
    return SolverRun(RunStatus.INCONCLUSIVE, detail="not run")


def _run_one(
    executor: CapturingExecutor, code: str, limits: Limits, site_paths: Sequence[str]
) -> SolverRun:
    program = wrap_program(code, site_paths=site_paths)
    try:
        result, stdout = executor.capture(program, "", limits)
    except SandboxCrashed as exc:
        return SolverRun(RunStatus.INCONCLUSIVE, detail=f"the sandbox failed: {exc}")
    output, lp_text, truncated = split_model(stdout)
    status, detail = _classify(result)
    return SolverRun(
        status=status,
        answer=parse_report(output),
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
    Status.RUNTIME_ERROR: RunStatus.RUNTIME_ERROR,
    Status.INCONCLUSIVE: RunStatus.INCONCLUSIVE,
}
_MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")
_LICENCE = re.compile(r"(gurobi|copt|cplex|mosek|xpress).*licen[cs]e", re.IGNORECASE)


def _classify(result: TestResult) -> tuple[RunStatus, str]:
    status = _STATUS_OF[result.status]
    detail = result.detail
    if status is not RunStatus.RUNTIME_ERROR:
        return status, detail
    missing = _MISSING_MODULE.search(detail)
    module = missing.group(1).split(".")[0] if missing else ""
    if module in (*SOLVER_MODULES, *OTHER_SOLVER_MODULES, *LICENSED_SOLVERS):
        if importlib.util.find_spec(module) is not None:  # here, but not in the sandbox
            return RunStatus.INCONCLUSIVE, (
                f"{module} is installed but not importable inside the sandbox: run solver code "
                "on execrl.rewards.solver.solver_executor(), which mounts site-packages"
            )
        if module in LICENSED_SOLVERS:
            return RunStatus.SOLVER_UNAVAILABLE, (
                f"solver not available: {LICENSED_SOLVERS[module]} ({module}) is not installed "
                "here; install it with a licence, or use HiGHS (highspy), PuLP or OR-Tools"
            )
        return RunStatus.SOLVER_UNAVAILABLE, (
            f"solver not available: {module} is not installed (pip install "
            "'execrl[solver]' installs highspy, PuLP and OR-Tools)"
        )
    if _LICENCE.search(detail):
        return RunStatus.SOLVER_UNAVAILABLE, f"solver not available (licence): {detail}"
    return status, detail


def _parent(location: str) -> str:
    return os.path.dirname(os.path.realpath(location))
