"""The update: clipped policy-gradient steps on a batch of rollouts (the :class:`Learner`).

A batch is cut into micro-batches; each micro-batch's aggregated loss is scaled by its share
of the whole batch's loss (:func:`loss_share`, from ``losses.AGGREGATIONS``), so the
accumulated gradient equals the full-batch gradient for every aggregation. A KL term goes in
the loss (``kl.placement: loss``) or, for an estimator computed per token (a row of
``advantages.TRAINING_ESTIMATORS`` with ``per_token``: REINFORCE++), in the per-token reward
the advantages come from.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from execrl.rl.advantages import TRAINING_ESTIMATORS, PerToken
from execrl.rl.config import TrainConfig
from execrl.rl.logprobs import batch_tensors, scatter, token_logps
from execrl.rl.losses import AGGREGATIONS, clipped_surrogate, kl_in_loss, kl_penalty, section_mask
from execrl.rl.rollouts import ScoredGroup


@dataclass
class Rollout:
    """One training row: a prompt and completion (token ids and text) with what the update
    needs of it."""

    prompt_ids: list[int]
    completion_ids: list[int]
    text: str
    advantage: float | None = None
    """Its advantage (None for the per-token estimators, computed in the update)."""
    reward: float | None = None
    """Its reward: what a per-token estimator puts on the last token."""
    old_logp: list[float] | None = None
    """Per-token log-probabilities under the sampling weights (async mode); None when the
    update is on-policy and uses the current weights' detached values instead."""


def training_rows(
    groups: Sequence[ScoredGroup], advantages: Sequence[Sequence[float | None]]
) -> list[Rollout]:
    """The update's rows: every conclusive rollout of ``groups``, with its advantage (None for
    a per-token estimator), its reward and, in async mode, its sampling log-probabilities."""
    return [
        Rollout(
            sample.prompt_ids,
            sample.completion_ids,
            sample.text,
            advantage=advantage,
            reward=reward,
            old_logp=None if g.old_logps is None else g.old_logps[i],
        )
        for g, group_advantages in zip(groups, advantages, strict=True)
        for i, (sample, reward, advantage) in enumerate(
            zip(g.samples, g.scores.rewards, group_advantages, strict=True)
        )
        if reward is not None
    ]


def has_signal(rows: Sequence[Rollout], beta: float) -> bool:
    """Whether a batch teaches something: a KL term pulls, a rollout has a non-zero advantage,
    or (per-token estimators, which normalise over the batch) the rewards differ."""
    per_token = {r.reward for r in rows if r.advantage is None}
    return beta > 0 or any(r.advantage for r in rows) or len(per_token) > 1


TokenAdvantages = PerToken
"""Deprecated alias of ``execrl.rl.advantages.PerToken``."""

TOKEN_ADVANTAGES: dict[str, PerToken] = {
    name: row.per_token for name, row in TRAINING_ESTIMATORS.items() if row.per_token
}
"""Deprecated: the per-token rows of ``execrl.rl.advantages.TRAINING_ESTIMATORS``."""


@dataclass
class UpdateStats:
    """What one update did, averaged over its epochs (KL and clip fractions per token)."""

    loss: float = 0.0
    kl: float = 0.0
    clip_frac_low: float = 0.0
    clip_frac_high: float = 0.0
    tokens: int = 0


@dataclass
class Batch:
    """A batch split into micro-batches: the rollouts and their tensors. ``lengths`` are the
    completion lengths of the whole batch (the loss's denominators, rollouts left out for a
    zero advantage included), ``rows`` each micro-batch's positions in it, ``kept_tokens``
    the tokens of the rollouts that are run."""

    micro: list[list[Rollout]]
    tensors: list[dict[str, Any]]
    lengths: list[int]
    rows: list[list[int]]
    kept_tokens: int

    @property
    def tokens(self) -> int:
        return sum(self.lengths)


