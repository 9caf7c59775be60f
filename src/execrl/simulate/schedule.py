"""Quality bands and the sampling schedule from weak to strong (spec §7).

A reference's *quality* is its own percentile score among its problem's references: its
per-test percentile against the others (leave-one-out; ``p_t = #faster / #others`` on the
stored, sanitised durations, spec §2), averaged over the optimization tests where it has a
duration, then ``x = 1 − mean`` — 1 for a reference faster than every other one on every
test, 0 for the slowest. References without any usable test have no quality and are never
sampled.

The schedule has ``K`` points ``x_i = i/(K−1)``. At point ``i`` each problem contributes the
references in its band ``|x_h − x_i| ≤ w`` (``w = 1/(2(K−1))`` by default, so the bands tile
[0, 1]); a problem with none there contributes its nearest reference(s) **[ours]**. Every
problem weighs the same at every point, so the curve does not mix quality with problem
difficulty. Two modes: the band's exact mean (``draws=None``, the default **[ours]**: no
sampling noise) or ``draws`` references drawn uniformly from the band per problem and point
(seeded). Samples alternate even and odd group indices (the multitask reward switches on
them); in the exact mode each counts half even, half odd.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from execrl.errors import ExecrlError
from execrl.simulate.runs import StoredRuns
from execrl.timing.percentiles import earlier_ranks_within
from execrl.timing.pool import sanitise

Metric = Literal["reward", "pass"]
"""What a curve point averages: the normalised reward ``(r + 1)/2`` (equal to the pass rate
for ±1 rewards) or the share of samples with ``r > 0``."""


def strictly_faster_counts(D: np.ndarray) -> np.ndarray:
    """Per row of the last axis, how many present entries are strictly smaller than each
    entry (NaN where the entry is missing)."""
    shape = D.shape
    flat = D.reshape(-1, shape[-1])
    return (earlier_ranks_within(flat) - 1.0).reshape(shape)


def quality_scores(runs: StoredRuns, block: int = 100) -> np.ndarray:
    """(P, R) each reference's quality ``x_h ∈ [0, 1]`` (NaN: no usable test)."""
    if len(runs) > block:  # problems are independent: bound the temporaries' memory
        parts = [
            quality_scores(runs.subset(slice(i, i + block))) for i in range(0, len(runs), block)
        ]
        return np.concatenate(parts)
    D = sanitise(runs.pool_raw(), runs.unit_caps[:, None, None])
    present = ~np.isnan(D)
    faster = strictly_faster_counts(D)
    others = present.sum(axis=-1, keepdims=True) - 1
    usable = present & (others >= 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        percentile = np.where(usable, faster / np.maximum(others, 1), 0.0)
        counted = usable.sum(axis=1)
        mean = percentile.sum(axis=1) / counted
    return np.where(counted > 0, 1.0 - mean, np.nan)


def aligned_quality(source: StoredRuns, target: StoredRuns) -> np.ndarray:
    """``source``'s quality scores in ``target``'s layout, matched by problem id and
    reference name (NaN where ``source`` has no score): quality bands from one campaign,
    durations replayed from another."""
    scores = quality_scores(source)
    where = {
        (pid, name): (p, h)
        for p, (pid, names) in enumerate(zip(source.problem_ids, source.references, strict=True))
        for h, name in enumerate(names)
    }
    out = np.full(target.ref_valid.shape, np.nan)
    for p, (pid, names) in enumerate(zip(target.problem_ids, target.references, strict=True)):
        for h, name in enumerate(names):
            if (pid, name) in where:
                out[p, h] = scores[where[pid, name]]
    if not np.isfinite(out).any():
        raise ExecrlError(
            "the quality source shares no (problem, reference) with the replayed runs; use "
            "runs of the same problems"
        )
    return out


def band_members(quality: np.ndarray, x: float, half_width: float) -> np.ndarray:
    """(P, R) the references of each problem in the band around ``x`` (the nearest ones when
    a problem has none in the band)."""
    distance = np.abs(quality - x)
    finite = np.isfinite(distance)
    inside = finite & (distance <= half_width + 1e-12)
    nearest = np.where(finite, distance, np.inf).min(axis=1, keepdims=True)
    fallback = finite & (distance == nearest) & ~inside.any(axis=1, keepdims=True)
    return inside | fallback


@dataclass(frozen=True, eq=False)
class Schedule:
    """Weights of every (problem, reference) pair at every point, split by the parity of the
    samples' group index; at each point the weights sum to 1."""

    x: np.ndarray
    """(K,) the band centres, weak (0) to strong (1)."""
    even: np.ndarray
    """(K, P, R) weight of samples with an even group index."""
    odd: np.ndarray
    """(K, P, R) weight of samples with an odd group index."""
    quality: np.ndarray
    """(P, R) each reference's quality."""
    half_width: float
    draws: int | None

    @classmethod
    def build(
        cls,
        runs: StoredRuns,
        *,
        points: int = 21,
        half_width: float | None = None,
        draws: int | None = None,
        seed: int = 0,
        quality: np.ndarray | None = None,
    ) -> Schedule:
        """``quality`` overrides the references' quality scores (default: their own
        percentile scores in ``runs``; see :func:`aligned_quality`)."""
        if points < 2:
            raise ExecrlError(f"points={points}: a schedule needs at least 2 points")
        if draws is not None and draws < 1:
            raise ExecrlError(f"draws={draws}: draw at least 1 reference per problem and point")
        if half_width is not None and not 0 <= half_width <= 1:
            raise ExecrlError(f"half_width={half_width}: give a band half-width in [0, 1]")
        if quality is None:
            quality = quality_scores(runs)
        elif quality.shape != runs.ref_valid.shape:
            raise ExecrlError(f"quality has shape {quality.shape}, the runs {runs.ref_valid.shape}")
        quality = np.where(runs.ref_valid, quality, np.nan)
        ranked = np.isfinite(quality).any(axis=1)
        if not ranked.any():
            raise ExecrlError(
                "no reference has a usable stored duration (each needs at least one "
                "optimization test where another reference was also measured)"
            )
        width = 0.5 / (points - 1) if half_width is None else half_width
        x = np.linspace(0.0, 1.0, points)
        shape = (points, *quality.shape)
        even, odd = np.zeros(shape), np.zeros(shape)
        rng = np.random.default_rng(seed)
        problems = np.flatnonzero(ranked)
        for i, xi in enumerate(x):
            members = band_members(quality, float(xi), width)
            if draws is None:
                share = members / members.sum(axis=1, keepdims=True).clip(min=1) / len(problems)
                even[i] = odd[i] = share / 2
                continue
            sample = 0
            for p in problems:
                chosen = rng.choice(np.flatnonzero(members[p]), size=draws)
                for h in chosen:
                    (even if sample % 2 == 0 else odd)[i, p, h] += 1.0
                    sample += 1
            even[i] /= sample
            odd[i] /= sample
        return cls(x, even, odd, quality, width, draws)

    @property
    def points(self) -> int:
        return len(self.x)

    def curve(self, even_values: np.ndarray, odd_values: np.ndarray | None = None) -> np.ndarray:
        """(K,) the weighted mean at each point of per-pair values (already mapped by the
        metric); NaN values (inconclusive, padding) are left out of the mean."""
        odd_values = even_values if odd_values is None else odd_values
        num = np.zeros(self.points)
        den = np.zeros(self.points)
        for weights, values in ((self.even, even_values), (self.odd, odd_values)):
            ok = np.isfinite(values)
            w = weights.reshape(self.points, -1)
            # einsum, not BLAS (threaded BLAS stalls on a busy machine)
            num += np.einsum("kp,p->k", w, np.where(ok, values, 0.0).ravel())
            den += np.einsum("kp,p->k", w, ok.ravel().astype(float))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def metric_values(rewards: np.ndarray, metric: Metric) -> np.ndarray:
    """Per-pair values a curve averages: ``(r + 1)/2`` or ``1[r > 0]`` (NaN stays NaN)."""
    if metric == "reward":
        return (rewards + 1.0) / 2.0
    if metric == "pass":
        return np.where(np.isnan(rewards), np.nan, (rewards > 0).astype(float))
    raise ExecrlError(f"unknown curve metric {metric!r}; choose reward or pass")
