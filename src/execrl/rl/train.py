"""The reference trainer: group-relative policy gradient on code. Read it top to bottom::

    prompts ──sample G each──▶ rollouts ──extract + execute──▶ rewards ──▶ advantages
        ▲                                                                     │
        └──── weights (every K steps, async) ◀── AdamW ◀── clipped surrogate ◀┘

A run is two things: :class:`Run`, what it holds fixed (the settings, the problems, the
strategy chosen once: scorer, rollouts, advantage estimator, learner), and
:class:`~execrl.rl.state.TrainState`, what survives a step. :func:`open_run` builds both;
:func:`train_step` maps one state to the next in phases — sample, execute, reward,
advantages, loss, log; :func:`train_loop` runs the steps between the evaluations and saves
checkpoints (a TrainState written down, ``rl/checkpoint.py``). :class:`Trainer` is the same as
an object that owns its executor; :func:`run_training` is what ``execrl train`` calls.

The pieces: ``config`` (TrainConfig, presets), ``policy`` (model, sampling),
``prompts``/``curriculum`` (which prompts), ``rollouts`` (scored by ``scorers``),
``advantages`` (the estimators table), ``update`` (the Learner; ``logprobs``),
``rollout_worker`` (async), ``state``/``checkpoint``, ``step_log`` (metrics.jsonl,
rollouts.jsonl), ``evaluation`` (held-out pass@1), ``runs`` (run folders, resuming).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.progress import Progress

from execrl.rl.advantages import TRAINING_ESTIMATORS as _ESTIMATORS
from execrl.rl.advantages import BatchRewards, Estimator
from execrl.rl.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
from execrl.rl.config import DEFAULT_PRESET, TrainConfig, load_config
from execrl.rl.evaluation import heldout_pass_at_1
from execrl.rl.generation import train_stack
from execrl.rl.monitor import StepMonitor
from execrl.rl.policy import load_policy, threads
from execrl.rl.prompts import SELECTORS, load_split
from execrl.rl.rollout_worker import AsyncRollouts
from execrl.rl.rollouts import (
    ROLLOUTS,
    GroupDraw,
    RolloutSampler,
    RolloutSource,
    ScoredGroup,
    fill_batch,
)
from execrl.rl.runs import write_run_config
from execrl.rl.scorers import SCORERS, ProgramScorer
from execrl.rl.state import PromptDraws, TrainState, seed_everything
from execrl.rl.step_log import StepOutcome, rewind_logs, summary_line, write_step
from execrl.rl.train_report import write_training_report
from execrl.sandbox.protocol import Executor

__all__ = [
    "ADVANTAGES",
    "DEFAULT_PRESET",
    "Run",
    "TrainConfig",
    "TrainState",
    "Trainer",
    "load_config",
    "open_run",
    "run_training",
    "train_loop",
    "train_step",
]


def batch_rewards(groups: list[ScoredGroup]) -> BatchRewards:
    """What the advantage estimators read of a batch's scored groups."""
    return BatchRewards(
        rewards=[g.scores.rewards for g in groups],
        lengths=[[len(x.completion_ids) for x in g.samples] for g in groups],
        given=[g.scores.advantages for g in groups],
    )


def _per_rollout(estimator: Estimator, groups: list[ScoredGroup]) -> list[list[float | None]]:
    return estimator.per_rollout(batch_rewards(groups))


ADVANTAGES: dict[str, Callable[[list[ScoredGroup]], list[list[float | None]]]] = {
    name: partial(_per_rollout, row) for name, row in _ESTIMATORS.items()
}
"""Per-rollout advantages of each ``loss.advantage`` over scored groups (None: inconclusive,
or computed per token in the update): ``advantages.TRAINING_ESTIMATORS`` on ScoredGroups."""


def _update_module() -> ModuleType:
    """``execrl.rl.update``, imported when a run opens: it imports torch, an optional extra
    that ``load_config`` (``execrl train --show-config``) must not need."""
    train_stack()
    import execrl.rl.update as update

    return update


# ---------------------------------------------------------------- what a run holds fixed


