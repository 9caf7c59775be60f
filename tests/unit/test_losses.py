"""Losses against hand-computed tensors: clipping, aggregation, KL estimators, section masks."""

from __future__ import annotations

import math

import pytest
import torch

from execrl.rl.losses import (
    LossInputError,
    aggregate,
    clipped_surrogate,
    kl_in_loss,
    kl_in_reward,
    kl_penalty,
    section_mask,
)

LOG = math.log


def _log(values: list[list[float]]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64).log()


# --------------------------------------------------------------------------- clipping


def _clip_batch() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    # ρ = [1.5, 0.5, 1.1] in both rows; row 0 has A = +1, row 1 has A = −1.
    old = torch.zeros(2, 3, dtype=torch.float64)
    logp = _log([[1.5, 0.5, 1.1], [1.5, 0.5, 1.1]]).requires_grad_()
    adv = torch.tensor([1.0, -1.0], dtype=torch.float64)
    mask = torch.ones(2, 3, dtype=torch.bool)
    return logp, old, adv, mask


def test_clipping_binds_on_the_side_the_advantage_points_to() -> None:
    logp, old, adv, mask = _clip_batch()
    loss, stats = clipped_surrogate(logp, old, adv, mask, eps_low=0.2, eps_high=0.28)
    # Row 0 (A=+1): min(1.5, 1.28)=1.28 (high clip binds), min(0.5, 0.8)=0.5, min(1.1, 1.1)=1.1
    #   sum 2.88.
    # Row 1 (A=−1): min(−1.5, −1.28)=−1.5, min(−0.5, −0.8)=−0.8 (low clip binds), −1.1
    #   sum −3.4.
    # token_mean = (2.88 − 3.4) / 6 = −0.52 / 6; loss = +0.0866667
    assert loss.item() == pytest.approx(0.52 / 6)
    assert stats["clip_frac_high"] == pytest.approx(1 / 6)
    assert stats["clip_frac_low"] == pytest.approx(1 / 6)
    # mean ρ = 2 · (1.5 + 0.5 + 1.1) / 6 = 1.0333333
    assert stats["ratio_mean"] == pytest.approx(3.1 / 3)
    # (ρ − 1) − log ρ: 1.5 → 0.0945349, 0.5 → 0.1931472, 1.1 → 0.0046898; mean = 0.292372 / 3
    assert stats["approx_kl"] == pytest.approx(0.0974573, abs=1e-6)

    loss.backward()
    # d loss / d logp = −ρ·A / 6 where unclipped, 0 where the clip binds.
    expected = torch.tensor(
        [[0.0, -0.5 / 6, -1.1 / 6], [1.5 / 6, 0.0, 1.1 / 6]], dtype=torch.float64
    )
    torch.testing.assert_close(logp.grad, expected)


def test_asymmetric_clip_range() -> None:
    # ρ = 1.25 with A = +1: inside 1 + 0.28 (unclipped) but outside a symmetric 1 + 0.2.
    logp = _log([[1.25]])
    old = torch.zeros(1, 1, dtype=torch.float64)
    mask = torch.ones(1, 1, dtype=torch.bool)
    adv = torch.tensor([1.0], dtype=torch.float64)
    loss, stats = clipped_surrogate(logp, old, adv, mask, eps_low=0.2, eps_high=0.28)
    assert loss.item() == pytest.approx(-1.25)
    assert stats["clip_frac_high"] == 0.0
    loss, stats = clipped_surrogate(logp, old, adv, mask, eps_low=0.2, eps_high=0.2)
    assert loss.item() == pytest.approx(-1.2)
    assert stats["clip_frac_high"] == 1.0
    # ρ = 0.75 with A = −1: 1 − 0.2 = 0.8 binds → −0.8.
    loss, stats = clipped_surrogate(_log([[0.75]]), old, -adv, mask)
    assert loss.item() == pytest.approx(0.8)
    assert stats["clip_frac_low"] == 1.0


# --------------------------------------------------------------------------- aggregation

