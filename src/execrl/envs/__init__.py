"""Optimization-RL environments (spec §2): pre-execution filters, intra-execution limits and
post-execution rankings that turn an ExecutionRecord into the four signals of an Outcome."""

from execrl.envs.environment import Environment, EnvironmentConfig, Plan
from execrl.envs.operators import (
    AbsoluteFilter,
    AbsoluteLimit,
    CapLimit,
    IdentityFilter,
    LengthFilter,
    RankedReferenceLimit,
    RelativeFilter,
    RelativeLimit,
    qar,
    qp,
)
from execrl.envs.outcome import Outcome, TestOutcome, Verdict
from execrl.envs.presets import PRESETS, environment

__all__ = [
    "PRESETS",
    "AbsoluteFilter",
    "AbsoluteLimit",
    "CapLimit",
    "Environment",
    "EnvironmentConfig",
    "IdentityFilter",
    "LengthFilter",
    "Outcome",
    "Plan",
    "RankedReferenceLimit",
    "RelativeFilter",
    "RelativeLimit",
    "TestOutcome",
    "Verdict",
    "environment",
    "qar",
    "qp",
]
