"""The reference pool H(x): stored reference durations per optimization test (spec §1).

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

from execrl.problems.models import Problem, ReferenceLabel

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

    @classmethod
    def from_mapping(
        cls,
        durations: Mapping[str, Mapping[str, float]],
        test_ids: Iterable[str],
        *,
        cap_s: float,
        calibration: Calibration | None = None,
    ) -> ReferencePool:
        """From ``{reference name: {test id: seconds}}``, on the given tests (in that order).
        A test absent from a reference's mapping is missing there; a stored None or NaN is an
        invalid duration and becomes the cap, like any other (ψ) **[ours]**."""
        test_ids = tuple(test_ids)
        names = tuple(durations)
        missing = float("nan")
        columns = [
            [_stored(per_test.get(t, missing), t in per_test, cap_s) for t in test_ids]
            for per_test in durations.values()
        ]
        raw = np.array(columns, dtype=float).T.reshape(len(test_ids), len(names))
        return cls(test_ids, names, sanitise(raw, cap_s, calibration), cap_s)

    @classmethod
    def from_problem(
        cls,
        problem: Problem,
        *,
        cap_s: float | None = None,
        calibration: Calibration | None = None,
        test_ids: Iterable[str] | None = None,
    ) -> ReferencePool:
        """The correct references' stored ``durations_s`` on the problem's optimization tests
        (or ``test_ids``). References with no stored durations at all are left out."""
        ids = [t.id for t in problem.optimization_tests] if test_ids is None else list(test_ids)
        stored = {
            ref.name: ref.durations_s
            for ref in problem.references_labelled(ReferenceLabel.CORRECT)
            if ref.durations_s
        }
        cap = problem.time_limit_s if cap_s is None else cap_s
        return cls.from_mapping(stored, ids, cap_s=cap, calibration=calibration)

    @classmethod
    def empty(cls, test_ids: Iterable[str], cap_s: float) -> ReferencePool:
        test_ids = tuple(test_ids)
        return cls(test_ids, (), np.full((len(test_ids), 0), np.nan), cap_s)

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
        return ReferencePool(test_ids, self.names, rows, self.cap_s)

    def without(self, name: str) -> ReferencePool:
        """Leave one reference out (to score a reference against the others)."""
        keep = [j for j, n in enumerate(self.names) if n != name]
        names = tuple(self.names[j] for j in keep)
        return ReferencePool(self.test_ids, names, self.durations[:, keep], self.cap_s)

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


def _stored(value, present: bool, cap_s: float) -> float:
    """A stored value: missing stays NaN; present but None or NaN is invalid (the cap)."""
    if not present:
        return math.nan
    return cap_s if value is None or value != value else value
