"""Solver-verified rewards (spec solver-rewards.md): format, execution, accuracy, bonus.

Stage 1 is ``format + execution + accuracy``:

- format: ``format_weight × 1[tags well formed]`` (binary) or ``format_weight × graded``
  with ``graded = max(0, 2 − penalties)`` (see :mod:`execrl.rewards.solver.parsing`);
- execution: ``execution_weight`` when the code ran to completion without error;
- accuracy: ``accuracy_weight`` when the reported result matches the ground truth within the
  tolerance (a status ground truth must be reported as that status).

Stage 2 adds ``bonus`` when the answer is correct **and** the model file shows advanced
modelling (binary variables, general integers with big-M style constraints, or non-linear
terms). Presets: ``paper`` (binary format 0.5, execution 1, accuracy 2, ``|y − y*| ≤ 0.01``:
stage 1 in [0, 3.5]) and ``authors`` (graded format × 0.5, execution 1, accuracy 1,
``|y − y*| / (|y| + 1) < 1e-6``: stage 1 in [0, 3]).

A reward is ``None`` when the run was inconclusive (the sandbox failed, not the program),
and by default also when the code needs a solver this machine lacks or whose licence is too
small for the model (verdict ``solver_unavailable``, an infrastructure failure: see
``unavailable_solver``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from execrl.errors import ConfigError, UsageError, describe_validation_error
from execrl.problems.optim import STATUSES, Answer, parse_answer
from execrl.rewards.solver.answers import ANSWER_CONVENTIONS, DEFAULT_CONVENTION
from execrl.rewards.solver.execution import (
    RunStatus,
    SolverRun,
    iter_solver_runs,
)
from execrl.rewards.solver.lpfile import DEFAULT_BIG_M_RATIO, ModelFeatures
from execrl.rewards.solver.parsing import ParsedResponse, parse_response
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Executor


class Tolerance(BaseModel):
    """When a reported objective ``y`` matches the ground truth ``y*``.

    - ``absolute``: ``|y − y*| ≤ value`` (the paper's reward, value 0.01);
    - ``relative``: ``|y − y*| / |y*| < value`` (evaluation, 1e-6); for ``y* = 0`` the
      denominator is 1, i.e. ``|y| < value``;
    - ``authors``: ``|y − y*| / (|y| + 1) < value`` (the authors' code, 1e-6), as the spec
      writes it, with the reported ``y`` in the denominator;
    - ``rounded_relative``: ORLM's rule, both values rounded to integers first, then
      ``|round(y) − round(y*)| / |round(y*)| < value`` (ORLM: 0.05); for ``round(y*) = 0``
      the denominator is 1.

    The named presets (:data:`TOLERANCE_PRESETS`) say which published number each reproduces.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: Literal["absolute", "relative", "authors", "rounded_relative"] = "absolute"
    value: float = Field(default=0.01, gt=0, allow_inf_nan=False)

    @property
    def name(self) -> str:
        return f"{self.rule}({self.value:g})"

    def close(self, y: float, y_star: float) -> bool:
        """Whether ``y`` (reported) matches ``y_star`` (ground truth)."""
        if math.isnan(y) or math.isnan(y_star):
            return False
        if math.isinf(y) or math.isinf(y_star):
            return y == y_star
        if self.rule == "rounded_relative":
            y, y_star = float(round(y)), float(round(y_star))
            return abs(y - y_star) / (abs(y_star) if y_star != 0 else 1.0) < self.value
        error = abs(y - y_star)
        if self.rule == "absolute":
            return error <= self.value
        if self.rule == "relative":
            return error / (abs(y_star) if y_star != 0 else 1.0) < self.value
        return error / (abs(y) + 1.0) < self.value

    def matches(self, reported: Answer | None, truth: Answer) -> bool:
        """A reported answer against a ground truth (float or status)."""
        if reported is None:
            return False
        if isinstance(truth, str) or isinstance(reported, str):
            return reported == truth
        return self.close(float(reported), float(truth))


ABSOLUTE = Tolerance(rule="absolute", value=0.01)
RELATIVE = Tolerance(rule="relative", value=1e-6)
AUTHORS = Tolerance(rule="authors", value=1e-6)
ORLM = Tolerance(rule="rounded_relative", value=0.05)

TOLERANCE_PRESETS: dict[str, Tolerance] = {
    "paper-reward": ABSOLUTE,
    "strict-relative": RELATIVE,
    "authors-code": AUTHORS,
    "orlm-rounded-5pct": ORLM,
}
"""Named tolerances: ``paper-reward`` (|y − y*| ≤ 0.01, the spec's reward), ``strict-relative``
(relative error < 1e-6, the spec's evaluation: SIRL's published pass@1), ``authors-code``
(|y − y*| / (|y| + 1) < 1e-6) and ``orlm-rounded-5pct`` (ORLM's published accuracies: rounded
to integers, relative error < 5%). A number computed under one is not comparable with one
computed under another."""


def tolerance_preset(name: str) -> Tolerance:
    """A named tolerance (:data:`TOLERANCE_PRESETS`)."""
    if name not in TOLERANCE_PRESETS:
        raise UsageError(
            f"unknown tolerance preset {name!r}; use one of: {', '.join(TOLERANCE_PRESETS)}"
        )
    return TOLERANCE_PRESETS[name]


class SolverRewardConfig(BaseModel):
    """One solver reward: weights of its terms, tolerance, stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["binary", "graded"] = "binary"
    format_weight: float = Field(default=0.5, ge=0, allow_inf_nan=False)
    """Binary: the format term is this or 0. Graded: this × (2 − penalties) (so 0.5 → [0, 1])."""
    execution_weight: float = Field(default=1.0, ge=0, allow_inf_nan=False)
    accuracy_weight: float = Field(default=2.0, ge=0, allow_inf_nan=False)
    tolerance: Tolerance = ABSOLUTE
    stage: Literal[1, 2] = 1
    """1: format + execution + accuracy. 2: plus the advanced-modelling bonus."""
    bonus: float = Field(default=1.0, ge=0, allow_inf_nan=False)
    big_m_ratio: float = Field(default=DEFAULT_BIG_M_RATIO, gt=1, allow_inf_nan=False)
    """How much larger an integer variable's coefficient must be than the rest of its row for
    the row to count as big-M style."""
    unavailable_solver: Literal["skip", "fail"] = "skip"
    """Code needing a solver this machine lacks, or whose licence is too small for the model
    (verdict ``solver_unavailable``): ``skip`` (default) returns None, no reward, as for an
    inconclusive run; ``fail`` scores it as code that does not run (the format term alone;
    the verdict stays ``solver_unavailable``). Opt in to ``fail`` only when the policy should
    learn to avoid that solver."""
    answers: str = DEFAULT_CONVENTION
    """How the program's printed answer is read: an answer convention's name (``execrl``,
    ``sirl``, ``orlm``, ``marker``; :data:`execrl.rewards.solver.answers.ANSWER_CONVENTIONS`)."""

    @field_validator("answers")
    @classmethod
    def _known_convention(cls, name: str) -> str:
        if name not in ANSWER_CONVENTIONS:
            raise ValueError(
                f"unknown answer convention {name!r}; use one of: {', '.join(ANSWER_CONVENTIONS)}"
            )
        return name

    @property
    def max_format(self) -> float:
        return self.format_weight * (2.0 if self.format == "graded" else 1.0)

    @property
    def max_stage1(self) -> float:
        """The largest stage-1 reward (3.5 for ``paper``, 3 for ``authors``)."""
        return self.max_format + self.execution_weight + self.accuracy_weight

    @property
    def max_reward(self) -> float:
        return self.max_stage1 + (self.bonus if self.stage == 2 else 0.0)


SOLVER_PRESETS: dict[str, SolverRewardConfig] = {
    "paper": SolverRewardConfig(),
    "authors": SolverRewardConfig(format="graded", accuracy_weight=1.0, tolerance=AUTHORS),
}
"""The two named presets of the spec."""

SolverRewardSpec = str | Mapping[str, Any] | SolverRewardConfig


def solver_reward_config(spec: SolverRewardSpec = "paper", **overrides: Any) -> SolverRewardConfig:
    """A config from a preset name, a mapping (``{"preset": "authors", "stage": 2}`` or plain
    fields) or a config; keyword overrides apply last (``stage=2``)."""
    if isinstance(spec, SolverRewardConfig):
        base, fields = spec, {}
    elif isinstance(spec, str):
        base, fields = _preset(spec), {}
    elif isinstance(spec, Mapping):
        fields = dict(spec)
        base = _preset(str(fields.pop("preset", "paper")))
    else:
        raise ConfigError(f"a solver reward is a preset name, a mapping or a config, not {spec!r}")
    fields.update(overrides)
    if not fields:
        return base
    try:
        return SolverRewardConfig.model_validate({**base.model_dump(), **fields})
    except ValidationError as exc:
        raise ConfigError(f"solver reward: {describe_validation_error(exc)}") from exc


def _preset(name: str) -> SolverRewardConfig:
    if name not in SOLVER_PRESETS:
        raise ConfigError(
            f"unknown solver reward preset {name!r}; use one of: {', '.join(SOLVER_PRESETS)}"
        )
    return SOLVER_PRESETS[name]


class Verdict(StrEnum):
    """The evaluation categories of the spec, plus ``inconclusive`` (not the program's fault)."""

    CORRECT = "correct"
    WRONG_ANSWER = "wrong_answer"
    EXECUTION_ERROR = "execution_error"
    """The code failed (error, memory or output limit) or ran but reported neither an
    objective nor a status."""
    TIMEOUT = "timeout"
    EXTRACTION_FAILED = "extraction_failed"
    SOLVER_UNAVAILABLE = "solver_unavailable"
    """The code needs a solver that is not installed here, or whose licence is too small for
    the model: an infrastructure failure, not a verdict on the code."""
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class SolverScore:
    """One response's reward, its terms, and what they came from."""

    reward: float | None
    format_score: float
    execution_score: float
    accuracy_score: float
    bonus_score: float
    verdict: Verdict
    parsed: ParsedResponse
    run: SolverRun
    features: ModelFeatures | None
    """The model file's features (None without a readable model.lp)."""

    @property
    def correct(self) -> bool:
        return self.verdict is Verdict.CORRECT

    @property
    def stage1(self) -> float:
        return self.format_score + self.execution_score + self.accuracy_score

    def to_dict(self) -> dict[str, Any]:
        return {
            "reward": self.reward,
            "format": self.format_score,
            "execution": self.execution_score,
            "accuracy": self.accuracy_score,
            "bonus": self.bonus_score,
            "verdict": self.verdict.value,
            "answer": self.run.answer,
            "run_status": self.run.status.value,
            "detail": self.run.detail,
            "format_errors": self.parsed.format_errors,
            "features": self.features.model_dump() if self.features else None,
        }


def verdict_of(run: SolverRun, truth: Answer, tolerance: Tolerance) -> Verdict:
    """The evaluation category of one run against its ground truth."""
    if run.status is RunStatus.INCONCLUSIVE:
        return Verdict.INCONCLUSIVE
    if run.status is RunStatus.SOLVER_UNAVAILABLE:
        return Verdict.SOLVER_UNAVAILABLE
    if run.status is RunStatus.NO_CODE:
        return Verdict.EXTRACTION_FAILED
    if run.status is RunStatus.TIMEOUT:
        return Verdict.TIMEOUT
    if not run.completed or run.answer is None:
        return Verdict.EXECUTION_ERROR
    return Verdict.CORRECT if tolerance.matches(run.answer, truth) else Verdict.WRONG_ANSWER


def solver_reward(
    parsed: ParsedResponse, run: SolverRun, truth: Answer, config: SolverRewardConfig
) -> SolverScore:
    """The reward of one parsed response whose code produced ``run`` (a pure function)."""
    verdict = verdict_of(run, truth, config.tolerance)
    features = run.read_model_features(big_m_ratio=config.big_m_ratio) if run.lp_text else None
    raw_format = parsed.graded_format if config.format == "graded" else parsed.binary_format
    format_score = config.format_weight * raw_format
    execution = config.execution_weight if run.completed else 0.0
    accuracy = config.accuracy_weight if verdict is Verdict.CORRECT else 0.0
    advanced = features is not None and features.advanced
    bonus = config.bonus if config.stage == 2 and verdict is Verdict.CORRECT and advanced else 0.0
    unavailable = verdict is Verdict.SOLVER_UNAVAILABLE
    if verdict is Verdict.INCONCLUSIVE or (unavailable and config.unavailable_solver == "skip"):
        reward = None
    else:
        reward = format_score + execution + accuracy + bonus
    return SolverScore(
        reward=reward,
        format_score=format_score,
        execution_score=execution,
        accuracy_score=accuracy,
        bonus_score=bonus,
        verdict=verdict,
        parsed=parsed,
        run=run,
        features=features,
    )


def score_solver_responses(
    responses: Sequence[str],
    answers: Sequence[Answer | str | float],
    *,
    reward: SolverRewardSpec = "paper",
    executor: Executor,
    limits: Limits | None = None,
    progress: bool = False,
) -> list[SolverScore]:
    """Parse, run (all programs at once on the pool) and score responses, in order.

    ``answers`` are ground truths, one per response (numbers, numeric strings or statuses).
    ``executor`` runs the programs: a pool whose sandboxes import the solvers
    (:func:`execrl.rewards.solver.solver_executor`, or a server started with ``--solvers``)."""
    return list(
        iter_solver_scores(
            responses,
            answers,
            reward=reward,
            executor=executor,
            limits=limits,
            progress=progress,
        )
    )


def iter_solver_scores(
    responses: Sequence[str],
    answers: Sequence[Answer | str | float],
    *,
    reward: SolverRewardSpec = "paper",
    executor: Executor,
    limits: Limits | None = None,
    progress: bool = False,
) -> Iterator[SolverScore]:
    """:func:`score_solver_responses` as a stream: each score in order, as soon as its run
    (and the ones before it) finished. The arguments are checked before anything runs."""
    if isinstance(responses, str) or isinstance(answers, str):
        raise UsageError("responses and answers are lists, one answer per response")
    if len(responses) != len(answers):
        raise UsageError(
            f"{len(responses)} responses but {len(answers)} answers; pass one answer each"
        )
    for i, response in enumerate(responses):
        if not isinstance(response, str):
            raise UsageError(f"response {i}: expected a string, got {type(response).__name__}")
    config = solver_reward_config(reward)
    truths = [_truth(a, i) for i, a in enumerate(answers)]
    parsed = [parse_response(r) for r in responses]
    return _scores(parsed, truths, config, executor=executor, limits=limits, progress=progress)


def _scores(
    parsed: list[ParsedResponse],
    truths: list[Answer],
    config: SolverRewardConfig,
    **run: Any,
) -> Iterator[SolverScore]:
    runs = iter_solver_runs([p.code for p in parsed], answers=config.answers, **run)
    for p, solved, truth in zip(parsed, runs, truths, strict=True):
        yield solver_reward(p, solved, truth, config)


def score_solver_response(
    response: str,
    answer: Answer | str | float,
    *,
    reward: SolverRewardSpec = "paper",
    executor: Executor,
    limits: Limits | None = None,
) -> SolverScore:
    """One response (see :func:`score_solver_responses`)."""
    (scored,) = score_solver_responses(
        [response], [answer], reward=reward, executor=executor, limits=limits
    )
    return scored


def _truth(answer: Answer | str | float, index: int) -> Answer:
    if isinstance(answer, str) and answer in STATUSES:
        return answer  # type: ignore[return-value]
    return parse_answer(answer, where=f"answer {index}")
