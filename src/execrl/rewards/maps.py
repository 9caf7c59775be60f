"""Quality maps on ``q ∈ [0, 1]`` (0 best) and the signed map (spec §4)."""

from __future__ import annotations

import math
from collections.abc import Callable


def signed(z: float) -> float:
    """``s(z) = 2z − 1``: {0, 1} → {−1, 1}, [0, 1] → [−1, 1]."""
    return 2.0 * z - 1.0


def linear(q: float) -> float:
    """``m_linear = 1 − q``."""
    return 1.0 - q


def bucket(q: float) -> float:
    """``m_bucket = 1 if q == 0 else max(0, 0.9 − 0.1·⌊10(q − 1e−6)⌋)``: ten steps, so timing
    noise inside a bucket does not reach the gradient."""
    if q == 0:
        return 1.0
    return max(0.0, round(0.9 - 0.1 * math.floor(10 * (q - 1e-6)), 12))


def range_compressed(low: float) -> Callable[[float], float]:
    """``m_[l,1] = l + (1 − l)(1 − q)``: correct-but-slow code keeps at least ``l``."""

    def m(q: float) -> float:
        return low + (1.0 - low) * (1.0 - q)

    m.__name__ = f"range_{low:.3g}"
    return m


MAPS: dict[str, Callable[[float], float]] = {
    "linear": linear,
    "bucket": bucket,
    "range_third": range_compressed(1 / 3),
    "range_half": range_compressed(1 / 2),
}
"""The graded maps by name (``binary`` signals use the gate g instead of a map)."""
