"""The spec §9 filter rules: which generated tests, solutions and problems a build keeps.

Spec ../shared/spec/optimization-rl.md §9, the rules implemented here:

    Filters (correctness round / optimization round): drop a generated test if > 20% / > 90%
    of correct references time out (remove at most 25% of generated tests, worst first), then
    if > 40% raise or answer wrong (at most 30% of the rest); original tests are never
    removed. Keep a problem if >= 5 correct references survive (>= 1 for optimization), at
    most 25% of correct references were lost, and the false-positive rate of the original
    incorrect solutions is < 5% (correctness round). Duration-filterable problem:
    robust CV = IQR(d_1..d_N)/median(d_1..d_N) >= 0.3 over the per-test mean reference
    durations.

Everything here is a pure function of counts the pipeline measured in the sandbox: no
execution, no I/O, so each rule is tested on hand-worked numbers at its boundary. Shares are
compared exactly (as fractions), so 200 timeouts of 1000 runs is exactly 20% and is kept.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Literal

import numpy as np

from execrl.errors import UsageError
from execrl.problems.models import ReferenceLabel


class Round(StrEnum):
    """The two filter rounds: on the correctness (small/edge) and optimization (large) tests."""

    CORRECTNESS = "correctness"
    OPTIMIZATION = "optimization"


TIMEOUT_SHARE = {Round.CORRECTNESS: 0.20, Round.OPTIMIZATION: 0.90}
"""Drop a generated test when more than this share of the correct references time out on it."""
TIMEOUT_CAP = 0.25
"""At most floor(TIMEOUT_CAP * generated tests) are removed for timeouts, worst first."""
FAILURE_SHARE = 0.40
"""Then drop a generated test when more than this share raise or answer wrong on it."""
FAILURE_CAP = 0.30
"""At most floor(FAILURE_CAP * generated tests left after the timeout removals) are removed."""
MIN_CORRECT = {Round.CORRECTNESS: 5, Round.OPTIMIZATION: 1}
"""A problem is kept only if at least this many correct references survive the round."""
MAX_CORRECT_LOST = 0.25
"""A problem is kept only if at most this share of its correct references was lost."""
MAX_FALSE_POSITIVE_RATE = 0.05
"""Correctness round: the original incorrect solutions' false-positive rate must be below this."""
MIN_ROBUST_CV = 0.3
"""A problem is duration- (or length-) filterable when its robust CV is at least this."""

RemovalReason = Literal["timeout", "failure"]
Split = Literal["train", "heldout"]


# --- test level -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TestOutcomes:
    """One test's verdicts over the conclusive runs of the problem's correct references.

    ``failures`` counts runtime errors, wrong answers, memory and output limits: every failing
    verdict except a timeout, which ``timeouts`` counts.
    """

    __test__ = False  # a data class, not a pytest test class

    test_id: str
    generated: bool
    runs: int
    timeouts: int
    failures: int

    def __post_init__(self) -> None:
        if min(self.runs, self.timeouts, self.failures) < 0:
            raise UsageError(f"test {self.test_id}: negative counts in {self}")
        if self.timeouts + self.failures > self.runs:
            raise UsageError(
                f"test {self.test_id}: {self.timeouts} timeouts + {self.failures} failures "
                f"exceed its {self.runs} runs"
            )

    @property
    def timeout_share(self) -> float:
        """Share of the runs that timed out (0.0 with no runs: no data is no evidence)."""
        return float(_share(self.timeouts, self.runs))

    @property
    def failure_share(self) -> float:
        """Share of the runs that raised or answered wrong (0.0 with no runs)."""
        return float(_share(self.failures, self.runs))


@dataclass(frozen=True)
class Removal:
    """A generated test over a threshold: removed, or spared because the cap was reached."""

    test_id: str
    reason: RemovalReason
    share: float
    """The share of correct references that timed out (``timeout``) or failed (``failure``)."""


@dataclass(frozen=True)
class FilterResult:
    """What one filter round keeps and removes."""

    kept: list[str]
    """Test ids in input order (original tests always among them)."""
    removed: list[Removal]
    """In removal order: the timeout removals worst first, then the failure removals."""
    spared: list[Removal]
    """Over a threshold but kept because a cap was reached (worst first per reason)."""


