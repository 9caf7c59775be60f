"""execrl as a reward function for TRL's trainers (GRPOTrainer and friends).

TRL calls a reward function as ``f(prompts=..., completions=..., **kwargs)``, where ``kwargs``
holds the dataset's extra columns (one value per completion) plus ``completion_ids``,
``trainer_state``, ``log_metric`` and ``log_extra``. It expects one float per completion;
``None`` means "no reward for this one" (TRL turns it into NaN and leaves it out of the means).

``ExecrlRewardFunction`` looks each completion's problem up by the ``problem_id`` column,
extracts the program, and scores the whole batch in one ``score_batch`` call, so every
execution of the batch shares the sandbox pool. Datasets mix languages: a ``language``
column, where the dataset has one, gives each row's (``cpp``, ``java``...; default Python),
and the program is the completion's last fenced block of that language. A program that does
not build scores as one that fails every test. An inconclusive execution (the sandbox failed,
not the program) is returned as ``None``, never as a score.

The object is picklable: the sandbox pool is opened lazily in the process that calls it, and a
pickled copy (or a forked child) opens its own. No ``signal.alarm`` is used anywhere, so it is
safe to call from any thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execrl.errors import ExecrlError
from execrl.extract import extract_code
from execrl.problems.models import Problem
from execrl.rewards.compositions import reward as build_reward
from execrl.rewards.scoring import EnvSpec, Group, RewardSpec, score_batch
from execrl.sandbox.languages import Language
from execrl.sandbox.languages import language as find_language
from execrl.sandbox.protocol import Executor

PROMPT_STYLES = ("chat", "text")

ProblemSource = Sequence[Problem] | Mapping[str, Problem] | str | Path | None


class ExecrlRewardFunction:
    """A TRL reward function: completions in, one reward in [−1, 1] (or None) out.

    ``env`` and ``reward`` are the specs ``execrl.rewards.score`` accepts. ``problems`` is a
    list of Problems, a mapping id → Problem, a source for ``load_problems`` (a path or
    ``"bundled"``), or None for the bundled set; a source is read on first use. Each
    completion's problem is the value of the dataset column ``problem_column``, and its
    language the value of ``language_column`` (any name ``execrl languages`` knows), or
    ``language`` for a dataset without that column.

    ``executor`` is an executor you own (kept open, never closed here, and pickled as it is:
    pass a spec or ``workers`` instead when the function must be pickled), or a spec string
    naming one (``"http://host:8000"``, ``"ray"``, ``"local"``: ``execrl.service.open``).
    Without an object, the executor the spec names (default: a ``LocalExecutor``) with
    ``workers`` workers (default: one per core; not with a server URL) is opened on first call
    in the calling process and closed by ``close()`` or at garbage collection.
    """

    def __init__(
        self,
        env: EnvSpec = "mc",
        reward: RewardSpec = "collapsed",
        *,
        problems: ProblemSource = None,
        problem_column: str = "problem_id",
        language: str = "python",
        language_column: str = "language",
        executor: Executor | str | None = None,
        workers: int | None = None,
        name: str | None = None,
    ) -> None:
        build_reward(reward)  # fail now, not at the first training step, on a bad spec
        self.env = env
        self.reward = reward
        self.problem_column = problem_column
        self.language = find_language(language).name  # (an unknown name fails now)
        self.language_column = language_column
        self.executor, self.executor_spec = _executor_or_spec(executor)
        self.workers = workers
        self.__name__ = name or _default_name(reward)
        """TRL logs this function's rewards as ``rewards/<__name__>/mean``."""
        self._source = problems
        self._problems = _index(problems) if _is_collection(problems) else None
        self._init_runtime()

    def _init_runtime(self) -> None:
        self._lock = threading.Lock()
        self._own: Executor | None = None  # the executor this object opened, if any
        self._own_pid = -1  # the process that opened it (a forked child must open its own)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for key in ("_lock", "_own", "_own_pid"):
            state.pop(key)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_runtime()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(env={self.env!r}, reward={self.reward!r})"

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float | None]:
        ids = self._problem_ids(kwargs, len(completions))
        languages = self._languages(kwargs, len(completions))
        programs = [
            extract_code(completion_text(c), self.problem(pid).entry_point, language=lang)
            for c, pid, lang in zip(completions, ids, languages, strict=True)
        ]
        # One group per prompt: a problem, in one language (first-seen order; batch indices).
        by_problem: dict[tuple[str, str], list[int]] = {}
        for i, key in enumerate(zip(ids, (lang.name for lang in languages), strict=True)):
            by_problem.setdefault(key, []).append(i)
        groups = [
            Group(self.problem(pid), [programs[i] for i in indices], language=lang)
            for (pid, lang), indices in by_problem.items()
        ]
        scored = score_batch(
            groups, env=self.env, reward=self.reward, executor=self._executor(), progress=False
        )
        rewards: list[float | None] = [None] * len(completions)
        for indices, group_scores in zip(by_problem.values(), scored, strict=True):
            for i, s in zip(indices, group_scores, strict=True):
                rewards[i] = s.reward
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and rewards:
            inconclusive = sum(r is None for r in rewards) / len(rewards)
            log_metric(f"{self.__name__}/inconclusive_frac", inconclusive)
        return rewards

    def problem(self, problem_id: str) -> Problem:
        """The Problem with this id, from ``problems``."""
        if self._problems is None:
            from execrl.problems.io import load_problems

            self._problems = _index(load_problems(self._source or "bundled"))
        try:
            return self._problems[problem_id]
        except KeyError:
            known = ", ".join(sorted(self._problems)[:5])
            raise ExecrlError(
                f"unknown problem id {problem_id!r} in column {self.problem_column!r} "
                f"({len(self._problems)} problems known, e.g. {known}); pass the problem set "
                "the dataset was built from as `problems=`"
            ) from None

    def close(self) -> None:
        """Close the sandbox pool this object opened (a later call opens a new one)."""
        with self._lock:
            own, self._own = self._own, None
        if own is not None and self._own_pid == os.getpid():
            own.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at shutdown the pool's own cleanup takes over
            self.close()

    def _problem_ids(self, kwargs: Mapping[str, Any], n: int) -> list[str]:
        ids = kwargs.get(self.problem_column)
        if ids is None:
            columns = sorted(k for k in kwargs if k not in _TRL_KWARGS)
            raise ExecrlError(
                f"the reward function needs the dataset column {self.problem_column!r}, but "
                f"the batch has only {columns}; build the dataset with "
                "execrl.integrations.execrl_dataset() or pass problem_column="
            )
        ids = list(ids)
        if len(ids) != n:
            raise ExecrlError(
                f"column {self.problem_column!r} has {len(ids)} values for {n} completions; "
                "pass one problem id per completion"
            )
        return [str(pid) for pid in ids]

    def _languages(self, kwargs: Mapping[str, Any], n: int) -> list[Language]:
        """Each completion's language: the ``language_column`` value (a missing or empty one
        is ``language``), as a row of the language table."""
        column = kwargs.get(self.language_column)
        values = [None] * n if column is None else list(column)
        if len(values) != n:
            raise ExecrlError(
                f"column {self.language_column!r} has {len(values)} values for {n} "
                "completions; pass one language per completion"
            )
        return [find_language(value or self.language) for value in values]

    def _executor(self) -> Executor:
        if self.executor is not None:
            return self.executor
        with self._lock:
            if self._own is None or self._own_pid != os.getpid():
                self._own = self._open_executor()
                self._own_pid = os.getpid()
            return self._own

    def _open_executor(self) -> Executor:
        from execrl.service.open import open_executor

        return open_executor(self.executor_spec, workers=self.workers)


