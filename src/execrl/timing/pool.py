"""The reference pool H(x): stored reference durations per optimization test (spec §1).

It lives in ``execrl.timing`` (the timing store builds pools from campaigns; the environments
in ``execrl.envs`` rank candidates against them), so both import it without an arrow running
backwards.

Durations are sanitised once, when the pool is built: ``ψ(d) = d if d > 0 else cap`` (so an
invalid, zero, negative or non-finite duration counts as the slowest possible), then the
calibration map Γ (identity by default; never applied to candidates), then clamping to
``[0, cap]``. A reference *without* a duration on a test is missing there (NaN), which is not
the same as slow: missing entries are left out of ``D_t``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from execrl.errors import DataError
from execrl.problems.models import MAX_TIME_LIMIT_S, Problem, ReferenceLabel
from execrl.sandbox.limits import TIMING_UNITS, is_counted

Calibration = Callable[[np.ndarray], np.ndarray]
"""A map Γ from stored to fresh durations, applied elementwise to reference durations."""


def sanitise(durations: np.ndarray, cap_s: float, calibration: Calibration | None = None):
    """``d̃ = min(cap, max(0, Γ(ψ(d))))`` elementwise; NaN (missing) stays NaN."""
    d = np.asarray(durations, dtype=float)
    missing = np.isnan(d)
    valid = np.isfinite(d) & (d > 0)
    psi = np.where(valid, d, cap_s)
    mapped = np.asarray(calibration(psi), dtype=float) if calibration is not None else psi
    mapped = np.where(np.isnan(mapped), cap_s, mapped)  # a map that breaks down: slowest
    return np.where(missing, np.nan, np.clip(mapped, 0.0, cap_s))


@dataclass(frozen=True)
class ReferencePool:
    """``durations[i, j]``: sanitised duration of reference ``names[j]`` on test ``test_ids[i]``
    (NaN where the reference has no stored duration)."""

    test_ids: tuple[str, ...]
    names: tuple[str, ...]
    durations: np.ndarray
    cap_s: float
    """The cap the durations are clamped to, in their unit (seconds, or a count)."""
    timing: str | None = None
    """The metric of the durations, when the pool was built for one (checked by
    :func:`check_units`); None = not said (seconds by convention)."""

    @classmethod
    def from_mapping(
        cls,
        durations: Mapping[str, Mapping[str, float]],
        test_ids: Iterable[str],
        *,
        cap_s: float,
        calibration: Calibration | None = None,
        timing: str | None = None,
    ) -> ReferencePool:
        """From ``{reference name: {test id: duration}}``, on the given tests (in that order).
        A test absent from a reference's mapping is missing there; a stored None or NaN is an
        invalid duration and becomes the cap, like any other (ψ) **[ours]**. With ``timing``,
        durations of the other kind (seconds where counts are wanted, or the reverse) are a
        DataError (:func:`check_units`); ``cap_s`` is then on that timing's scale."""
        test_ids = tuple(test_ids)
        names = tuple(durations)
        missing = float("nan")
        columns = [
            [_stored(per_test.get(t, missing), t in per_test, cap_s) for t in test_ids]
            for per_test in durations.values()
        ]
        raw = np.array(columns, dtype=float).T.reshape(len(test_ids), len(names))
        if timing is not None:
            check_units(raw, timing)
        return cls(test_ids, names, sanitise(raw, cap_s, calibration), cap_s, timing)

    @classmethod
    def from_problem(
        cls,
        problem: Problem,
        *,
        cap_s: float | None = None,
        calibration: Calibration | None = None,
        test_ids: Iterable[str] | None = None,
        timing: str | None = None,
    ) -> ReferencePool:
        """The correct references' stored ``durations_s`` on the problem's optimization tests
        (or ``test_ids``). References with no stored durations at all are left out. With
        ``timing``, the durations must be of that kind (a DataError naming the problem)."""
        ids = [t.id for t in problem.optimization_tests] if test_ids is None else list(test_ids)
        stored = {
            ref.name: ref.durations_s
            for ref in problem.references_labelled(ReferenceLabel.CORRECT)
            if ref.durations_s
        }
        cap = problem.time_limit_s if cap_s is None else cap_s
        try:
            return cls.from_mapping(stored, ids, cap_s=cap, calibration=calibration, timing=timing)
        except DataError as exc:
            raise DataError(f"{problem.id}: {exc}") from None

    @classmethod
    def empty(
        cls, test_ids: Iterable[str], cap_s: float, timing: str | None = None
    ) -> ReferencePool:
        test_ids = tuple(test_ids)
        return cls(test_ids, (), np.full((len(test_ids), 0), np.nan), cap_s, timing)

    # -- views -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.names)

    def on(self, test_ids: Iterable[str]) -> ReferencePool:
        """The pool restricted to (and ordered like) ``test_ids``; unknown tests have no
        durations."""
        index = {t: i for i, t in enumerate(self.test_ids)}
        test_ids = tuple(test_ids)
        rows = np.full((len(test_ids), len(self.names)), np.nan)
        for i, test_id in enumerate(test_ids):
            if test_id in index:
                rows[i] = self.durations[index[test_id]]
        return ReferencePool(test_ids, self.names, rows, self.cap_s, self.timing)

    def without(self, name: str) -> ReferencePool:
        """Leave one reference out (to score a reference against the others)."""
        keep = [j for j, n in enumerate(self.names) if n != name]
        names = tuple(self.names[j] for j in keep)
        return ReferencePool(self.test_ids, names, self.durations[:, keep], self.cap_s, self.timing)

    def usable_counts(self) -> np.ndarray:
        """``|D_t|`` per test."""
        return np.sum(~np.isnan(self.durations), axis=1)

    def aggregate(self, how: str = "mean") -> np.ndarray:
        """``d̄_t = A(D_t)`` per test (NaN where ``D_t`` is empty); ``how`` is mean or median."""
        out = np.full(len(self.test_ids), np.nan)
        has = self.usable_counts() > 0
        if has.any():
            fn = np.nanmean if how == "mean" else np.nanmedian
            out[has] = fn(self.durations[has], axis=1)
        return out


def check_units(raw: np.ndarray, timing: str) -> None:
    """Refuse stored durations of the other kind than ``timing``. Stored reference durations
    carry no unit, so it is read off their size: a duration in seconds is at most the largest
    time limit a problem may set (``MAX_TIME_LIMIT_S``, 600 s; a timeout is stored at the
    cap), while a count of any real program's work on a test is far above it. So a counted
    pool whose largest duration is at most 600 holds seconds, and a pool in seconds with one
    above 600 holds counts. Missing and invalid (ψ) values are not looked at."""
    valid = raw[np.isfinite(raw) & (raw > 0)]
    if not valid.size:
        return
    largest = float(valid.max())
    if is_counted(timing) and largest <= MAX_TIME_LIMIT_S:
        raise DataError(
            f"the reference durations are seconds (the largest is {largest:g}), not "
            f"{TIMING_UNITS[timing]}: measure the references with timing={timing!r} (`execrl "
            f"score --references measure --timing {timing}`, or a timing campaign with "
            f"`timing` {timing})"
        )
    if not is_counted(timing) and largest > MAX_TIME_LIMIT_S:
        raise DataError(
            f"the reference durations are counts (the largest is {largest:.3g}), not "
            f"{timing} seconds: score with the timing they were measured by (e.g. "
            "timing='instructions')"
        )


def _stored(value, present: bool, cap_s: float) -> float:
    """A stored value: missing stays NaN; present but None or NaN is invalid (the cap)."""
    if not present:
        return math.nan
    return cap_s if value is None or value != value else value
