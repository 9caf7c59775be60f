"""execrl as a SkyRL gym environment: ``skyrl_gym.make("execrl", ...)`` runs each completion's
program through an Executor and returns execrl's reward (and, multi-turn, the feedback text).

Importing this module registers two ids with skyrl-gym (0.4; :func:`register_environments`,
idempotent):

- ``execrl``: single-turn. One ``step``: the reward of the completion's program, ``done``.
- ``execrl-multiturn``: repair episodes. After a failing attempt the observation is a user
  message saying which visible tests failed (:func:`~execrl.integrations.rows.feedback_message`)
  and the episode goes on; it is done when a program passes or the turns run out. Rewards
  follow SkyRL's outcome-reward envs (``text2sql``, ``search``): ``0.0`` on every turn but the
  last, the last attempt's reward on the last one. SkyRL places each turn's reward on that
  turn's last token and GRPO sums them, so an episode's return is its last attempt's reward.

SkyRL's generator builds each trajectory's environment as ``skyrl_gym.make(env_class,
env_config=cfg.environment.skyrl_gym[env_class], extras=row)``, where ``row`` is the dataset
row without ``prompt`` and ``env_class`` (:func:`write_skyrl_dataset` writes it):

- ``extras["reward_spec"]["ground_truth"]``: the label, in any form of
  :func:`~execrl.integrations.rows.resolve_row` (a JSON string or a mapping);
- ``extras["extra_info"]``: per-row overrides (``env``, ``reward``, ``language``,
  ``problem_source``, ``max_turns``);
- ``extras["max_turns"]``: set by SkyRL's generator to ``generator.max_turns`` on every row.

``env_config`` (``environment.skyrl_gym.execrl`` / ``...execrl-multiturn``, or a dict): the
defaults after the row's own — ``env`` and ``reward`` (execrl's environment and reward,
default ``mc`` / ``collapsed``), ``language`` (default ``python``), ``problem_source`` — and
``executor`` (an Executor, or a spec: ``"local"``, ``"http://host:port,..."`` for ``execrl
serve`` servers, ``"ray"``; default ``$EXECRL_EXECUTOR``, else a local pool), ``workers``
(the local pool's size), ``max_turns`` (multi-turn, where neither ``extras`` nor the row says;
default 3) and ``feedback`` (a :class:`~execrl.envs.multiturn.FeedbackConfig` mapping). Each
process opens one executor for all its environments
(:func:`~execrl.integrations.executors.process_executor`).

**Inconclusive executions.** When the sandbox (not the program) fails, execrl has no reward;
SkyRL needs a number, so the step's ``reward`` is ``0.0`` **and** ``metadata["inconclusive"]``
is True (``metadata["metrics"]["inconclusive"]`` and :meth:`ExecrlCodeEnv.get_metrics`'s
``inconclusive`` are ``1.0``). A label that names no problem, or that is not execrl's,
raises :class:`~execrl.errors.ExecrlError` from ``make``: never a silent 0.0.

skyrl-gym 0.4's ``step`` is synchronous (there is no async variant; SkyRL's generator runs
it on a thread pool, ``environment.skyrl_gym.max_env_workers``), so ``step`` scores through
:func:`~execrl.integrations.rows.score_rows`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ValidationError
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput, ConversationType
from skyrl_gym.envs.registration import register, registry
from skyrl_gym.metrics import default_aggregate_metrics

from execrl.envs.multiturn import FeedbackConfig, default_prompt
from execrl.errors import ConfigError, ExecrlError, describe_validation_error
from execrl.integrations.executors import WORKERS_ENV_VAR, resolve_executor
from execrl.integrations.rows import (
    DEFAULT_ENV,
    DEFAULT_REWARD,
    Row,
    RowScore,
    feedback_message,
    resolve_row,
    row_label,
    score_rows,
)
from execrl.problems.models import Problem

if TYPE_CHECKING:
    from execrl.sandbox.protocol import Executor

ENV_ID = "execrl"
"""The single-turn environment's skyrl-gym id."""
MULTITURN_ENV_ID = "execrl-multiturn"
"""The multi-turn (repair) environment's skyrl-gym id."""
DEFAULT_MAX_TURNS = 3
"""Turns of a multi-turn episode when neither ``extras``, the row nor ``env_config`` says."""

CONFIG_KEYS = frozenset(
    {"env", "reward", "language", "problem_source", "executor", "workers", "max_turns", "feedback"}
)
"""What ``env_config`` may hold."""


