"""Policy-gradient losses: the clipped surrogate, KL penalties, and section masks for partial KL.

Shapes, everywhere in this module::

    B  rollouts in the batch, T  generated-token positions (right-padded)
    logp, old_logp, ref_logp   (B, T) float   log-probability of each sampled token under the
                                              current, the sampling, and the reference policy
    mask                       (B, T) bool    True on generated tokens, False on padding
    advantages                 (B,) or (B, T) one advantage per rollout, or per token

**Aggregation** turns a per-token value ``v`` (B, T) into a scalar, over the tokens in ``mask``:

- ``"token_mean"``: ``Σ_i Σ_t v[i,t] / Σ_i |y_i|``; every valid token in the batch weighs the
  same, ``1 / (valid tokens in the batch)``.
- ``"sequence_mean"``: ``(1/B') Σ_i (Σ_t v[i,t] / |y_i|)`` over the ``B'`` rows that have at
  least one valid token (rows with none are left out); a token of a rollout of length ``L``
  weighs ``1 / (B' · L)``, so tokens of short rollouts weigh more.
- ``"fixed_horizon"``: ``Σ_i Σ_t v[i,t] / N`` with a constant horizon ``N`` (default 32768,
  optimization-rl spec §8). Every token weighs exactly ``1 / N``, whatever its rollout's length
  and whatever the batch size: the gradient a token receives depends only on its own ratio and
  advantage. There is no division by ``B``, so the loss grows with the batch; scale the
  learning rate (or ``N``) accordingly.

**KL estimators** (Schulman, "Approximating KL divergence"), per token, with
``log r = ref_logp − logp`` for a token sampled from the policy:

- ``k1 = −log r = logp − ref_logp`` (unbiased, high variance, can be negative)
- ``k2 = ½ (log r)²`` (biased, low variance, ≥ 0)
- ``k3 = (r − 1) − log r`` (unbiased, low variance, ≥ 0; the "low variance" estimator)

A KL penalty goes either **in the loss** (:func:`kl_in_loss`, differentiable, added to the
surrogate loss) or **in the reward** (:func:`kl_in_reward`, detached, ``−β·kl`` per token added
to the token rewards before advantages are computed). **Partial KL** (solver-rewards spec)
penalises only the tokens of chosen sections; :func:`section_mask` builds that mask from the
tagged spans of the decoded completion.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal

import torch

from execrl.errors import ExecrlError

Aggregation = Literal["token_mean", "sequence_mean", "fixed_horizon"]
Estimator = Literal["k1", "k2", "k3"]

DEFAULT_HORIZON = 32768
"""Fixed token horizon ``N`` of the ``"fixed_horizon"`` aggregation (optimization-rl spec §8)."""


class LossInputError(ExecrlError, ValueError):
    """A loss was called with mismatched shapes or an unknown option; the message says which."""


# --------------------------------------------------------------------------- aggregation


def _token_mean(values: torch.Tensor, mask: torch.Tensor, horizon: int) -> torch.Tensor:
    return (values * mask).sum() / mask.sum().clamp(min=1)


def _sequence_mean(values: torch.Tensor, mask: torch.Tensor, horizon: int) -> torch.Tensor:
    lengths = mask.sum(dim=-1)  # (B,)
    per_row = (values * mask).sum(dim=-1) / lengths.clamp(min=1)  # (B,)
    nonempty = lengths > 0
    return (per_row * nonempty).sum() / nonempty.sum().clamp(min=1)


def _fixed_horizon(values: torch.Tensor, mask: torch.Tensor, horizon: int) -> torch.Tensor:
    return (values * mask).sum() / horizon


AGGREGATIONS: dict[str, Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor]] = {
    "token_mean": _token_mean,
    "sequence_mean": _sequence_mean,
    "fixed_horizon": _fixed_horizon,
}


def aggregate(
    values: torch.Tensor,
    mask: torch.Tensor,
    *,
    aggregation: Aggregation = "token_mean",
    horizon: int = DEFAULT_HORIZON,
) -> torch.Tensor:
    """Reduce per-token ``values`` (B, T) over ``mask`` (B, T) to a scalar (see module doc)."""
    if aggregation not in AGGREGATIONS:
        raise LossInputError(
            f"unknown aggregation {aggregation!r}; choose one of {sorted(AGGREGATIONS)}"
        )
    if horizon <= 0:
        raise LossInputError(f"horizon must be a positive token count, got {horizon}")
    _check_same_shape(values=values, mask=mask)
    return AGGREGATIONS[aggregation](values, mask.to(values.dtype), horizon)


# --------------------------------------------------------------------------- clipped surrogate


def clipped_surrogate(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    eps_low: float = 0.2,
    eps_high: float = 0.28,
    aggregation: Aggregation = "token_mean",
    horizon: int = DEFAULT_HORIZON,
) -> tuple[torch.Tensor, dict[str, float]]:
    """PPO clipped surrogate with asymmetric clipping; returns ``(loss, stats)``.

    Per token ``ρ = exp(logp − old_logp)`` and objective
    ``min(ρ·A, clip(ρ, 1 − eps_low, 1 + eps_high)·A)``; ``loss = −aggregate(objective)``.
    The clip binds (and the token gets no gradient) when ``A > 0`` and ``ρ > 1 + eps_high``,
    or when ``A < 0`` and ``ρ < 1 − eps_low``; otherwise the unclipped term is the minimum.

    ``stats`` (floats, over valid tokens): ``clip_frac_low`` (share of tokens where the lower
    bound binds), ``clip_frac_high`` (the upper bound binds), ``ratio_mean`` (mean ``ρ``) and
    ``approx_kl`` (mean of ``k3`` for KL(old ‖ new): ``(ρ − 1) − log ρ``).
    """
    _check_same_shape(logp=logp, old_logp=old_logp, mask=mask)
    if advantages.dim() == 1 and advantages.shape[0] == logp.shape[0]:
        advantages = advantages.unsqueeze(-1)  # (B, 1), broadcast over T
    elif advantages.shape != logp.shape:
        raise LossInputError(
            f"advantages must have shape (B,) = ({logp.shape[0]},) or (B, T) = "
            f"{tuple(logp.shape)}, got {tuple(advantages.shape)}"
        )
    if eps_low < 0 or eps_high < 0:
        raise LossInputError(f"clip ranges must be ≥ 0, got {eps_low=} and {eps_high=}")

    log_ratio = logp - old_logp  # (B, T)
    ratio = torch.exp(log_ratio)  # (B, T)
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - eps_low, 1.0 + eps_high) * advantages
    objective = torch.minimum(unclipped, clipped)  # (B, T)
    loss = -aggregate(objective, mask, aggregation=aggregation, horizon=horizon)

    with torch.no_grad():
        valid = mask.bool()
        count = valid.sum().clamp(min=1)
        binds_low = (ratio < 1.0 - eps_low) & (advantages < 0) & valid
        binds_high = (ratio > 1.0 + eps_high) & (advantages > 0) & valid
        stats = {
            "clip_frac_low": (binds_low.sum() / count).item(),
            "clip_frac_high": (binds_high.sum() / count).item(),
            "ratio_mean": ((ratio * valid).sum() / count).item(),
            "approx_kl": ((((ratio - 1.0) - log_ratio) * valid).sum() / count).item(),
        }
    return loss, stats


# --------------------------------------------------------------------------- KL


def kl_k1(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """``k1 = −log r = logp − ref_logp`` per token."""
    return logp - ref_logp


def kl_k2(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """``k2 = ½ (log r)²`` per token."""
    return 0.5 * (ref_logp - logp) ** 2


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """``k3 = (r − 1) − log r`` per token, ``r = π_ref / π_θ`` (the low-variance estimator)."""
    log_r = ref_logp - logp
    return torch.expm1(log_r) - log_r


KL_ESTIMATORS: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "k1": kl_k1,
    "k2": kl_k2,
    "k3": kl_k3,
}


def kl_penalty(
    logp: torch.Tensor,
    ref_logp: torch.Tensor,
    mask: torch.Tensor,
    estimator: Estimator = "k3",
    section_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """Per-token KL estimate (B, T), zero outside ``mask`` and outside ``section_mask``.

    ``section_mask`` (B, T) bool selects the penalised tokens for partial KL; ``None`` means
    every generated token (full KL).
    """
    if estimator not in KL_ESTIMATORS:
        raise LossInputError(
            f"unknown KL estimator {estimator!r}; choose one of {sorted(KL_ESTIMATORS)}"
        )
    _check_same_shape(logp=logp, ref_logp=ref_logp, mask=mask)
    keep = mask.bool()
    if section_mask is not None:
        _check_same_shape(logp=logp, section_mask=section_mask)
        keep = keep & section_mask.bool()
    kl = KL_ESTIMATORS[estimator](logp, ref_logp)
    return torch.where(keep, kl, torch.zeros_like(kl))


def kl_in_loss(
    logp: torch.Tensor,
    ref_logp: torch.Tensor,
    mask: torch.Tensor,
    *,
    beta: float,
    estimator: Estimator = "k3",
    section_mask: torch.Tensor | None = None,
    aggregation: Aggregation = "token_mean",
    horizon: int = DEFAULT_HORIZON,
) -> torch.Tensor:
    """The scalar ``β · aggregate(kl)`` to add to the surrogate loss (differentiable).

    The aggregation's denominator comes from the response ``mask``, not from the section mask:
    tokens outside the chosen sections count with a KL of zero, so every penalised token has
    the same weight here as in the surrogate loss with the same aggregation.
    """
    kl = kl_penalty(logp, ref_logp, mask, estimator, section_mask)
    return beta * aggregate(kl, mask, aggregation=aggregation, horizon=horizon)


def kl_in_reward(
    logp: torch.Tensor,
    ref_logp: torch.Tensor,
    mask: torch.Tensor,
    *,
    beta: float,
    estimator: Estimator = "k1",
    section_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """Per-token reward shaping ``−β · kl`` (B, T), detached; zero outside the masks.

    Add it to the token rewards (e.g. the outcome reward on the last token) before computing
    returns and advantages; rewards are not differentiated, hence the detach.
    """
    with torch.no_grad():
        return -beta * kl_penalty(logp, ref_logp, mask, estimator, section_mask)


# --------------------------------------------------------------------------- section masks

DEFAULT_TAGS: Mapping[str, tuple[str, ...]] = {
    "reasoning": ("think", "reasoning"),
    "model": ("model",),
    "code": ("python", "code"),
}
"""Tag names per section. A section's span runs from its opening tag ``<name>`` to its closing
tag ``</name>``, both included. The response format of the solver-rewards spec uses
``<think>``, ``<model>``, ``<python>``; ``<reasoning>`` and ``<code>`` are accepted too."""

FENCE_OPEN = re.compile(r"```(?:python|py)\b")
FENCE_CLOSE = "```"


def _tag_spans(text: str, name: str) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of ``<name>…</name>``; an unclosed tag runs to the end."""
    opening, closing = f"<{name}>", f"</{name}>"
    spans, pos = [], 0
    while (start := text.find(opening, pos)) != -1:
        close = text.find(closing, start + len(opening))
        end = len(text) if close == -1 else close + len(closing)
        spans.append((start, end))
        pos = end
    return spans


