"""The vectorised engine: an environment's signals (spec §2) and a reward (spec §4) for every
(problem, reference) pair of stored runs at once, with numpy.

Each reference in turn is the candidate: its record gives the per-test verdicts and
durations, and the pool is the *other* references' stored durations (leave-one-out), exactly
as ``Environment.outcome(problem, record, pool=env.pool(problem).without(name))`` computes
it (``execrl.simulate.replay`` does that, one pair at a time). The engine follows that code
step by step — the filter on the pool, the intended limits on the used tests, timeouts applied
after execution, the four signals, the composition — on arrays over (problem, test,
reference):

- filters, limits and rankings that depend on the pool are computed leave-one-out from one
  sort of each test's durations (a reference's rank and the pool's quantiles without it);
- where rounding could tip a comparison (a leave-one-out mean within 1e-9 of a filter's
  threshold), and for median aggregates, that candidate goes through the operator's own code
  on its leave-one-out pool;
- means whose rounding reaches a reward (QAR, the QP leaderboard, the naive mean duration) are
  summed in the order numpy and Python sum them in the per-outcome path.

So the rewards equal the per-outcome path's to within a few ulps of 1.0 (tested on every
preset family; numpy's ``log10`` may differ from ``math.log10`` by one ulp). In ``fast`` mode
(the sweep) the timeouts of many absolute limits are counted in one pass per filter and the
naive durations are summed in another order: the counts stay exact, naive rewards agree to
rounding (~1e-16).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from execrl.envs.environment import EnvironmentConfig, operator_in
from execrl.envs.operators import (
    QP_TIE_TOLERANCE,
    AbsoluteFilter,
    AbsoluteLimit,
    CapLimit,
    IdentityFilter,
    LengthFilter,
    RankedReferenceLimit,
    RelativeFilter,
    RelativeLimit,
)
from execrl.errors import ExecrlError
from execrl.rewards.compositions import NaiveReward, Reward, RewardFn
from execrl.rewards.maps import MAPS, bucket
from execrl.sandbox.counting import seconds_as
from execrl.sandbox.limits import is_counted
from execrl.simulate.runs import FAILURE, INCONCLUSIVE, NOT_RUN, SUCCESS, TIMEOUT, StoredRuns
from execrl.timing.pool import Calibration, ReferencePool, sanitise

RELATIVE_TOLERANCE = 1e-9
"""A leave-one-out mean this close (relative) to a threshold is recomputed exactly."""

CHUNK_ELEMENTS = 2_500_000
"""Problems per engine: about this many (problem, test, reference) entries."""


def chunks(runs: StoredRuns, elements: int = CHUNK_ELEMENTS) -> list[slice]:
    """Slices of problems with about ``elements`` entries each (problems are independent)."""
    P, T, R = runs.shape
    size = max(1, elements // max(1, T * R))
    return [slice(i, min(i + size, P)) for i in range(0, P, size)]


@dataclass(frozen=True, eq=False)
class Signals:
    """An environment's Outcome signals for every pair, as (P, R) arrays."""

    c_cor: np.ndarray
    c_strict: np.ndarray
    g: np.ndarray
    q: np.ndarray
    timeout_fraction: np.ndarray
    q_dur: np.ndarray
    """NaN where the Outcome's ``q_dur`` is None."""
    inconclusive: np.ndarray
    valid: np.ndarray
    """Real (problem, reference) pairs (the rest is padding)."""
    cap_s: np.ndarray
    """(P, 1) the environment's cap on the timing's scale (seconds, or a count)."""
    naive_optimization: np.ndarray
    """Mean naive duration over the used optimization tests (NaN: there are none)."""
    naive_correctness: np.ndarray
    """Mean naive duration over T_C (NaN: there are none)."""
    seconds_per_unit: float = 1.0
    """Seconds one unit of the durations is worth (``Outcome.seconds_per_unit``)."""

    @property
    def ok(self) -> np.ndarray:
        """Pairs whose reward is a number (real and not inconclusive)."""
        return self.valid & ~self.inconclusive


@dataclass(frozen=True, eq=False)
class _Pool:
    cap: np.ndarray  # (P, 1, 1)
    D: np.ndarray  # (P, T, R) sanitised pool durations, NaN = missing
    present: np.ndarray
    n: np.ndarray  # (P, T, 1) references with a duration on each test
    faster: np.ndarray  # (P, T, R) present entries strictly below each entry (NaN: missing)
    sorted: np.ndarray  # (P, T, R) ascending, +inf for missing
    position: np.ndarray  # (P, T, R) each entry's index in ``sorted``


@dataclass(frozen=True, eq=False)
class _Counts:
    used: np.ndarray  # (P, R) used optimization tests
    timeouts: np.ndarray
    bad: np.ndarray  # failed, not run or inconclusive
    inconclusive: np.ndarray  # bool
    naive_sum: np.ndarray