def filter_tests(outcomes: Sequence[TestOutcomes], round: Round) -> FilterResult:
    """Apply one round's timeout rule, then its failure rule, to the generated tests.

    Worst first means the larger share first; equal shares keep the input order. Original
    tests (``generated=False``) are never removed and do not count in the caps' denominators.
    A test spared by the timeout cap may still be removed by the failure rule; ``spared``
    lists only tests that are kept.
    """
    generated = [o for o in outcomes if o.generated]
    by_timeouts = _over_threshold(generated, "timeout", TIMEOUT_SHARE[round])
    timeout_removed, timeout_spared = _apply_cap(by_timeouts, TIMEOUT_CAP, len(generated))
    gone = {r.test_id for r in timeout_removed}
    left = [o for o in generated if o.test_id not in gone]
    by_failures = _over_threshold(left, "failure", FAILURE_SHARE)
    failure_removed, failure_spared = _apply_cap(by_failures, FAILURE_CAP, len(left))
    gone |= {r.test_id for r in failure_removed}
    return FilterResult(
        kept=[o.test_id for o in outcomes if o.test_id not in gone],
        removed=timeout_removed + failure_removed,
        spared=[r for r in timeout_spared + failure_spared if r.test_id not in gone],
    )


def _over_threshold(
    outcomes: Sequence[TestOutcomes], reason: RemovalReason, threshold: float
) -> list[Removal]:
    """The tests whose share for ``reason`` exceeds ``threshold``, worst first (stable)."""

    def count(o: TestOutcomes) -> int:
        return o.timeouts if reason == "timeout" else o.failures

    over = [o for o in outcomes if _share(count(o), o.runs) > _exact(threshold)]
    over.sort(key=lambda o: _share(count(o), o.runs), reverse=True)  # sort is stable
    return [Removal(o.test_id, reason, float(_share(count(o), o.runs))) for o in over]


def _apply_cap(
    candidates: list[Removal], cap: float, denominator: int
) -> tuple[list[Removal], list[Removal]]:
    """Split worst-first candidates into (removed, spared) under floor(cap * denominator)."""
    allowed = math.floor(_exact(cap) * denominator)
    return candidates[:allowed], candidates[allowed:]


# --- solution level -------------------------------------------------------------------------


@dataclass(frozen=True)
class SolutionOutcome:
    """One labelled solution and the test ids it did not pass (any failing verdict)."""

    name: str
    label: ReferenceLabel
    failed: frozenset[str]


@dataclass(frozen=True)
class SolutionLevel:
    """The solutions' standing on the kept tests (names in input order)."""

    kept_correct: list[str]
    dropped_correct: list[str]
    """Correct solutions that fail a kept test: dropped from the references and counted."""
    false_positives: list[str]
    """Incorrect solutions that pass every kept test."""
    caught: list[str]
    """Incorrect solutions that fail at least one kept test."""
    false_positive_rate: float | None
    """len(false_positives) / incorrect solutions; None when there are no incorrect ones."""


def solution_level(
    solutions: Sequence[SolutionOutcome], kept_tests: Collection[str]
) -> SolutionLevel:
    """Sort the solutions by whether they fail any kept test (failing a removed one is moot)."""
    kept = set(kept_tests)
    correct = [s for s in solutions if s.label is ReferenceLabel.CORRECT]
    incorrect = [s for s in solutions if s.label is ReferenceLabel.INCORRECT]
    return SolutionLevel(
        kept_correct=[s.name for s in correct if not s.failed & kept],
        dropped_correct=[s.name for s in correct if s.failed & kept],
        false_positives=[s.name for s in incorrect if not s.failed & kept],
        caught=[s.name for s in incorrect if s.failed & kept],
        false_positive_rate=false_positive_rate(solutions, kept),
    )


def false_positive_rate(
    solutions: Sequence[SolutionOutcome], tests: Collection[str]
) -> float | None:
    """Share of the incorrect solutions that pass every one of ``tests`` (None: none exist).

    Measured on the original tests before the build and on the kept tests after it.
    """
    wanted = set(tests)
    incorrect = [s for s in solutions if s.label is ReferenceLabel.INCORRECT]
    if not incorrect:
        return None
    return sum(1 for s in incorrect if not s.failed & wanted) / len(incorrect)


# --- problem level --------------------------------------------------------------------------


@dataclass(frozen=True)
class KeepDecision:
    """Whether a problem is kept, and one short sentence per rule it breaks."""

    keep: bool
    reasons: list[str]


