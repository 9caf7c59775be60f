"""Small statistics shared across packages (a leaf module: it imports only numpy)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing the mean of the ranks they span."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    _, first, counts = np.unique(values[order], return_index=True, return_counts=True)
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(first + 1 + (counts - 1) / 2, counts)
    return ranks


def spearman(x: Sequence[float], y: Sequence[float], *, min_pairs: int = 2) -> float:
    """Spearman's rank correlation over the pairs where both values are finite (average tied
    ranks); NaN with fewer than ``min_pairs`` pairs or when either side is constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    both = np.isfinite(x) & np.isfinite(y)
    if both.sum() < max(2, min_pairs):
        return math.nan
    rx, ry = average_ranks(x[both]), average_ranks(y[both])
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denominator = math.sqrt(float(np.dot(rx, rx)) * float(np.dot(ry, ry)))
    return float(np.dot(rx, ry)) / denominator if denominator > 0 else math.nan