def _fence_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ```python fenced blocks (fences included); an unclosed fence runs to the end."""
    spans, pos = [], 0
    while (match := FENCE_OPEN.search(text, pos)) is not None:
        close = text.find(FENCE_CLOSE, match.end())
        end = len(text) if close == -1 else close + len(FENCE_CLOSE)
        spans.append((match.start(), end))
        pos = end
    return spans


def section_spans(
    text: str, section: str, tags: Mapping[str, Iterable[str]] = DEFAULT_TAGS
) -> list[tuple[int, int]]:
    """Character spans of one section in ``text``; ``"code"`` also takes ```python fences."""
    if section not in tags:
        raise LossInputError(f"unknown section {section!r}; the tags define {sorted(tags)}")
    spans = [span for name in tags[section] for span in _tag_spans(text, name)]
    if section == "code":
        spans += _fence_spans(text)
    return sorted(spans)


def section_mask(
    text: str,
    offsets: Sequence[tuple[int, int]],
    *,
    sections: Iterable[str] = ("model", "code"),
    tags: Mapping[str, Iterable[str]] = DEFAULT_TAGS,
    fallback_to_all: bool = True,
) -> torch.Tensor:
    """(T,) bool mask of the completion tokens that overlap any of the chosen ``sections``.

    ``offsets`` are per-token character spans ``(start, end)`` into ``text`` (a fast
    tokenizer's ``offset_mapping`` for the decoded completion). A token is in a section when its
    span overlaps the section's span (tags included); zero-width tokens (``start == end``, e.g.
    special tokens) overlap nothing. Spans come from the tags (see :data:`DEFAULT_TAGS`), and for
    ``"code"`` also from ```python fenced blocks, so fenced code outside ``<python>`` is still
    code. Duplicated tags give several spans; an opening tag without its closing tag runs to the
    end of the text; a stray closing tag is ignored.

    When one of the chosen sections does not appear at all, the mask falls back to the whole
    response (every token True), as the solver-rewards spec says; pass
    ``fallback_to_all=False`` to get only what was found instead.
    """
    per_section = [section_spans(text, section, tags) for section in sections]
    if fallback_to_all and any(not spans for spans in per_section):
        return torch.ones(len(offsets), dtype=torch.bool)
    spans = [span for found in per_section for span in found]
    return torch.tensor(
        [start < end and any(start < b and end > a for a, b in spans) for start, end in offsets],
        dtype=torch.bool,
    )


# --------------------------------------------------------------------------- helpers


def _check_same_shape(**tensors: torch.Tensor) -> None:
    shapes = {name: tuple(t.shape) for name, t in tensors.items()}
    if len(set(shapes.values())) > 1 or any(len(s) != 2 for s in shapes.values()):
        raise LossInputError(f"expected tensors of one (B, T) shape, got {shapes}")
