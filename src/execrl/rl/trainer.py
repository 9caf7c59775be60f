"""The reference trainer: group-relative policy gradient on code, in one file.

Read it top to bottom; each section is one stage of a step::

    prompts ──sample G each──▶ rollouts ──extract + execute──▶ rewards ──▶ advantages
        ▲                                                                     │
        └──── weights (every K steps, async) ◀── AdamW ◀── clipped surrogate ◀┘

1. **Config** — pydantic models, loaded from YAML; named presets live in ``rl/configs/``.
2. **Policy** — a causal LM from a local folder (default: the bundled SmolLM2-135M-Instruct),
   optionally wrapped with LoRA (peft), and a frozen reference copy when a KL term needs one.
3. **Rollouts** — G samples per prompt; generation stops once a fenced code block closes.
   Every group carries the *policy version* (optimizer steps applied) that produced it.
4. **Rewards** — code is extracted and scored through ``execrl.rewards.score_batch`` under the
   configured environment and reward; or, for the dense presets, the pass tensor goes
   through ``execrl.rewards.dense``; multi-turn episodes use ``execrl.envs.multiturn``.
   An inconclusive execution (the sandbox failed, not the program) has no reward: the sample
   is dropped and counted, never scored as a failure.
5. **Advantages** — ``execrl.rl.advantages`` (GRPO, Dr.GRPO, token-weighted, RLOO,
   REINFORCE++, dense).
6. **Update** — ``execrl.rl.losses.clipped_surrogate`` with the configured aggregation, an
   optional KL term (in the loss, or in the reward for REINFORCE++; optionally only on tagged
   sections), gradient accumulation over micro-batches, AdamW, gradient clipping.
7. **Async mode** — a rollout worker thread with its own copy of the weights feeds groups into
   a bounded queue; the trainer drops groups older than ``max_staleness`` optimizer steps and
   pushes weights to the worker every ``push_every`` steps. The clipped ratio corrects for the
   lag (the worker records the sampling log-probabilities).
8. **Checkpoints** — model (or adapter), optimizer, RNG and data-order state every
   ``checkpoint_every`` steps; ``resume`` continues a run from its latest checkpoint.

Each step appends one line to ``metrics.jsonl`` in the run folder: reward mean/std, pass
rate, zero-advantage group rate, KL, clip fractions, completion lengths, execution failure and
inconclusive rates, dropped stale groups, and the time of each phase.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import os
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from execrl.errors import ConfigError, ExecrlError, UsageError
from execrl.extract import extract_code
from execrl.problems.models import Problem
from execrl.rewards.dense import DenseRewardConfig
from execrl.sandbox.protocol import Executor
from execrl.service.fallback import StepMonitor

# =========================================================================== 1. Config


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LoraConfig(_Strict):
    r: int = Field(default=16, ge=1)
    alpha: int = Field(default=32, ge=1)
    dropout: float = Field(default=0.0, ge=0, lt=1)
    target_modules: list[str] = Field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"]
    )


class PolicyConfig(_Strict):
    model: str = "smollm2"
    """``smollm2`` (the bundled SmolLM2-135M-Instruct) or a local transformers folder."""
    lora: LoraConfig | None = None
    max_new_tokens: int = Field(default=128, ge=1)
    temperature: float = Field(default=1.0, gt=0)
    top_p: float = Field(default=1.0, gt=0, le=1)
    stop_at_code_end: bool = True
    """Stop a rollout once its first fenced code block closes (nothing after it is scored)."""
    threads: int | None = Field(default=None, ge=1)
    """torch CPU threads for sampling (None: one per core; 1 in async mode, where sampling,
    the update and the sandbox share the machine). On 2 idle cores, 2 threads sample 24
    rollouts in 30 s against 39 s for 1; on cores other work keeps busy, 1 is much faster."""


class DataConfig(_Strict):
    problems: str = "starter"
    """A source for ``load_problems``: ``starter``, ``bundled``, a folder or a JSONL file."""
    train_tag: str | None = "train"
    """Train on problems with this tag (all problems when None), or on ``train_ids``."""
    train_ids: list[str] = Field(default_factory=list)
    eval_tag: str | None = "heldout"
    """Evaluate before/after on problems with this tag (none when None), or on ``eval_ids``."""
    eval_ids: list[str] = Field(default_factory=list)
    """Held-out problems are never trained on, whatever the training selection says."""


class RewardConfig(_Strict):
    kind: Literal["score", "dense", "multiturn", "solver"] = "score"
    """``score``: env + reward through ``score_batch``; ``dense``: density-calibrated partial
    success over the correctness tests; ``multiturn``: episodes with execution feedback;
    ``solver``: solver-verified rewards on optimisation word problems (``data.problems`` is
    then a source for ``execrl.problems.optim.load_optim_problems``)."""
    env: str | dict[str, Any] = "rlvr"
    reward: str | dict[str, Any] = "correctness"
    dense: DenseRewardConfig = Field(default_factory=DenseRewardConfig)
    max_turns: int = Field(default=2, ge=1)
    solver: str | dict[str, Any] = "paper"
    """The solver reward (``paper``, ``authors``, or settings such as ``{stage: 2}``)."""


class KLConfig(_Strict):
    beta: float = Field(default=0.0, ge=0)
    estimator: Literal["k1", "k2", "k3"] = "k3"
    placement: Literal["loss", "reward"] = "loss"
    """``loss``: β·KL added to the loss; ``reward``: −β·KL per token in the reward
    (REINFORCE++ only)."""
    sections: list[str] | None = None
    """Penalise only these tagged sections (e.g. [model, code]); None = every token."""


class LossConfig(_Strict):
    advantage: Literal["grpo", "dr_grpo", "token_weighted", "rloo", "reinforce_pp", "dense"] = (
        "grpo"
    )
    eps_low: float = Field(default=0.2, ge=0)
    eps_high: float = Field(default=0.2, ge=0)
    aggregation: Literal["token_mean", "sequence_mean", "fixed_horizon"] = "token_mean"
    horizon: int = Field(default=32768, ge=1)
    kl: KLConfig = Field(default_factory=KLConfig)


class OptimConfig(_Strict):
    lr: float = Field(default=5e-6, gt=0)
    weight_decay: float = Field(default=0.0, ge=0)
    grad_clip: float | None = Field(default=1.0, gt=0)
    epochs: int = Field(default=1, ge=1)
    """Passes over each batch (PPO epochs); more than one makes the clipping bind."""
    micro_batch: int = Field(default=4, ge=1)
    skip_zero_advantage: bool = True
    """Leave rollouts whose advantage is exactly 0 (every sample of their group got the same
    reward) out of the forward and backward pass; they still count in the loss's denominator.
    Without a KL term their gradient is exactly zero, so the update is the same at the cost of
    the rollouts with a signal only. (Applies when β = 0 and advantages are per rollout; clip
    fractions are then over the tokens with a signal.)"""
    share_prompt: bool = True
    """Run each distinct prompt of a micro-batch through the model once and its rollouts'
    completions on top of its key/value cache (gradients flow back through the shared
    prompt), instead of the whole prompt once per rollout. Same values, fewer tokens:
    prompts are most of the tokens of a code-RL batch."""
    threads: int | None = Field(default=None, ge=1)
    """torch CPU threads for the update (None: one per core). Sampling uses
    ``policy.threads``; in async mode both run at once, so the update keeps those."""


class AsyncConfig(_Strict):
    enabled: bool = False
    queue_size: int = Field(default=4, ge=1)
    """Groups the queue holds; a full queue blocks the rollout worker."""
    max_staleness: int = Field(default=30, ge=0)
    """S_max: drop groups sampled more than this many optimizer steps ago."""
    push_every: int = Field(default=1, ge=1)
    """K: copy the trainer's weights to the rollout worker every K optimizer steps."""


