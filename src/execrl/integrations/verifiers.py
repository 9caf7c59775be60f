"""execrl as a PrimeIntellect ``verifiers`` environment (verifiers 0.4.0, ``verifiers.v1``).

verifiers 0.4 builds an environment from a **taskset** package (``vf-eval <taskset-id>``):
the package's ``__all__`` exports one ``Taskset`` subclass (config in, typed tasks out), and
may export a ``Harness`` (the program that talks to the model) and an ``Env`` (how one task
becomes one episode). This module is such a package, under the id ``execrl-code``
(importable as ``execrl_code``: ``examples/verifiers`` is the installable one;
:func:`load_environment` registers this module under that name when it is not installed):

- :class:`ExecrlTaskset` yields one :class:`ExecrlTask` per problem of any execrl source;
  its ``answer`` is the row label (:func:`~execrl.integrations.rows.row_label`, inline: the
  tests travel with the task, no problem files are needed at rollout time);
- :class:`ExecrlTask` scores the last assistant message through an Executor, awaited
  (:func:`~execrl.integrations.rows.ascore_row`): its ``execrl_metrics`` metric records
  :data:`~execrl.integrations.rows.SCORE_KEYS` plus ``passed``, its ``execrl`` reward is
  execrl's reward (pass/fail, dense, timing presets, solver rewards: whatever the label's
  ``reward`` names);
- :class:`ExecrlHarness` is a tool-less chat loop run in-process (one model call per turn
  through verifiers' interception endpoint; no ``uv``, no container);
- :class:`ExecrlEnv` plays one attempt (``max_turns=1``) or a repair episode: after each
  failing attempt the program's feedback (:func:`~execrl.integrations.rows.feedback_message`)
  is the next user turn, until it passes or ``max_turns`` attempts; the reward is the
  **last** attempt's.

**Inconclusive executions** (the sandbox, not the program, failed) are verifiers' own kind
of failed rollout: the ``inconclusive`` metric is 1, ``trace.info["execrl"]`` says why, the
``execrl`` reward raises :class:`InconclusiveExecution` so verifiers records a ``TaskError``
on the trace (``trace.ok`` is False, the reward is left unscored, ``None``, not 0.0) and
``vf-eval --resume`` or ``--env.retries`` re-runs it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import verifiers.v1 as vf
from openai import AsyncOpenAI
from pydantic import Field
from verifiers.v1.dialects.chat import message_to_wire
from verifiers.v1.types import content_text

from execrl.envs.multiturn import default_prompt
from execrl.errors import ConfigError, ExecrlError
from execrl.integrations.executors import resolve_executor
from execrl.integrations.rows import (
    DEFAULT_ENV,
    DEFAULT_REWARD,
    Row,
    RowScore,
    ascore_row,
    check_settings,
    feedback_message,
    resolve_row,
    row_label,
)
from execrl.problems.io import load_problems
from execrl.problems.models import Problem

if TYPE_CHECKING:
    from execrl.sandbox.protocol import Executor

TASKSET_ID = "execrl-code"
"""The taskset id (``vf-eval execrl-code``); verifiers imports it as ``execrl_code``."""
MODULE_NAME = "execrl_code"


class InconclusiveExecution(ExecrlError):
    """The sandbox, not the program, failed: the rollout has no reward (a ``TaskError``)."""


class ExecrlTaskConfig(vf.TaskConfig):
    """Where programs run (``--env.taskset.task.*``)."""

    executor: str | None = None
    """Executor spec: ``local``, ``http://host:port,...`` (``execrl serve``), ``ray``; default
    ``$EXECRL_EXECUTOR``, else a local pool (one per process)."""
    workers: int | None = None
    """Sandboxes of the local pool (default: this machine's cores / 8)."""


class ExecrlTaskData(vf.TaskData):
    answer: str
    """The row label as JSON (:func:`execrl.integrations.rows.resolve_row` reads it)."""


class ExecrlState(vf.State):
    last: Any = None
    """(completion, RowScore) of the last attempt scored in this rollout."""


class ExecrlTask(vf.Task[ExecrlTaskData, ExecrlState, ExecrlTaskConfig]):
    executor: Executor | None = None
    """An Executor object (set by :func:`load_environment`); else ``config.executor``."""

    @property
    def row(self) -> Row:
        return resolve_row(self.data.answer)

    async def attempt(self, trace: vf.Trace, completion: str) -> RowScore:
        """Score ``completion`` on this task's row, remembered on the trace."""
        row = self.row
        executor = self.executor or resolve_executor(
            self.config.executor, self.config.workers, solver=row.kind == "solver"
        )
        score = await ascore_row(completion, row, executor=executor)
        trace.state.last = (completion, score)
        trace.info.setdefault("execrl_attempts", []).append(_summary(score))
        return score

    @vf.metric
    async def execrl_metrics(self, trace: vf.Trace) -> dict[str, float]:
        """SCORE_KEYS (or SOLVER_SCORE_KEYS) and ``passed`` of the last attempt."""
        completion = last_reply(trace)
        last = trace.state.last
        if last is not None and last[0] == completion:
            score = last[1]
        else:
            score = await self.attempt(trace, completion)
        trace.info["execrl"] = _summary(score)
        return {**score.metrics, "passed": float(score.passed)}

    @vf.reward
    async def execrl(self, trace: vf.Trace) -> float:
        """execrl's reward of the last attempt; raises when it is inconclusive."""
        summary = trace.info["execrl"]
        if summary["inconclusive"]:
            raise InconclusiveExecution(
                f"inconclusive execution ({summary['detail'] or 'sandbox failure'}): the "
                "sandbox, not the program, failed; this rollout has no reward"
            )
        return float(summary["reward"])


class ExecrlTasksetConfig(vf.TasksetConfig):
    """Which problems, scored how (``--env.taskset.*``)."""

    task: ExecrlTaskConfig = ExecrlTaskConfig()
    problems: str | list[dict[str, Any]] = "bundled"
    """A problem source (``bundled``, ``starter``, a folder or JSONL file) or problem dicts."""
    env: str | dict[str, Any] = DEFAULT_ENV
    """execrl environment preset (``mc``, ``rlvr``, the timing presets ``abs_timeout``,
    ``rel_timeout``...) or its mapping."""
    reward: str | dict[str, Any] = DEFAULT_REWARD
    """execrl reward preset (``collapsed``, ``correctness``, ``additive``, ``naive``...) or its
    mapping."""
    language: str | None = None
    """The completion's language (execrl's name); default Python."""
    ids: list[str] | None = None
    """Only these problem ids, in this order."""
    limit: int | None = Field(None, ge=1)
    """At most this many problems."""


class ExecrlTaskset(vf.Taskset[ExecrlTask, ExecrlTasksetConfig]):
    executor: Executor | None = None

    def load(self) -> Iterator[ExecrlTask]:
        config = self.config
        check_settings(config.env, config.reward)  # a wrong name fails here, once
        for problem in _select(_problems(config.problems), config.ids, config.limit):
            label = row_label(
                problem, env=config.env, reward=config.reward, language=config.language,
                inline=True,
            )  # fmt: skip
            system, user = default_prompt(problem)
            data = ExecrlTaskData(
                id=problem.id,
                name=problem.title,
                system_prompt=system["content"],
                prompt=user["content"],
                answer=json.dumps(label, sort_keys=True),
            )
            task = ExecrlTask(data, config.task)
            task.executor = self.executor
            yield task


class ExecrlHarnessConfig(vf.HarnessConfig):
    id: str = TASKSET_ID


class ExecrlHarness(vf.Harness[ExecrlHarnessConfig]):
    """A tool-less chat loop in-process: one model call per turn, through verifiers'
    interception endpoint (so the trace records it), with the conversation so far."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, **_: Any):
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages += [message_to_wire(m) for m in prompt or []]
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
            await client.chat.completions.create(model=ctx.model, messages=messages)
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


class ExecrlEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The policy's seat (``--env.agent.*``); the harness never runs model code on the host."""
    max_turns: int = Field(1, ge=1)
    """Attempts per episode: 1 is single-turn; more is the repair loop."""


class ExecrlEnv(vf.Env[ExecrlEnvConfig]):
    """One attempt, or attempts with execution feedback until one passes."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        max_turns = self.config.max_turns
        if max_turns == 1:
            await agents.agent.run(task)
            return
        assert isinstance(task, ExecrlTask)
        async with agents.agent.interaction(task) as chat:
            segment = await chat.turn()
            for turn in range(1, max_turns + 1):
                if segment.terminated:
                    break
                score = await task.attempt(chat.trace, last_reply(chat.trace))
                if score.passed or score.inconclusive or turn == max_turns:
                    break
                message = feedback_message(task.row, score, turn=turn, max_turns=max_turns)
                segment = await chat.turn(message)


# -- the front door ---------------------------------------------------------------------------
def environment_config(
    problems: str | Path | Iterable[Problem] = "bundled",
    *,
    multi_turn: bool = False,
    max_turns: int = 3,
    env: str | Mapping[str, Any] = DEFAULT_ENV,
    reward: str | Mapping[str, Any] = DEFAULT_REWARD,
    language: str | None = None,
    executor: str | None = None,
    workers: int | None = None,
    limit: int | None = None,
    ids: Iterable[str] | None = None,
    **kwargs: Any,
) -> ExecrlEnvConfig:
    """The env config :func:`load_environment` builds (for ``vf.EvalConfig(env=...)``, which
    ``vf-eval``'s runner takes); ``kwargs`` are further ``EnvConfig`` fields."""
    register()
    if not isinstance(problems, str | Path):
        problems = [p.model_dump(mode="json") for p in problems]
    if multi_turn and max_turns < 2:
        raise ConfigError(f"`max_turns`={max_turns}: a repair episode needs at least 2")
    taskset = {
        "id": TASKSET_ID,
        "problems": str(problems) if isinstance(problems, Path) else problems,
        "env": env if isinstance(env, str) else dict(env),
        "reward": reward if isinstance(reward, str) else dict(reward),
        "language": language,
        "ids": list(ids) if ids is not None else None,
        "limit": limit,
        "task": {"executor": executor, "workers": workers},
    }
    data = {"taskset": taskset, "max_turns": max_turns if multi_turn else 1, **kwargs}
    return ExecrlEnvConfig.model_validate(data)


def load_environment(
    problems: str | Path | Iterable[Problem] = "bundled",
    *,
    executor: Executor | str | None = None,
    **kwargs: Any,
) -> ExecrlEnv:
    """A single-turn (``multi_turn=False``) or repair (``multi_turn=True``, ``max_turns``)
    code environment over ``problems``; keywords as :func:`environment_config`.
    ``executor``: an Executor object, or a spec string (``"local"``, ``"http://..."``)."""
    spec = executor if executor is None or isinstance(executor, str) else None
    environment = ExecrlEnv(environment_config(problems, executor=spec, **kwargs))
    if spec is None and executor is not None:
        environment.taskset.executor = executor
    return environment


async def aevaluate(
    environment: vf.Env,
    *,
    model: str,
    base_url: str,
    api_key_var: str = "OPENAI_API_KEY",
    num_rollouts: int = 1,
    max_concurrent: int = 32,
) -> list[vf.Episode]:
    """Every task's ``num_rollouts`` episodes against an OpenAI-compatible endpoint, as
    ``vf-eval``'s runner plays them (``env.serving()``, ``env.run_slot``), without files."""
    client = vf.EvalClientConfig(base_url=base_url, api_key_var=api_key_var)
    ctx = vf.ModelContext(model=model, client=client)
    gate = asyncio.Semaphore(max_concurrent)
    async with environment.serving():
        slots = [s for task in environment.taskset for s in environment.slots(task, num_rollouts)]
        return list(await asyncio.gather(*(environment.run_slot(s, ctx, gate) for s in slots)))


def register() -> None:
    """Make ``execrl-code`` importable by verifiers: this module stands for ``execrl_code``
    unless that package (``examples/verifiers``) is installed."""
    if MODULE_NAME not in sys.modules and importlib.util.find_spec(MODULE_NAME) is None:
        sys.modules[MODULE_NAME] = sys.modules[__name__]


def last_reply(trace: vf.Trace) -> str:
    """The text of the trace's last assistant message ("" when there is none)."""
    for message in reversed(trace.messages):
        if message.role == "assistant":
            return content_text(message.content) or ""
    return ""


def _summary(score: RowScore) -> dict[str, Any]:
    return {
        "reward": score.reward,
        "inconclusive": score.inconclusive,
        "status": score.status,
        "detail": score.detail,
        "metrics": dict(score.metrics),
    }


def _problems(source: str | list[dict[str, Any]]) -> list[Problem]:
    if isinstance(source, str):
        return load_problems(source)
    return [Problem.model_validate(item) for item in source]


def _select(problems: list[Problem], ids: list[str] | None, limit: int | None) -> list[Problem]:
    if ids is not None:
        by_id = {p.id: p for p in problems}
        if missing := [i for i in ids if i not in by_id]:
            raise ConfigError(f"`ids`: no problem {', '.join(map(repr, missing))} in the source")
        problems = [by_id[i] for i in ids]
    return problems[:limit] if limit is not None else problems


__all__ = [
    "MODULE_NAME",
    "TASKSET_ID",
    "ExecrlEnv",
    "ExecrlEnvConfig",
    "ExecrlHarness",
    "ExecrlHarnessConfig",
    "ExecrlState",
    "ExecrlTask",
    "ExecrlTaskConfig",
    "ExecrlTaskData",
    "ExecrlTaskset",
    "ExecrlTasksetConfig",
    "InconclusiveExecution",
    "aevaluate",
    "environment_config",
    "last_reply",
    "load_environment",
    "register",
]
