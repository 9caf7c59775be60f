"""The trainer's settings, one validated model per concern, and how a config file is read.

:class:`TrainConfig` gathers these sections; a run's settings come from a named preset
(``rl/configs/*.yaml``), then a YAML file, then ``key.sub=value`` overrides, all merged here
into one mapping (:func:`read_settings`) and validated once (:func:`validated`, through
:func:`load_config`): a mistake is one :class:`~execrl.errors.ConfigError` line naming the
file, the override or the setting and its value, before any model loads.

It sits below every other module of the trainer (rollouts, update, evaluation, the loop), so
each takes the settings it reads without an import circle.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from execrl.envs.presets import validate_env_spec
from execrl.errors import ConfigError, ExecrlError, UsageError, describe_validation_error
from execrl.rewards.compositions import reward as reward_fn
from execrl.rewards.dense import DenseRewardConfig
from execrl.rewards.solver.rewards import solver_reward_config
from execrl.rl.advantages import TRAINING_ESTIMATORS, per_token_estimators
from execrl.service.open import parse_executor_spec

PRESET_DIR = "configs"
"""The folder of ``execrl.rl`` that holds the named presets, one YAML file each."""

DEFAULT_PRESET = "demo"
"""What bare ``execrl train`` (and ``make demo``) runs: the main job."""


def _known_executor(spec: str | None) -> str | None:
    try:
        parse_executor_spec(spec)
    except UsageError as exc:
        raise ValueError(str(exc)) from None
    return spec


ExecutorSpecText = Annotated[str | None, AfterValidator(_known_executor)]
"""An executor spec (``execrl.service.open``), checked when the config loads."""


def _known_estimator(name: str) -> str:
    if name not in TRAINING_ESTIMATORS:
        raise ValueError(
            f"unknown advantage estimator; choose one of {sorted(TRAINING_ESTIMATORS)}"
        )
    return name


EstimatorName = Annotated[str, AfterValidator(_known_estimator)]
"""A row of ``execrl.rl.advantages.TRAINING_ESTIMATORS``, checked when the config loads."""


class Strict(BaseModel):
    """A settings section: unknown keys are mistakes, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class LoraConfig(Strict):
    """A LoRA adapter (peft) on the policy: only the adapter trains."""

    r: int = Field(default=16, ge=1)
    """Rank of each low-rank update (the adapter's inner width)."""
    alpha: int = Field(default=32, ge=1)
    """Scale of the update: it is multiplied by ``alpha / r``."""
    dropout: float = Field(default=0.0, ge=0, lt=1)
    """Dropout probability on the adapter's input."""
    target_modules: list[str] = Field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"]
    )
    """Names of the linear layers that get an adapter (the attention projections)."""


class PolicyConfig(Strict):
    """The model that samples and trains, and how it samples."""

    model: str = "smollm2"
    """``smollm2`` (the bundled SmolLM2-135M-Instruct) or a local transformers folder."""
    lora: LoraConfig | None = None
    """Train a LoRA adapter instead of every weight (None: full fine-tuning)."""
    max_new_tokens: int = Field(default=128, ge=1)
    """Most tokens a completion may have."""
    temperature: float = Field(default=1.0, gt=0)
    """Sampling temperature of the training rollouts."""
    top_p: float = Field(default=1.0, gt=0, le=1)
    """Nucleus sampling: keep the smallest token set with this much probability."""
    stop_at_code_end: bool = True
    """Stop a rollout once its first fenced code block closes (nothing after it is scored)."""
    threads: int | None = Field(default=None, ge=1)
    """torch CPU threads for sampling (None: one per core; 1 in async mode, where sampling,
    the update and the sandbox share the machine). On 2 idle cores, 2 threads sample 24
    rollouts in 30 s against 39 s for 1; on cores other work keeps busy, 1 is much faster."""