class EvalConfig(_Strict):
    samples: int = Field(default=4, ge=1)
    temperature: float = Field(default=0.7, gt=0)
    before: bool = True
    after: bool = True


class TrainConfig(_Strict):
    preset: str = "custom"
    seed: int = 0
    steps: int = Field(default=10, ge=1)
    prompts_per_step: int = Field(default=4, ge=1)
    group_size: int = Field(default=4, ge=1)
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    data: DataConfig = Field(default_factory=DataConfig)
    reward: RewardConfig = Field(default_factory=RewardConfig)
    loss: LossConfig = Field(default_factory=LossConfig)
    optim: OptimConfig = Field(default_factory=OptimConfig)
    async_: AsyncConfig = Field(default_factory=AsyncConfig, alias="async")
    eval: EvalConfig = Field(default_factory=EvalConfig)
    checkpoint_every: int = Field(default=0, ge=0)
    """Save a checkpoint every this many steps (and always at the end); 0 = only at the end."""
    workers: int | None = Field(default=None, ge=1)
    """Sandbox workers this process starts: the local pool's, or each Ray node's (default:
    one per core). A server runs its own, so it is not set with a server URL."""
    executor: str | None = None
    """Where the programs run when no executor object is given to the Trainer: None or
    ``local`` (a sandbox pool on this machine), ``http://host:port[,http://...]`` (the
    ``execrl serve`` servers, through RemoteExecutor), ``ray`` / ``ray:HOST:PORT`` /
    ``ray://HOST:PORT`` (a Ray cluster); see ``execrl.service.open``. CLI: ``--executor``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @field_validator("executor")
    @classmethod
    def _known_executor(cls, spec: str | None) -> str | None:
        from execrl.service.open import parse_executor_spec

        try:
            parse_executor_spec(spec)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
        return spec

    @model_validator(mode="after")
    def _consistent(self) -> TrainConfig:
        dense = self.reward.kind in ("dense", "multiturn")
        if dense != (self.loss.advantage == "dense"):
            raise ValueError(
                "reward.kind dense/multiturn goes with loss.advantage 'dense' and only with it"
            )
        if self.loss.kl.placement == "reward" and self.loss.advantage != "reinforce_pp":
            raise ValueError("loss.kl.placement 'reward' needs loss.advantage 'reinforce_pp'")
        if self.async_.enabled and self.reward.kind == "multiturn":
            raise ValueError("async mode samples single-turn groups; multiturn runs synchronously")
        if self.workers is not None and _executor_kind(self.executor) == "remote":
            raise ValueError("workers: a server runs its own workers; leave it out with a URL")
        return self


PRESET_DIR = "configs"


def preset_names() -> list[str]:
    folder = resources.files("execrl.rl") / PRESET_DIR
    return sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))


def load_config(
    preset: str | None = "rlvr",
    path: str | Path | None = None,
    overrides: Sequence[str] = (),
) -> TrainConfig:
    """A preset, then a YAML file on top of it, then ``key.sub=value`` overrides (YAML values).

    Everything is checked here, before any model loads: the settings against
    :class:`TrainConfig`, and the environment, reward and solver-reward specs by building them
    (a ConfigError names the file, the override or the setting, and the value)."""
    data: dict[str, Any] = {}
    if preset is not None:
        if preset not in preset_names():
            raise ConfigError(f"unknown preset {preset!r}; choose one of {preset_names()}")
        text = (resources.files("execrl.rl") / PRESET_DIR / f"{preset}.yaml").read_text()
        data = _deep_merge(data, yaml.safe_load(text) or {})
        data["preset"] = preset
    if path is not None:
        loaded = _read_config_file(Path(path))
        data = _deep_merge(data, loaded)
    for item in overrides:
        _apply_override(data, item)
    try:
        config = TrainConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        message = str(first["msg"]).removeprefix("Value error, ")
        got = first.get("input")
        shown = "" if isinstance(got, dict | list) or not first["loc"] else f" (got {got!r})"
        raise ConfigError(f"training config: {where}: {message}{shown}") from None
    check_reward_specs(config.reward)
    return config


def _read_config_file(path: Path) -> dict[str, Any]:
    """A YAML mapping of settings; a ConfigError naming ``path`` otherwise."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read the training config ({exc.strerror or exc})"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: the training config is not UTF-8 text (byte {exc.start}: "
            f"{raw[exc.start : exc.start + 4]!r}); save it as UTF-8"
        ) from None
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({_yaml_where(exc)})") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ConfigError(
            f"{path}: a training config is a mapping of settings (e.g. 'steps: 20'), "
            f"got a {type(loaded).__name__}"
        )
    return loaded


def _apply_override(data: dict[str, Any], item: str) -> None:
    """``key.sub=value`` into ``data`` (the value read as YAML)."""
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"an override is key=value (e.g. optim.lr=1e-5), got {item!r}")
    node = data
    *parents, leaf = key.strip().split(".")
    for part in parents:
        if node.get(part) is None:  # an unset section (e.g. policy.lora: null)
            node[part] = {}
        node = node[part]
        if not isinstance(node, dict):
            raise ConfigError(f"override {item!r}: {part!r} is not a section")
    try:
        node[leaf] = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise ConfigError(
            f"override {item!r}: {raw!r} is not a YAML value ({_yaml_where(exc)}); "
            "quote a string, close a list (e.g. [a, b])"
        ) from None


