"""Sweeps: one axis of the replay settings (or τ) varied, every metric recomputed from the
stored records at each value — how model comparisons move when the sandbox looks faster or
slower (calibration α, β), when the time budget or intended limit changes, or along τ.

Axes:

- ``alpha``: the references' calibration slope, ``Γ(d) = α·d + β``. α < 1 makes the
  references look faster (the samples rank worse), α > 1 slower.
- ``beta``: the calibration offset in seconds.
- ``cap_s``: a hard budget per test (at most the executed cap).
- ``limit_s``: an absolute intended limit on the optimization tests.
- ``tau``: the p_τ threshold itself (one replay serves every value).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from execrl.envs.operators import AbsoluteLimit
from execrl.errors import ExecrlError, UsageError, validation_issues
from execrl.evaluate.metrics import EvalMetrics, evaluate
from execrl.evaluate.replay import EvalData, ReplaySettings, replay

AXES = ("alpha", "beta", "cap_s", "limit_s", "tau")


@dataclass(frozen=True)
class SweepPoint:
    value: float
    settings: ReplaySettings
    metrics: EvalMetrics


def settings_at(base: ReplaySettings, axis: str, value: float) -> ReplaySettings:
    """``base`` with one axis set to ``value`` (``tau`` leaves the settings unchanged)."""
    if axis not in AXES:
        raise ExecrlError(f"unknown sweep axis {axis!r}; choose from {', '.join(AXES)}")
    if axis == "tau":
        return base
    if not math.isfinite(value):
        raise UsageError(f"{axis}={value}: a sweep value must be a finite number")
    if axis == "limit_s":
        if value <= 0:
            raise UsageError(f"limit_s={value:g}: an intended limit must be > 0 seconds")
        return base.model_copy(update={"limit": AbsoluteLimit(seconds=value)})
    try:
        return ReplaySettings.model_validate({**base.model_dump(), axis: value})
    except ValidationError as exc:
        message = validation_issues(exc)[0].message
        raise UsageError(f"{axis}={value:g} is not a valid setting ({message})") from None


def sweep(
    data: EvalData,
    axis: str,
    values: Sequence[float],
    *,
    base: ReplaySettings | None = None,
    taus: Sequence[float] = (100, 50, 30, 10),
    ks: Sequence[int] = (1,),
    progress: bool = False,
    **options,
) -> list[SweepPoint]:
    """The metrics at each value of ``axis`` (``options`` go to :func:`compute_metrics`:
    ``baseline``, ``resamples``, ``seed``, ...)."""
    if not values:
        raise ExecrlError("a sweep needs at least one value")
    base = base or ReplaySettings()
    settings = [settings_at(base, axis, v) for v in values]
    shared = replay(data, base) if axis == "tau" else None
    points = []
    for value, setting in _track(list(zip(values, settings, strict=True)), progress, axis):
        scored = shared or replay(data, setting)
        point_taus = (value,) if axis == "tau" else tuple(taus)
        metrics = evaluate(scored, taus=point_taus, ks=ks, **options)
        points.append(SweepPoint(float(value), setting, metrics))
    return points


def _track(items: list, progress: bool, axis: str):
    if not progress:
        return items
    from rich.progress import track

    return track(items, description=f"replaying along {axis}")


MAX_SWEEP_POINTS = 200
"""The most values a sweep recomputes every metric at."""


def sweep_values(text: str) -> list[float]:
    """The values of a sweep written ``LO:HI:N`` (N evenly spaced values from LO to HI) or as
    a comma list; at most :data:`MAX_SWEEP_POINTS`, all finite (else a one-line error)."""
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise ExecrlError(f"sweep values {text!r}: write LO:HI:N or a comma list")
        lo, hi = parse_numbers(parts[0], "LO")[0], parse_numbers(parts[1], "HI")[0]
        try:
            n = int(parts[2])
        except ValueError:
            raise ExecrlError(f"sweep values {text!r}: N must be a whole number") from None
        if not 1 <= n <= MAX_SWEEP_POINTS:
            raise UsageError(f"sweep values {text!r}: N must lie in 1 to {MAX_SWEEP_POINTS}")
        return [lo + (hi - lo) * i / max(1, n - 1) for i in range(n)]
    values = list(parse_numbers(text, "sweep values"))
    if len(values) > MAX_SWEEP_POINTS:
        raise UsageError(f"sweep values: {len(values)} given, at most {MAX_SWEEP_POINTS}")
    return values


def parse_numbers(text: str, what: str) -> tuple[float, ...]:
    """A comma list of finite numbers (``what`` names it in the one-line error)."""
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise UsageError(f"{what}: expected numbers, got {text!r}") from None
    if not values or not all(math.isfinite(v) for v in values):
        raise UsageError(f"{what}: expected finite numbers, got {text!r}")
    return values


def parse_ks(text: str) -> tuple[int, ...]:
    """The k of pass@k written as a comma list: whole numbers >= 1 (pass@1.5 means nothing),
    duplicates dropped."""
    values = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            k = int(part)
        except ValueError:
            raise UsageError(
                f"`ks` {text!r}: {part!r} is not a whole number, e.g. `ks` 1,10"
            ) from None
        if k < 1:
            raise UsageError(f"`ks` {text!r}: pass@k needs k >= 1, got {k}")
        values.append(k)
    if not values:
        raise UsageError(f"`ks`: no values in {text!r}")
    return tuple(dict.fromkeys(values))


def parse_taus(text: str) -> tuple[float, ...]:
    """p_τ thresholds written as a comma list: percentiles in [0, 100]."""
    values = parse_numbers(text, "`taus`")
    bad = [t for t in values if not 0 <= t <= 100]
    if bad:
        raise UsageError(f"`taus` {text!r}: τ is a percentile in [0, 100], got {bad[0]:g}")
    return values