# Per-token values with padding (the 100s must never count):
#   row 0: [1, 2, 3 | 100]   |y_0| = 3, sum 6
#   row 1: [4 | 100, 100, 100]   |y_1| = 1, sum 4
#   row 2: all padding (|y_2| = 0)
VALUES = torch.tensor(
    [[1.0, 2.0, 3.0, 100.0], [4.0, 100.0, 100.0, 100.0], [100.0] * 4], dtype=torch.float64
)
MASK = torch.tensor(
    [[True, True, True, False], [True, False, False, False], [False] * 4], dtype=torch.bool
)


@pytest.mark.parametrize(
    ("aggregation", "expected"),
    [
        ("token_mean", 2.5),  # (6 + 4) / 4 valid tokens
        ("sequence_mean", 3.0),  # (6/3 + 4/1) / 2 non-empty rows
        ("fixed_horizon", 1.0),  # (6 + 4) / N, N = 10
    ],
)
def test_aggregations_with_padding(aggregation: str, expected: float) -> None:
    assert aggregate(VALUES, MASK, aggregation=aggregation, horizon=10).item() == expected
    # Through the surrogate: ρ = 1 everywhere and per-token advantages = VALUES, so the
    # objective is VALUES and the loss is its negated aggregate.
    logp = torch.zeros(3, 4, dtype=torch.float64)
    loss, _ = clipped_surrogate(logp, logp, VALUES, MASK, aggregation=aggregation, horizon=10)
    assert loss.item() == -expected


def test_stats_count_only_valid_tokens() -> None:
    # Padding has ρ = 10 and A = 1 (would clip high) but must not count: 0 of 3 valid tokens.
    logp = _log([[1.0, 1.0, 1.0, 10.0]])
    old = torch.zeros(1, 4, dtype=torch.float64)
    mask = torch.tensor([[True, True, True, False]])
    _, stats = clipped_surrogate(logp, old, torch.tensor([1.0], dtype=torch.float64), mask)
    assert stats["clip_frac_high"] == 0.0
    assert stats["ratio_mean"] == pytest.approx(1.0)


def _grad_of_first_token(length: int, aggregation: str) -> float:
    """d loss / d logp[0, 0] when the first rollout has ``length`` tokens (the other has 5)."""
    t = 10
    old = torch.zeros(2, t, dtype=torch.float64)
    logp = torch.full((2, t), 0.1, dtype=torch.float64, requires_grad=True)  # ρ = e^0.1
    mask = torch.zeros(2, t, dtype=torch.bool)
    mask[0, :length] = True
    mask[1, :5] = True
    adv = torch.tensor([2.0, -1.0], dtype=torch.float64)
    loss, _ = clipped_surrogate(logp, old, adv, mask, aggregation=aggregation, horizon=16)
    loss.backward()
    return logp.grad[0, 0].item()


def test_fixed_horizon_gradient_does_not_depend_on_rollout_length() -> None:
    # fixed_horizon: d loss / d logp = −ρ·A / N = −e^0.1 · 2 / 16 = −0.1381464, for both lengths.
    short, long = (_grad_of_first_token(n, "fixed_horizon") for n in (3, 10))
    assert short == long == pytest.approx(-math.exp(0.1) * 2 / 16)
    # sequence_mean: −ρ·A / (B · |y|) = −e^0.1 · 2 / (2 · 3) vs / (2 · 10): they differ.
    short, long = (_grad_of_first_token(n, "sequence_mean") for n in (3, 10))
    assert short == pytest.approx(-math.exp(0.1) * 2 / 6)
    assert long == pytest.approx(-math.exp(0.1) * 2 / 20)
    # token_mean: / (3 + 5) vs / (10 + 5): also differ.
    short, long = (_grad_of_first_token(n, "token_mean") for n in (3, 10))
    assert short == pytest.approx(-math.exp(0.1) * 2 / 8)
    assert long == pytest.approx(-math.exp(0.1) * 2 / 15)


# --------------------------------------------------------------------------- KL estimators