class ExecrlCodeEnv(BaseTextEnv):
    """A skyrl-gym text environment whose ``step`` runs the completion's program on its
    problem's tests (see the module's docstring). ``ExecrlCodeEnv`` is single-turn;
    :class:`ExecrlMultiTurnCodeEnv` is the repair episode."""

    multi_turn: ClassVar[bool] = False

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = _config(env_config)
        extras = dict(extras or {})
        info = _mapping(extras.get("extra_info"), "extras['extra_info']")
        defaults = {
            name: config[name]
            for name in ("env", "reward", "language", "problem_source")
            if config.get(name) not in (None, "")
        }
        self.row: Row = resolve_row(_ground_truth(extras), info, defaults)
        self.max_turns = self._max_turns(extras, info, config)
        self.feedback = _feedback(config.get("feedback"))
        self._executor_spec = config.get("executor")
        self._workers = _workers(self._executor_spec, config.get("workers"))
        self.scores: list[RowScore] = []
        """Every attempt's score, in order."""

    # -- skyrl-gym's interface ------------------------------------------------------------
    def init(self, prompt: ConversationType) -> tuple[ConversationType, dict[str, Any]]:
        """The prompt unchanged (the dataset's); the row's problem id and turns as metadata."""
        problem = self.row.problem
        return prompt, {"problem_id": problem.id if problem else None, "max_turns": self.max_turns}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Run the program in ``action`` (its last fenced block of the row's language) and
        return its reward; multi-turn, the feedback message until it passes or turns run out."""
        self.turns += 1
        (score,) = score_rows([action], [self.row], executor=self.executor)
        self.scores.append(score)
        done = score.passed or self.turns >= self.max_turns
        observations: ConversationType = []
        if not done:
            text = feedback_message(
                self.row, score, turn=self.turns, max_turns=self.max_turns, config=self.feedback
            )
            observations = [{"role": "user", "content": text}]
        return BaseTextEnvStepOutput(
            observations=observations,
            reward=score.value if done else 0.0,
            done=done,
            metadata=self._metadata(score, done),
        )

    def get_metrics(self) -> dict[str, Any]:
        """The episode's metrics (all floats; empty before a step): the last attempt's
        (``score``, ``inconclusive``, ``tests_passed_fraction``... :data:`rows.SCORE_KEYS`),
        ``passed`` (1.0 when the last attempt passed), ``turns`` and ``inconclusive_turns``."""
        if not self.scores:
            return {}
        last = self.scores[-1]
        return {
            **last.metrics,
            "passed": float(last.passed),
            "turns": float(len(self.scores)),
            "inconclusive_turns": float(sum(s.inconclusive for s in self.scores)),
        }

    @staticmethod
    def aggregate_metrics(metrics: list[dict[str, Any]]) -> dict[str, Any]:
        """The mean of each metric over episodes, plus ``conclusive_score``: the mean
        ``score`` of the episodes whose last attempt was not inconclusive (absent if none)."""
        out = default_aggregate_metrics(metrics)
        conclusive = [m["score"] for m in metrics if "score" in m and not m.get("inconclusive")]
        if conclusive:
            out["conclusive_score"] = float(sum(conclusive)) / len(conclusive)
        return out

    # -- helpers --------------------------------------------------------------------------
    @property
    def executor(self) -> Executor:
        """The Executor given in ``env_config``, else this process's for its spec."""
        return resolve_executor(
            self._executor_spec, self._workers, solver=self.row.kind == "solver"
        )

    def _max_turns(
        self, extras: Mapping[str, Any], info: Mapping[str, Any], config: Mapping[str, Any]
    ) -> int:
        if not self.multi_turn:
            return 1
        for name, place in (
            ("extras['max_turns']", extras),
            ("extras['extra_info']['max_turns']", info),
            ("env_config['max_turns']", config),
        ):
            if place.get("max_turns") is not None:
                return _positive(place["max_turns"], name)
        return DEFAULT_MAX_TURNS

    def _metadata(self, score: RowScore, done: bool) -> dict[str, Any]:
        return {
            "reward": score.reward,
            "inconclusive": score.inconclusive,
            "status": score.status,
            "detail": score.detail,
            "passed": score.passed,
            "program": score.program,
            "turn": self.turns,
            "max_turns": self.max_turns,
            "done": done,
            "metrics": dict(score.metrics),
        }


class ExecrlMultiTurnCodeEnv(ExecrlCodeEnv):
    """:class:`ExecrlCodeEnv` as a repair episode of ``max_turns`` attempts (module
    docstring): feedback after each failing attempt, 0.0 until the last turn's reward."""

    multi_turn: ClassVar[bool] = True


def register_environments() -> None:
    """Register ``execrl`` and ``execrl-multiturn`` with skyrl-gym (done on import of this
    module; calling it again does nothing). In SkyRL, import this module where the trainer
    runs (its Ray entrypoint; ``examples/skyrl/``) before the first ``make``."""
    for env_id, cls in ((ENV_ID, ExecrlCodeEnv), (MULTITURN_ENV_ID, ExecrlMultiTurnCodeEnv)):
        if env_id not in registry:
            register(id=env_id, entry_point=f"{__name__}:{cls.__name__}")


register_environments()


def write_skyrl_dataset(
    problems: Iterable[Problem],
    path: str | Path,
    *,
    env: str | Mapping[str, Any] = DEFAULT_ENV,
    reward: str | Mapping[str, Any] = DEFAULT_REWARD,
    language: str | None = None,
    inline: bool = True,
    max_turns: int = 1,
    split: str = "train",
    problem_source: str | Path | None = None,
) -> Path:
    """Write ``problems`` as a SkyRL parquet file, one row each: ``data_source``
    (``execrl/<dataset>``), ``prompt`` (system + user chat messages), ``env_class``
    (``execrl`` when ``max_turns`` is 1, else ``execrl-multiturn``), ``reward_spec``
    (``{"method": "rule", "ground_truth": <label JSON>}``) and ``extra_info`` (``{problem_id,
    split, index, max_turns}``). ``inline=True`` puts each problem, tests included, in its
    label (no problem files needed at training time, but large rows); ``inline=False`` names
    it (``problem_id``, and ``problem_source`` when given: needed for problems that are not
    bundled unless ``$EXECRL_PROBLEMS`` names their source where SkyRL runs)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    turns = _positive(max_turns, "max_turns")
    rows = []
    for index, problem in enumerate(problems):
        label = row_label(
            problem,
            env=env,
            reward=reward,
            language=language,
            problem_source=problem_source,
            inline=inline,
        )
        rows.append(
            {
                "data_source": f"execrl/{problem.source.dataset}",
                "prompt": default_prompt(problem),
                "env_class": ENV_ID if turns == 1 else MULTITURN_ENV_ID,
                "reward_spec": {"method": "rule", "ground_truth": json.dumps(label)},
                "extra_info": {
                    "problem_id": problem.id,
                    "split": split,
                    "index": index,
                    "max_turns": turns,
                },
            }
        )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


# -- rows and config ---------------------------------------------------------------------------
def _ground_truth(extras: Mapping[str, Any]) -> Any:
    spec = extras.get("reward_spec")
    if not isinstance(spec, Mapping) or spec.get("ground_truth") in (None, ""):
        raise ExecrlError(
            "`extras['reward_spec']['ground_truth']` is missing: SkyRL passes the dataset row "
            "as extras; write it with execrl.integrations.skyrl.write_skyrl_dataset"
        )
    return spec["ground_truth"]


def _config(env_config: Any) -> dict[str, Any]:
    """``env_config`` as a dict (SkyRL passes an OmegaConf DictConfig), its keys checked."""
    if env_config is None:
        return {}
    if type(env_config).__module__.startswith("omegaconf."):  # its values may be nested
        from omegaconf import OmegaConf

        env_config = OmegaConf.to_container(env_config, resolve=True)
    config = _mapping(env_config, "env_config")
    unknown = sorted(set(config) - CONFIG_KEYS)
    if unknown:
        raise ConfigError(
            f"`env_config` has unknown keys {', '.join(unknown)}; "
            f"expected some of {', '.join(sorted(CONFIG_KEYS))}"
        )
    return config


def _feedback(value: Any) -> FeedbackConfig:
    try:
        return FeedbackConfig.model_validate(_mapping(value, "env_config['feedback']"))
    except ValidationError as exc:
        raise ConfigError(f"`env_config['feedback']`: {describe_validation_error(exc)}") from None


def _mapping(value: Any, name: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"`{name}` must be a mapping, got {type(value).__name__}")
    return dict(value)


def _workers(executor: Any, value: Any) -> int | None:
    """The pool's size: ``workers``; for a local pool, else ``$EXECRL_VERL_WORKERS``, else
    every core this process may use (SkyRL steps all of a node's environments in one
    process, where verl's default assumes 8 reward workers share the cores)."""
    from execrl.service.open import EXECUTOR_ENV, parse_executor_spec

    if value is not None:
        return _positive(value, "env_config['workers']")
    if executor is not None and not isinstance(executor, str):
        return None  # an Executor: its size is its own
    if not parse_executor_spec(executor or os.environ.get(EXECUTOR_ENV)).is_local:
        return None  # servers and Ray size themselves
    if os.environ.get(WORKERS_ENV_VAR, "").strip():
        return None  # process_executor reads it
    return len(os.sched_getaffinity(0))


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"`{name}`={value!r}: expected a whole number >= 1")
    return value


__all__ = [
    "DEFAULT_MAX_TURNS",
    "ENV_ID",
    "MULTITURN_ENV_ID",
    "ExecrlCodeEnv",
    "ExecrlMultiTurnCodeEnv",
    "register_environments",
    "write_skyrl_dataset",
]