def _yaml_where(exc: yaml.YAMLError) -> str:
    """PyYAML's several-line message as one: the problem and its line and column."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark else problem


def check_reward_specs(reward: RewardConfig) -> None:
    """Build the environment, reward and solver reward the config names, so a bad spec
    (``qp(p=``, ``collapsed(map=nope)``) fails at load, not at the first scoring."""
    from execrl.envs.presets import validate_env_spec
    from execrl.rewards.compositions import reward as reward_fn
    from execrl.rewards.solver.rewards import solver_reward_config

    checks = [
        ("reward.env", validate_env_spec, reward.env),
        ("reward.reward", reward_fn, reward.reward),
    ]
    if reward.kind == "solver":
        checks.append(("reward.solver", solver_reward_config, reward.solver))
    for where, build, spec in checks:
        try:
            build(spec)
        except ExecrlError as exc:
            raise ConfigError(f"training config: {where} {spec!r}: {exc}") from None


def _deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


# =========================================================================== 2. Policy


def _torch() -> Any:
    from execrl.rl.generation import _train_stack

    return _train_stack()


def load_policy(config: PolicyConfig) -> tuple[Any, Any]:
    """(model, tokenizer) in train mode, LoRA-wrapped when configured."""
    torch, transformers = _torch()
    if config.model == "smollm2":
        from execrl.rl.generation import smollm2_path

        path = smollm2_path()
    else:
        path = Path(config.model)
        if not (path / "config.json").is_file():
            raise ExecrlError(f"policy.model {path} is not a transformers folder (no config.json)")
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, dtype=torch.float32
    )
    if config.lora is not None:
        try:
            import peft
        except ImportError:
            raise ExecrlError("policy.lora needs peft: pip install 'execrl[train]'") from None
        lora = peft.LoraConfig(
            r=config.lora.r,
            lora_alpha=config.lora.alpha,
            lora_dropout=config.lora.dropout,
            target_modules=config.lora.target_modules,
            task_type="CAUSAL_LM",
        )
        model = peft.get_peft_model(model, lora)
    model.train()
    return model, tokenizer


# =========================================================================== 3. Rollouts


@dataclass
class Rollout:
    """One sampled completion: token ids, text, and what execution made of it."""

    prompt_ids: list[int]
    completion_ids: list[int]
    text: str
    old_logp: list[float] | None = None
    """Per-token log-probabilities under the sampling weights (async mode); None when the
    update is on-policy and uses the current weights' detached values instead."""
    reward: float | None = None
    passed: bool = False
    failed_execution: bool = False
    """The program crashed, timed out or hit a limit on some test (not a wrong answer)."""
    inconclusive: bool = False
    advantage: float | None = None
    token_advantages: list[float] | None = None
    record: Any = None
    """The ExecutionRecord its reward came from (None for solver and multi-turn rollouts):
    what the step's spec §6 monitor counts."""


@dataclass
class RolloutGroup:
    """The G rollouts of one prompt, with the policy version that sampled them."""

    problem_id: str
    rollouts: list[Rollout]
    version: int


def prompt_messages(problem: Any) -> list[dict[str, str]]:
    """The turn-1 conversation: execrl's default prompt (statement, calling convention, starter
    code), or the solver prompt (response format and program convention) for an optimisation
    word problem."""
    from execrl.envs.multiturn import default_prompt
    from execrl.problems.optim import OptimProblem

    if isinstance(problem, OptimProblem):
        from execrl.rewards.solver import solver_messages

        return solver_messages(problem)
    return default_prompt(problem)


class _CodeBlockClosed:
    """Stopping criterion: a row is done once its completion holds a closed fenced block."""

    def __init__(self, tokenizer: Any, prompt_width: int) -> None:
        self.tokenizer = tokenizer
        self.prompt_width = prompt_width

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        texts = self.tokenizer.batch_decode(input_ids[:, self.prompt_width :])
        return torch.tensor([t.count("```") >= 2 for t in texts], device=input_ids.device)


def sample(
    model: Any,
    tokenizer: Any,
    conversations: Sequence[list[dict[str, str]]],
    config: PolicyConfig,
    *,
    temperature: float | None = None,
    seed: int,
) -> list[Rollout]:
    """One completion per conversation, generated in one batch (left-padded prompts)."""
    torch, transformers = _torch()
    texts = [
        tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True)
        for c in conversations
    ]
    tokenizer.padding_side = "left"
    batch = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    width = batch["input_ids"].shape[1]
    stopping = transformers.StoppingCriteriaList(
        [_CodeBlockClosed(tokenizer, width)] if config.stop_at_code_end else []
    )
    torch.manual_seed(seed)
    was_training = model.training
    model.eval()
    with torch.inference_mode():
        out = model.generate(
            **batch,
            do_sample=True,
            temperature=temperature or config.temperature,
            top_p=config.top_p,
            max_new_tokens=config.max_new_tokens,
            stopping_criteria=stopping,
            pad_token_id=tokenizer.pad_token_id,
        )
    model.train(was_training)
    rollouts = []
    for row, mask in enumerate(batch["attention_mask"]):
        prompt_ids = batch["input_ids"][row][mask.bool()].tolist()
        completion = out[row, width:].tolist()
        completion = completion[
            : _completion_length(completion, tokenizer, config.stop_at_code_end)
        ]
        text = tokenizer.decode(completion, skip_special_tokens=True)
        rollouts.append(Rollout(prompt_ids, completion, text))
    return rollouts


def _completion_length(ids: list[int], tokenizer: Any, stopped_at_code_end: bool) -> int:
    """Tokens up to and including the first end-of-sequence, or (when generation stops there)
    up to the end of the closed code block; the padding after either is not part of the
    completion."""
    eos = tokenizer.eos_token_id
    pad = tokenizer.pad_token_id
    text_len = len(ids)
    if eos in ids:
        text_len = ids.index(eos) + 1
    if stopped_at_code_end:  # such a row is padded after its last real token
        decoded = ""
        for i, token in enumerate(ids[:text_len]):
            decoded += tokenizer.decode([token])
            if decoded.count("```") >= 2:
                return i + 1
    if pad != eos and pad in ids[:text_len]:
        return ids.index(pad)
    return text_len


# =========================================================================== 4. Rewards

_NOT_EXECUTION_FAILURES = frozenset({"success", "wrong_answer", "inconclusive"})


@dataclass
class Scorer:
    """Scores rollout groups under the configured environment and reward."""

    config: RewardConfig
    problems: dict[str, Problem]
    executor: Executor

    def score(self, groups: Sequence[RolloutGroup]) -> None:
        """Set ``reward``, ``passed``, ``failed_execution``, ``inconclusive`` on each rollout
        (and ``advantage`` for dense rewards, which are defined per group)."""
        from execrl.rewards.scoring import Group, score_batch

        if self.config.kind == "solver":
            self._solver([r for g in groups for r in g.rollouts], [g.problem_id for g in groups])
            return

        batch = [
            Group(problem, [extract_code(r.text, problem.entry_point) for r in g.rollouts])
            for g in groups
            for problem in [self.problems[g.problem_id]]
        ]
        env, reward = self.config.env, self.config.reward
        if self.config.kind == "dense":
            env, reward = "mc", "correctness"  # every correctness test, no early stop
        scored = score_batch(batch, env=env, reward=reward, executor=self.executor, progress=False)
        for group, results in zip(groups, scored, strict=True):
            for rollout, s in zip(group.rollouts, results, strict=True):
                rollout.reward = s.reward
                rollout.record = s.record
                rollout.passed = s.record.all_passed
                rollout.inconclusive = s.reward is None
                rollout.failed_execution = any(
                    t.status not in _NOT_EXECUTION_FAILURES for t in s.record.results
                )
            if self.config.kind == "dense":
                self._dense(group, [s.record for s in results])

    def _solver(self, rollouts: list[Rollout], problem_ids: list[str]) -> None:
        from execrl.rewards.solver import Verdict, score_solver_responses

        per_group = len(rollouts) // len(problem_ids)
        answers = [self.problems[pid].answer for pid in problem_ids for _ in range(per_group)]
        scores = score_solver_responses(
            [r.text for r in rollouts], answers, reward=self.config.solver, executor=self.executor
        )
        for rollout, s in zip(rollouts, scores, strict=True):
            rollout.reward = s.reward
            rollout.passed = s.correct
            rollout.inconclusive = s.reward is None
            rollout.failed_execution = s.verdict in (Verdict.EXECUTION_ERROR, Verdict.TIMEOUT)

    def passed(self, problem_ids: list[str], texts: list[str]) -> list[bool]:
        """Whether each completion solves its problem (every correctness test, or the right
        optimum): what held-out pass@1 counts."""
        groups = [
            RolloutGroup(pid, [Rollout([], [], t)], 0)
            for pid, t in zip(problem_ids, texts, strict=True)
        ]
        if self.config.kind == "solver":
            self._solver([g.rollouts[0] for g in groups], problem_ids)
            return [g.rollouts[0].passed for g in groups]
        from execrl.rewards.scoring import Group, score_batch

        problems = [self.problems[pid] for pid in problem_ids]
        batch = [
            Group(p, [extract_code(t, p.entry_point)]) for p, t in zip(problems, texts, strict=True)
        ]
        scored = score_batch(
            batch, env="mc", reward="correctness", executor=self.executor, progress=False
        )
        return [results[0].record.all_passed for results in scored]

    def _dense(self, group: RolloutGroup, records: Sequence[Any]) -> None:
        from execrl.rewards.dense import PassTensor, dense_rewards

        problem = self.problems[group.problem_id]
        if any(r.inconclusive for r in group.rollouts):
            for r in group.rollouts:  # a pass tensor needs every verdict: drop the group
                r.inconclusive, r.reward = True, None
            return
        suite = [t.id for t in problem.correctness_tests]
        tensor = PassTensor.from_records([[rec] for rec in records], suite)
        out = dense_rewards(tensor, self.config.dense)
        for i, rollout in enumerate(group.rollouts):
            rollout.reward = float(out.turn_rewards[0, i])
            rollout.advantage = float(out.advantages[0, i])


# =========================================================================== 5. Advantages