class SolverRewardFunction(ExecrlRewardFunction):
    """A TRL reward function for optimisation modelling (docs/solver-rewards.md): each
    completion's code runs with the open-source solvers in the sandbox and is scored against
    the dataset column ``answer_column`` (a number, a numeric string, or ``"infeasible"`` /
    ``"unbounded"``) under a solver reward (``"paper"``, ``"authors"``, a mapping such as
    ``{"preset": "paper", "stage": 2}``, or a SolverRewardConfig). Pool, pickling and
    ``close()`` work as for :class:`ExecrlRewardFunction`; the pool it opens can import the
    solvers (``solver_executor``). A completion gets None (TRL skips it) when its run was
    inconclusive or its solver is not installed or licensed here (``solver_unavailable``)."""

    def __init__(
        self,
        reward: Any = "paper",
        *,
        answer_column: str = "answer",
        executor: Executor | str | None = None,
        workers: int | None = None,
        limits: Any = None,
        name: str | None = None,
    ) -> None:
        from execrl.rewards.solver import solver_reward_config

        self.config = solver_reward_config(reward)  # fail now on a bad spec
        self.reward = reward
        self.answer_column = answer_column
        self.executor, self.executor_spec = _executor_or_spec(executor)
        self.workers = workers
        self.limits = limits
        self.__name__ = name or _default_name(reward).replace("execrl_", "execrl_solver_", 1)
        self._init_runtime()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(reward={self.reward!r})"

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float | None]:
        from execrl.rewards.solver import score_solver_responses

        answers = kwargs.get(self.answer_column)
        if answers is None or len(list(answers)) != len(completions):
            columns = sorted(k for k in kwargs if k not in _TRL_KWARGS)
            raise ExecrlError(
                f"the solver reward needs one ground truth per completion in the dataset "
                f"column {self.answer_column!r}; the batch has {columns}"
            )
        scored = score_solver_responses(
            [completion_text(c) for c in completions],
            list(answers),
            reward=self.config,
            executor=self._executor(),
            limits=self.limits,
        )
        rewards = [s.reward for s in scored]
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and rewards:
            log_metric(f"{self.__name__}/accuracy", sum(s.correct for s in scored) / len(scored))
            inconclusive = sum(r is None for r in rewards) / len(rewards)
            log_metric(f"{self.__name__}/inconclusive_frac", inconclusive)
        return rewards

    def _open_executor(self) -> Executor:
        """Sandboxes that can import the solvers, on the backend the spec names (a server
        keeps the sandbox settings it was started with, and must have the solvers)."""
        from execrl.rewards.solver import solver_sandbox_config
        from execrl.service.open import open_executor, parse_executor_spec

        remote = parse_executor_spec(self.executor_spec).kind == "remote"
        config = None if remote else solver_sandbox_config()
        return open_executor(self.executor_spec, workers=self.workers, config=config)


