"""A synthetic corpus of stored runs: many problems without executing anything, for scale
tests and the speed benchmark (the issue's 1,000 problems × 120 tests × 100 references).

Per problem: optimization tests with base durations log-uniform in [1 ms, 2 s] and input sizes
that grow with them (10 to 10^6 characters); references with a log-normal speed factor whose
spread varies by problem, weaker references slowing down more on larger tests; per-run timing
noise (log-normal, 5–15 %). A success at or above the cap (10 s) is a timeout. A few
references are flaky (they fail some tests), a few fail one extra correctness test (so MC
differs from RLVR), and a very few runs are inconclusive. ``quantum_s`` rounds durations (for
ties, as a coarse clock makes them); ``missing_rate`` drops runs from the records (not run).
"""

from __future__ import annotations

import numpy as np

from execrl.errors import ExecrlError
from execrl.simulate.runs import (
    FAILURE,
    INCONCLUSIVE,
    NOT_RUN,
    SUCCESS,
    TIMEOUT,
    StoredRuns,
)


def _optimization_runs(
    rng,
    P,
    T,
    R,
    cap_s,
    flaky_share,
    flaky_failure_rate,
    inconclusive_rate,
    missing_rate,
    quantum_s,
):
    # tests: base duration (the median reference's) and a size that grows with it
    log_base = rng.uniform(-3.0, np.log10(2.0), size=(P, T, 1))
    size = (log_base + 3.0) / (np.log10(2.0) + 3.0)  # 0 (smallest) .. 1 (largest)
    io_length = np.round(10 ** (1 + 5 * size[..., 0] + rng.normal(0, 0.1, (P, T))))
    io_length = io_length.clip(2, 10**6).astype(np.int64)
    # references: speed factor, weaker ones scaling worse on larger tests, per-run noise
    spread = rng.uniform(0.3, 1.2, size=(P, 1, 1))
    log_speed = rng.normal(0.0, 1.0, size=(P, 1, R)) * spread
    exponent = 1.0 + 0.5 * size
    noise = rng.normal(0.0, rng.uniform(0.05, 0.15, size=(P, 1, 1)), size=(P, T, R))
    duration = 10**log_base * np.exp(log_speed * exponent + noise)
    if quantum_s:
        duration = np.maximum(np.round(duration / quantum_s), 0) * quantum_s
    status = np.full((P, T, R), SUCCESS, np.int8)
    timed_out = duration >= cap_s
    status[timed_out] = TIMEOUT
    duration[timed_out] = cap_s
    flaky = rng.random((P, 1, R)) < flaky_share
    status[flaky & (rng.random((P, T, R)) < flaky_failure_rate)] = FAILURE
    status[rng.random((P, T, R)) < inconclusive_rate] = INCONCLUSIVE
    missing = rng.random((P, T, R)) < missing_rate
    status[missing] = NOT_RUN
    duration[missing] = np.nan
    return io_length, status, duration


def _correctness_runs(rng, P, C, R, original, wrong_extra_share, quantum_s):
    # correctness tests are fast; a few references fail one extra (T+) test
    cor_duration = rng.uniform(0.001, 0.005, size=(P, C, R))
    if quantum_s:
        cor_duration = np.maximum(np.round(cor_duration / quantum_s), 0) * quantum_s
    cor_status = np.full((P, C, R), SUCCESS, np.int8)
    extra = np.flatnonzero(~original)
    if len(extra):
        wrong = rng.random((P, R)) < wrong_extra_share
        which = rng.choice(extra, size=(P, R))
        p_idx, h_idx = np.nonzero(wrong)
        cor_status[p_idx, which[p_idx, h_idx], h_idx] = FAILURE
    return cor_status, cor_duration


def synthetic_runs(
    problems: int = 1000,
    tests: int = 120,
    references: int = 100,
    *,
    correctness_tests: int = 10,
    cap_s: float = 10.0,
    seed: int = 0,
    flaky_share: float = 0.05,
    flaky_failure_rate: float = 0.02,
    wrong_extra_share: float = 0.03,
    inconclusive_rate: float = 1e-5,
    missing_rate: float = 0.0,
    quantum_s: float | None = None,
) -> StoredRuns:
    """Stored runs of ``problems`` synthetic problems (see the module docstring)."""
    if min(problems, tests, references) < 1 or correctness_tests < 0:
        raise ExecrlError("a synthetic corpus needs at least 1 problem, test and reference")
    if references < 2:
        raise ExecrlError("a synthetic corpus needs at least 2 references per problem")
    rng = np.random.default_rng(seed)
    P, T, R, C = problems, tests, references, correctness_tests
    io_length = np.empty((P, T), np.int64)
    status = np.empty((P, T, R), np.int8)
    duration = np.empty((P, T, R))
    cor_status = np.empty((P, C, R), np.int8)
    cor_duration = np.empty((P, C, R))
    original = np.arange(C) < max(1, round(0.6 * C)) if C else np.zeros(0, bool)
    block = max(1, 1_000_000 // (T * R))  # bounds the temporaries' memory
    for start in range(0, P, block):
        n = min(block, P - start)
        part = slice(start, start + n)
        io_length[part], status[part], duration[part] = _optimization_runs(
            rng,
            n,
            T,
            R,
            cap_s,
            flaky_share,
            flaky_failure_rate,
            inconclusive_rate,
            missing_rate,
            quantum_s,
        )
        cor_status[part], cor_duration[part] = _correctness_runs(
            rng, n, C, R, original, wrong_extra_share, quantum_s
        )
    return StoredRuns(
        problem_ids=tuple(f"synthetic-{p:04d}" for p in range(P)),
        references=tuple(tuple(f"ref-{h:03d}" for h in range(R)) for _ in range(P)),
        cap_s=np.full(P, float(cap_s)),
        opt_valid=np.ones((P, T), bool),
        io_length=io_length,
        status=status,
        duration=duration,
        ref_valid=np.ones((P, R), bool),
        cor_valid=np.ones((P, C), bool),
        cor_original=np.broadcast_to(original, (P, C)).copy(),
        cor_status=cor_status,
        cor_duration=cor_duration,
        timing="cpu",
        correctness_measured=True,
    )