def assign_advantages(groups: Sequence[RolloutGroup], loss: LossConfig) -> None:
    """Group estimators over the conclusive rollouts of each batch (dense: already set)."""
    from execrl.rl.advantages import compute_advantages

    if loss.advantage in ("dense", "reinforce_pp"):
        return  # dense: per group at scoring; reinforce_pp: per token, after the KL pass
    kept = [(gi, r) for gi, g in enumerate(groups) for r in g.rollouts if not r.inconclusive]
    if not kept:
        return
    rewards = [r.reward for _, r in kept]
    ids = [gi for gi, _ in kept]
    lengths = (
        [len(r.completion_ids) for _, r in kept] if loss.advantage == "token_weighted" else None
    )
    advantages = compute_advantages(loss.advantage, rewards, ids, lengths)
    for (_, rollout), a in zip(kept, advantages, strict=True):
        rollout.advantage = float(a)


def drop_stale(
    groups: Sequence[RolloutGroup], version: int, max_staleness: int
) -> tuple[list[RolloutGroup], list[RolloutGroup]]:
    """(kept, dropped): a group sampled at policy version v is kept while
    ``version − v ≤ max_staleness`` (``version`` = optimizer steps taken so far)."""
    kept = [g for g in groups if version - g.version <= max_staleness]
    dropped = [g for g in groups if version - g.version > max_staleness]
    return kept, dropped


# =========================================================================== 6. Update


def _batch_tensors(
    rollouts: Sequence[Rollout], pad_id: int, share_prompt: bool = False
) -> dict[str, Any]:
    """Right-padded ``input_ids`` (B, L) and, aligned with the next-token predictions (B, L−1):
    ``targets`` and ``mask`` (completion tokens). With ``share_prompt``, also
    ``prompt_groups``: each distinct prompt with the rows that continue it."""
    torch, _ = _torch()
    width = max(len(r.prompt_ids) + len(r.completion_ids) for r in rollouts)
    ids = torch.full((len(rollouts), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rollouts), width), dtype=torch.long)
    mask = torch.zeros((len(rollouts), width - 1), dtype=torch.bool)
    for row, r in enumerate(rollouts):
        seq = r.prompt_ids + r.completion_ids
        ids[row, : len(seq)] = torch.tensor(seq)
        attention[row, : len(seq)] = 1
        start = len(r.prompt_ids) - 1  # the logit at position p predicts token p + 1
        mask[row, start : start + len(r.completion_ids)] = True
    tensors = {"input_ids": ids, "attention_mask": attention, "targets": ids[:, 1:], "mask": mask}
    if share_prompt:
        groups: dict[tuple[int, ...], list[int]] = {}
        for row, r in enumerate(rollouts):
            groups.setdefault(tuple(r.prompt_ids), []).append(row)
        tensors["prompt_groups"] = [(list(key), rows) for key, rows in groups.items()]
        tensors["completions"] = [r.completion_ids for r in rollouts]
    return tensors


def token_logps(model: Any, tensors: dict[str, Any]) -> Any:
    """(B, L−1) log-probability of each completion token under ``model`` (0 elsewhere).

    The output layer runs only on the completion positions: prompts are most of the tokens,
    and their (B, L, vocabulary) logits would be most of the memory traffic of a step."""
    torch, _ = _torch()
    if "prompt_groups" in tensors:
        return _shared_prompt_logps(model, tensors)
    out = model(
        input_ids=tensors["input_ids"],
        attention_mask=tensors["attention_mask"],
        output_hidden_states=True,
        logits_to_keep=1,  # the logits we need are computed below, from the hidden states
    )
    mask = tensors["mask"]
    hidden = out.hidden_states[-1][:, :-1][mask]  # (completion tokens, H), after the final norm
    logits = model.get_output_embeddings()(hidden).float()
    picked = -torch.nn.functional.cross_entropy(logits, tensors["targets"][mask], reduction="none")
    logp = torch.zeros(mask.shape, dtype=picked.dtype)
    return logp.masked_scatter(mask, picked)


def _shared_prompt_logps(model: Any, tensors: dict[str, Any]) -> Any:
    """``token_logps`` with each distinct prompt computed once: the prompt's forward pass
    fills a key/value cache, the cache is repeated for the group's rollouts (a differentiable
    copy: their gradients add up in the prompt's pass), and the completions run on top of it.
    The first completion token is predicted by the prompt's last position."""
    torch, _ = _torch()
    completions = tensors["completions"]
    head = model.get_output_embeddings()
    per_row: list[Any] = [None] * len(completions)
    argument = _cache_argument(model)
    for prompt, rows in tensors["prompt_groups"]:
        width = max(len(completions[row]) for row in rows)
        if width == 0:
            continue
        first = model(
            input_ids=torch.tensor([prompt]),
            use_cache=True,
            output_hidden_states=True,
            logits_to_keep=1,
        )
        cache = first[argument]  # the output field has the argument's name in each version
        if len(rows) > 1:
            cache.batch_repeat_interleave(len(rows))
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        valid = torch.zeros((len(rows), width), dtype=torch.bool)
        for i, row in enumerate(rows):
            ids[i, : len(completions[row])] = torch.tensor(completions[row], dtype=torch.long)
            valid[i, : len(completions[row])] = True
        attention = torch.cat(
            [torch.ones((len(rows), len(prompt)), dtype=torch.long), valid.long()], dim=1
        )
        positions = torch.arange(len(prompt), len(prompt) + width).expand(len(rows), width)
        out = model(
            **{argument: cache},
            input_ids=ids,
            attention_mask=attention,
            position_ids=positions,
            output_hidden_states=True,
            logits_to_keep=1,
        )
        last = first.hidden_states[-1][:, -1:]  # (1, 1, H): predicts each completion's first
        hidden = torch.cat([last.expand(len(rows), 1, -1), out.hidden_states[-1][:, :-1]], 1)
        logits = head(hidden[valid]).float()
        picked = -torch.nn.functional.cross_entropy(logits, ids[valid], reduction="none")
        counts = valid.sum(dim=1).tolist()
        for row, values in zip(rows, picked.split(counts), strict=True):
            per_row[row] = values
    mask = tensors["mask"]
    pieces = [values for values in per_row if values is not None]
    logp = torch.zeros(mask.shape, dtype=torch.float32)
    if not pieces:
        return logp
    return logp.masked_scatter(mask, torch.cat(pieces))


