"""Unbiased pass@k (spec optimization-rl.md §5).

With ``n`` samples of which ``c`` are correct, ``pass@k = 1 − C(n−c, k) / C(n, k)``: the
probability that at least one of ``k`` samples drawn without replacement is correct. The
binomials overflow floats long before ``n`` gets large, so it is computed in the product form

    C(n−c, k) / C(n, k) = ∏_{i=n−c+1}^{n} (1 − k/i),

which multiplies ``c`` numbers in (0, 1] and never forms a binomial.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from execrl.errors import ExecrlError


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem with ``n`` samples, ``c`` of them correct."""
    if not 0 <= c <= n:
        raise ExecrlError(f"pass@k needs 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ExecrlError(f"pass@{k} needs 1 <= k <= n = {n} samples; sample more or lower k")
    if n - c < k:  # every draw of k samples holds a correct one
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1, dtype=float)))


def pass_at_k_per_problem(counts: Iterable[tuple[int, int]], k: int) -> np.ndarray:
    """(P,) pass@k for each problem's ``(n, c)``; NaN where ``n < k`` (too few samples)."""
    return np.array([pass_at_k(n, c, k) if n >= k else np.nan for n, c in counts], dtype=float)