class DataConfig(Strict):
    """Which problems train, which evaluate, and how prompts are chosen."""

    problems: str = "starter"
    """A source for ``load_problems``: ``starter``, ``bundled``, a folder or a JSONL file."""
    train_tag: str | None = "train"
    """Train on problems with this tag (all problems when None), or on ``train_ids``."""
    train_ids: list[str] = Field(default_factory=list)
    """Train on exactly these problem ids (overrides ``train_tag`` when not empty)."""
    eval_tag: str | None = "heldout"
    """Evaluate before/after on problems with this tag (none when None), or on ``eval_ids``."""
    eval_ids: list[str] = Field(default_factory=list)
    """Held-out problems are never trained on, whatever the training selection says."""
    eval_problems: str | None = None
    """A second source the held-out problems come from instead (e.g. ``humaneval``: its 164
    problems, enough for a pass@1 standard error under 0.04 at any pass rates from one sample
    each): then every problem of it is held out, or those of ``eval_ids``. None: the held-out
    problems are in ``problems`` (``eval_tag`` / ``eval_ids``)."""
    selection: Literal["stream", "pass_rate"] = "stream"
    """How each step's prompts are chosen: ``stream`` visits every training problem once per
    pass in a seeded shuffled order; ``pass_rate`` prefers problems whose recent pass rate is
    strictly between 0 and 1 (``execrl.rl.curriculum.PassRateSelector``)."""
    pass_rate_window: int = Field(default=8, ge=1)
    """``pass_rate`` selection: the pass rate is over a problem's last this many rollouts."""
    pass_rate_explore: float = Field(default=0.1, ge=0, le=1)
    """``pass_rate`` selection: probability that a slot goes to a saturated problem (always
    or never solved lately), so one the policy has changed on can come back."""


class RewardConfig(Strict):
    """How a rollout's reward is computed (``kind`` picks the scorer once)."""

    kind: Literal["score", "dense", "multiturn", "solver"] = "score"
    """``score``: env + reward through ``score_batch``; ``dense``: density-calibrated partial
    success over the correctness tests; ``multiturn``: episodes with execution feedback;
    ``solver``: solver-verified rewards on optimisation word problems (``data.problems`` is
    then a source for ``execrl.problems.optim.load_optim_problems``)."""
    env: str | dict[str, Any] = "rlvr"
    """The environment (``score``): a preset name such as ``rlvr`` or ``qp(p=0.3)``, or its
    settings; see docs/environments.md."""
    reward: str | dict[str, Any] = "correctness"
    """The reward composition (``score``), e.g. ``correctness`` or ``collapsed``."""
    dense: DenseRewardConfig = Field(default_factory=DenseRewardConfig)
    """Settings of the dense partial-success rewards (``dense`` and ``multiturn``)."""
    max_turns: int = Field(default=2, ge=1)
    """Most turns of a multi-turn episode (``multiturn``)."""
    solver: str | dict[str, Any] = "paper"
    """The solver reward (``paper``, ``authors``, or settings such as ``{stage: 2}``)."""


class KLConfig(Strict):
    """The KL term against the reference policy (the initial weights)."""

    beta: float = Field(default=0.0, ge=0)
    """Weight β of the KL term (0: none, and no reference copy is kept)."""
    estimator: Literal["k1", "k2", "k3"] = "k3"
    """Schulman's per-token KL estimator."""
    placement: Literal["loss", "reward"] = "loss"
    """``loss``: β·KL added to the loss; ``reward``: −β·KL per token in the reward (a
    per-token estimator only: ``reinforce_pp``)."""
    sections: list[str] | None = None
    """Penalise only these tagged sections (e.g. [model, code]); None = every token."""


class LossConfig(Strict):
    """The advantage estimator and the clipped surrogate."""

    advantage: EstimatorName = "grpo"
    """The advantage estimator, a row of ``execrl.rl.advantages.TRAINING_ESTIMATORS``:
    ``grpo``, ``dr_grpo``, ``token_weighted``, ``rloo``, ``reinforce_pp`` (per token) or
    ``dense`` (with the dense and multiturn rewards, whose scorer computes it)."""
    eps_low: float = Field(default=0.2, ge=0)
    """Lower clip range ε_low: the ratio π/π_old is clipped below at 1 − ε_low."""
    eps_high: float = Field(default=0.2, ge=0)
    """Upper clip range ε_high: the ratio is clipped above at 1 + ε_high (DAPO's clip-higher
    when larger than ``eps_low``)."""
    aggregation: Literal["token_mean", "sequence_mean", "fixed_horizon"] = "token_mean"
    """How per-token losses become one number (``execrl.rl.losses.AGGREGATIONS``)."""
    horizon: int = Field(default=32768, ge=1)
    """N, in tokens: ``fixed_horizon`` divides the token sum by this constant."""
    kl: KLConfig = Field(default_factory=KLConfig)
    """The KL term."""