def keep_problem(
    round: Round,
    *,
    correct_before: int,
    correct_after: int,
    false_positive_rate: float | None,
) -> KeepDecision:
    """Apply the problem-level keep rules after one round.

    ``correct_before``: verified correct references entering the round; ``correct_after``:
    those still passing every kept test. The lost-references and false-positive rules apply
    only in the correctness round (spec §9 marks them so): the optimization round allows up
    to 90% of the references to time out on a test, and a slow correct reference that does
    is not lost, only not timed; there, at least one must pass every kept test. None (no
    incorrect solutions to measure) does not break the false-positive rule.
    """
    if correct_before < 0 or not 0 <= correct_after <= correct_before:
        raise UsageError(
            f"correct references after the round ({correct_after}) must be between 0 and "
            f"those before it ({correct_before})"
        )
    reasons = [_survivors_rule(round, correct_after)]
    if round is Round.CORRECTNESS:
        reasons.append(_lost_rule(correct_before, correct_after))
        reasons.append(_false_positive_rule(false_positive_rate))
    broken = [r for r in reasons if r is not None]
    return KeepDecision(keep=not broken, reasons=broken)


def _survivors_rule(round: Round, correct_after: int) -> str | None:
    needed = MIN_CORRECT[round]
    if correct_after >= needed:
        return None
    return (
        f"{correct_after} correct reference(s) survive the {round} round; at least {needed} needed"
    )


def _lost_rule(correct_before: int, correct_after: int) -> str | None:
    lost = correct_before - correct_after
    if _share(lost, correct_before) <= _exact(MAX_CORRECT_LOST):
        return None
    return (
        f"{lost} of {correct_before} correct references lost ({lost / correct_before:.1%}); "
        f"at most {MAX_CORRECT_LOST:.0%} may be"
    )


def _false_positive_rule(rate: float | None) -> str | None:
    if rate is None or rate < MAX_FALSE_POSITIVE_RATE:
        return None
    return (
        f"false-positive rate of the original incorrect solutions is {rate:.1%}; "
        f"must be below {MAX_FALSE_POSITIVE_RATE:.0%}"
    )


# --- filterability --------------------------------------------------------------------------


def robust_cv(values: Sequence[float]) -> float:
    """IQR / median with numpy's linear percentiles; nan for < 2 values or a median <= 0.

    Robust to a few outlying tests, unlike std / mean.
    """
    if len(values) < 2:
        return math.nan
    p25, median, p75 = np.percentile(np.asarray(values, dtype=float), [25, 50, 75])
    if median <= 0:
        return math.nan
    return float((p75 - p25) / median)


def duration_filterable(per_test_mean_durations: Sequence[float]) -> tuple[float, bool]:
    """(robust CV, CV >= MIN_ROBUST_CV) over the per-test mean reference durations.

    A problem whose tests barely differ in duration cannot rank solutions by speed.
    """
    return _filterable(robust_cv(per_test_mean_durations))


def length_filterable(code_lengths: Sequence[int]) -> tuple[float, bool]:
    """The same rule on the kept correct references' lengths in characters (as written:
    comments and blank lines are not removed)."""
    return _filterable(robust_cv([float(n) for n in code_lengths]))


def _filterable(cv: float) -> tuple[float, bool]:
    return cv, bool(cv >= MIN_ROBUST_CV)  # nan compares False: not filterable


# --- train / held-out split -----------------------------------------------------------------


def split_problems(
    problem_ids: Sequence[str], *, heldout_share: float, seed: int
) -> dict[str, Split]:
    """Map each problem id to "train" or "heldout", deterministically.

    Ids are ordered by sha256(f"{seed}:{id}") and the first round(heldout_share * n) (Python's
    round: halves to even) are held out, so the split depends on the set of ids and the seed,
    not on their order. Adding a problem moves at most one other problem across the line.
    """
    if not 0.0 <= heldout_share <= 1.0:
        raise UsageError(f"heldout share {heldout_share} must be between 0 and 1")
    unique = set(problem_ids)
    if len(unique) != len(problem_ids):
        raise UsageError("problem ids must be unique to split them")
    ordered = sorted(unique, key=lambda pid: _split_key(pid, seed))
    heldout = set(ordered[: round(heldout_share * len(ordered))])
    return {pid: "heldout" if pid in heldout else "train" for pid in problem_ids}


def _split_key(problem_id: str, seed: int) -> str:
    return hashlib.sha256(f"{seed}:{problem_id}".encode()).hexdigest()


# --- exact arithmetic -----------------------------------------------------------------------


def _share(count: int, total: int) -> Fraction:
    """count / total as an exact fraction; 0 when total is 0."""
    return Fraction(count, total) if total else Fraction(0)


def _exact(rate: float) -> Fraction:
    """A rate constant as the decimal it is written as (0.3 -> 3/10, not the nearest double)."""
    return Fraction(str(rate))