def loss_share(aggregation: str, horizon: int, lengths: Sequence[int], rows: list[int]) -> float:
    """How much of the whole batch's loss a micro-batch's aggregated loss stands for.

    Every aggregation is linear in the per-token values, so the share is the aggregation of a
    probe that is 1 on the micro-batch's tokens, over the whole batch, divided by the
    aggregation of 1 over the micro-batch alone (token mean: its share of the tokens; sequence
    mean: of the rows; fixed horizon: 1)."""
    aggregate = AGGREGATIONS[aggregation]
    whole = _length_mask(lengths)  # (B, L) completion tokens of the whole batch
    part = whole[rows]
    if not part.any():
        return 0.0  # no tokens: its loss is 0 whatever the share
    probe = torch.zeros_like(whole)
    probe[rows] = 1.0
    return float(aggregate(probe, whole, horizon) / aggregate(torch.ones_like(part), part, horizon))


def _length_mask(lengths: Sequence[int]) -> torch.Tensor:
    width = max(max(lengths, default=0), 1)
    return (torch.arange(width) < torch.tensor(list(lengths)).unsqueeze(1)).float()


def section_masks(rollouts: Sequence[Rollout], tokenizer: Any, mask: Any, sections: list[str]):
    """(B, L−1) True on completion tokens inside the chosen tagged sections (partial KL)."""
    rows = []
    for r in rollouts:
        pieces = [tokenizer.decode([t]) for t in r.completion_ids]
        offsets, pos = [], 0
        for piece in pieces:
            offsets.append((pos, pos + len(piece)))
            pos += len(piece)
        rows.append(section_mask("".join(pieces), offsets, sections=sections).float().tolist())
    return scatter(rows, mask).bool()


