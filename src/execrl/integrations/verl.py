"""execrl as a verl reward: ``compute_score`` for verl's reward managers, and the dataset.

verl 0.9.1's reward loop (``RewardLoopWorker`` actors, ``reward.num_workers`` of them, 8 by
default, each running the ``naive`` reward manager) calls a custom reward function once per
sample as ``compute_score(data_source=, solution_str=, ground_truth=, extra_info=,
**reward_kwargs)``, from several threads at once, or awaits it when it is a coroutine
function. It may return a float or a dict with a ``"score"`` key, whose other keys verl logs.
Point verl 0.9.1 at this module with the ``reward.*`` keys (the top-level
``custom_reward_function.*`` and ``reward_model.reward_manager`` are legacy and ignored by
``main_ppo``)::

    reward.custom_reward_function.path=pkg://execrl.integrations.verl
    reward.custom_reward_function.name=compute_score_async    # or compute_score
    reward.reward_manager.name=naive
    +reward.custom_reward_function.reward_kwargs.executor=http://cpu-node:8000   # optional

:func:`compute_score_batch` is the batch form (older verl's ``batch`` manager, and callers
of their own). Each process opens one executor (:func:`process_executor`), under a lock:
a local sandbox pool of capped size on cores no other reward worker holds, or, given an
executor spec (``reward_kwargs.executor`` or ``$EXECRL_EXECUTOR``), ``execrl serve``
servers or a Ray cluster.

Train on a parquet file written by :func:`write_verl_dataset`. Each row's
``reward_model.ground_truth`` is a JSON string ``{"problem_id", "env", "reward"}``; the
program is the completion's last fenced block of the row's language
(:func:`execrl.extract.extract_code`): ``extra_info["language"]``, else the ground truth's
``language``, else the ``language`` keyword, else Python. Datasets may mix languages (C++ and
Java rows beside Python ones); a program that does not build scores as one that fails every
test (``compile_error``).

Where the problem comes from, in order: ``extra_info["problem_source"]``, the
``EXECRL_PROBLEMS`` environment variable, else the bundled set. Loaded problems are cached per
process. The environment and reward come from ``extra_info`` (per-row override), else the
ground truth, else the ``env`` / ``reward`` keyword (verl's ``reward_kwargs``), else ``mc`` /
``collapsed``.

**Inconclusive executions.** execrl's reward is ``None`` when the sandbox, not the program,
failed; verl needs a number, so ``score`` is then ``0.0`` and ``inconclusive`` is ``1.0``.
Filter or mask on ``inconclusive`` — a 0.0 with ``inconclusive = 1.0`` is not a verdict on
the program. A problem that cannot be found or a malformed ground truth raises
:class:`~execrl.errors.ExecrlError`: a crashing reward is never scored silently.
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import json
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from execrl.envs.multiturn import default_prompt
from execrl.envs.outcome import Verdict
from execrl.envs.presets import environment
from execrl.errors import ConfigError, ExecrlError
from execrl.extract import extract_code
from execrl.problems.io import BUNDLED, load_problem, load_problems
from execrl.problems.models import Problem
from execrl.rewards.scoring import Group, Scored, rescore, score_batch
from execrl.sandbox.languages import language as find_language

if TYPE_CHECKING:
    from execrl.sandbox.protocol import Executor

PROBLEMS_ENV_VAR = "EXECRL_PROBLEMS"
"""Environment variable naming the problem source when ``extra_info`` does not."""

DEFAULT_ENV = "mc"
DEFAULT_REWARD = "collapsed"

SCORE_KEYS = (
    "score",
    "c_cor",
    "c_strict",
    "g",
    "q",
    "timeout_fraction",
    "inconclusive",
    "tests_passed_fraction",
)
"""Every dict :func:`compute_score` returns has exactly these keys, all floats (verl stacks
each key into a per-batch list, so the set must not vary between samples)."""


# -- public API ------------------------------------------------------------------------------
def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str | Mapping[str, Any],
    extra_info: Mapping[str, Any] | None = None,
    *,
    executor: Executor | str | None = None,
    workers: int | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """Run the program in ``solution_str`` on its problem and return ``SCORE_KEYS`` as floats.
    ``data_source`` is accepted for verl's signature and not used.

    ``executor``: an Executor, or a spec string (``"local"``, ``"http://host:port,..."``,
    ``"ray"``; verl's ``reward_kwargs``), else ``$EXECRL_EXECUTOR``, else this process's
    local pool of ``workers`` sandboxes (:func:`process_executor`)."""
    (result,) = compute_score_batch(
        [data_source],
        [solution_str],
        [ground_truth],
        [extra_info],
        executor=executor,
        workers=workers,
        **kwargs,
    )
    return result


async def compute_score_async(
    data_source: str,
    solution_str: str,
    ground_truth: str | Mapping[str, Any],
    extra_info: Mapping[str, Any] | None = None,
    *,
    executor: Executor | str | None = None,
    workers: int | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """:func:`compute_score` as a coroutine, for verl 0.9.1's reward loop: a coroutine
    function is awaited on the reward worker's event loop instead of taking one of its
    threads, so every sample's execution is in flight at once (``executor.arun``) and the
    pool, or the servers, stay full. Same arguments, same result as :func:`compute_score`."""
    spec = _spec(ground_truth, extra_info, kwargs)
    problem = _problem(spec["source"], spec["problem_id"])
    pool = _resolve_executor(executor, workers)
    return _result(await _ascore(problem, solution_str, spec, pool))


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[str | Mapping[str, Any]],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    *,
    executor: Executor | str | None = None,
    workers: int | None = None,
    **kwargs: Any,
) -> list[dict[str, float]]:
    """Score a whole batch, in order. Samples are grouped by problem and every execution is
    spread over the pool at once: one ``score_batch`` call per distinct (env, reward) pair —
    one call in the usual case where every row uses the same pair."""
    n = len(solution_strs)
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * n
    if not len(data_sources) == len(ground_truths) == len(extra_infos) == n:
        raise ExecrlError(
            f"compute_score_batch got {len(data_sources)} data sources, {n} solutions, "
            f"{len(ground_truths)} ground truths and {len(extra_infos)} extra infos; "
            "pass one of each per sample"
        )
    specs = [_spec(gt, info, kwargs) for gt, info in zip(ground_truths, extra_infos, strict=True)]
    for spec in specs:  # an unknown problem fails here, before any sandbox starts
        _problem(spec["source"], spec["problem_id"])
    results: list[dict[str, float] | None] = [None] * n
    by_setting: dict[str, list[int]] = {}
    for i, spec in enumerate(specs):
        key = json.dumps([spec["env"], spec["reward"]], sort_keys=True)
        by_setting.setdefault(key, []).append(i)
    for indices in by_setting.values():
        first = specs[indices[0]]
        scored = _score_group(
            [(specs[i], solution_strs[i]) for i in indices],
            env=first["env"],
            reward=first["reward"],
            executor=_resolve_executor(executor, workers),
        )
        for i, one in zip(indices, scored, strict=True):
            results[i] = _result(one)
    return results  # type: ignore[return-value]


def write_verl_dataset(
    problems: Iterable[Problem],
    path: str | Path,
    *,
    env: str | Mapping[str, Any] = DEFAULT_ENV,
    reward: str | Mapping[str, Any] = DEFAULT_REWARD,
    split: str = "train",
    problem_source: str | None = None,
    language: str | None = None,
) -> Path:
    """Write ``problems`` as a verl parquet file: ``data_source`` (``execrl/<dataset>``),
    ``prompt`` (chat messages), ``ability`` (``code``), ``reward_model`` (``{"style": "rule",
    "ground_truth": json}``) and ``extra_info`` (``{problem_id, split, index}``, plus
    ``problem_source`` when given — needed for problems that are not bundled unless
    ``EXECRL_PROBLEMS`` names their source at training time — and ``language``, execrl's
    name, when one is given)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = find_language(language).name if language is not None else None
    rows = [
        _row(problem, index, env=env, reward=reward, split=split, problem_source=problem_source)
        for index, problem in enumerate(problems)
    ]
    if name is not None:
        for row in rows:
            row["extra_info"]["language"] = name
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


# -- solver rewards (docs/solver-rewards.md) -------------------------------------------------
SOLVER_SCORE_KEYS = (
    "score",
    "format",
    "execution",
    "accuracy",
    "bonus",
    "correct",
    "inconclusive",
)
"""Every dict :func:`compute_solver_score` returns has exactly these keys, all floats.
``inconclusive`` is 1 (and ``score`` 0) when the response has no reward: the sandbox failed,
or the code needs a solver that is not installed or licensed here (``solver_unavailable``,
an infrastructure failure): leave such samples out of the batch's statistics."""


def compute_solver_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    *,
    executor: Executor | str | None = None,
    workers: int | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """The solver reward of one response: ``ground_truth`` is the optimal objective (a number
    or numeric string) or ``"infeasible"`` / ``"unbounded"``, or the JSON object
    ``{"answer": ..., "reward": ...}``. The reward (``"paper"``, ``"authors"``, or a mapping
    such as ``{"preset": "paper", "stage": 2}``) comes from ``extra_info["reward"]``, the
    ground truth, else the ``reward`` keyword (verl's ``reward_kwargs``; ``stage=2`` also
    works there), else ``paper``. ``data_source`` is accepted for verl's signature."""
    (result,) = compute_solver_score_batch(
        [data_source],
        [solution_str],
        [ground_truth],
        [extra_info],
        executor=executor,
        workers=workers,
        **kwargs,
    )
    return result


def compute_solver_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    *,
    executor: Executor | str | None = None,
    workers: int | None = None,
    **kwargs: Any,
) -> list[dict[str, float]]:
    """:func:`compute_solver_score` for a batch; every program runs on the pool at once (one
    run per distinct reward setting, usually one)."""
    from execrl.problems.optim import parse_answer
    from execrl.rewards.solver import score_solver_responses, solver_reward_config

    n = len(solution_strs)
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * n
    if not len(data_sources) == len(ground_truths) == len(extra_infos) == n:
        raise ExecrlError(
            f"compute_solver_score_batch got {len(data_sources)} data sources, {n} solutions, "
            f"{len(ground_truths)} ground truths and {len(extra_infos)} extra infos; "
            "pass one of each per sample"
        )
    keyword = kwargs.get("reward", "paper")
    default = dict(keyword) if isinstance(keyword, Mapping) else {"preset": keyword}
    if "stage" in kwargs:
        default["stage"] = kwargs["stage"]
    answers, settings = [], []
    for truth, info in zip(ground_truths, extra_infos, strict=True):
        parsed = _solver_truth(truth)
        answers.append(parse_answer(parsed.get("answer"), where=f"answer {len(answers)}"))
        settings.append((info or {}).get("reward") or parsed.get("reward") or default)
    results: list[dict[str, float] | None] = [None] * n
    by_setting: dict[str, list[int]] = {}
    for i, setting in enumerate(settings):
        by_setting.setdefault(json.dumps(setting, sort_keys=True), []).append(i)
    configs = [solver_reward_config(settings[indices[0]]) for indices in by_setting.values()]
    for indices, config in zip(by_setting.values(), configs, strict=True):
        scored = score_solver_responses(
            [solution_strs[i] for i in indices],
            [answers[i] for i in indices],
            reward=config,
            executor=_resolve_executor(executor, workers, solver=True),
        )
        for i, one in zip(indices, scored, strict=True):
            results[i] = {
                "score": one.reward if one.reward is not None else 0.0,
                "format": one.format_score,
                "execution": one.execution_score,
                "accuracy": one.accuracy_score,
                "bonus": one.bonus_score,
                "correct": float(one.correct),
                "inconclusive": float(one.reward is None),
            }
    return results  # type: ignore[return-value]