# Token probabilities under the policy and the reference; r = π_ref / π_θ:
#   token 0: π = 0.5,  π_ref = 0.25 → r = 0.5, log r = −0.6931472
#   token 1: π = 0.25, π_ref = 0.5  → r = 2,   log r = +0.6931472
#   token 2: π = 0.5,  π_ref = 0.5  → r = 1,   log r = 0
KL_LOGP = _log([[0.5, 0.25, 0.5]])
KL_REF = _log([[0.25, 0.5, 0.5]])
ALL = torch.ones(1, 3, dtype=torch.bool)
LN2 = LOG(2.0)


@pytest.mark.parametrize(
    ("estimator", "expected"),
    [
        ("k1", [LN2, -LN2, 0.0]),  # −log r
        ("k2", [0.5 * LN2**2, 0.5 * LN2**2, 0.0]),  # ½ (log r)² = 0.2402265
        ("k3", [-0.5 + LN2, 1.0 - LN2, 0.0]),  # (r − 1) − log r = 0.1931472, 0.3068528
    ],
)
def test_kl_estimators(estimator: str, expected: list[float]) -> None:
    kl = kl_penalty(KL_LOGP, KL_REF, ALL, estimator)
    torch.testing.assert_close(kl, torch.tensor([expected], dtype=torch.float64))


def test_kl_is_zero_outside_mask_and_sections() -> None:
    mask = torch.tensor([[True, True, False]])
    sections = torch.tensor([[False, True, True]])
    kl = kl_penalty(KL_LOGP, KL_REF, mask, "k3", section_mask=sections)
    # Only token 1 is both generated and in a section: (2 − 1) − ln 2 = 0.3068528.
    torch.testing.assert_close(kl, torch.tensor([[0.0, 1.0 - LN2, 0.0]], dtype=torch.float64))


def test_kl_in_loss_partial_and_its_gradient() -> None:
    logp = KL_LOGP.clone().requires_grad_()
    sections = torch.tensor([[False, True, True]])
    term = kl_in_loss(logp, KL_REF, ALL, beta=0.1, estimator="k3", section_mask=sections)
    # token_mean over the 3 response tokens (not the 2 section tokens): 0.1 · 0.3068528 / 3
    assert term.item() == pytest.approx(0.1 * (1.0 - LN2) / 3)
    term.backward()
    # d k3 / d logp = 1 − r: token 1 → 1 − 2 = −1, times β / 3; tokens 0 and 2 → 0.
    torch.testing.assert_close(logp.grad, torch.tensor([[0.0, -0.1 / 3, 0.0]], dtype=torch.float64))
    # fixed_horizon: 0.1 · 0.3068528 / 4
    term = kl_in_loss(
        KL_LOGP, KL_REF, ALL, beta=0.1, section_mask=sections, aggregation="fixed_horizon",
        horizon=4,
    )  # fmt: skip
    assert term.item() == pytest.approx(0.1 * (1.0 - LN2) / 4)


def test_kl_in_reward_is_negative_beta_kl_and_detached() -> None:
    logp = KL_LOGP.clone().requires_grad_()
    sections = torch.tensor([[True, True, False]])
    shaped = kl_in_reward(logp, KL_REF, ALL, beta=0.1, estimator="k1", section_mask=sections)
    # −β · k1 = −0.1 · [ln 2, −ln 2, (outside section) 0]
    torch.testing.assert_close(
        shaped, torch.tensor([[-0.1 * LN2, 0.1 * LN2, 0.0]], dtype=torch.float64)
    )
    assert not shaped.requires_grad


# --------------------------------------------------------------------------- section masks

TEXT = "<think>hi</think><model>x+y</model><python>print(1)</python>"
#       0      7 9       17     24 27      35      43      51       60
OFFSETS = [(0, 7), (7, 9), (9, 17), (17, 24), (24, 27), (27, 35), (35, 43), (43, 51), (51, 60)]
PIECES = ["<think>", "hi", "</think>", "<model>", "x+y", "</model>", "<python>", "print(1)",
          "</python>"]  # fmt: skip


def test_offsets_are_what_the_comments_say() -> None:
    assert [TEXT[a:b] for a, b in OFFSETS] == PIECES