class _Test:
    """A stand-in test for an operator's ``keep`` (which reads only the id)."""

    def __init__(self, test_id: str) -> None:
        self.id = test_id


class Engine:
    """Signals and rewards of environments over stored runs (cached per operator, so many
    environments sharing a filter or a limit share the work).

    ``fast=True`` (the sweep) counts timeouts for every limit in ``absolute_limits`` in one
    pass per filter and sums naive durations in histogram order; ranked-reference limits are
    computed for every p in ``ranked_percentiles`` in one pass per filter."""

    def __init__(
        self,
        runs: StoredRuns,
        *,
        calibration: Calibration | None = None,
        fast: bool = False,
        absolute_limits: Iterable[float] = (),
        ranked_percentiles: Iterable[float] = (),
    ) -> None:
        self.runs = runs
        self.calibration = calibration
        self.fast = fast
        self.absolute_limits = tuple(sorted({float(s) for s in absolute_limits}))
        self.ranked_percentiles = tuple(sorted({float(p) for p in ranked_percentiles}))
        self.valid = runs.opt_valid[:, :, None] & runs.ref_valid[:, None, :]
        self._cache: dict[tuple, object] = {}

    # -- public ----------------------------------------------------------------------------
    def signals(self, config: EnvironmentConfig) -> Signals:
        """The Outcome signals of every pair under ``config``."""
        self._check_scale(config)
        pool = self._pool(config.cap_s)
        c_cor, incon_cor, naive_cor = self._correctness(config.correctness, config.cap_s)
        counts = self._counts(config)
        used = counts.used
        with np.errstate(invalid="ignore", divide="ignore"):
            phi = np.where(used > 0, counts.timeouts / np.maximum(used, 1), 0.0)
            naive_opt = np.where(used > 0, counts.naive_sum / np.maximum(used, 1), np.nan)
        q_dur = np.full(phi.shape, np.nan)
        if config.optimization and config.ranking != "none":
            q_dur = self._ranking(config)
        return Signals(
            c_cor=c_cor,
            c_strict=c_cor * (counts.bad == 0),
            g=gate(config, phi, q_dur),
            q=np.where(np.isfinite(q_dur), q_dur, phi),
            timeout_fraction=phi,
            q_dur=q_dur,
            inconclusive=incon_cor | counts.inconclusive,
            valid=self.runs.ref_valid,
            cap_s=pool.cap[:, :, 0],
            naive_optimization=naive_opt,
            naive_correctness=naive_cor,
            seconds_per_unit=1.0 / self._units(1.0),
        )

    def _check_scale(self, config: EnvironmentConfig) -> None:
        """The environment must read the durations the runs hold, at the runs' count rate."""
        runs = self.runs
        if config.timing is not None and config.timing != runs.timing:
            raise ExecrlError(
                f"environment {config.name!r} is timed by {config.timing} but the stored runs "
                f"hold {runs.timing}; load the runs with timing={config.timing}"
            )
        rate = config.count_rate
        if is_counted(runs.timing) and rate is not None and rate != runs.count_rate:
            raise ExecrlError(
                f"environment {config.name!r} converts seconds at {rate:g} counts/s but the "
                f"stored runs were loaded at {runs.count_rate}; load them with "
                f"count_rate={rate:g}"
            )

    def _units(self, seconds: float) -> float:
        """A limit in seconds on the runs' scale (itself for cpu and wall)."""
        return seconds_as(seconds, self.runs.timing, self.runs.count_rate)

    def rewards(self, config: EnvironmentConfig, reward: RewardFn) -> tuple[np.ndarray, np.ndarray]:
        """(even, odd): every pair's reward for an even and an odd group index (they differ
        only for the multitask composition); NaN where inconclusive or padding."""
        signals = self.signals(config)
        return reward_values(reward, signals, 0), reward_values(reward, signals, 1)

    # -- the pool --------------------------------------------------------------------------
    def _cap(self, cap_s: float | None) -> np.ndarray:
        """(P, 1, 1) the cap on the runs' scale: ``cap_s``, or each problem's limit."""
        if cap_s is None:
            return self.runs.unit_caps[:, None, None]
        return np.full(len(self.runs), self._units(float(cap_s)))[:, None, None]

    def _pool(self, cap_s: float | None) -> _Pool:
        key = ("pool", cap_s)
        if key not in self._cache:
            cap = self._cap(cap_s)
            D = sanitise(self.runs.pool_raw(), cap, self.calibration)
            present = ~np.isnan(D)
            filled = np.where(present, D, np.inf)
            order = np.argsort(filled, axis=-1, kind="stable")
            ordered = np.take_along_axis(filled, order, axis=-1)
            index = np.broadcast_to(np.arange(D.shape[-1]), D.shape)
            position = np.empty_like(order)
            np.put_along_axis(position, order, index, axis=-1)
            # an entry's count of strictly smaller ones: the start of its run of equal values
            starts = np.ones(D.shape, bool)
            starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
            run_start = np.maximum.accumulate(np.where(starts, index, 0), axis=-1)
            faster = np.take_along_axis(run_start, position, axis=-1).astype(float)
            self._cache[key] = _Pool(
                cap=cap,
                D=D,
                present=present,
                n=present.sum(axis=-1, keepdims=True),
                faster=np.where(present, faster, np.nan),
                sorted=ordered,
                position=position,
            )
        return self._cache[key]  # type: ignore[return-value]

    def _loo_pool(self, pool: _Pool, p: int, h: int) -> ReferencePool:
        """Problem ``p``'s pool without reference ``h``, as execrl's own ReferencePool."""
        T = int(self.runs.opt_valid[p].sum())
        others = [j for j in np.flatnonzero(self.runs.ref_valid[p]) if j != h]
        names = tuple(self.runs.references[p][j] for j in others)
        durations = pool.D[p, :T][:, others]
        ids = tuple(f"t{t}" for t in range(T))
        return ReferencePool(ids, names, durations, float(pool.cap[p, 0, 0]))

    # -- correctness tests -----------------------------------------------------------------
    def _correctness(self, which: str, cap_s: float | None):
        key = ("correctness", which, cap_s)
        if key not in self._cache:
            runs = self.runs
            cap = self._cap(cap_s)
            chosen = runs.cor_valid if which == "all" else runs.cor_valid & runs.cor_original
            chosen = chosen[:, :, None] & runs.ref_valid[:, None, :]
            status, d = runs.cor_status, runs.cor_duration
            # each correctness test runs under the cap: a success at or above it timed out
            success = (status == SUCCESS) & (d < cap)
            timeout = (status == TIMEOUT) | ((status == SUCCESS) & (d >= cap))
            c_cor = ~(chosen & ~success).any(axis=1)
            incon = (chosen & (status == INCONCLUSIVE)).any(axis=1)
            naive = naive_durations(status, d, timeout, cap)
            count = chosen.sum(axis=1)
            total = np.where(chosen, naive, 0.0).sum(axis=1)  # in test order, like sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
            self._cache[key] = (c_cor.astype(float), incon, mean)
        return self._cache[key]

    # -- pre-execution filters -------------------------------------------------------------
    def _keep(self, config: EnvironmentConfig) -> np.ndarray:
        """The candidate tests each pair keeps (broadcastable to (P, T, R))."""
        if not config.optimization:
            return np.zeros((len(self.runs), 1, 1), bool)
        f = config.filter
        key = ("keep", f, config.cap_s)
        if key not in self._cache:
            if isinstance(f, IdentityFilter):
                keep = self.valid
            elif isinstance(f, LengthFilter):
                keep = (self.runs.io_length <= f.max_chars)[:, :, None] & self.valid
            elif isinstance(f, AbsoluteFilter | RelativeFilter):
                keep = self._keep_by_duration(f, config.cap_s)
            else:  # pragma: no cover - the Filter union is closed
                raise ExecrlError(f"the simulator cannot replay filter {f!r}")
            self._cache[key] = keep
        return self._cache[key]  # type: ignore[return-value]

    def _loo_means(self, cap_s: float | None):
        """Each test's mean duration over the pool without the candidate: (d̄, defined), and
        per candidate its defined means sorted and counted (for ``F_rel``)."""
        key = ("loo-means", cap_s)
        if key not in self._cache:
            pool = self._pool(cap_s)
            others = pool.n - pool.present
            values = np.where(pool.present, pool.D, 0.0)
            total = values.sum(axis=-1, keepdims=True)
            defined = (others > 0) & self.runs.opt_valid[:, :, None]
            with np.errstate(invalid="ignore", divide="ignore"):
                d_bar = np.where(defined, (total - values) / others, np.nan)
            ordered = np.sort(np.where(defined, d_bar, np.inf).transpose(0, 2, 1), axis=-1)
            self._cache[key] = (d_bar, defined, ordered, defined.sum(axis=1))
        return self._cache[key]

    def _keep_by_duration(self, f: AbsoluteFilter | RelativeFilter, cap_s: float | None):
        runs = self.runs
        if f.aggregate == "mean":
            d_bar, defined, ordered, count = self._loo_means(cap_s)
            if isinstance(f, AbsoluteFilter):
                a = self._units(f.a)
                keep = defined & (d_bar < a)
                near = defined & (np.abs(d_bar - a) <= RELATIVE_TOLERANCE * a)
            else:
                threshold = _quantile(count, f.r / 100, _taker(ordered))[:, None, :]
                keep = np.where(count[:, None, :] > 0, ~defined | (d_bar <= threshold), True)
                near = defined & (np.abs(d_bar - threshold) <= RELATIVE_TOLERANCE * threshold)
            keep = keep & self.valid
            recompute = near.any(axis=1) & runs.ref_valid
        else:  # a median of the others: every candidate through the operator itself
            keep = np.zeros(self.valid.shape, bool)
            recompute = runs.ref_valid
        pool = self._pool(cap_s)
        unit_filter = operator_in(f, runs.timing, runs.count_rate)
        for p, h in zip(*np.nonzero(recompute), strict=True):
            loo = self._loo_pool(pool, p, h)
            tests = [_Test(t) for t in loo.test_ids]
            keep[p, : len(loo.test_ids), h] = unit_filter.keep(tests, loo)
        return keep

    # -- intra-execution limits ------------------------------------------------------------
    def _plan(self, config: EnvironmentConfig) -> tuple[np.ndarray, np.ndarray]:
        """(used, λ) of ``Environment.plan`` for every pair: the used optimization tests and
        their intended limits (both broadcastable to (P, T, R))."""
        key = _plan_key(config)
        if key not in self._cache:
            pool = self._pool(config.cap_s)
            keep = self._keep(config)
            limit = config.limit
            if isinstance(limit, CapLimit):
                lam = pool.cap
            elif isinstance(limit, AbsoluteLimit):
                lam = np.minimum(self._units(limit.seconds), pool.cap)
            elif isinstance(limit, RelativeLimit):
                lam = _loo_quantile(pool, limit.p)
            elif isinstance(limit, RankedReferenceLimit):
                lam = self._ranked_limits(limit, config)
            else:  # pragma: no cover - the Limit union is closed
                raise ExecrlError(f"the simulator cannot replay limit {limit!r}")
            used = keep
            if isinstance(limit, RelativeLimit | RankedReferenceLimit):
                missing = np.isnan(lam)
                if config.drop_unreferenced:
                    used = keep & ~missing
                lam = np.minimum(np.where(missing, pool.cap, lam), pool.cap)
            self._cache[key] = (used, lam)
        return self._cache[key]  # type: ignore[return-value]

    def _ranked_limits(self, limit: RankedReferenceLimit, config: EnvironmentConfig):
        """λ of the ranked-reference limit: per candidate, ``B`` (max or median) of its
        leave-one-out pool's best p% references by mean rank over its used tests."""
        key = ("ranked", limit, config.filter, config.cap_s)
        if key in self._cache:
            return self._cache[key]
        pool = self._pool(config.cap_s)
        keep = np.broadcast_to(self._keep(config), pool.D.shape)
        if limit.aggregate == "median":
            out = np.full(pool.D.shape, np.nan)
            for p, h in zip(*np.nonzero(self.runs.ref_valid), strict=True):
                loo = self._loo_pool(pool, p, h)
                used = keep[p, : len(loo.test_ids), h]
                ids = [t for t, u in zip(loo.test_ids, used, strict=True) if u]
                out[p, np.flatnonzero(used), h] = limit.limits(loo.on(ids))
            self._cache[key] = out
            return out
        percentiles = sorted({limit.p, *(self.ranked_percentiles if self.fast else ())})
        tables = {p: np.full(pool.D.shape, np.nan) for p in percentiles}
        for p in np.flatnonzero(self.runs.ref_valid.any(axis=1)):
            best = _ranked_best(pool.D[p], pool.present[p], pool.faster[p], pool.sorted[p], keep[p])
            for percentile, value in zip(percentiles, best(percentiles), strict=True):
                tables[percentile][p] = value
        for percentile, table in tables.items():
            other = limit.model_copy(update={"p": percentile})
            self._cache[("ranked", other, config.filter, config.cap_s)] = table
        return tables[limit.p]

    # -- verdicts and counts ---------------------------------------------------------------
    def _counts(self, config: EnvironmentConfig) -> _Counts:
        limit = config.limit
        if self.fast and config.optimization and isinstance(limit, CapLimit | AbsoluteLimit):
            seconds = math.inf if isinstance(limit, CapLimit) else float(limit.seconds)
            if seconds == math.inf or seconds in self.absolute_limits:
                limits, tables = self._histogram(config)
                return tables[limits.index(seconds)]
        key = ("counts", *_plan_key(config))
        if key not in self._cache:
            used, lam = self._plan(config)
            cap = self._pool(config.cap_s).cap
            status, d = self.runs.status, self.runs.duration
            used = np.broadcast_to(used, status.shape)
            stored_timeout, success, bad, inconclusive, base = self._statuses(config.cap_s)
            timeout = stored_timeout | (success & (d >= lam))
            naive = np.where(timeout, cap, base)
            self._cache[key] = _Counts(
                used=np.count_nonzero(used, axis=1),
                timeouts=np.count_nonzero(used & timeout, axis=1),
                bad=np.count_nonzero(used & bad, axis=1),
                inconclusive=(used & inconclusive).any(axis=1),
                naive_sum=np.where(used, naive, 0.0).sum(axis=1),  # test order, like sum()
            )
            if self.fast and config.ranking == "none":  # a sweep counts each plan once
                self._cache.pop(_plan_key(config), None)
                self._cache.pop(("ranked", config.limit, config.filter, config.cap_s), None)
        return self._cache[key]  # type: ignore[return-value]

    def _statuses(self, cap_s: float | None):
        """Masks of the stored verdicts and the naive duration of every entry before any
        intended limit (the cap where it did not run or has no positive duration)."""
        key = ("statuses", cap_s)
        if key not in self._cache:
            status, d = self.runs.status, self.runs.duration
            cap = self._pool(cap_s).cap
            self._cache[key] = (
                status == TIMEOUT,
                status == SUCCESS,
                (status == FAILURE) | (status == NOT_RUN) | (status == INCONCLUSIVE),
                status == INCONCLUSIVE,
                naive_durations(status, d, np.zeros(status.shape, bool), cap),
            )
        return self._cache[key]

    def _bins(self, cap_s: float | None) -> tuple[list[float], np.ndarray, np.ndarray]:
        """Per entry, how many of the absolute limits (and the cap) a success reaches; K for
        a stored timeout, K + 1 for a failure or a test not run, K + 2 for inconclusive."""
        key = ("bins", cap_s)
        if key not in self._cache:
            limits = sorted({*self.absolute_limits, math.inf})
            K = len(limits)
            pool = self._pool(cap_s)
            status, d = self.runs.status, self.runs.duration
            bins = np.zeros(status.shape, np.int8)
            for s in limits:
                bins += (status == SUCCESS) & (d >= np.minimum(self._units(s), pool.cap))
            bins[status == TIMEOUT] = K
            bins[(status == FAILURE) | (status == NOT_RUN)] = K + 1
            bins[status == INCONCLUSIVE] = K + 2
            self._cache[key] = (limits, bins, self._statuses(cap_s)[-1])
        return self._cache[key]  # type: ignore[return-value]

    def _histogram(self, config: EnvironmentConfig):
        """Counts for every absolute limit at once: a filter's histogram of bins, summed."""
        key = ("histogram", config.filter, config.cap_s)
        if key in self._cache:
            return self._cache[key]
        limits, bins, base = self._bins(config.cap_s)
        keep = np.broadcast_to(self._keep(config), bins.shape)
        P, _, R = bins.shape
        K = len(limits)
        pair = np.arange(P * R).reshape(P, 1, R) * (K + 3)
        index = (pair + bins)[keep]
        size = P * R * (K + 3)
        hist = np.bincount(index, minlength=size).reshape(P, R, K + 3)
        weight = np.bincount(index, weights=base[keep], minlength=size).reshape(P, R, K + 3)
        cap = self._pool(config.cap_s).cap[:, :, 0]
        used = hist.sum(axis=-1)
        bad = hist[..., K + 1] + hist[..., K + 2]
        inconclusive = hist[..., K + 2] > 0
        failed = weight[..., K + 1 :].sum(axis=-1)
        tables = []
        for k in range(K):
            timeouts = hist[..., k + 1 : K + 1].sum(axis=-1)
            below = weight[..., : k + 1].sum(axis=-1)
            tables.append(
                _Counts(used, timeouts, bad, inconclusive, below + failed + cap * timeouts)
            )
        self._cache[key] = (limits, tables)
        return limits, tables

    # -- post-execution ranking ------------------------------------------------------------
    def _ranking(self, config: EnvironmentConfig) -> np.ndarray:
        key = ("ranking", config.ranking, *_plan_key(config))
        if key not in self._cache:
            used, lam = self._plan(config)
            pool = self._pool(config.cap_s)
            status, d = self.runs.status, self.runs.duration
            used = np.broadcast_to(used, status.shape)
            success = (status == SUCCESS) & (d < lam)
            delta = np.where(success, d, pool.cap)  # timeouts and failures rank at the cap
            others = pool.n - pool.present
            usable = used & (others >= 1)
            faster = _faster_than(pool, delta, usable)
            if config.ranking == "qar":
                with np.errstate(invalid="ignore", divide="ignore"):
                    percentile = faster / np.maximum(others, 1)
                out = _masked_means(percentile, usable)
            else:
                out = _qp(pool, delta, used, usable, faster, self.runs.ref_valid)
            self._cache[key] = out
        return self._cache[key]  # type: ignore[return-value]