def write_solver_verl_dataset(
    problems: Iterable[Any],
    path: str | Path,
    *,
    reward: str | Mapping[str, Any] = "paper",
    split: str = "train",
) -> Path:
    """Write OptimProblems as a verl parquet file for :func:`compute_solver_score`:
    ``prompt`` states the response format, ``reward_model.ground_truth`` is
    ``{"answer", "reward"}`` as JSON."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from execrl.rewards.solver import solver_messages

    rows = [
        {
            "data_source": f"execrl/{problem.source}",
            "prompt": solver_messages(problem),
            "ability": "optimization",
            "reward_model": {
                "style": "rule",
                "ground_truth": json.dumps({"answer": problem.answer, "reward": reward}),
            },
            "extra_info": {"problem_id": problem.id, "split": split, "index": index},
        }
        for index, problem in enumerate(problems)
    ]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _solver_truth(ground_truth: Any) -> dict[str, Any]:
    if isinstance(ground_truth, Mapping):
        return dict(ground_truth)
    if isinstance(ground_truth, str):
        try:
            decoded = json.loads(ground_truth)
        except json.JSONDecodeError:
            return {"answer": ground_truth}  # "infeasible", "1,234.5"
        return dict(decoded) if isinstance(decoded, dict) else {"answer": decoded}
    return {"answer": ground_truth}


# -- dataset rows ----------------------------------------------------------------------------
def _row(
    problem: Problem,
    index: int,
    *,
    env: str | Mapping[str, Any],
    reward: str | Mapping[str, Any],
    split: str,
    problem_source: str | None,
) -> dict[str, Any]:
    truth = {"problem_id": problem.id, "env": env, "reward": reward}
    extra: dict[str, Any] = {"problem_id": problem.id, "split": split, "index": index}
    if problem_source is not None:
        extra["problem_source"] = str(problem_source)
    return {
        "data_source": f"execrl/{problem.source.dataset}",
        "prompt": default_prompt(problem),
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": json.dumps(truth, sort_keys=True)},
        "extra_info": extra,
    }


# -- scoring ---------------------------------------------------------------------------------
def _spec(
    ground_truth: str | Mapping[str, Any],
    extra_info: Mapping[str, Any] | None,
    defaults: Mapping[str, Any],
) -> dict[str, Any]:
    """Problem id, source, env, reward and language for one sample (extra_info > ground
    truth > keyword > default)."""
    truth = _parse_ground_truth(ground_truth)
    info = dict(extra_info or {})
    problem_id = info.get("problem_id") or truth.get("problem_id")
    if not problem_id:
        raise ExecrlError(
            f"no problem id in ground_truth {ground_truth!r} or extra_info; write the dataset "
            "with execrl.integrations.verl.write_verl_dataset"
        )
    source = info.get("problem_source") or os.environ.get(PROBLEMS_ENV_VAR) or BUNDLED

    def pick(name: str, default: str) -> Any:
        return info.get(name) or truth.get(name) or defaults.get(name) or default

    return {
        "problem_id": str(problem_id),
        "source": str(source),
        "env": pick("env", DEFAULT_ENV),
        "reward": pick("reward", DEFAULT_REWARD),
        "language": find_language(pick("language", "python")).name,
    }


def _parse_ground_truth(ground_truth: str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(ground_truth, Mapping):
        return dict(ground_truth)
    try:
        parsed = json.loads(ground_truth) if ground_truth else {}
    except (TypeError, json.JSONDecodeError) as exc:
        raise ExecrlError(
            f"ground_truth {ground_truth!r} is not execrl's JSON; write the dataset with "
            "execrl.integrations.verl.write_verl_dataset"
        ) from exc
    if not isinstance(parsed, dict):
        raise ExecrlError(f"ground_truth {ground_truth!r} must be a JSON object")
    return parsed


def _score_group(
    samples: list[tuple[dict[str, Any], str]], *, env: Any, reward: Any, executor: Executor
) -> list[Scored]:
    """Score samples sharing one (env, reward): one Group per problem, results in order."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, (spec, _) in enumerate(samples):
        key = (spec["source"], spec["problem_id"], spec["language"])
        groups.setdefault(key, []).append(i)
    batch = [
        Group(
            problem,
            [_program(samples[i][1], problem, language) for i in indices],
            language=language,
        )
        for (source, pid, language), indices in groups.items()
        for problem in [_problem(source, pid)]
    ]
    scored = score_batch(batch, env=env, reward=reward, executor=executor, progress=False)
    out: list[Scored | None] = [None] * len(samples)
    for indices, group_scores in zip(groups.values(), scored, strict=True):
        for i, one in zip(indices, group_scores, strict=True):
            out[i] = one
    return out  # type: ignore[return-value]