class AsyncExecrlRewardFunction(ExecrlRewardFunction):
    """The same reward function with ``async def __call__``: the scoring runs in a worker
    thread, so the event loop stays free. TRL (>= 1.x) awaits async reward functions
    concurrently with each other; custom loops can ``await`` it directly."""

    async def __call__(  # type: ignore[override]
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float | None]:
        sync_call = super().__call__
        return await asyncio.to_thread(sync_call, prompts, completions, **kwargs)


def completion_text(completion: Any) -> str:
    """The text of one completion: a string as is; for chat messages, the last assistant
    message's content (text parts joined)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        completion = [completion]
    assistant = [m for m in completion if m.get("role", "assistant") == "assistant"]
    if not assistant:
        return ""
    content = assistant[-1].get("content") or ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, Mapping))


def execrl_dataset(
    problems: Sequence[Problem], prompt_style: str = "chat", *, language: str | None = None
) -> Any:
    """A ``datasets.Dataset`` with columns ``prompt`` and ``problem_id``, one row per problem,
    and ``language`` (execrl's name) when one is given: the reward function reads it.

    The prompt is execrl's default one (``execrl.envs.multiturn.default_prompt``: statement,
    how the program is called, starter code), the same the reference trainer and multi-turn
    episodes use. ``prompt_style="chat"`` makes it a system + user message list (TRL applies
    the model's chat template); ``"text"`` makes it one plain string."""
    if prompt_style not in PROMPT_STYLES:
        raise ExecrlError(f"unknown prompt_style {prompt_style!r}; use one of {PROMPT_STYLES}")
    from datasets import Dataset

    from execrl.envs.multiturn import default_prompt

    rows = {"prompt": [], "problem_id": []}
    for problem in problems:
        messages = default_prompt(problem)
        prompt: Any = messages
        if prompt_style == "text":
            prompt = "\n\n".join(m["content"] for m in messages) + "\n"
        rows["prompt"].append(prompt)
        rows["problem_id"].append(problem.id)
    if language is not None:
        rows["language"] = [find_language(language).name] * len(problems)
    return Dataset.from_dict(rows)


def solver_dataset(problems: Sequence[Any]) -> Any:
    """A ``datasets.Dataset`` for :class:`SolverRewardFunction`: ``prompt`` (system + user
    messages stating the response format), ``answer`` (as a string: numbers and statuses share
    the column) and ``problem_id``, one row per OptimProblem."""
    from datasets import Dataset

    from execrl.rewards.solver import solver_messages

    return Dataset.from_dict(
        {
            "prompt": [solver_messages(p) for p in problems],
            "answer": [str(p.answer) for p in problems],
            "problem_id": [p.id for p in problems],
        }
    )


_TRL_KWARGS = {"completion_ids", "trainer_state", "log_metric", "log_extra", "environments"}


def _default_name(reward: RewardSpec) -> str:
    if isinstance(reward, str):
        return "execrl_" + (re.sub(r"[^A-Za-z0-9_]+", "_", reward).strip("_") or "reward")
    return "execrl_reward"


def _is_collection(problems: ProblemSource) -> bool:
    return problems is not None and not isinstance(problems, str | Path)


def _index(problems: Sequence[Problem] | Mapping[str, Problem]) -> dict[str, Problem]:
    if isinstance(problems, Mapping):
        return dict(problems)
    return {p.id: p for p in problems}


def _executor_or_spec(executor: Executor | str | None) -> tuple[Executor | None, str | None]:
    """(an executor object, None) or (None, the spec string, checked now rather than at the
    first training step)."""
    if not isinstance(executor, str):
        return executor, None
    from execrl.service.open import parse_executor_spec

    parse_executor_spec(executor)
    return None, executor