class OptimConfig(Strict):
    """The optimizer and how a batch is pushed through the model."""

    lr: float = Field(default=5e-6, gt=0)
    """AdamW learning rate (per optimizer step). Full fine-tuning of a 135M model wants about
    1e-6..1e-5; a LoRA adapter about 1e-4..1e-3."""
    weight_decay: float = Field(default=0.0, ge=0)
    """AdamW decoupled weight decay."""
    grad_clip: float | None = Field(default=1.0, gt=0)
    """Clip the gradient's global L2 norm to this (None: no clipping)."""
    epochs: int = Field(default=1, ge=1)
    """Passes over each batch (PPO epochs); more than one makes the clipping bind."""
    micro_batch: int = Field(default=4, ge=1)
    """Rollouts per forward/backward pass; gradients accumulate over the batch."""
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


class AsyncConfig(Strict):
    """Asynchronous rollouts: a worker thread samples while the trainer updates."""

    enabled: bool = False
    """Sample in a rollout worker thread with its own copy of the weights."""
    queue_size: int = Field(default=4, ge=1)
    """Groups the queue holds; a full queue blocks the rollout worker."""
    max_staleness: int = Field(default=30, ge=0)
    """S_max: drop groups sampled more than this many optimizer steps ago."""
    push_every: int = Field(default=1, ge=1)
    """K: copy the trainer's weights to the rollout worker every K optimizer steps."""


class EvalConfig(Strict):
    """Held-out pass@1 before and after training."""

    samples: int = Field(default=4, ge=1)
    """Samples per held-out problem (pass@1 is c/n per problem, averaged)."""
    temperature: float = Field(default=0.7, gt=0)
    """Sampling temperature of the evaluation."""
    batch: int = Field(default=64, ge=1)
    """Conversations sampled per generate call, shortest prompts first; chunk k samples with
    seed + k. One call for all of HumanEval's 164 problems x 2 samples held 15 GB and
    stalled."""
    before: bool = True
    """Evaluate before the first step."""
    after: bool = True
    """Evaluate after the last step."""