@dataclass(frozen=True)
class Run:
    """What stays the same from the first step to the last."""

    config: TrainConfig
    out: Path
    """The run folder: metrics, rollouts, checkpoints, evaluations, report."""
    problems: dict[str, Any]
    train_ids: list[str]
    eval_ids: list[str]
    tokenizer: Any
    scorer: ProgramScorer
    """Scores the trainer's rollouts and the held-out samples (on the trainer's executor)."""
    worker_scorer: ProgramScorer
    """Scores the async rollout worker's groups (its executor may be its own)."""
    rollouts: RolloutSource
    """Single- or multi-turn (``ROLLOUTS[reward.kind]``)."""
    estimator: Estimator
    """The advantage estimator (``TRAINING_ESTIMATORS[loss.advantage]``)."""
    learner: Any
    """``update.Learner``: the reference model and the update; shares the state's model and
    optimizer."""
    log: Callable[[str], None]


def open_run(
    config: TrainConfig,
    out: Path,
    executor: Executor,
    *,
    worker_executor: Executor | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> tuple[Run, TrainState]:
    """Seed every generator, load the problems, the policy, the learner and the prompt
    selector: the run and its first state. Programs run on ``executor`` (the async worker's
    on ``worker_executor``, default the same)."""
    Scorer = SCORERS[config.reward.kind]  # the strategy, chosen once
    problems, train_ids, eval_ids = load_split(Scorer.load_problems, config.data)
    update = _update_module()
    torch, _ = train_stack()
    seed_everything(config.seed)
    sampling = config.policy.threads or (1 if config.async_.enabled else os.cpu_count())
    torch.set_num_threads(sampling)  # (the update sets its own, optim.threads)
    model, tokenizer = load_policy(config.policy)
    learner = update.Learner(config, model, tokenizer)
    selector = SELECTORS[config.data.selection](config.data, train_ids, config.seed)
    run = Run(
        config=config,
        out=out,
        problems=problems,
        train_ids=train_ids,
        eval_ids=eval_ids,
        tokenizer=tokenizer,
        scorer=Scorer(config.reward, problems, executor),
        worker_scorer=Scorer(config.reward, problems, worker_executor or executor),
        rollouts=ROLLOUTS[config.reward.kind],
        estimator=_ESTIMATORS[config.loss.advantage],
        learner=learner,
        log=log,
    )
    state = TrainState(
        step=0,
        model=model,
        optimizer=learner.optimizer,
        prompts=PromptDraws(selector, config.seed),
        monitor=StepMonitor(group_size=config.group_size),
    )
    return run, state


# ---------------------------------------------------------------- one step


def train_step(state: TrainState, run: Run, worker: AsyncRollouts | None = None) -> TrainState:
    """One optimizer step: the next state (a step with no learning signal skips the update
    but counts). Groups come from ``worker`` (async) or are sampled now by the state's
    weights."""
    cfg, t0 = run.config, time.perf_counter()
    update = _update_module()
    # -- sample, execute, reward: G rollouts per prompt, run on the run's executor
    rounds = 1 + (cfg.max_extra_rounds if cfg.dynamic_sampling else 0)
    source = _sample_now(run, state) if worker is None else _from_worker(worker, state.step)
    drawn, kept, stale, rounds = fill_batch(
        source, cfg.prompts_per_step, filtered=cfg.dynamic_sampling, rounds=rounds
    )
    t_rollout = time.perf_counter() - t0
    # -- advantages: one per rollout of the kept groups; None for an inconclusive one (or
    #    one whose advantages are per token, computed in the update)
    batch = [drawn[i] for i in kept]
    advantages = run.estimator.per_rollout(batch_rewards(batch))
    rows = update.training_rows(batch, advantages)
    # -- loss: the clipped surrogate (+ KL) over micro-batches, one AdamW step. Rollouts
    #    with advantage 0 stay in the batch (they count in the aggregation's denominator,
    #    as in GRPO); only a batch with no signal at all skips the update.
    t1 = time.perf_counter()
    updated = bool(rows) and update.has_signal(rows, cfg.loss.kl.beta)
    stats = update.UpdateStats()
    if updated:
        with threads(None if cfg.async_.enabled else cfg.optim.threads or os.cpu_count()):
            stats = run.learner.update(rows)
    step = state.step + 1  # the step counts, updated or not
    t_update = time.perf_counter() - t1
    if worker is not None:
        worker.push(step, state.model)
    # -- log: over every group drawn (the policy's reward), the update's loss and KL
    by_group = dict(zip(kept, advantages, strict=True))
    outcome = StepOutcome(step, drawn, by_group, len(stale), rounds, updated)
    row = write_step(run.out, outcome, stats, (t_rollout, t_update), state.monitor)
    run.log(summary_line(row, cfg.steps))
    return replace(state, step=step, history=[*state.history, row])


def draw_groups(
    run: Run,
    prompts: PromptDraws,
    model: Any,
    version: int,
    n: int,
    exclude: Collection[str],
    scorer: ProgramScorer,
    *,
    record_logps: bool,
) -> list[ScoredGroup]:
    """Draw ``n`` prompts, sample and score their groups, tell the selector what passed."""
    ids, seed = prompts.take(n, exclude)
    sampler = RolloutSampler(
        model, run.tokenizer, run.config, run.problems, scorer, version, record_logps
    )
    groups = run.rollouts(sampler, ids, seed=seed)
    prompts.observe(groups)
    return groups


def _sample_now(run: Run, state: TrainState) -> GroupDraw:
    """Sync mode: groups sampled by the state's weights (none is ever stale)."""

    def draw(n: int, exclude: Collection[str]) -> tuple[list[ScoredGroup], list[ScoredGroup]]:
        model, version, prompts = state.model, state.step, state.prompts
        groups = draw_groups(
            run, prompts, model, version, n, exclude, run.scorer, record_logps=False
        )
        return groups, []

    return draw


def _from_worker(worker: AsyncRollouts, version: int) -> GroupDraw:
    """Async mode: groups from the worker's queue, those older than S_max dropped."""
    return lambda n, exclude: worker.take(n, version)


def start_worker(run: Run, state: TrainState) -> AsyncRollouts:
    """Async: a rollout worker with its own copy of the weights feeding a bounded queue, its
    programs run by the run's ``worker_scorer``."""

    def draw(model: Any, version: int, n: int) -> list[ScoredGroup]:
        scorer = run.worker_scorer
        return draw_groups(run, state.prompts, model, version, n, (), scorer, record_logps=True)

    cfg = run.config
    return AsyncRollouts(state.model, state.step, draw, cfg.async_, n=cfg.prompts_per_step)


# ---------------------------------------------------------------- the loop


def train_loop(run: Run, state: TrainState, *, progress: bool = True) -> TrainState:
    """Evaluate before, step up to ``config.steps`` (from where a resumed state stands),
    checkpointing every ``checkpoint_every`` steps and at the end, evaluate after."""
    cfg = run.config
    write_run_config(run.out, cfg)
    if cfg.eval.before and "before" not in state.evaluations and run.eval_ids:
        state = evaluated(run, state, "before")
    worker = start_worker(run, state) if cfg.async_.enabled else None
    try:
        with Progress(disable=not progress) as bar:
            task = bar.add_task("training", total=cfg.steps, completed=state.step)
            while state.step < cfg.steps:
                state = train_step(state, run, worker)
                bar.advance(task)
                if cfg.checkpoint_every and state.step % cfg.checkpoint_every == 0:
                    save_checkpoint(run.out, state, run.tokenizer)
    finally:
        if worker is not None:
            worker.close()
    save_checkpoint(run.out, state, run.tokenizer)
    if cfg.eval.after and run.eval_ids:
        state = evaluated(run, state, "after")
    return state


def evaluate(run: Run, state: TrainState, label: str) -> dict[str, Any]:
    """pass@1 of the state's weights on the held-out problems (``rl/evaluation.py``)."""
    seed = run.config.seed * 104729 + (0 if label == "before" else 1)
    ids = run.eval_ids
    result = heldout_pass_at_1(state.model, run.tokenizer, run.scorer, ids, run.config, seed=seed)
    run.log(
        f"{label}: pass@1 {result['pass_at_1']:.3f} ± {result['stderr']:.3f} "
        f"on {len(ids)} held-out problems"
    )
    return {"label": label, "step": state.step, **result}


def evaluated(run: Run, state: TrainState, label: str) -> TrainState:
    """The state with its ``label`` evaluation, written to ``evaluations.json`` too."""
    evaluations = {**state.evaluations, label: evaluate(run, state, label)}
    (run.out / "evaluations.json").write_text(json.dumps(evaluations, indent=2))
    return replace(state, evaluations=evaluations)


def resumed(run: Run, state: TrainState, folder: Path | None = None) -> TrainState:
    """The state a checkpoint saved (default: the run's latest), the run's logs rewound to
    it, so the run continues exactly."""
    folder = folder if folder is not None else latest_checkpoint(run.out)
    state = load_checkpoint(folder, state, lora=run.config.policy.lora is not None)
    rewind_logs(run.out, state.history)
    return state


# ---------------------------------------------------------------- the same, as an object


class Trainer:
    """A run that owns its executor: ``with Trainer(config, out) as t: t.train()``.

    ``executor`` runs every program (local, remote or Ray; the caller closes it); None: the
    one ``config.executor`` names, opened here (a second one for the async worker) and closed
    by ``close``. The state is ``trainer.state``; the fixed parts ``trainer.run``."""

    def __init__(
        self,
        config: TrainConfig,
        out_dir: str | Path,
        *,
        executor: Executor | None = None,
        progress: bool = True,
        log: Callable[[str], None] | None = None,
    ) -> None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        self.progress = progress
        # The executor first: an unreachable server or cluster fails before the model loads.
        self._owned = [] if executor else [_open_executor(config)]
        self.executor = executor or self._owned[0]
        try:
            worker_executor = self.executor
            if config.async_.enabled and executor is None:  # the worker gets a pool of its own
                worker_executor = _open_executor(config)
                self._owned.append(worker_executor)
            self.run, self.state = open_run(
                config, out, self.executor, worker_executor=worker_executor, log=log or _quiet
            )
        except BaseException:
            self.close()
            raise
        # Names earlier versions had, for their callers: parts fixed for the run (the
        # selector too: a resume loads it in place).
        self.learner, self.scorer = self.run.learner, self.run.scorer
        self.worker_scorer, self.stream = self.run.worker_scorer, self.state.prompts.selector

    def train(self) -> Path:
        """Train up to ``config.steps`` (from where a resumed run stands); returns the folder."""
        self.run.log(f"programs run on: {self.executor.backend}, {self.executor.workers} workers")
        self.state = train_loop(self.run, self.state, progress=self.progress)
        return self.run.out

    def step(self) -> None:
        """One synchronous optimizer step (``train_step``)."""
        self.state = train_step(self.state, self.run)

    def evaluate(self, label: str) -> dict[str, Any]:
        """pass@1 on the held-out problems, labelled (not stored in the state)."""
        return evaluate(self.run, self.state, label)

    def save_checkpoint(self) -> Path:
        """The state and its weights, in ``checkpoints/step-NNNNN``."""
        return save_checkpoint(self.run.out, self.state, self.run.tokenizer)

    def load_checkpoint(self, folder: str | Path | None = None) -> None:
        """The state a checkpoint saved (default: the run's latest)."""
        self.state = resumed(self.run, self.state, None if folder is None else Path(folder))

    @property
    def history(self) -> list[dict[str, Any]]:
        """The state's metrics rows (a name earlier versions had)."""
        return self.state.history

    def close(self) -> None:
        for executor in self._owned:
            executor.close()

    def __enter__(self) -> Trainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_executor(config: TrainConfig) -> Executor:
    return SCORERS[config.reward.kind].open_executor(config.executor, config.workers)


def _quiet(line: str) -> None:
    """No log."""


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
    """Train (or resume from the run's latest checkpoint) and write the report; returns the
    run folder. ``executor``: see :class:`Trainer` (None: the one ``config.executor`` names)."""
    with Trainer(config, out_dir, executor=executor, progress=progress, log=log) as trainer:
        if resume:
            trainer.load_checkpoint()
        trainer.train()
    if report:
        write_training_report(Path(out_dir))
    return Path(out_dir)