def gate(config: EnvironmentConfig, phi: np.ndarray, q_dur: np.ndarray) -> np.ndarray:
    """``g = g_to^ρ · g_dur^p``: ``1[φ ≤ ρ]`` times ``1[q_dur ≤ p]`` (1 when the gate is
    inactive or nothing was ranked)."""
    g = (phi <= config.tolerance).astype(float)
    if config.gate is not None:
        with np.errstate(invalid="ignore"):
            g *= np.where(np.isfinite(q_dur), q_dur <= config.gate, True)
    return g


def _plan_key(config: EnvironmentConfig) -> tuple:
    return (
        config.optimization,
        config.filter,
        config.limit,
        config.cap_s,
        config.drop_unreferenced,
    )


# --------------------------------------------------------------------------------------------
# Pure functions over arrays


def naive_durations(status, d, timeout, cap) -> np.ndarray:
    """The naive baseline's per-test duration (spec §4): the cap for a timeout, a test that
    did not run or a non-positive duration, else ``min(d, cap)``."""
    invalid = timeout | (status == NOT_RUN) | ~(d > 0)
    return np.where(invalid, cap, np.minimum(d, cap))


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """numpy's own linear interpolation for quantiles (the same rounding)."""
    with np.errstate(invalid="ignore"):  # +inf − inf on missing entries, masked later
        diff = b - a
        out = a + diff * t
        return np.where(t >= 0.5, b - diff * (1 - t), out)


