"""Timing you can trust: reference durations (and, later, calibration and noise studies)."""

from execrl.timing.references import measure_reference_durations

__all__ = ["measure_reference_durations"]
