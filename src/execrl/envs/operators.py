"""The three operators of an environment (spec §2): which optimization tests run (pre-execution
filter), under which intended limits (intra-execution, applied after execution), and how the
measured durations are ranked against the references (post-execution).

Filters and limits are pydantic models (they come from YAML presets) with one method each;
the rankings are plain numpy functions over a candidate's durations ``delta`` (shape ``(T,)``)
and the pool's ``D`` (shape ``(T, R)``, NaN = missing).
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from execrl.problems.models import AssertTest, CallTest, StdioTest, TestCase, TimeLimitS
from execrl.timing.percentiles import earlier_ranks_within, per_test_percentiles
from execrl.timing.pool import ReferencePool


class _Operator(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------------------------
# Pre-execution filters: F_pre(T_O) -> T_O_used


class IdentityFilter(_Operator):
    """``F_id(T) = T``."""

    kind: Literal["identity"] = "identity"

    def keep(self, tests: list[TestCase], pool: ReferencePool) -> list[bool]:
        return [True] * len(tests)


class AbsoluteFilter(_Operator):
    """``F_abs^a``: keep tests whose aggregate reference duration ``d̄_t = A(D_t)`` is defined
    and ``< a`` seconds."""

    kind: Literal["absolute"] = "absolute"
    a: float = Field(gt=0)
    aggregate: Literal["mean", "median"] = "mean"

    def keep(self, tests: list[TestCase], pool: ReferencePool) -> list[bool]:
        d_bar = pool.on([t.id for t in tests]).aggregate(self.aggregate)
        return [bool(not math.isnan(d) and d < self.a) for d in d_bar]


class LengthFilter(_Operator):
    """``F_len^L``: keep tests with ``len(u_t) + len(v_t) ≤ L`` characters (no references
    needed). Call-based tests measure their JSON arguments and expected value; assert tests
    their test code **[ours]**."""

    kind: Literal["length"] = "length"
    max_chars: int = Field(gt=0)

    def keep(self, tests: list[TestCase], pool: ReferencePool) -> list[bool]:
        return [io_length(t) <= self.max_chars for t in tests]


class RelativeFilter(_Operator):
    """``F_rel^r`` **[ours]**: keep tests without a usable ``d̄_t``; among the others keep
    those with ``d̄_t ≤`` the r-th percentile of ``{d̄_t}`` (linear interpolation)."""

    kind: Literal["relative"] = "relative"
    r: float = Field(gt=0, le=100)
    aggregate: Literal["mean", "median"] = "mean"

    def keep(self, tests: list[TestCase], pool: ReferencePool) -> list[bool]:
        d_bar = pool.on([t.id for t in tests]).aggregate(self.aggregate)
        defined = ~np.isnan(d_bar)
        if not defined.any():
            return [True] * len(tests)
        threshold = np.percentile(d_bar[defined], self.r)
        return [bool(not ok or d <= threshold) for d, ok in zip(d_bar, defined, strict=True)]


Filter = Annotated[
    IdentityFilter | AbsoluteFilter | LengthFilter | RelativeFilter, Field(discriminator="kind")
]


def io_length(test: TestCase) -> int:
    """``len(u_t) + len(v_t)`` in characters."""
    if isinstance(test, StdioTest):
        return len(test.input) + len(test.output)
    if isinstance(test, CallTest):
        return len(json.dumps(list(test.args))) + len(json.dumps(test.expected))
    assert isinstance(test, AssertTest)
    return len(test.code)


# --------------------------------------------------------------------------------------------
# Intra-execution limits: λ_t per used optimization test (NaN = no usable references)


class CapLimit(_Operator):
    """``λ_t`` = the hard cap (the default: no intended limit tighter than the cap)."""

    kind: Literal["cap"] = "cap"

    def limits(self, pool: ReferencePool) -> np.ndarray:
        return np.full(len(pool.test_ids), pool.cap_s)


class AbsoluteLimit(_Operator):
    """``λ_t = ℓ`` seconds (never above the cap)."""

    kind: Literal["absolute"] = "absolute"
    seconds: TimeLimitS  # (the one range of a time limit: execrl.problems.models)

    def limits(self, pool: ReferencePool) -> np.ndarray:
        return np.full(len(pool.test_ids), min(self.seconds, pool.cap_s))


class RelativeLimit(_Operator):
    """``λ_t = quantile_p(D_t)`` (p in percent, linear interpolation); NaN where ``D_t`` is
    empty."""

    kind: Literal["relative"] = "relative"
    p: float = Field(gt=0, le=100)

    def limits(self, pool: ReferencePool) -> np.ndarray:
        out = np.full(len(pool.test_ids), np.nan)
        has = pool.usable_counts() > 0
        if has.any():
            out[has] = np.nanpercentile(pool.durations[has], self.p, axis=1)
        return out


class RankedReferenceLimit(_Operator):
    """Ranked-reference limit: rank the references by their mean per-test rank on the used
    tests, keep the best p% ``H_p`` (at least one; ``⌈p·N/100⌉`` **[ours]**), then
    ``λ_t = B({d̃_t,h : h ∈ H_p})`` with ``B`` = max ("ranked-worst") or median."""

    kind: Literal["ranked"] = "ranked"
    p: float = Field(gt=0, le=100)
    aggregate: Literal["max", "median"] = "max"

    def limits(self, pool: ReferencePool) -> np.ndarray:
        best = best_references(pool, self.p)
        out = np.full(len(pool.test_ids), np.nan)
        if not best.size:
            return out
        chosen = pool.durations[:, best]
        has = np.sum(~np.isnan(chosen), axis=1) > 0
        if has.any():
            fn = np.nanmax if self.aggregate == "max" else np.nanmedian
            out[has] = fn(chosen[has], axis=1)
        return out


Limit = Annotated[
    CapLimit | AbsoluteLimit | RelativeLimit | RankedReferenceLimit, Field(discriminator="kind")
]


def best_references(pool: ReferencePool, p: float) -> np.ndarray:
    """Indices of the best ``p`` percent of references by mean per-test rank among the
    references (ties take the earlier rank; equal means keep the pool's order)."""
    D = pool.durations
    present = ~np.isnan(D)
    scored = present.any(axis=0)
    if not scored.any():
        return np.array([], dtype=int)
    ranks = earlier_ranks_within(D)  # (T, R), NaN where missing
    mean_rank = np.full(D.shape[1], np.inf)
    mean_rank[scored] = np.nanmean(ranks[:, scored], axis=0)
    k = max(1, math.ceil(p * int(scored.sum()) / 100))  # p·N first: exact for whole p, N
    order = np.argsort(mean_rank, kind="stable")
    return np.sort(order[:k])


# --------------------------------------------------------------------------------------------
# Post-execution ranking


def qar(delta: np.ndarray, D: np.ndarray) -> float | None:
    """``q_QAR = a(y)``: the mean per-test percentile over tests with usable ``D_t``
    (None when there is none)."""
    p = per_test_percentiles(delta, D)
    p = p[~np.isnan(p)]
    return float(p.mean()) if p.size else None


QP_TIE_TOLERANCE = 1e-9
"""Leaderboard scores closer than this are ties. They are means of fractions
``(rank − 1)/(n_t − 1)`` with different ``n_t`` per test, so entrants tied in exact arithmetic
can differ in the last bits after float summation (about 1 random case in 200 misplaced the
candidate before); distinct exact scores are much further apart than this."""


def qp(delta: np.ndarray, D: np.ndarray) -> float | None:
    """``q_QP``: leaderboard percentile. The candidate and every reference are scored by the
    same mean per-test percentile — each entrant ranked among all entrants present on the test
    (references with a duration there, and the candidate) — then sorted; ``b(y)`` is the
    candidate's zero-indexed position and ``q_QP = b(y) / max(1, N_rank − 1)``. **[ours]**:
    references are ranked against each other *and* the candidate; a candidate tied with a
    reference takes the earlier position; a reference with no duration on any ranked test is
    not an entrant. None when no test has usable references."""
    usable = (~np.isnan(D)).any(axis=1)
    if not usable.any():
        return None
    entrants = np.concatenate([delta[usable, None], D[usable]], axis=1)  # column 0: candidate
    ranks = earlier_ranks_within(entrants)
    n = (~np.isnan(entrants)).sum(axis=1, keepdims=True)
    percentiles = (ranks - 1) / (n - 1)  # every usable row has n ≥ 2
    scored = ~np.isnan(entrants).all(axis=0)
    scores = np.nanmean(percentiles[:, scored], axis=0)
    position = int((scores[1:] < scores[0] - QP_TIE_TOLERANCE).sum())
    return position / max(1, len(scores) - 1)
