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

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execrl.envs.multiturn import default_prompt
from execrl.errors import ExecrlError
from execrl.integrations.executors import (
    VERL_REWARD_WORKERS,
    WORKERS_ENV_VAR,
    close_process_executors,
    process_executor,
    resolve_executor,
)
from execrl.integrations.rows import (
    DEFAULT_ENV,
    DEFAULT_REWARD,
    PROBLEMS_ENV_VAR,
    SCORE_KEYS,
    SOLVER_SCORE_KEYS,
    Row,
    ascore_row,
    resolve_row,
    score_rows,
    solver_metrics,
)
from execrl.problems.models import Problem
from execrl.sandbox.languages import language as find_language

if TYPE_CHECKING:
    from execrl.sandbox.protocol import Executor


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
    row = _verl_row(ground_truth, extra_info, kwargs)
    pool = resolve_executor(executor, workers)
    return (await ascore_row(solution_str, row, executor=pool)).metrics


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
    pairs = zip(ground_truths, extra_infos, strict=True)
    rows = [_verl_row(truth, info, kwargs) for truth, info in pairs]
    pool = resolve_executor(executor, workers)
    return [one.metrics for one in score_rows(solution_strs, rows, executor=pool)]


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
# Every dict compute_solver_score returns has exactly SOLVER_SCORE_KEYS, all floats (rows.py).


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
            executor=resolve_executor(executor, workers, solver=True),
        )
        for i, one in zip(indices, scored, strict=True):
            results[i] = solver_metrics(one)
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
def _verl_row(
    ground_truth: str | Mapping[str, Any],
    extra_info: Mapping[str, Any] | None,
    defaults: Mapping[str, Any],
) -> Row:
    """The row a sample is scored on (extra_info > ground truth > keyword > default)."""
    row = resolve_row(ground_truth, extra_info, defaults)
    if row.kind != "code":
        raise ExecrlError(
            f"ground_truth {str(ground_truth)[:80]!r} is a solver answer; score it with "
            "compute_solver_score"
        )
    return row


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