def _quantile(count: np.ndarray, q: float, take: Callable[[np.ndarray], np.ndarray]):
    """numpy's linear quantile of the ``count`` values ``take(k)`` returns in ascending
    order (k an index array); NaN where ``count`` is 0."""
    virtual = (count - 1).astype(float) * q
    previous = np.floor(virtual)
    above = virtual >= count - 1
    lo = np.where(above, count - 1, previous).clip(min=0).astype(np.int64)
    hi = np.where(above, count - 1, previous + 1).clip(min=0).astype(np.int64)
    value = _lerp(take(lo), take(hi), virtual - previous)
    return np.where(count > 0, value, np.nan)


def _taker(ordered: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    last = ordered.shape[-1] - 1

    def take(k: np.ndarray) -> np.ndarray:
        return np.take_along_axis(ordered, k.clip(max=last)[..., None], axis=-1)[..., 0]

    return take


def _loo_quantile(pool: _Pool, p: float) -> np.ndarray:
    """``quantile_p(D_t)`` of every test's pool without the candidate (relative limit).

    The quantile's indexes depend only on how many durations there are: ``n − 1`` for a
    candidate in the pool (index k of its leave-one-out order is k or k + 1 of the full
    order, whether k is before or after its own entry) and ``n`` for one that is not."""
    q = p / 100
    s = pool.sorted
    last = s.shape[-1] - 1

    def at(k: np.ndarray) -> np.ndarray:
        return np.take_along_axis(s, k.clip(0, last), axis=-1)  # (P, T, 1)

    def indexes(count: np.ndarray):
        virtual = (count - 1).astype(float) * q
        previous = np.floor(virtual)
        above = virtual >= count - 1
        lo = np.where(above, count - 1, previous).astype(np.int64)
        hi = np.where(above, count - 1, previous + 1).astype(np.int64)
        gamma = virtual - previous
        return lo, hi, gamma

    # candidates outside the pool: the quantile of all n durations
    lo, hi, gamma = indexes(pool.n)
    outside = np.where(pool.n > 0, _lerp(at(lo), at(hi), gamma), np.nan)
    # candidates in the pool: n − 1 durations, skipping the candidate's own position
    lo, hi, gamma = indexes(pool.n - 1)
    a = np.where(pool.position > lo, at(lo), at(lo + 1))
    b = np.where(pool.position > hi, at(hi), at(hi + 1))
    high = gamma >= 0.5
    base = np.where(high, b, a)
    weight = np.where(high, -(1 - gamma), gamma)  # b − d·(1 − γ) is b + d·(−(1 − γ))
    with np.errstate(invalid="ignore"):  # +inf − inf on missing entries, masked here
        inside = np.where(pool.n > 1, base + (b - a) * weight, np.nan)
    return np.where(pool.present, inside, outside)


def _ranked_best(D, present, faster, sorted_, keep):
    """One problem: a function of percentiles giving λ (T, R) of the ranked-reference limit
    with B = max for each candidate (its leave-one-out pool's best p% by mean rank over its
    used tests; ``⌈p·N/100⌉`` references, at least one). Durations are handled by their
    rank on each test (ties share one), so the cube of prefix maxima is small integers."""
    T, R = D.shape
    small = np.int8 if R < 127 else np.int16
    rank = np.where(present, np.nan_to_num(faster), -1).astype(small)  # (T, R), -1: missing
    used = keep.astype(float)  # (T, R_h)
    pres = present.astype(float)  # (T, R_j)
    # j's rank without h = 1 + #faster than j − [h used, present and faster than j]
    as_h = np.where(keep & present, rank, np.iinfo(small).max)
    beaten = np.add.reduce(as_h[:, :, None] < rank[:, None, :], axis=0, dtype=np.int32)
    # einsum, not BLAS: these products are small, and threaded BLAS stalls on a busy machine
    rank_sum = np.einsum("th,tj->hj", used, pres * (1.0 + rank)) - beaten  # exact integers
    counted = np.einsum("th,tj->hj", used, pres)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counted > 0, rank_sum / np.maximum(counted, 1), np.inf)
    np.fill_diagonal(mean, np.inf)
    scored = (counted > 0) & ~np.eye(R, dtype=bool)
    n_scored = scored.sum(axis=1)
    order = np.argsort(mean, axis=1, kind="stable")  # each candidate's ranking of the others
    best = rank.T[order.T]  # (R_j, R_h, T): the m-th best other's rank on each test
    for m in range(1, R):  # prefix maxima (a loop of vector maxima beats accumulate here)
        np.maximum(best[m - 1], best[m], out=best[m])
    tests = np.arange(T)[None, :]
    candidates = np.arange(R)

    def at(percentiles: list[float]) -> list[np.ndarray]:
        out = []
        for p in percentiles:
            k = np.maximum(1, np.ceil(p * n_scored / 100)).astype(np.int64)
            chosen = best[k - 1, candidates]  # (R_h, T)
            value = sorted_[tests, np.maximum(chosen, 0)]  # (R_h, T)
            ok = (chosen >= 0) & (n_scored[:, None] > 0)
            out.append(np.where(ok, value, np.nan).T)
        return out

    return at


