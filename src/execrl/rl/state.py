"""The trainer's state as data: what survives a step, and all that a checkpoint keeps.

:class:`TrainState` is the one place a run's progress lives; ``rl/train.py``'s ``train_step``
maps one TrainState to the next, and ``rl/checkpoint.py`` writes one down and reads it back
(:meth:`TrainState.to_dict`, :meth:`TrainState.restored`). Everything else a run holds (its
settings, problems, scorer, learner) is fixed when it starts and is not state.

The weights and the optimizer's moments are torch objects updated in place by the step (a
copy of the model per step would cost more than the step); the counters and logs are values
the step replaces. The prompt draws are shared with the asynchronous rollout worker, which
draws from its own thread, so :class:`PromptDraws` guards them with a lock.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from execrl.errors import ExecrlError
from execrl.rl.generation import train_stack
from execrl.rl.monitor import StepMonitor
from execrl.rl.prompts import PromptSelector
from execrl.rl.rollouts import ScoredGroup

STATE_FORMAT = "execrl-train-state/2"
"""The version of :meth:`TrainState.to_dict`'s layout (``trainer_state.pt``)."""

SEED_STRIDE = 7919
"""Sampling seeds are ``seed * SEED_STRIDE + prompts drawn``: distinct per draw and run."""


@dataclass
class PromptDraws:
    """The sampler's state: which prompts come next (the selector) and how many were drawn,
    which seeds every sampling call, so a restored run samples what the original would."""

    selector: PromptSelector
    """A PromptStream or a PassRateSelector (``data.selection``)."""
    seed: int
    """The run's seed (``config.seed``)."""
    drawn: int = 0
    """Prompts drawn so far."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    """The async rollout worker draws from its own thread."""

    def take(self, n: int, exclude: Collection[str] = ()) -> tuple[list[str], int]:
        """(``n`` problem ids, the seed their sampling call uses)."""
        with self.lock:
            ids = self.selector.take(n, exclude=exclude)
            self.drawn += len(ids)
            return ids, self.seed * SEED_STRIDE + self.drawn

    def observe(self, groups: Sequence[ScoredGroup]) -> None:
        """Tell the selector what each group's conclusive rollouts passed."""
        with self.lock:
            for group in groups:
                self.selector.observe(group.problem_id, group.conclusive()[1])

    def state_dict(self) -> dict[str, Any]:
        with self.lock:
            return {"selector": self.selector.state_dict(), "drawn": self.drawn}

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        with self.lock:
            self.selector.load_state_dict(saved["selector"])
            self.drawn = int(saved["drawn"])


@dataclass
class TrainState:
    """What survives a training step."""

    step: int
    """Optimizer steps taken (a step with no signal counts too): the policy version."""
    model: Any
    """The policy's weights (the whole model, or its LoRA adapter), updated in place."""
    optimizer: Any
    """AdamW and its moments, updated in place."""
    prompts: PromptDraws
    """The prompt selector's state and the draw count that seeds sampling."""
    monitor: StepMonitor
    """Spec §6 per step (rates, rewards, bursts judged against the previous steps)."""
    history: list[dict[str, Any]] = field(default_factory=list)
    """The ``metrics.jsonl`` rows so far, one per step."""
    evaluations: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Held-out pass@1 by label (``before``, ``after``)."""

    def to_dict(self) -> dict[str, Any]:
        """Everything but the weights (``save_pretrained`` writes those), RNG states included:
        what ``trainer_state.pt`` holds."""
        return {
            "format": STATE_FORMAT,
            "step": self.step,
            "optimizer": self.optimizer.state_dict(),
            "prompts": self.prompts.state_dict(),
            "monitor": self.monitor,
            "history": list(self.history),
            "evaluations": dict(self.evaluations),
            "rng": rng_state(),
        }

    def restored(self, saved: dict[str, Any]) -> TrainState:
        """This state with ``saved`` (a :meth:`to_dict`) loaded: the optimizer and the prompt
        draws in place, the RNGs set, the rest replaced. The weights are loaded apart."""
        if saved.get("format") != STATE_FORMAT:
            raise ExecrlError(
                f"a trainer state of format {saved.get('format')!r}, not {STATE_FORMAT!r}: "
                "it was written by another version of execrl; start a new run"
            )
        self.optimizer.load_state_dict(saved["optimizer"])
        self.prompts.load_state_dict(saved["prompts"])
        set_rng_state(saved["rng"])
        return replace(
            self,
            step=int(saved["step"]),
            monitor=saved["monitor"],
            history=list(saved["history"]),
            evaluations=dict(saved["evaluations"]),
        )


def rng_state() -> dict[str, Any]:
    """The global generators' states: Python's, numpy's and torch's."""
    torch, _ = train_stack()
    return {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }


def set_rng_state(saved: dict[str, Any]) -> None:
    """Put back what :func:`rng_state` returned."""
    torch, _ = train_stack()
    random.setstate(saved["python"])
    np.random.set_state(saved["numpy"])
    torch.set_rng_state(saved["torch"])


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators (a run's start)."""
    torch, _ = train_stack()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
