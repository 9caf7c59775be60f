"""Timing you can trust: the reference pool H(x) and where a duration ranks in it, reference
durations measured and stored as campaigns, calibration maps and noise studies."""

from execrl.timing.percentiles import earlier_ranks_within, per_test_percentiles
from execrl.timing.pool import Calibration, ReferencePool, sanitise
from execrl.timing.references import measure_reference_durations

__all__ = [
    "Calibration",
    "ReferencePool",
    "earlier_ranks_within",
    "measure_reference_durations",
    "per_test_percentiles",
    "sanitise",
]
