"""The reference trainer: group-relative policy gradient on code. Read it top to bottom::

    prompts ──sample G each──▶ rollouts ──extract + execute──▶ rewards ──▶ advantages
        ▲                                                                     │
        └──── weights (every K steps, async) ◀── AdamW ◀── clipped surrogate ◀┘

:class:`TrainConfig` (sections in ``rl/config.py``, presets in ``rl/configs/``), then
:meth:`Trainer.step`: one step in phases — sample, execute, reward, advantages, loss, log. The
pieces: ``policy`` (model, sampling), ``prompts``/``curriculum`` (which prompts), ``rollouts``
(scored by ``scorers``), ``update`` (the Learner; ``logprobs``), ``rollout_worker`` (async),
``checkpoint``, ``step_log`` (metrics.jsonl, rollouts.jsonl), ``evaluation`` (held-out pass@1).
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Callable, Collection, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import yaml
from pydantic import ConfigDict, Field, model_validator
from rich.progress import Progress

from execrl.rl.advantages import ESTIMATORS, batch_advantages
from execrl.rl.checkpoint import latest_checkpoint, restore, save_checkpoint, trainer_state
from execrl.rl.config import (
    AsyncConfig,
    DataConfig,
    EvalConfig,
    ExecutorSpecText,
    LossConfig,
    OptimConfig,
    PolicyConfig,
    RewardConfig,
    Strict,
    check_reward_specs,
    read_settings,
    validated,
)
from execrl.rl.evaluation import heldout_pass_at_1
from execrl.rl.generation import train_stack
from execrl.rl.policy import load_policy, threads
from execrl.rl.prompts import SELECTORS, load_split
from execrl.rl.rollout_worker import AsyncRollouts
from execrl.rl.rollouts import ROLLOUTS, Sampler, ScoredGroup, fill_batch
from execrl.rl.scorers import SCORERS, ProgramScorer
from execrl.rl.step_log import StepOutcome, rewind_logs, summary_line, write_step
from execrl.rl.train_report import write_training_report
from execrl.sandbox.protocol import Executor
from execrl.service.fallback import StepMonitor
from execrl.service.open import parse_executor_spec

DEFAULT_PRESET = "demo"
"""What bare ``execrl train`` (and ``make demo``) runs: the main job."""


class TrainConfig(Strict):
    """Every setting of a run (see ``rl/config.py`` for the sections' fields)."""

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
    """Where the programs run when no executor object is given to the Trainer: None or
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
        if self.loss.kl.placement == "reward" and self.loss.advantage != "reinforce_pp":
            raise ValueError("loss.kl.placement 'reward' needs loss.advantage 'reinforce_pp'")
        if self.async_.enabled and self.reward.kind == "multiturn":
            raise ValueError("async mode samples single-turn groups; multiturn runs synchronously")
        if self.workers is not None and parse_executor_spec(self.executor).kind == "remote":
            raise ValueError("workers: a server runs its own workers; leave it out with a URL")
        return self


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


# ---------------------------------------------------------------- advantages, chosen once

Advantages = Callable[[Sequence[ScoredGroup]], list[list[float | None]]]


def _estimated(name: str, groups: Sequence[ScoredGroup]) -> list[list[float | None]]:
    lengths = [[len(x.completion_ids) for x in g.samples] for g in groups]
    return batch_advantages(name, [g.scores.rewards for g in groups], lengths)


ADVANTAGES: dict[str, Advantages] = {
    **{name: partial(_estimated, name) for name in ESTIMATORS},  # group-relative, over a batch
    # dense: the scorer's A(i, t); reinforce_pp: per token, in the update, after the KL pass
    "dense": lambda groups: [g.scores.advantages or [None] * len(g.samples) for g in groups],
    "reinforce_pp": lambda groups: [[None] * len(g.samples) for g in groups],
}
"""Per-rollout advantages of each ``loss.advantage`` (None: inconclusive, or per token)."""


def _update_module() -> ModuleType:
    """``execrl.rl.update``, imported when a Trainer starts: it imports torch, an optional extra
    that ``load_config`` (``execrl train --show-config``) must not need."""
    train_stack()
    import execrl.rl.update as update

    return update


# ---------------------------------------------------------------- the trainer


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
        self.config, self.out, self.progress = config, Path(out_dir), progress
        self.out.mkdir(parents=True, exist_ok=True)
        self.log = log or (lambda message: None)
        # The strategy, chosen once: the scorer, single- or multi-turn rollouts, advantages.
        self.Scorer = SCORERS[config.reward.kind]
        self.rollouts = ROLLOUTS[config.reward.kind]
        self.advantages = ADVANTAGES[config.loss.advantage]
        self.problems, self.train_ids, self.eval_ids = load_split(
            self.Scorer.load_problems, config.data
        )
        # The executor first: an unreachable server or cluster fails before the model loads.
        self._own_executor = executor is None
        self.executor = executor or self.Scorer.open_executor(config.executor, config.workers)
        try:
            self._start(config)
        except BaseException:
            self.close()
            raise
        # Every program runs on the executor the trainer holds (never the constructor
        # argument: None there made each scoring call open a pool of its own).
        self.scorer = self.worker_scorer = self.Scorer(config.reward, self.problems, self.executor)
        self.history: list[dict[str, Any]] = []
        self.evaluations: dict[str, dict[str, Any]] = {}
        self.monitor = StepMonitor(group_size=config.group_size)
        """Spec §6 per step: resolved/fallback/unknown/timeout rates, rewards, bursts."""
        self.draws = 0
        """Prompts drawn so far: every sampling call's seed comes from it."""
        self._draw_lock = threading.Lock()  # the async worker draws from its own thread
        self._groups = self._sample_now  # async mode: fresh groups from the worker's queue
        self._worker: AsyncRollouts | None = None

    def _start(self, config: TrainConfig) -> None:
        """Seed every generator, load the policy, the learner and the prompt selector."""
        self._update = _update_module()
        torch, _ = train_stack()
        random.seed(config.seed)
        np.random.seed(config.seed)
        torch.manual_seed(config.seed)
        sampling = config.policy.threads or (1 if config.async_.enabled else os.cpu_count())
        torch.set_num_threads(sampling)  # (the update sets its own, optim.threads)
        model, self.tokenizer = load_policy(config.policy)
        self.learner = self._update.Learner(config, model, self.tokenizer)
        self.stream = SELECTORS[config.data.selection](config.data, self.train_ids, config.seed)
        """Where prompts come from: a PromptStream or a PassRateSelector (data.selection)."""

    def train(self) -> Path:
        """Train up to ``config.steps`` (from where a resumed run stands); returns the folder."""
        cfg = self.config
        self.log(f"programs run on: {self.executor.backend}, {self.executor.workers} workers")
        dumped = cfg.model_dump(mode="json", by_alias=True)
        (self.out / "config.yaml").write_text(yaml.safe_dump(dumped, sort_keys=False))
        if cfg.eval.before and "before" not in self.evaluations and self.eval_ids:
            self._evaluate("before")
        if cfg.async_.enabled:
            self._start_worker()
        try:
            with Progress(disable=not self.progress) as bar:
                task = bar.add_task("training", total=cfg.steps, completed=self.learner.version)
                while self.learner.version < cfg.steps:
                    self.step()
                    bar.advance(task)
                    if cfg.checkpoint_every and self.learner.version % cfg.checkpoint_every == 0:
                        self.save_checkpoint()
        finally:
            self._stop_worker()
        self.save_checkpoint()
        if cfg.eval.after and self.eval_ids:
            self._evaluate("after")
        return self.out

    def step(self) -> None:
        """One optimizer step (a step with no learning signal skips the update but counts)."""
        cfg, update, t0 = self.config, self._update, time.perf_counter()
        # -- sample, execute, reward: G rollouts per prompt, run on the trainer's executor
        rounds = 1 + (cfg.max_extra_rounds if cfg.dynamic_sampling else 0)
        drawn, kept, stale, rounds = fill_batch(
            self._groups, cfg.prompts_per_step, filtered=cfg.dynamic_sampling, rounds=rounds
        )
        t_rollout = time.perf_counter() - t0
        # -- advantages: one per rollout of the kept groups; None for an inconclusive one
        advantages = self.advantages([drawn[i] for i in kept])
        rows = update.training_rows([drawn[i] for i in kept], advantages)
        # -- loss: the clipped surrogate (+ KL) over micro-batches, one AdamW step. Rollouts
        #    with advantage 0 stay in the batch (they count in the aggregation's denominator,
        #    as in GRPO); only a batch with no signal at all skips the update.
        t1 = time.perf_counter()
        updated = bool(rows) and update.has_signal(rows, cfg.loss.kl.beta)
        stats = update.UpdateStats()
        if updated:
            with threads(None if cfg.async_.enabled else cfg.optim.threads or os.cpu_count()):
                stats = self.learner.update(rows)
        else:
            self.learner.version += 1  # the step counts
        t_update = time.perf_counter() - t1
        if self._worker is not None:
            self._worker.push(self.learner.version, self.learner.model)
        # -- log: over every group drawn (the policy's reward), the update's loss and KL
        by_group = dict(zip(kept, advantages, strict=True))
        outcome = StepOutcome(self.learner.version, drawn, by_group, len(stale), rounds, updated)
        self.history.append(
            write_step(self.out, outcome, stats, (t_rollout, t_update), self.monitor)
        )
        self.log(summary_line(self.history[-1], cfg.steps))

    def _sample_now(self, n: int, exclude: Collection[str]) -> tuple[list[ScoredGroup], list]:
        """Sync mode: ``n`` groups sampled by the current weights (none is ever stale)."""
        model, version = self.learner.model, self.learner.version
        return self._draw(model, version, n, exclude, self.scorer, record_logps=False), []

    def _draw(
        self,
        model: Any,
        version: int,
        n: int,
        exclude: Collection[str],
        scorer: ProgramScorer,
        *,
        record_logps: bool,
    ) -> list[ScoredGroup]:
        """Draw ``n`` prompts, sample and score their groups, tell the selector what passed."""
        with self._draw_lock:
            ids = self.stream.take(n, exclude=exclude)
            self.draws += len(ids)
            seed = self.config.seed * 7919 + self.draws
        sampler = Sampler(
            model, self.tokenizer, self.config, self.problems, scorer, version, record_logps
        )
        groups = self.rollouts(sampler, ids, seed=seed)
        with self._draw_lock:
            for group in groups:
                self.stream.observe(group.problem_id, group.conclusive()[1])
        return groups

    def _start_worker(self) -> None:
        """Async: a rollout worker with its own weights feeding a bounded queue, from which
        each step takes fresh groups. An executor given to the trainer runs the worker's
        programs too (the caller chose it for every program); otherwise it gets its own."""
        cfg, owned = self.config, None
        if self._own_executor:
            owned = self.Scorer.open_executor(cfg.executor, cfg.workers)
        self.worker_scorer = self.Scorer(cfg.reward, self.problems, owned or self.executor)

        def draw(model: Any, version: int, n: int) -> list[ScoredGroup]:
            return self._draw(model, version, n, (), self.worker_scorer, record_logps=True)

        model, version = self.learner.model, self.learner.version
        self._worker = AsyncRollouts(
            model, version, draw, cfg.async_, n=cfg.prompts_per_step, owned=owned
        )
        self._groups = lambda n, exclude: self._worker.take(n, self.learner.version)

    def _stop_worker(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker, self._groups = None, self._sample_now

    def evaluate(self, label: str) -> dict[str, Any]:
        """pass@1 on the held-out problems (``rl/evaluation.py``), labelled."""
        seed = self.config.seed * 104729 + (0 if label == "before" else 1)
        model, scorer, ids = self.learner.model, self.scorer, self.eval_ids
        result = heldout_pass_at_1(model, self.tokenizer, scorer, ids, self.config, seed=seed)
        self.log(
            f"{label}: pass@1 {result['pass_at_1']:.3f} ± {result['stderr']:.3f} "
            f"on {len(ids)} held-out problems"
        )
        return {"label": label, "step": self.learner.version, **result}

    def _evaluate(self, label: str) -> None:
        self.evaluations[label] = self.evaluate(label)
        (self.out / "evaluations.json").write_text(json.dumps(self.evaluations, indent=2))

    def save_checkpoint(self) -> Path:
        """Weights (or the adapter), optimizer, step, prompt-selector state and logs."""
        learner = self.learner
        state = trainer_state(learner, self.stream, self.draws, self.history, self.evaluations)
        return save_checkpoint(self.out, learner.version, learner.model, self.tokenizer, state)

    def load_checkpoint(self, folder: str | Path | None = None) -> None:
        """Restore weights, optimizer, step, prompt selection and logs from a checkpoint
        (default: the run's latest), so the run continues exactly."""
        folder = Path(folder) if folder is not None else latest_checkpoint(self.out)
        lora = self.config.policy.lora is not None
        state = restore(folder, self.learner, self.stream, lora=lora)
        self.draws, self.history = state["draws"], state["history"]
        self.evaluations = state["evaluations"]
        rewind_logs(self.out, self.history)

    def close(self) -> None:
        if self._own_executor:
            self.executor.close()

    def __enter__(self) -> Trainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
        write_training_report(Path(out_dir))
    return Path(out_dir)