def _cache_argument(model: Any) -> str:
    """The forward argument that takes a key/value cache: ``cache`` from transformers 5.x
    (which deprecates ``past_key_values``), ``past_key_values`` before."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    parameters = inspect.signature(base.forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def _scatter(rows: Sequence[list[float]], mask: Any) -> Any:
    """Per-completion-token values into the (B, L−1) layout of ``mask``."""
    torch, _ = _torch()
    out = torch.zeros(mask.shape, dtype=torch.float32)
    for row, values in enumerate(rows):
        out[row, mask[row]] = torch.tensor(values, dtype=torch.float32)
    return out


def _section_masks(rollouts: Sequence[Rollout], tokenizer: Any, mask: Any, sections: list[str]):
    """(B, L−1) True on completion tokens inside the chosen tagged sections (partial KL)."""
    from execrl.rl.losses import section_mask

    rows = []
    for r in rollouts:
        pieces = [tokenizer.decode([t]) for t in r.completion_ids]
        offsets, pos = [], 0
        for piece in pieces:
            offsets.append((pos, pos + len(piece)))
            pos += len(piece)
        rows.append(section_mask("".join(pieces), offsets, sections=sections).float().tolist())
    return _scatter(rows, mask).bool()


@dataclass
class _Batch:
    """A batch split into micro-batches: the rollouts and their tensors. ``tokens`` and
    ``rows`` count the whole batch (the loss's denominators), ``kept_tokens`` the tokens of
    the rollouts that are run (all but those left out for a zero advantage)."""

    micro: list[list[Rollout]]
    tensors: list[dict[str, Any]]
    tokens: int
    rows: int
    kept_tokens: int


@dataclass
class UpdateStats:
    loss: float = 0.0
    kl: float = 0.0
    clip_frac_low: float = 0.0
    clip_frac_high: float = 0.0
    tokens: int = 0


class Learner:
    """Holds the policy, its reference copy and the optimizer; takes one update per batch."""

    def __init__(self, config: TrainConfig, model: Any, tokenizer: Any) -> None:
        torch, _ = _torch()
        self.config = config
        self.model = model
        self.tokenizer = tokenizer
        self.reference = None
        if config.loss.kl.beta > 0 and config.policy.lora is None:
            self.reference = copy.deepcopy(model).eval().requires_grad_(False)
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(
            params, lr=config.optim.lr, weight_decay=config.optim.weight_decay
        )
        self.version = 0
        """Optimizer steps taken: the policy version of the current weights."""

    def reference_logps(self, tensors: dict[str, Any]) -> Any:
        torch, _ = _torch()
        with torch.no_grad():
            if self.reference is not None:
                return token_logps(self.reference, tensors)
            with self.model.disable_adapter():  # LoRA: the base model is the reference
                return token_logps(self.model, tensors)

    def update(self, rollouts: list[Rollout]) -> UpdateStats:
        """Epochs of clipped policy-gradient steps over ``rollouts`` (one optimizer step each)."""
        torch, _ = _torch()
        batch = self.prepare(rollouts)
        stats = UpdateStats(tokens=batch.tokens)
        epochs = self.config.optim.epochs
        for _ in range(epochs):
            self.optimizer.zero_grad(set_to_none=True)
            epoch = self.accumulate(batch)
            stats.loss += epoch.loss / epochs
            stats.kl += epoch.kl / epochs
            stats.clip_frac_low += epoch.clip_frac_low / epochs
            stats.clip_frac_high += epoch.clip_frac_high / epochs
            if self.config.optim.grad_clip is not None:
                torch.nn.utils.clip_grad_norm_(
                    [p for p in self.model.parameters() if p.requires_grad],
                    self.config.optim.grad_clip,
                )
            self.optimizer.step()
        self.version += 1
        return stats

    def prepare(self, rollouts: list[Rollout]) -> _Batch:
        """Micro-batches of padded tensors, with reference log-probabilities and section masks
        when a KL term needs them, and REINFORCE++ token advantages when configured."""
        cfg = self.config.loss
        tokens, rows = sum(len(r.completion_ids) for r in rollouts), len(rollouts)
        if self._zero_advantage_is_free():
            rollouts = [r for r in rollouts if r.advantage != 0]
        size = self.config.optim.micro_batch
        micro = [rollouts[i : i + size] for i in range(0, len(rollouts), size)]
        pad_id, share = self.tokenizer.pad_token_id, self.config.optim.share_prompt
        prepared = [_batch_tensors(chunk, pad_id, share) for chunk in micro]
        if cfg.kl.beta > 0:
            for chunk, tensors in zip(micro, prepared, strict=True):
                tensors["ref_logp"] = self.reference_logps(tensors)
                if cfg.kl.sections:
                    tensors["sections"] = _section_masks(
                        chunk, self.tokenizer, tensors["mask"], cfg.kl.sections
                    )
        if cfg.advantage == "reinforce_pp":
            self._reinforce_pp(rollouts, micro, prepared)
        kept = sum(int(t["mask"].sum()) for t in prepared)
        return _Batch(micro, prepared, tokens, rows, kept)

    def _zero_advantage_is_free(self) -> bool:
        """Whether a rollout with advantage 0 contributes exactly nothing to the gradient:
        no KL term in the loss, and one advantage per rollout."""
        cfg = self.config.loss
        return (
            self.config.optim.skip_zero_advantage
            and cfg.kl.beta == 0
            and cfg.advantage != "reinforce_pp"
        )

    def accumulate(self, batch: _Batch) -> UpdateStats:
        """Backpropagate the whole batch's loss, one micro-batch at a time: each micro-batch's
        aggregated loss is scaled by its share of the batch, so the summed gradient equals the
        gradient of the loss over the whole batch."""
        torch, _ = _torch()
        from execrl.rl.losses import clipped_surrogate, kl_in_loss, kl_penalty

        cfg = self.config.loss
        stats = UpdateStats(tokens=batch.tokens)
        for chunk, tensors in zip(batch.micro, batch.tensors, strict=True):
            mask = tensors["mask"]
            logp = token_logps(self.model, tensors)
            if chunk[0].old_logp is None:  # on-policy: the first epoch's values
                old = tensors.setdefault("old_logp", logp.detach())
            else:  # sampled by other weights (async): what the sampler recorded
                old = tensors.setdefault("old_logp", _scatter([r.old_logp for r in chunk], mask))
            if cfg.advantage == "reinforce_pp":
                adv = _scatter([r.token_advantages for r in chunk], mask)
            else:
                adv = torch.tensor([r.advantage for r in chunk], dtype=torch.float32)
            loss, clip = clipped_surrogate(
                logp,
                old,
                adv,
                mask,
                eps_low=cfg.eps_low,
                eps_high=cfg.eps_high,
                aggregation=cfg.aggregation,
                horizon=cfg.horizon,
            )
            kl_value = 0.0
            if "ref_logp" in tensors:
                kl_tokens = kl_penalty(
                    logp, tensors["ref_logp"], mask, cfg.kl.estimator, tensors.get("sections")
                )
                kl_value = float((kl_tokens.sum() / mask.sum().clamp(min=1)).detach())
                if cfg.kl.placement == "loss":
                    loss = loss + kl_in_loss(
                        logp,
                        tensors["ref_logp"],
                        mask,
                        beta=cfg.kl.beta,
                        estimator=cfg.kl.estimator,
                        section_mask=tensors.get("sections"),
                        aggregation=cfg.aggregation,
                        horizon=cfg.horizon,
                    )
            share = self._share(mask, batch.tokens, len(chunk), batch.rows)
            (loss * share).backward()
            weight = int(mask.sum()) / max(batch.kept_tokens, 1)
            stats.loss += float(loss.detach()) * share
            stats.kl += kl_value * weight
            stats.clip_frac_low += clip["clip_frac_low"] * weight
            stats.clip_frac_high += clip["clip_frac_high"] * weight
        return stats

    def _share(self, mask: Any, total_tokens: int, rows: int, total_rows: int) -> float:
        """How much of the whole batch's loss this micro-batch's aggregated loss stands for."""
        aggregation = self.config.loss.aggregation
        if aggregation == "token_mean":
            return int(mask.sum()) / max(total_tokens, 1)
        if aggregation == "sequence_mean":
            return rows / total_rows
        return 1.0  # fixed horizon: a sum over tokens divided by a constant is additive

    def _reinforce_pp(self, rollouts, micro, prepared) -> None:
        """Per-token REINFORCE++ advantages with −β·KL(t) in the reward (partial when masked)."""
        from execrl.rl.advantages import reinforce_pp
        from execrl.rl.losses import kl_penalty

        cfg = self.config.loss.kl
        kl_rows, lengths = [], []
        torch, _ = _torch()
        with torch.no_grad():
            for chunk, tensors in zip(micro, prepared, strict=True):
                logp = token_logps(self.model, tensors)
                if "ref_logp" in tensors:
                    kl = kl_penalty(
                        logp,
                        tensors["ref_logp"],
                        tensors["mask"],
                        cfg.estimator,
                        tensors.get("sections"),
                    )
                else:  # β = 0: no reference model, no penalty
                    kl = torch.zeros_like(logp)
                for row in range(len(chunk)):
                    values = kl[row][tensors["mask"][row]].tolist()
                    kl_rows.append(values)
                    lengths.append(len(values))
        width = max(lengths)
        kl_array = np.zeros((len(rollouts), width))
        valid = np.zeros((len(rollouts), width), dtype=bool)
        for i, values in enumerate(kl_rows):
            kl_array[i, : len(values)] = values
            valid[i, : len(values)] = True
        rewards = [r.reward for r in rollouts]
        advantages = reinforce_pp(rewards, kl_array, valid, beta=cfg.beta)
        for i, rollout in enumerate(rollouts):
            rollout.token_advantages = advantages[i, : lengths[i]].tolist()


# =========================================================================== 7. Rollout sources


class PromptStream:
    """Training problems in a seeded shuffled order, reshuffled each pass; its position is part
    of a checkpoint."""

    def __init__(self, problem_ids: Sequence[str], seed: int) -> None:
        if not problem_ids:
            raise ExecrlError("no training problems: check data.train_tag / data.train_ids")
        self.ids = list(problem_ids)
        self.seed = seed
        self.position = 0

    def take(self, n: int) -> list[str]:
        out = []
        for _ in range(n):
            epoch, index = divmod(self.position, len(self.ids))
            order = list(self.ids)
            random.Random(self.seed * 1_000_003 + epoch).shuffle(order)
            out.append(order[index])
            self.position += 1
        return out


def collect_groups(
    model: Any,
    tokenizer: Any,
    config: TrainConfig,
    problems: dict[str, Problem],
    problem_ids: list[str],
    *,
    version: int,
    seed: int,
    scorer: Scorer,
    record_logps: bool,
) -> list[RolloutGroup]:
    """Sample G rollouts for each problem, score them; the sampling weights are ``model``."""
    conversations = [
        prompt_messages(problems[pid]) for pid in problem_ids for _ in range(config.group_size)
    ]
    rollouts = sample(model, tokenizer, conversations, config.policy, seed=seed)
    if record_logps:
        _record_logps(model, tokenizer, rollouts, config.optim)
    g = config.group_size
    groups = [
        RolloutGroup(pid, rollouts[i * g : (i + 1) * g], version)
        for i, pid in enumerate(problem_ids)
    ]
    scorer.score(groups)
    return groups


def _record_logps(model: Any, tokenizer: Any, rollouts: list[Rollout], optim: OptimConfig) -> None:
    torch, _ = _torch()
    with torch.no_grad():
        for i in range(0, len(rollouts), optim.micro_batch):
            chunk = rollouts[i : i + optim.micro_batch]
            tensors = _batch_tensors(chunk, tokenizer.pad_token_id, optim.share_prompt)
            logp = token_logps(model, tensors)
            for row, r in enumerate(chunk):
                r.old_logp = logp[row][tensors["mask"][row]].tolist()


class RolloutWorker(threading.Thread):
    """Async mode: samples and scores groups with its own copy of the weights, forever, into a
    bounded queue; ``push`` hands it newer weights, applied before its next batch."""

    def __init__(self, trainer: Trainer, out: queue.Queue[RolloutGroup | BaseException]) -> None:
        super().__init__(name="execrl-rollouts", daemon=True)
        self.trainer = trainer
        self.model = copy.deepcopy(trainer.learner.model)
        self.out = out
        self.version = trainer.learner.version
        self._pending: tuple[int, dict[str, Any]] | None = None
        self._lock = threading.Lock()
        self.stop = threading.Event()

    def push(self, version: int, state: dict[str, Any]) -> None:
        with self._lock:
            self._pending = (version, state)

    def run(self) -> None:
        t = self.trainer
        try:
            while not self.stop.is_set():
                with self._lock:
                    pending, self._pending = self._pending, None
                if pending is not None:
                    self.version = pending[0]
                    self.model.load_state_dict(pending[1])
                ids = t.stream.take(t.config.prompts_per_step)
                groups = collect_groups(
                    self.model,
                    t.tokenizer,
                    t.config,
                    t.problems,
                    ids,
                    version=self.version,
                    seed=t.config.seed * 7919 + t.stream.position,
                    scorer=t.worker_scorer,
                    record_logps=True,
                )
                for group in groups:
                    while not self.stop.is_set():
                        try:
                            self.out.put(group, timeout=0.2)
                            break
                        except queue.Full:
                            continue
        except BaseException as exc:  # hand the failure to the trainer thread
            self.out.put(exc)


# =========================================================================== 8. The loop


@dataclass
class StepLog:
    step: int
    values: dict[str, float] = field(default_factory=dict)


class Trainer:
    """Runs ``config.steps`` optimizer steps, writing metrics, checkpoints and evaluations
    into ``out_dir``. ``executor`` runs every program (local, remote or Ray; the caller
    closes it); None: the one ``config.executor`` names, opened here and closed by ``close``."""

    def __init__(
        self,
        config: TrainConfig,
        out_dir: str | Path,
        *,
        executor: Executor | None = None,
        progress: bool = True,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.out = Path(out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.progress = progress
        self.log = log or (lambda message: None)
        everything = _load_problems(config)
        self.problems = {p.id: p for p in everything}
        self.eval_ids = (
            _select(everything, config.data.eval_ids, config.data.eval_tag)
            if config.data.eval_ids or config.data.eval_tag
            else []
        )
        held_out = set(self.eval_ids)
        self.train_ids = [
            pid
            for pid in _select(everything, config.data.train_ids, config.data.train_tag)
            if pid not in held_out
        ]
        # The executor first: an unreachable server or cluster fails before the model loads.
        self._own_executor = executor is None
        self.executor = executor or _open_executor(config)
        try:
            self._start(config)
        except BaseException:
            self.close()
            raise
        # The executor the trainer holds runs every program (None here would make each
        # scoring call open a pool of its own, one worker per core, ignoring config.workers).
        self.scorer = Scorer(config.reward, self.problems, self.executor)
        self.worker_scorer = self.scorer
        self.history: list[dict[str, Any]] = []
        self.monitor = StepMonitor(group_size=config.group_size)
        """Spec §6 per step: resolved/fallback/unknown/timeout rates, rewards, bursts."""
        self.evaluations: dict[str, dict[str, Any]] = {}

    def _start(self, config: TrainConfig) -> None:
        """Seed every generator, load the policy and the prompt order."""
        random.seed(config.seed)
        np.random.seed(config.seed)
        torch, _ = _torch()
        torch.manual_seed(config.seed)
        threads = config.policy.threads or (1 if config.async_.enabled else os.cpu_count())
        torch.set_num_threads(threads)
        model, self.tokenizer = load_policy(config.policy)
        self.learner = Learner(config, model, self.tokenizer)
        self.stream = PromptStream(self.train_ids, config.seed)

    # ---------------------------------------------------------------- public

    def train(self) -> Path:
        """Train up to ``config.steps`` (from where a resumed run stands); returns the folder."""
        self.log(f"programs run on: {self.executor.backend}, {self.executor.workers} workers")
        (self.out / "config.yaml").write_text(
            yaml.safe_dump(self.config.model_dump(mode="json", by_alias=True), sort_keys=False)
        )
        if self.config.eval.before and "before" not in self.evaluations and self.eval_ids:
            self.evaluations["before"] = self.evaluate("before")
            self._save_json("evaluations.json", self.evaluations)
        worker = None
        groups_in: queue.Queue[RolloutGroup | BaseException] | None = None
        if self.config.async_.enabled:
            groups_in = queue.Queue(maxsize=self.config.async_.queue_size)
            # A pool of its own for the rollout worker; an executor given to the trainer is
            # shared (it is the one the caller chose for every program).
            shared = not self._own_executor
            worker_executor = self.executor if shared else _open_executor(self.config)
            self.worker_scorer = Scorer(self.config.reward, self.problems, worker_executor)
            worker = RolloutWorker(self, groups_in)
            worker.start()
        try:
            with _progress(self.progress, self.config.steps, self.learner.version) as advance:
                while self.learner.version < self.config.steps:
                    self._step(groups_in, worker)
                    advance()
                    every = self.config.checkpoint_every
                    if every and self.learner.version % every == 0:
                        self.save_checkpoint()
        finally:
            if worker is not None:
                worker.stop.set()
                worker.join(timeout=60)
                if self.worker_scorer.executor is not self.executor:
                    self.worker_scorer.executor.close()
        self.save_checkpoint()
        if self.config.eval.after and self.eval_ids:
            self.evaluations["after"] = self.evaluate("after")
            self._save_json("evaluations.json", self.evaluations)
        return self.out

    def close(self) -> None:
        if self._own_executor:
            self.executor.close()

    def __enter__(self) -> Trainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- one step

    def _step(self, groups_in: queue.Queue | None, worker: RolloutWorker | None) -> None:
        cfg = self.config
        t0 = time.perf_counter()
        if groups_in is None:
            if cfg.reward.kind == "multiturn":
                groups = self._multiturn_groups()
            else:
                groups = collect_groups(
                    self.learner.model,
                    self.tokenizer,
                    cfg,
                    self.problems,
                    self.stream.take(cfg.prompts_per_step),
                    version=self.learner.version,
                    seed=cfg.seed * 7919 + self.stream.position,
                    scorer=self.scorer,
                    record_logps=False,
                )
            dropped: list[RolloutGroup] = []
        else:
            groups, dropped = self._take_fresh(groups_in)
        t_rollout = time.perf_counter() - t0

        assign_advantages(groups, cfg.loss)
        every = [r for g in groups for r in g.rollouts]
        usable = [r for r in every if not r.inconclusive]
        rewards = [r.reward for r in usable]
        zero_rate = _zero_advantage_rate(groups)
        staleness = [self.learner.version - g.version for g in groups]
        t1 = time.perf_counter()
        # Zero-advantage rollouts stay in the batch (they count in the aggregation's
        # denominator, as in GRPO); only a batch with no signal at all skips the update.
        signal = cfg.loss.kl.beta > 0 or any(r.advantage for r in usable)
        if usable and signal:
            with _threads(None if cfg.async_.enabled else cfg.optim.threads or os.cpu_count()):
                stats = self.learner.update(usable)
        else:
            stats = self._skip()
        t_update = time.perf_counter() - t1
        if worker is not None and self.learner.version % cfg.async_.push_every == 0:
            worker.push(self.learner.version, _state_copy(self.learner.model))

        lengths = [len(r.completion_ids) for r in every]
        monitor = self.monitor.observe([r.record for r in every if r.record is not None], rewards)
        row = {
            "step": self.learner.version,
            "reward_mean": _mean(rewards),
            "reward_std": float(np.std(rewards)) if rewards else math.nan,
            "pass_rate": _mean([float(r.passed) for r in usable]),
            "zero_advantage_rate": zero_rate,
            "kl": stats.kl,
            "clip_frac_low": stats.clip_frac_low,
            "clip_frac_high": stats.clip_frac_high,
            "loss": stats.loss,
            "length_mean": _mean(lengths),
            "length_max": max(lengths) if lengths else 0,
            "execution_failure_rate": _mean([float(r.failed_execution) for r in usable]),
            "inconclusive_rate": _mean([float(r.inconclusive) for r in every]),
            "groups": len(groups),
            "dropped_stale_groups": len(dropped),
            "staleness_mean": _mean(staleness),
            "staleness_max": max(staleness) if staleness else 0,
            "updated": bool(usable and signal),
            "rollout_s": round(t_rollout, 3),
            "update_s": round(t_update, 3),
            **{k: v for k, v in monitor.to_dict().items() if k != "step"},
        }
        self.history.append(row)
        with (self.out / "metrics.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        with (self.out / "rollouts.jsonl").open("a", encoding="utf-8") as fh:
            for g in groups:
                for r in g.rollouts:
                    fh.write(
                        json.dumps(
                            {
                                "step": row["step"],
                                "problem_id": g.problem_id,
                                "version": g.version,
                                "reward": r.reward,
                                "advantage": r.advantage,
                                "passed": r.passed,
                                "completion": r.text,
                            }
                        )
                        + "\n"
                    )
        self.log(
            f"step {row['step']:>3}/{cfg.steps}  reward {row['reward_mean']:+.3f}"
            f"  pass {row['pass_rate']:.2f}"
            f"  zero-adv {zero_rate:.2f}  len {row['length_mean']:.0f}"
            f"  ({t_rollout:.0f}s rollouts, {t_update:.0f}s update)"
        )

    def _skip(self) -> UpdateStats:
        """Every group had zero advantage: nothing to learn, but the step still counts."""
        self.learner.version += 1
        return UpdateStats()

    def _take_fresh(self, groups_in: queue.Queue) -> tuple[list[RolloutGroup], list[RolloutGroup]]:
        """Async: pull groups until ``prompts_per_step`` fresh ones are in hand."""
        fresh: list[RolloutGroup] = []
        dropped: list[RolloutGroup] = []
        while len(fresh) < self.config.prompts_per_step:
            item = groups_in.get()
            if isinstance(item, BaseException):
                raise ExecrlError(f"the rollout worker failed: {item!r}") from item
            kept, stale = drop_stale([item], self.learner.version, self.config.async_.max_staleness)
            fresh += kept
            dropped += stale
        return fresh, dropped

    def _multiturn_groups(self) -> list[RolloutGroup]:
        """Multi-turn: each group is G episodes; each turn becomes one training sample whose
        advantage is the dense ``A(i, t)`` of its episode and turn."""
        from execrl.rewards.dense import PassTensor, dense_rewards
        from execrl.rl.episodes import run_episodes

        cfg = self.config
        policy = _LearnerPolicy(self, cfg.policy)
        groups = []
        for pid in self.stream.take(cfg.prompts_per_step):
            problem = self.problems[pid]
            episodes = run_episodes(
                problem,
                policy,
                self.executor,
                group_size=cfg.group_size,
                max_turns=cfg.reward.max_turns,
            )
            suite = [t.id for t in problem.correctness_tests]
            rollouts: list[Rollout] = []
            try:
                tensor = PassTensor.from_records([e.records for e in episodes], suite)
                dense = dense_rewards(tensor, cfg.reward.dense)
            except ExecrlError:  # an inconclusive verdict somewhere: no pass tensor
                dense = None
            for i, episode in enumerate(episodes):
                for t, turn in enumerate(episode.steps):
                    rollout = policy.rollout_for(turn.messages, turn.completion)
                    rollout.passed = turn.passed
                    rollout.inconclusive = dense is None
                    rollout.reward = None if dense is None else float(dense.turn_rewards[t, i])
                    rollout.advantage = None if dense is None else float(dense.advantages[t, i])
                    rollouts.append(rollout)
            groups.append(RolloutGroup(pid, rollouts, self.learner.version))
        return groups

    # ---------------------------------------------------------------- evaluation

    def evaluate(self, label: str) -> dict[str, Any]:
        """pass@1 on the held-out problems: ``eval.samples`` samples each, c/n per problem."""
        cfg = self.config
        n = cfg.eval.samples
        conversations = [prompt_messages(self.problems[p]) for p in self.eval_ids for _ in range(n)]
        rollouts = sample(
            self.learner.model,
            self.tokenizer,
            conversations,
            cfg.policy,
            temperature=cfg.eval.temperature,
            seed=cfg.seed * 104729 + (0 if label == "before" else 1),
        )
        ids = [pid for pid in self.eval_ids for _ in range(n)]
        passed = self.scorer.passed(ids, [r.text for r in rollouts])
        per_problem = {
            pid: sum(passed[i * n : (i + 1) * n]) / n for i, pid in enumerate(self.eval_ids)
        }
        values = list(per_problem.values())
        result = {
            "label": label,
            "step": self.learner.version,
            "samples": n,
            "temperature": cfg.eval.temperature,
            "pass_at_1": _mean(values),
            "stderr": float(np.std(values, ddof=1) / math.sqrt(len(values)))
            if len(values) > 1
            else 0.0,
            "per_problem": per_problem,
        }
        self.log(
            f"{label}: pass@1 {result['pass_at_1']:.3f} ± {result['stderr']:.3f} "
            f"on {len(values)} held-out problems"
        )
        return result

    # ---------------------------------------------------------------- checkpoints

    def save_checkpoint(self) -> Path:
        torch, _ = _torch()
        folder = self.out / "checkpoints" / f"step-{self.learner.version:05d}"
        staging = folder.with_name(folder.name + ".tmp")
        staging.mkdir(parents=True, exist_ok=True)
        self.learner.model.save_pretrained(staging)
        self.tokenizer.save_pretrained(staging)
        torch.save(
            {
                "optimizer": self.learner.optimizer.state_dict(),
                "version": self.learner.version,
                "stream_position": self.stream.position,
                "torch_rng": torch.get_rng_state(),
                "history": self.history,
                "evaluations": self.evaluations,
            },
            staging / "trainer_state.pt",
        )
        if folder.exists():
            import shutil

            shutil.rmtree(folder)
        staging.rename(folder)
        (self.out / "checkpoints" / "latest").write_text(folder.name)
        return folder

    def load_checkpoint(self, folder: str | Path | None = None) -> None:
        """Restore weights, optimizer, step, data order and logs from a checkpoint (default: the
        run's latest)."""
        torch, _ = _torch()
        if folder is None:
            latest = self.out / "checkpoints" / "latest"
            if not latest.is_file():
                raise ExecrlError(f"{self.out}: no checkpoint to resume from")
            folder = self.out / "checkpoints" / latest.read_text().strip()
        folder = Path(folder)
        state = torch.load(folder / "trainer_state.pt", weights_only=False)
        if self.config.policy.lora is not None:
            import peft

            peft.set_peft_model_state_dict(self.learner.model, _load_adapter(folder))
        else:
            from safetensors.torch import load_file

            weights = load_file(folder / "model.safetensors")
            missing, unexpected = self.learner.model.load_state_dict(weights, strict=False)
            if unexpected or any("lm_head" not in k for k in missing):
                raise ExecrlError(f"{folder}: the checkpoint does not match the policy model")
            self.learner.model.tie_weights()
        self.learner.optimizer.load_state_dict(state["optimizer"])
        self.learner.version = state["version"]
        self.stream.position = state["stream_position"]
        torch.set_rng_state(state["torch_rng"])
        self.history = state["history"]
        self.evaluations = state["evaluations"]
        metrics = self.out / "metrics.jsonl"
        metrics.write_text("".join(json.dumps(row) + "\n" for row in self.history))

    def _save_json(self, name: str, value: Any) -> None:
        (self.out / name).write_text(json.dumps(value, indent=2))


class _LearnerPolicy:
    """The learner's model as a multi-turn ``Policy``; remembers token ids of what it wrote."""

    def __init__(self, trainer: Trainer, config: PolicyConfig) -> None:
        self.trainer = trainer
        self.config = config
        self.calls = 0
        self._made: dict[tuple[str, str], Rollout] = {}

    def generate(self, conversations: list[list[dict[str, str]]]) -> list[str]:
        t = self.trainer
        rollouts = sample(
            t.learner.model,
            t.tokenizer,
            conversations,
            self.config,
            seed=t.config.seed * 7919 + t.stream.position * 31 + self.calls,
        )
        self.calls += 1
        for conversation, rollout in zip(conversations, rollouts, strict=True):
            self._made[(json.dumps(conversation), rollout.text)] = rollout
        return [r.text for r in rollouts]

    def rollout_for(self, messages: Sequence[dict[str, str]], completion: str) -> Rollout:
        made = self._made[(json.dumps(list(messages)), completion)]
        return Rollout(made.prompt_ids, made.completion_ids, made.text)


def _load_adapter(folder: Path) -> dict[str, Any]:
    from safetensors.torch import load_file

    return load_file(folder / "adapter_model.safetensors")


class _threads:
    """Temporarily set torch's CPU thread count (None: leave it)."""

    def __init__(self, n: int | None) -> None:
        self.n = n

    def __enter__(self) -> None:
        if self.n is not None:
            torch, _ = _torch()
            self.previous = torch.get_num_threads()
            torch.set_num_threads(self.n)

    def __exit__(self, *exc: object) -> None:
        if self.n is not None:
            torch, _ = _torch()
            torch.set_num_threads(self.previous)


def _state_copy(model: Any) -> dict[str, Any]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _load_problems(config: TrainConfig) -> list[Any]:
    if config.reward.kind == "solver":
        from execrl.problems.optim import load_optim_problems

        return load_optim_problems(config.data.problems)
    from execrl.problems.io import load_problems

    return load_problems(config.data.problems)


def _open_executor(config: TrainConfig) -> Executor:
    """The executor ``config.executor`` names, with ``config.workers``; for solver rewards,
    sandboxes that can import the solvers (a server must have them installed itself)."""
    from execrl.service.open import open_executor

    if config.reward.kind == "solver" and _executor_kind(config.executor) != "remote":
        from execrl.rewards.solver import solver_sandbox_config

        return open_executor(
            config.executor, workers=config.workers, config=solver_sandbox_config()
        )
    return open_executor(config.executor, workers=config.workers)


def _executor_kind(spec: str | None) -> str:
    from execrl.service.open import parse_executor_spec

    return parse_executor_spec(spec).kind


def _select(problems: Sequence[Any], ids: Sequence[str], tag: str | None) -> list[str]:
    known = {p.id for p in problems}
    if ids:
        missing = [i for i in ids if i not in known]
        if missing:
            raise ExecrlError(f"unknown problem id {missing[0]!r} in the training data config")
        return list(ids)
    return [p.id for p in problems if tag is None or tag in getattr(p, "tags", ())]


def _zero_advantage_rate(groups: Sequence[RolloutGroup]) -> float:
    from execrl.rl.advantages import zero_advantage_rate

    rewards, ids = [], []
    for gi, g in enumerate(groups):
        for r in g.rollouts:
            if not r.inconclusive:
                rewards.append(r.reward)
                ids.append(gi)
    return zero_advantage_rate(rewards, ids) if rewards else math.nan


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else math.nan


class _progress:
    """A rich progress bar over optimizer steps (or nothing)."""

    def __init__(self, enabled: bool, total: int, done: int) -> None:
        self.enabled, self.total, self.done = enabled, total, done

    def __enter__(self) -> Callable[[], None]:
        if not self.enabled:
            return lambda: None
        from rich.progress import Progress

        self._bar = Progress()
        self._bar.start()
        task = self._bar.add_task("training", total=self.total, completed=self.done)
        return lambda: self._bar.advance(task)

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._bar.stop()


def run_training(
    config: TrainConfig,
    out_dir: str | Path,
    *,
    resume: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    report: bool = True,
    executor: Executor | None = None,
) -> Path:
    """Train (or resume) and write the report; returns the run folder. ``executor``: see
    :class:`Trainer` (None: the one ``config.executor`` names)."""
    with Trainer(config, out_dir, executor=executor, progress=progress, log=log) as trainer:
        if resume:
            trainer.load_checkpoint()
        trainer.train()
    if report:
        from execrl.rl.train_report import write_training_report

        write_training_report(Path(out_dir))
    return Path(out_dir)


def iter_metrics(run_dir: str | Path) -> Iterator[dict[str, Any]]:
    path = Path(run_dir) / "metrics.jsonl"
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)
