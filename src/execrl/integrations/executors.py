"""One executor per process for every trainer adapter (verl, OpenRLHF, SkyRL, verifiers).

Trainers call a reward function from many threads, from forked workers and from several
processes on one node. :func:`process_executor` opens this process's executor for a spec
(``"local"``, ``"http://host:port,..."`` for ``execrl serve`` servers, ``"ray"``; default
``$EXECRL_EXECUTOR``, else a local pool) once, under a lock, and closes it at exit; a forked
child opens its own. A local pool takes cores no other process on the machine holds (an
exclusive ``flock`` per core), so a node's reward workers do not all pin the first cores.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from execrl.errors import ConfigError

if TYPE_CHECKING:
    from execrl.sandbox.protocol import Executor

WORKERS_ENV_VAR = "EXECRL_VERL_WORKERS"
"""Environment variable capping the sandbox workers of each process's local pool (the
``workers`` keyword, verl's ``reward_kwargs``, comes first)."""

VERL_REWARD_WORKERS = 8
"""verl 0.9.1's ``reward.num_workers`` default: how many processes on one node the default
local pool size assumes share its cores."""


ExecutorKey = tuple[str, int | None, bool]
"""(spec, workers, solver): what one of this process's executors was opened for."""


@dataclass
class _ProcessState:
    """This process's executors, and the core locks its local pools hold."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    executors: dict[ExecutorKey, Executor] = field(default_factory=dict)
    core_locks: dict[ExecutorKey, list[IO[str]]] = field(default_factory=dict)


_STATE = _ProcessState()
_PARENT_STATES: list[_ProcessState] = []
"""In a forked child, its parents' states: kept (never used) so that nothing closes the
parent's fork servers or core locks from the child."""


def _forget_parent_executors() -> None:
    """A forked child (verl's workers) opens its own pools rather than using its parent's
    fork servers, and must not wait on a lock a parent thread held at fork time."""
    global _STATE
    _PARENT_STATES.append(_STATE)
    _STATE = _ProcessState()


os.register_at_fork(after_in_child=_forget_parent_executors)


def process_executor(
    spec: str | None = None, *, workers: int | None = None, solver: bool = False
) -> Executor:
    """This process's executor for ``spec`` (``"local"``, ``"http://host:port,..."`` for
    ``execrl serve`` servers, ``"ray"``; default ``$EXECRL_EXECUTOR``, else local), opened on
    first use and closed at exit. Creation is under a lock: verl 0.9.1 calls
    ``compute_score`` from several threads at once, and each must not open its own pool.
    ``solver``: sandboxes that can import the solvers."""
    from execrl.service.open import EXECUTOR_ENV

    spec = (spec or os.environ.get(EXECUTOR_ENV) or "local").strip()
    key = (spec, workers, solver)
    state = _STATE
    with state.lock:
        if key not in state.executors:
            state.executors[key], state.core_locks[key] = _open_executor(spec, workers, solver)
        return state.executors[key]


def close_process_executors() -> None:
    """Close every executor :func:`process_executor` opened in this process (done at exit),
    release their cores, and forget them: the next call opens a new one."""
    state = _STATE
    with state.lock:
        executors = list(state.executors.values())
        handles = [handle for held in state.core_locks.values() for handle in held]
        state.executors.clear()
        state.core_locks.clear()
    for executor in executors:
        executor.close()
    for handle in handles:  # after the pools' fork servers are gone
        handle.close()


atexit.register(close_process_executors)


def _open_executor(spec: str, workers: int | None, solver: bool) -> tuple[Executor, list[IO[str]]]:
    """A local pool of capped size on cores no other process here holds (with the locks on
    them); else what :func:`execrl.service.open.open_executor` opens for ``spec``."""
    from execrl.service.open import open_executor, parse_executor_spec

    parsed = parse_executor_spec(spec)
    # A server's sandboxes are its own (started with --solvers for solver rewards): no config.
    config = _solver_config() if solver and parsed.kind != "remote" else None
    if parsed.is_local:
        return _local_pool(workers, config)
    return open_executor(spec, workers=workers, config=config), []


def _solver_config() -> Any:
    from execrl.rewards.solver import solver_sandbox_config

    return solver_sandbox_config(None)


def _local_pool(workers: int | None, config: Any) -> tuple[Executor, list[IO[str]]]:
    """A LocalExecutor of ``workers`` (else ``$EXECRL_VERL_WORKERS``, else this machine's
    cores shared by :data:`VERL_REWARD_WORKERS` processes), at most one per core."""
    from execrl.sandbox.pool import LocalExecutor

    available = sorted(os.sched_getaffinity(0))
    if workers is None:
        workers = _env_workers() or max(1, len(available) // VERL_REWARD_WORKERS)
    size = min(_positive(workers, "workers"), len(available))
    cores, locks = _claim_cores(available, size)
    return LocalExecutor(workers=size, cores=cores, config=config), locks


def _env_workers() -> int | None:
    value = os.environ.get(WORKERS_ENV_VAR, "").strip()
    if not value:
        return None
    try:
        return _positive(int(value), f"${WORKERS_ENV_VAR}")
    except ValueError:
        raise ConfigError(f"${WORKERS_ENV_VAR}={value!r}: expected a whole number >= 1") from None


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name}={value!r}: expected a whole number >= 1")
    return value


def _claim_cores(available: list[int], size: int) -> tuple[list[int], list[IO[str]]]:
    """``size`` cores for a pool, first those no other pool on this machine holds (an
    exclusive ``flock`` per core, held until the pool closes or the process exits): verl's
    reward workers on one node then pin their pools to different cores instead of all to the
    first ones. When too few are free, the rest are shared, starting at an offset by pid."""
    folder = Path(tempfile.gettempdir()) / f"execrl-cores-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    claimed: list[int] = []
    locks: list[IO[str]] = []
    for core in available:
        if len(claimed) == size:
            break
        if (handle := _lock_core(folder / f"core-{core}.lock")) is not None:
            claimed.append(core)
            locks.append(handle)
    rest = [core for core in available if core not in claimed]
    start = os.getpid() % len(rest) if rest else 0
    return claimed + (rest[start:] + rest[:start])[: size - len(claimed)], locks


def _lock_core(path: Path) -> IO[str] | None:
    """The open lock file of a core no one else holds, else None."""
    handle = path.open("a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def resolve_executor(
    executor: Executor | str | None, workers: int | None = None, *, solver: bool = False
) -> Executor:
    """The executor given, else this process's for the spec given (or none)."""
    if executor is None or isinstance(executor, str):
        return process_executor(executor, workers=workers, solver=solver)
    return executor


__all__ = [
    "VERL_REWARD_WORKERS",
    "WORKERS_ENV_VAR",
    "close_process_executors",
    "process_executor",
    "resolve_executor",
]