def test_section_mask_model_and_code() -> None:
    # A zero-width special token (0, 0) at the end never overlaps a section.
    mask = section_mask(TEXT, [*OFFSETS, (0, 0)])
    expected = [False, False, False, True, True, True, True, True, True, False]
    assert mask.tolist() == expected
    assert mask.dtype == torch.bool
    assert section_mask(TEXT, OFFSETS, sections=("reasoning",)).tolist() == [True] * 3 + [False] * 6


def test_section_mask_token_straddling_a_tag_boundary_counts() -> None:
    # One token "i</think><mo" spans (8, 21): it overlaps the model span starting at 17.
    mask = section_mask(TEXT, [(0, 8), (8, 21), (21, 30)])
    assert mask.tolist() == [False, True, True]


def test_section_mask_missing_tag_falls_back_to_whole_response() -> None:
    text = "<think>hi</think><model>xy</model>"
    # 0      7 9       17     24 26      34
    offsets = [(0, 7), (7, 9), (9, 17), (17, 24), (24, 26), (26, 34)]
    # No code section → the spec's fallback: every token.
    assert section_mask(text, offsets).tolist() == [True] * 6
    # Without the fallback: only the model section.
    assert section_mask(text, offsets, fallback_to_all=False).tolist() == [False] * 3 + [True] * 3


def test_section_mask_unclosed_tag_runs_to_the_end() -> None:
    text = "<think>a</think><model>m</model><python>code"
    # 0      7 8       16     23 24     32      40  44
    offsets = [(0, 7), (7, 8), (8, 16), (16, 23), (23, 24), (24, 32), (32, 40), (40, 44)]
    assert section_mask(text, offsets, sections=("code",)).tolist() == [False] * 6 + [True] * 2
    # Unclosed reasoning swallows everything after it.
    text = "<think>abc</python>"
    # 0      7  10          19  (the stray closing tag is ignored)
    offsets = [(0, 7), (7, 10), (10, 19)]
    mask = section_mask(text, offsets, sections=("reasoning",), fallback_to_all=False)
    assert mask.tolist() == [True, True, True]
    mask = section_mask(text, offsets, sections=("code",), fallback_to_all=False)
    assert mask.tolist() == [False, False, False]


def test_section_mask_fenced_python_counts_as_code() -> None:
    text = "<think>t</think>```python\nx=1\n```done"
    # 0      7 8       16          26   30  33  37
    offsets = [(0, 7), (7, 8), (8, 16), (16, 26), (26, 30), (30, 33), (33, 37)]
    mask = section_mask(text, offsets, sections=("code",))
    assert mask.tolist() == [False, False, False, True, True, True, False]


def test_section_mask_custom_tags() -> None:
    text = "<r>a</r><m>b</m>"
    offsets = [(0, 3), (3, 4), (4, 8), (8, 11), (11, 12), (12, 16)]
    tags = {"reasoning": ("r",), "model": ("m",)}
    mask = section_mask(text, offsets, sections=("model",), tags=tags)
    assert mask.tolist() == [False, False, False, True, True, True]


# --------------------------------------------------------------------------- errors


def test_errors_name_the_problem() -> None:
    x = torch.zeros(2, 3)
    mask = torch.ones(2, 3, dtype=torch.bool)
    with pytest.raises(LossInputError, match="unknown aggregation 'mean'"):
        aggregate(x, mask, aggregation="mean")  # type: ignore[arg-type]
    with pytest.raises(LossInputError, match="unknown KL estimator 'k4'"):
        kl_penalty(x, x, mask, "k4")  # type: ignore[arg-type]
    with pytest.raises(LossInputError, match="one \\(B, T\\) shape"):
        clipped_surrogate(x, torch.zeros(2, 4), torch.zeros(2), mask)
    with pytest.raises(LossInputError, match="advantages must have shape"):
        clipped_surrogate(x, x, torch.zeros(3), mask)
    with pytest.raises(LossInputError, match="unknown section 'proof'"):
        section_mask("", [], sections=("proof",))
    assert issubclass(LossInputError, ValueError)