async def _ascore(problem: Problem, solution: str, spec: dict[str, Any], pool: Executor) -> Scored:
    """One sample scored as :func:`score_batch` scores it (planned by the environment, group
    index 0), with the execution awaited rather than run on a thread."""
    environment_ = environment(spec["env"])
    plan = environment_.plan(problem)
    program = _program(solution, problem, spec["language"])
    request = environment_.request(problem, program, plan=plan, language=spec["language"])
    record = await pool.arun(request)
    ((reward, outcome),) = rescore(
        problem, [record], env=environment_, reward=spec["reward"], plan=plan
    )
    return Scored(reward, outcome, record, program)


def _program(solution: str, problem: Problem, language: str) -> str:
    """The program in a completion: its last fenced block of ``language`` (any of its
    names), or the usual rule (:func:`execrl.extract.extract_code`)."""
    return extract_code(solution, problem.entry_point, language=find_language(language))


def _resolve_executor(
    executor: Executor | str | None, workers: int | None, *, solver: bool = False
) -> Executor:
    """The executor given, else this process's for the spec given (or none)."""
    if executor is None or isinstance(executor, str):
        return process_executor(executor, workers=workers, solver=solver)
    return executor


def _result(scored: Scored) -> dict[str, float]:
    outcome = scored.outcome
    tests = outcome.tests
    passed = sum(t.verdict is Verdict.SUCCESS for t in tests)
    return {
        # verl needs a number: an inconclusive execution scores 0.0 and says so.
        "score": float(scored.reward) if scored.reward is not None else 0.0,
        "c_cor": float(outcome.c_cor),
        "c_strict": float(outcome.c_strict),
        "g": float(outcome.g),
        "q": float(outcome.q),
        "timeout_fraction": float(outcome.timeout_fraction),
        "inconclusive": float(outcome.inconclusive or scored.reward is None),
        "tests_passed_fraction": passed / len(tests) if tests else 0.0,
    }


# -- per-process state -----------------------------------------------------------------------
@functools.cache
def _problem(source: str, problem_id: str) -> Problem:
    """One problem, cached. Folder sources read only that problem's folder; file sources are
    read once and indexed."""
    if source == BUNDLED or Path(source).is_dir():
        return load_problem(source, problem_id)
    index = _problem_index(source)
    if problem_id not in index:
        raise ExecrlError(
            f"no problem with id {problem_id!r} in {source}; check extra_info['problem_source'] "
            f"or ${PROBLEMS_ENV_VAR}"
        )
    return index[problem_id]


@functools.cache
def _problem_index(source: str) -> dict[str, Problem]:
    return {p.id: p for p in load_problems(source)}


# -- the executor, one per process -----------------------------------------------------------
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


__all__ = [
    "PROBLEMS_ENV_VAR",
    "SCORE_KEYS",
    "SOLVER_SCORE_KEYS",
    "VERL_REWARD_WORKERS",
    "WORKERS_ENV_VAR",
    "close_process_executors",
    "compute_score",
    "compute_score_async",
    "compute_score_batch",
    "compute_solver_score",
    "compute_solver_score_batch",
    "process_executor",
    "write_solver_verl_dataset",
    "write_verl_dataset",
]
