"""Where a duration ranks among reference durations (spec §2), over numpy arrays: ``D`` has
shape ``(T, R)`` (tests × references, NaN = missing) and a candidate's ``delta`` shape ``(T,)``.

Shared by the environments' post-execution rankings (``execrl.envs.operators``: ``qar``,
``qp``, the ranked-reference limit) and the timing noise diagnostics (a reference's rerun
ranked among the others), so it sits in ``execrl.timing``, below both.
"""

from __future__ import annotations

import numpy as np


def per_test_percentiles(delta: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Spec §2: insert ``δ_t`` into ``D_t``, rank fastest→slowest, ``p_t = (rank−1)/(n_t−1)``
    with ``n_t = |D_t| + 1``; exact ties take the earlier rank. NaN where ``D_t`` is empty."""
    present = ~np.isnan(D)
    n_refs = present.sum(axis=1)
    faster = (np.where(present, D, np.inf) < delta[:, None]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = faster / n_refs  # (rank − 1)/(n_t − 1) with rank − 1 = #faster, n_t − 1 = |D_t|
    return np.where(n_refs > 0, p, np.nan)


def earlier_ranks_within(D: np.ndarray) -> np.ndarray:
    """Per row, each present entry's rank among the row's present entries, 1-based, exact ties
    taking the earlier rank (``1 + #strictly smaller``); NaN where missing."""
    present = ~np.isnan(D)
    if D.size == 0:
        return np.where(present, 1.0, np.nan)
    filled = np.where(present, D, np.inf)
    order = np.argsort(filled, axis=1, kind="stable")
    ordered = np.take_along_axis(filled, order, axis=1)
    positions = np.broadcast_to(np.arange(D.shape[1]), D.shape)
    starts_run = np.ones(D.shape, dtype=bool)
    starts_run[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    run_start = np.maximum.accumulate(np.where(starts_run, positions, 0), axis=1)
    ranks = np.empty(D.shape)
    np.put_along_axis(ranks, order, run_start + 1.0, axis=1)  # 1 + #strictly smaller
    return np.where(present, ranks, np.nan)