class Learner:
    """Holds the policy, its reference copy and the optimizer; takes one update per batch.
    (The step count, the policy version, is the trainer's state: ``TrainState.step``.)"""

    def __init__(self, config: TrainConfig, model: Any, tokenizer: Any) -> None:
        self.config = config
        self.model = model
        self.tokenizer = tokenizer
        self.token_advantages = TRAINING_ESTIMATORS[config.loss.advantage].per_token
        """The per-token estimator, or None when each rollout brings its advantage."""
        self.reference = None
        if config.loss.kl.beta > 0 and config.policy.lora is None:
            self.reference = copy.deepcopy(model).eval().requires_grad_(False)
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(
            params, lr=config.optim.lr, weight_decay=config.optim.weight_decay
        )

    def reference_logps(self, tensors: dict[str, Any]) -> Any:
        """(B, L−1) log-probabilities under the reference: the frozen copy, or for LoRA the
        base model with the adapter disabled (no second copy in memory)."""
        with torch.no_grad():
            if self.reference is not None:
                return token_logps(self.reference, tensors)
            with self.model.disable_adapter():
                return token_logps(self.model, tensors)

    def update(self, rollouts: list[Rollout]) -> UpdateStats:
        """Epochs of clipped policy-gradient steps over ``rollouts`` (one optimizer step each)."""
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
                trained = [p for p in self.model.parameters() if p.requires_grad]
                torch.nn.utils.clip_grad_norm_(trained, self.config.optim.grad_clip)
            self.optimizer.step()
        return stats

    def prepare(self, rollouts: list[Rollout]) -> Batch:
        """Micro-batches of padded tensors, with reference log-probabilities and section masks
        when a KL term needs them, and per-token advantages when the estimator is one."""
        kl = self.config.loss.kl
        lengths = [len(r.completion_ids) for r in rollouts]
        positions = list(range(len(rollouts)))
        if self._zero_advantage_is_free():
            positions = [i for i in positions if rollouts[i].advantage != 0]
        size = self.config.optim.micro_batch
        rows = [positions[i : i + size] for i in range(0, len(positions), size)]
        micro = [[rollouts[i] for i in chunk] for chunk in rows]
        pad_id, share = self.tokenizer.pad_token_id, self.config.optim.share_prompt
        prepared = [batch_tensors(chunk, pad_id, share) for chunk in micro]
        for chunk, tensors in zip(micro, prepared, strict=True):
            if kl.beta > 0:
                tensors["ref_logp"] = self.reference_logps(tensors)
                if kl.sections:
                    tensors["sections"] = section_masks(
                        chunk, self.tokenizer, tensors["mask"], kl.sections
                    )
        if self.token_advantages is not None:
            self._token_advantages(micro, prepared)
        kept = sum(int(t["mask"].sum()) for t in prepared)
        return Batch(micro, prepared, lengths, rows, kept)

    def _zero_advantage_is_free(self) -> bool:
        """Whether a rollout with advantage 0 contributes exactly nothing to the gradient:
        no KL term in the loss, and one advantage per rollout."""
        return (
            self.config.optim.skip_zero_advantage
            and self.config.loss.kl.beta == 0
            and self.token_advantages is None
        )

    def accumulate(self, batch: Batch) -> UpdateStats:
        """Backpropagate the whole batch's loss, one micro-batch at a time: each micro-batch's
        aggregated loss is scaled by its share of the batch, so the summed gradient equals the
        gradient of the loss over the whole batch."""
        cfg = self.config.loss
        stats = UpdateStats(tokens=batch.tokens)
        for chunk, tensors, rows in zip(batch.micro, batch.tensors, batch.rows, strict=True):
            mask = tensors["mask"]  # (B, L−1) completion tokens
            logp = token_logps(self.model, tensors)  # (B, L−1)
            if chunk[0].old_logp is None:  # on-policy: the first epoch's values
                old = tensors.setdefault("old_logp", logp.detach())
            else:  # sampled by other weights (async): what the sampler recorded
                old = tensors.setdefault("old_logp", scatter([r.old_logp for r in chunk], mask))
            adv = tensors.get("token_advantages")  # (B, L−1), or one per rollout: (B,)
            if adv is None:
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
                kl_value = self._kl_value(logp, tensors)
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
            share = loss_share(cfg.aggregation, cfg.horizon, batch.lengths, rows)
            (loss * share).backward()
            weight = int(mask.sum()) / max(batch.kept_tokens, 1)
            stats.loss += float(loss.detach()) * share
            stats.kl += kl_value * weight
            stats.clip_frac_low += clip["clip_frac_low"] * weight
            stats.clip_frac_high += clip["clip_frac_high"] * weight
        return stats

    def _kl_value(self, logp: Any, tensors: dict[str, Any]) -> float:
        """Mean per-token KL to the reference (over the penalised sections), for the log."""
        kl = self.config.loss.kl
        mask = tensors["mask"]
        tokens = kl_penalty(logp, tensors["ref_logp"], mask, kl.estimator, tensors.get("sections"))
        return float((tokens.sum() / mask.sum().clamp(min=1)).detach())

    def _token_advantages(self, micro: list[list[Rollout]], prepared: list[dict]) -> None:
        """Per-token advantages (REINFORCE++) with −β·KL(t) in the reward (partial when
        masked), over the whole batch, into each micro-batch's ``token_advantages``."""
        kl_rows = [row for tensors in prepared for row in self._token_kl(tensors)]
        width = max(len(values) for values in kl_rows)
        kl_array = np.zeros((len(kl_rows), width))  # (N, T)
        valid = np.zeros((len(kl_rows), width), dtype=bool)
        for i, values in enumerate(kl_rows):
            kl_array[i, : len(values)] = values
            valid[i, : len(values)] = True
        rewards = [r.reward for chunk in micro for r in chunk]
        advantages = self.token_advantages(rewards, kl_array, valid, beta=self.config.loss.kl.beta)
        start = 0
        for chunk, tensors in zip(micro, prepared, strict=True):
            rows = [
                advantages[start + i, : len(kl_rows[start + i])].tolist() for i in range(len(chunk))
            ]
            tensors["token_advantages"] = scatter(rows, tensors["mask"])
            start += len(chunk)

    def _token_kl(self, tensors: dict[str, Any]) -> list[list[float]]:
        """Each row's per-token KL to the reference (zeros when β = 0: no reference)."""
        mask = tensors["mask"]
        with torch.no_grad():
            logp = token_logps(self.model, tensors)
            if "ref_logp" in tensors:
                kl = self.config.loss.kl
                values = kl_penalty(
                    logp, tensors["ref_logp"], mask, kl.estimator, tensors.get("sections")
                )
            else:
                values = torch.zeros_like(logp)
        return [values[row][mask[row]].tolist() for row in range(mask.shape[0])]
