"""Reward compositions (spec §4): how the four signals of an Outcome become one number.

Every reward lies in [−1, 1]. A reward is a small frozen object, called on an Outcome:
``reward(outcome, group_index=0) -> float | None``; ``None`` means the outcome is
inconclusive (the sandbox failed, not the program) and must not be turned into a number —
TRL treats ``None`` as "no reward for this sample", and so should any trainer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from execrl.envs.outcome import Outcome, TestOutcome, Verdict
from execrl.errors import ExecrlError
from execrl.rewards.maps import MAPS, signed

Composition = Literal[
    "correctness", "optimization", "collapsed", "two_gate", "additive", "multitask"
]


class Reward(BaseModel):
    """A composition of spec §4 with its signal type and quality map.

    - ``correctness``: ``s(c_cor)``.
    - ``optimization``: ``s(g)`` (binary) or ``s(m(q))`` (graded); no correctness gate.
    - ``collapsed``: ``s(c̃·g)`` or ``s(c̃·m(q))``.
    - ``two_gate``: ``−1`` if ``c̃ = 0``, else ``g`` or ``m(q)`` — correct code lands in [0, 1].
    - ``additive``: ``½·s(c_cor) + ½·s(g or m(q))`` (fast-but-wrong code earns partial credit).
    - ``multitask``: correctness-only on even rollout groups, optimization-only on odd ones
      **[ours]** (pass ``group_index``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    composition: Composition = "collapsed"
    signal: Literal["binary", "graded"] = "binary"
    map: Literal["linear", "bucket", "range_third", "range_half"] = "bucket"

    @property
    def name(self) -> str:
        if self.composition == "correctness":
            return "correctness"
        return f"{self.composition}({self.signal}" + (
            f", map={self.map})" if self.signal == "graded" else ")"
        )

    def speed(self, outcome: Outcome) -> float:
        """The optimization term in [0, 1]: g (binary) or m(q) (graded)."""
        if self.signal == "binary":
            return float(outcome.g)
        return MAPS[self.map](outcome.q)

    def __call__(self, outcome: Outcome, group_index: int = 0) -> float | None:
        if outcome.inconclusive:
            return None
        kind = self.composition
        if kind == "multitask":
            kind = "correctness" if group_index % 2 == 0 else "optimization"
        if kind == "correctness":
            return signed(outcome.c_cor)
        if kind == "optimization":
            return signed(self.speed(outcome))
        if kind == "collapsed":
            return signed(outcome.c_strict * self.speed(outcome))
        if kind == "two_gate":
            return -1.0 if not outcome.c_strict else self.speed(outcome)
        # additive
        return 0.5 * signed(outcome.c_cor) + 0.5 * signed(self.speed(outcome))


class NaiveReward(BaseModel):
    """The naive raw-duration baseline (spec §4): ``R = c_cor + m(d̄) − 1`` with ``d̄`` the
    mean duration over the correctness tests (``over="correctness"``) or the optimization
    tests, timeouts / missing / non-positive durations replaced by the cap (10 s in the
    source), and ``m_lin = clip(1 − d̄/cap, 0, 1)`` or
    ``m_log = clip((1 − log10(max(d̄, 1e−6)))/3, 0, 1)``. No tests in the chosen set: no
    speed credit, ``m = 0`` **[ours]**. Under a counted timing ``d̄`` and the cap are counts;
    ``m_log``'s scale is seconds, so it reads ``d̄`` at the environment's count rate
    (``Outcome.seconds_per_unit``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    map: Literal["linear", "log"] = "linear"
    over: Literal["correctness", "optimization"] = "optimization"

    @property
    def name(self) -> str:
        return f"naive(map={self.map}, over={self.over})"

    def mean_duration(self, outcome: Outcome) -> float | None:
        tests = (
            outcome.correctness_tests if self.over == "correctness" else outcome.optimization_tests
        )
        if not tests:
            return None
        return sum(_naive_duration(t, outcome.cap_s) for t in tests) / len(tests)

    def __call__(self, outcome: Outcome, group_index: int = 0) -> float | None:
        if outcome.inconclusive:
            return None
        d_bar = self.mean_duration(outcome)
        if d_bar is None:
            m = 0.0
        elif self.map == "linear":
            m = min(1.0, max(0.0, 1.0 - d_bar / outcome.cap_s))
        else:
            seconds = d_bar * outcome.seconds_per_unit  # (a count, back on the scale of s)
            m = min(1.0, max(0.0, (1.0 - math.log10(max(seconds, 1e-6))) / 3.0))
        return outcome.c_cor + m - 1.0


def _naive_duration(test: TestOutcome, cap_s: float) -> float:
    d = test.duration_s
    if test.verdict is Verdict.TIMEOUT or d is None or not d > 0:
        return cap_s
    return min(d, cap_s)


RewardFn = Reward | NaiveReward


def _composition(composition: str) -> Callable[..., Reward]:
    def make(signal: str = "binary", map: str = "bucket") -> Reward:
        return Reward(composition=composition, signal=signal, map=map)

    formulas = {
        "optimization": "s(g) or s(m(q)), no correctness gate",
        "collapsed": "s(c̃·g) or s(c̃·m(q))",
        "two_gate": "−1 if c̃ = 0, else g or m(q)",
        "additive": "½·s(c_cor) + ½·s(g or m(q))",
        "multitask": "correctness-only on even groups, optimization-only on odd ones",
    }
    make.__doc__ = (
        f"{composition}: {formulas[composition]}; signal binary|graded, map "
        "linear|bucket|range_third|range_half (graded)."
    )
    return make


def _correctness() -> Reward:
    """Correctness only: s(c_cor)."""
    return Reward(composition="correctness")


def _naive(map: str = "linear", over: str = "optimization") -> NaiveReward:
    """Naive raw-duration baseline: c_cor + m(d̄) − 1, map linear|log, over
    correctness|optimization tests."""
    return NaiveReward(map=map, over=over)


REWARDS: dict[str, Callable[..., RewardFn]] = {
    "correctness": _correctness,
    "optimization": _composition("optimization"),
    "collapsed": _composition("collapsed"),
    "two_gate": _composition("two_gate"),
    "additive": _composition("additive"),
    "multitask": _composition("multitask"),
    "naive": _naive,
}
"""Every composition of spec §4 by name; ``reward("collapsed(graded, map=linear)")``."""


def reward(spec: str | dict | RewardFn) -> RewardFn:
    """A reward from ``"collapsed"``, ``"two_gate(graded, map=bucket)"``,
    ``"naive(map=log)"``, a mapping ``{"composition": ..., ...}`` / ``{"preset": name, ...}``,
    or a reward object."""
    from execrl.envs.presets import call_preset, parse_call

    if isinstance(spec, Reward | NaiveReward):
        return spec
    if isinstance(spec, str):
        name, args, kwargs = parse_call(spec)
        return call_preset(REWARDS, "reward", name, args, kwargs)
    if not isinstance(spec, Mapping):
        raise ExecrlError(f"cannot build a reward from {spec!r}: give a name or a mapping")
    spec = dict(spec)
    name = spec.pop("preset", None) or spec.pop("composition", None)
    if name is None:
        raise ExecrlError("a reward mapping needs 'composition' (or 'preset')")
    return call_preset(REWARDS, "reward", name, [], spec)


__all__ = ["REWARDS", "NaiveReward", "Reward", "RewardFn", "reward"]