class TrainConfig(Strict):
    """Every setting of a run (the sections' fields are above)."""

    preset: str = "custom"
    """The preset this config started from (``custom``: none)."""
    seed: int = 0
    """Seeds the prompt order, every sampling call and torch's initial state."""
    steps: int = Field(default=10, ge=1)
    """Optimizer steps to train for (the policy version at the end)."""
    prompts_per_step: int = Field(default=4, ge=1)
    """Groups (prompts) in each step's batch."""
    group_size: int = Field(default=4, ge=1)
    """G: rollouts sampled per prompt (the group advantages are relative within it)."""
    dynamic_sampling: bool = False
    """DAPO's dynamic sampling: drop groups whose rewards are all equal (they teach nothing)
    and draw more prompts until the batch holds ``prompts_per_step`` informative groups."""
    max_extra_rounds: int = Field(default=2, ge=0)
    """Dynamic sampling: at most this many extra sampling rounds per step; a step that still
    lacks informative groups then trains on those it has."""
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    """The model and how it samples."""
    data: DataConfig = Field(default_factory=DataConfig)
    """Which problems train and evaluate, and how prompts are chosen."""
    reward: RewardConfig = Field(default_factory=RewardConfig)
    """How a rollout is rewarded (``kind`` picks the scorer and the rollouts)."""
    loss: LossConfig = Field(default_factory=LossConfig)
    """The advantage estimator, the clipped surrogate and the KL term."""
    optim: OptimConfig = Field(default_factory=OptimConfig)
    """AdamW and how a batch goes through the model."""
    async_: AsyncConfig = Field(default_factory=AsyncConfig, alias="async")
    """Asynchronous rollouts (YAML key ``async``)."""
    eval: EvalConfig = Field(default_factory=EvalConfig)
    """Held-out pass@1 before and after."""
    checkpoint_every: int = Field(default=0, ge=0)
    """Save a checkpoint every this many steps (and always at the end); 0 = only at the end."""
    workers: int | None = Field(default=None, ge=1)
    """Sandbox workers this process starts: the local pool's, or each Ray node's (default:
    one per core). A server runs its own, so it is not set with a server URL."""
    executor: ExecutorSpecText = None
    """Where the programs run when no executor object is given to the trainer: None or
    ``local`` (a sandbox pool on this machine), ``http://host:port[,http://...]`` (the
    ``execrl serve`` servers, through RemoteExecutor), ``ray`` / ``ray:HOST:PORT`` /
    ``ray://HOST:PORT`` (a Ray cluster); see ``execrl.service.open``. CLI: ``--executor``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _consistent(self) -> TrainConfig:
        if (self.reward.kind in ("dense", "multiturn")) != (self.loss.advantage == "dense"):
            raise ValueError(
                "reward.kind dense/multiturn goes with loss.advantage 'dense' and only with it"
            )
        per_token = per_token_estimators()
        if self.loss.kl.placement == "reward" and self.loss.advantage not in per_token:
            raise ValueError(
                f"loss.kl.placement 'reward' needs a per-token loss.advantage: one of {per_token}"
            )
        if self.async_.enabled and self.reward.kind == "multiturn":
            raise ValueError("async mode samples single-turn groups; multiturn runs synchronously")
        if self.workers is not None and parse_executor_spec(self.executor).kind == "remote":
            raise ValueError("workers: a server runs its own workers; leave it out with a URL")
        return self


def preset_names() -> list[str]:
    """The named presets, sorted."""
    folder = resources.files("execrl.rl") / PRESET_DIR
    return sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))


def preset_text(name: str) -> str:
    """The YAML text of a named preset (its leading comment says what it is)."""
    if name not in preset_names():
        raise ConfigError(f"unknown preset {name!r}; choose one of {preset_names()}")
    return (resources.files("execrl.rl") / PRESET_DIR / f"{name}.yaml").read_text()


def read_settings(
    preset: str | None, path: str | Path | None, overrides: Sequence[str]
) -> dict[str, Any]:
    """A preset, then a YAML file on top of it, then ``key.sub=value`` overrides (YAML
    values), merged into one mapping (nested sections merge key by key)."""
    data: dict[str, Any] = {}
    if preset is not None:
        data = _deep_merge(data, yaml.safe_load(preset_text(preset)) or {})
        data["preset"] = preset
    if path is not None:
        data = _deep_merge(data, _read_config_file(Path(path)))
    for item in overrides:
        _apply_override(data, item)
    return data


Model = TypeVar("Model", bound=BaseModel)


def validated(model: type[Model], data: dict[str, Any]) -> Model:
    """``data`` as ``model``; its mistakes as one ConfigError naming each setting."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"training config: {describe_validation_error(exc)}") from None


def load_config(
    preset: str | None = DEFAULT_PRESET,
    path: str | Path | None = None,
    overrides: Sequence[str] = (),
) -> TrainConfig:
    """A preset, then a YAML file on top, then ``key.sub=value`` overrides, checked before any
    model loads: the settings, and the env, reward and solver-reward specs by building them (a
    ConfigError names the file, the override or the setting, and the value)."""
    config = validated(TrainConfig, read_settings(preset, path, overrides))
    check_reward_specs(config.reward)
    return config


def check_reward_specs(reward: RewardConfig) -> None:
    """Build the environment, reward and solver reward the config names, so a bad spec
    (``qp(p=``, ``collapsed(map=nope)``) fails at load, not at the first scoring."""
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


def _deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out