def _faster_than(pool: _Pool, delta: np.ndarray, where: np.ndarray) -> np.ndarray:
    """(P, T, R) how many references other than the candidate are strictly faster than its
    ranked duration ``delta`` on each test (computed where ``where``)."""
    regular = pool.present & (delta == pool.D)  # the candidate's own entry: counts known
    out = np.where(regular, pool.faster, 0.0)
    irregular = np.argwhere(where & ~regular)
    block = 100_000
    for start in range(0, len(irregular), block):
        p, t, h = irregular[start : start + block].T
        rows = pool.D[p, t]  # (n, R)
        below = np.where(np.isnan(rows), False, rows < delta[p, t, h][:, None])
        below[np.arange(len(h)), h] = False  # the candidate is not in its own pool
        out[p, t, h] = below.sum(axis=1)
    return out


def _masked_means(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(P, R) the mean over axis 1 of the masked values, computed as numpy computes the mean
    of the compacted 1-D array (the same pairwise summation); NaN where none."""
    P, T, R = values.shape
    rows = values.transpose(0, 2, 1).reshape(-1, T)
    keep = mask.transpose(0, 2, 1).reshape(-1, T)
    order = np.argsort(~keep, axis=1, kind="stable")
    packed = np.take_along_axis(rows, order, axis=1)
    count = keep.sum(axis=1)
    out = np.full(len(rows), np.nan)
    for c in np.unique(count):
        if c > 0:
            which = count == c
            out[which] = np.mean(packed[which, :c], axis=1)
    return out.reshape(P, R)


def _qp(pool: _Pool, delta, used, usable, faster, ref_valid) -> np.ndarray:
    """``q_QP`` of every candidate (``execrl.envs.operators.qp``): its position on the
    leaderboard of itself and its leave-one-out pool by mean per-test percentile."""
    P, _, R = pool.D.shape
    out = np.full((P, R), np.nan)
    # A candidate whose ranked durations are its own pool entries on every used test meets
    # exactly the whole pool: one leaderboard per problem serves all such candidates.
    shared = np.all((used == used[:, :, :1]) | ~ref_valid[:, None, :], axis=(1, 2))
    regular = ~np.any(used & ~(pool.present & (delta == pool.D)), axis=1)
    regular &= ref_valid & shared[:, None]
    if regular.any():
        rows = used[:, :, :1] & (pool.n >= 2)
        take = rows & pool.present
        with np.errstate(invalid="ignore", divide="ignore"):
            percentile = pool.faster / (pool.n - 1)
        total = np.where(take, percentile, 0.0).sum(axis=1)  # test order, like nanmean
        counted = take.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            score = total / counted
        scored = counted > 0
        better = score[:, None, :] < score[:, :, None] - QP_TIE_TOLERANCE
        beaten = (scored[:, None, :] & better).sum(axis=-1)
        entrants = scored.sum(axis=1, keepdims=True)
        q = beaten / np.maximum(1, entrants - 1)
        out = np.where(regular & scored, q, out)
    for p, h in zip(*np.nonzero(~regular & ref_valid), strict=True):
        out[p, h] = _qp_one(pool, delta, usable, faster, p, h)
    return out


def _qp_one(pool: _Pool, delta, usable, faster, p: int, h: int) -> float:
    """``q_QP`` of one candidate; column 0 is the candidate, as in the per-outcome code."""
    rows = usable[p, :, h]
    if not rows.any():
        return math.nan
    D, present = pool.D[p], pool.present[p].copy()
    own = present[:, h].copy()
    present[:, h] = False
    others = (pool.n[p, :, 0] - own).astype(float)  # entrants − 1 on each test
    d_own = np.where(own, D[:, h], np.inf)[:, None]
    count = pool.faster[p] - (own[:, None] & (d_own < D)) + (delta[p, :, h, None] < D)
    with np.errstate(invalid="ignore", divide="ignore"):
        percentile = np.column_stack([faster[p, :, h], count]) / others[:, None]
    take = rows[:, None] & np.column_stack([np.ones(len(rows), bool), present])
    total = np.where(take, percentile, 0.0).sum(axis=0)  # test order, like nanmean
    counted = take.sum(axis=0)
    scored = counted > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        score = total / counted
    position = int((scored[1:] & (score[1:] < score[0] - QP_TIE_TOLERANCE)).sum())
    return position / max(1, int(scored.sum()) - 1)


# --------------------------------------------------------------------------------------------
# Rewards over arrays


def apply_map(fn: Callable[[float], float], q: np.ndarray) -> np.ndarray:
    """A scalar map applied to an array through its distinct values (the map's own values)."""
    finite = np.isfinite(q)
    out = np.full(q.shape, np.nan)
    if finite.any():
        distinct, inverse = np.unique(q[finite], return_inverse=True)
        out[finite] = np.array([fn(float(v)) for v in distinct])[inverse]
    return out


def _bucket(q: np.ndarray) -> np.ndarray:
    # bucket(q) depends on q only through k = ⌊10(q − 1e−6)⌋ (and q = 0): one call per k
    k = np.floor(10 * (q - 1e-6))
    out = np.full(q.shape, np.nan)
    for value in np.unique(k[np.isfinite(k)]):
        out[k == value] = bucket((value + 0.5) / 10 + 1e-6)
    return np.where(q == 0, bucket(0.0), out)


def _range(low: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda q: low + (1.0 - low) * (1.0 - q)


VECTOR_MAPS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "linear": lambda q: 1.0 - q,
    "bucket": _bucket,
    "range_third": _range(1 / 3),
    "range_half": _range(1 / 2),
}
"""The quality maps of ``execrl.rewards.maps.MAPS`` over arrays, with the same rounding
(tested value by value against the scalar maps)."""


def map_values(name: str, q: np.ndarray) -> np.ndarray:
    if name in VECTOR_MAPS:
        return VECTOR_MAPS[name](q)
    return apply_map(MAPS[name], q)


def _signed(z: np.ndarray) -> np.ndarray:
    return 2.0 * z - 1.0


def reward_values(
    reward: RewardFn,
    s: Signals,
    group_index: int = 0,
    speeds: dict[str, np.ndarray] | None = None,
) -> np.ndarray:
    """(P, R) every pair's reward, as the composition computes it on each Outcome; NaN where
    the Outcome is inconclusive (the reward is None) or the pair is padding. ``speeds``
    caches the graded maps of ``s.q`` between calls."""
    if isinstance(reward, NaiveReward):
        d_bar = s.naive_optimization if reward.over == "optimization" else s.naive_correctness
        with np.errstate(invalid="ignore", divide="ignore"):
            if reward.map == "linear":
                m = np.minimum(1.0, np.maximum(0.0, 1.0 - d_bar / s.cap_s))
            else:
                log = np.log10(np.maximum(d_bar * s.seconds_per_unit, 1e-6))
                m = np.minimum(1.0, np.maximum(0.0, (1.0 - log) / 3.0))
        value = s.c_cor + np.where(np.isnan(d_bar), 0.0, m) - 1.0
    elif isinstance(reward, Reward):
        kind = reward.composition
        if kind == "multitask":
            kind = "correctness" if group_index % 2 == 0 else "optimization"
        if kind == "correctness":
            value = _signed(s.c_cor)
        else:
            if reward.signal == "binary":
                speed = s.g
            elif speeds is not None and reward.map in speeds:
                speed = speeds[reward.map]
            else:
                speed = map_values(reward.map, s.q)
                if speeds is not None:
                    speeds[reward.map] = speed
            if kind == "optimization":
                value = _signed(speed)
            elif kind == "collapsed":
                value = _signed(s.c_strict * speed)
            elif kind == "two_gate":
                value = np.where(s.c_strict > 0, speed, -1.0)
            else:  # additive
                value = 0.5 * _signed(s.c_cor) + 0.5 * _signed(speed)
    else:
        raise ExecrlError(f"the simulator cannot replay reward {reward!r}")
    return np.where(s.ok, value, np.nan)
