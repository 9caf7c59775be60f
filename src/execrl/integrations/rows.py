"""A dataset row and a completion → an execrl problem and a reward: the one way every trainer
adapter (verl, OpenRLHF, SkyRL, verifiers, tinker-cookbook) does it.

A row carries a **label** (verl's ``ground_truth``, OpenRLHF's label column, SkyRL's
``reward_spec.ground_truth``, verifiers' ``answer``/``info``): a JSON string or a mapping, in
one of these forms (:func:`resolve_row`):

- a reference ``{"problem_id", "problem_source"?, "env"?, "reward"?, "language"?}``: the
  problem is loaded from ``problem_source`` (else ``$EXECRL_PROBLEMS``, else the bundled set);
- an inline problem ``{"problem": {...}, "env"?, "reward"?, "language"?}``: the tests travel
  in the label, as one row of execrl's problem JSONL (:func:`row_label` with ``inline=True``);
- inline tests as other people's datasets carry them: APPS/TACO/verl ``prime_code``
  ``{"inputs", "outputs", "fn_name"?}``, or rllm/DeepCoder/LiveCodeBench ``{"tests": [...]}``
  (read as the loaders read those datasets, :mod:`execrl.problems.verl_rows`);
- a solver answer ``{"answer": 42.0 | "infeasible" | "unbounded", "reward"?}`` (the
  solver-verified reward, docs/solver-rewards.md).

A per-row ``info`` mapping (verl's ``extra_info``) overrides the label's ``env``, ``reward``,
``language`` and ``problem_source``; ``defaults`` (the adapter's keywords) come after both.

Scoring (:func:`score_rows`, :func:`ascore_row`) returns a :class:`RowScore`: the reward, or
``None`` when the sandbox and not the program failed (**inconclusive**: never scored as 0.0
silently — each adapter records it as such), and the metrics every adapter logs
(:data:`SCORE_KEYS` for code rows, :data:`SOLVER_SCORE_KEYS` for solver rows).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execrl.envs.multiturn import FeedbackConfig, format_feedback
from execrl.envs.outcome import Verdict
from execrl.envs.presets import environment
from execrl.errors import ExecrlError, ExecutionError, LoaderError
from execrl.extract import extract_code
from execrl.problems.io import BUNDLED, load_problem, load_problems
from execrl.problems.models import Problem
from execrl.rewards.scoring import Group, Scored, rescore, score_batch
from execrl.sandbox.languages import language as find_language

if TYPE_CHECKING:
    from execrl.sandbox.protocol import Executor
    from execrl.sandbox.records import ExecutionRecord

PROBLEMS_ENV_VAR = "EXECRL_PROBLEMS"
"""Environment variable naming the problem source when neither the label nor ``info`` does."""

DEFAULT_ENV = "mc"
DEFAULT_REWARD = "collapsed"
DEFAULT_SOLVER_REWARD = "paper"

DENSE_RAW = "dense_raw"
"""The reward name for one attempt's dense partial-success reward: spec/dense-rewards.md's
``R_turn = Σ_j w_j · p_j`` with the raw-pass-rate weights ``w_j = 1/|U|`` (the fraction of the
env's tests passed, in [0, 1]). The calibrated and difficulty weights need a group's pass
rates, which a per-rollout trainer (verifiers, SkyRL, OpenRLHF) does not give one reward
call."""

SCORE_KEYS = (
    "score",
    "c_cor",
    "c_strict",
    "g",
    "q",
    "timeout_fraction",
    "inconclusive",
    "tests_passed_fraction",
)
"""The metrics of a code row, all floats, the same set for every row (trainers stack each key
into a per-batch list). ``score`` is the reward, 0.0 when inconclusive."""

SOLVER_SCORE_KEYS = (
    "score",
    "format",
    "execution",
    "accuracy",
    "bonus",
    "correct",
    "inconclusive",
)
"""The metrics of a solver row, all floats. ``inconclusive`` is 1 (and ``score`` 0) when the
sandbox failed or the code needs a solver that is not installed or licensed here."""


@dataclass(frozen=True)
class Row:
    """One dataset row resolved: what the completion is scored on, and how."""

    problem: Problem | None
    """The problem (None for a solver row)."""
    env: Any = DEFAULT_ENV
    reward: Any = DEFAULT_REWARD
    language: str = "python"
    """execrl's name of the completion's language (``python``, ``cpp``, ``java``...)."""
    answer: Any = None
    """A solver row's ground truth (an objective value or a status); None for a code row."""

    @property
    def kind(self) -> str:
        return "code" if self.problem is not None else "solver"

    @property
    def key(self) -> str:
        """Rows of one key are scored in one call (same env and reward)."""
        return json.dumps([self.kind, self.env, self.reward], sort_keys=True, default=str)


@dataclass(frozen=True)
class RowScore:
    """A completion's reward on a row, with what it came from."""

    reward: float | None
    """None when the execution was inconclusive (the sandbox, a missing solver, the service
    failed — not the program)."""
    metrics: dict[str, float]
    """:data:`SCORE_KEYS` or :data:`SOLVER_SCORE_KEYS`, all floats."""
    status: str
    """The record's status (``success``, ``wrong_answer``, ``timeout``, ``runtime_error``,
    ``compile_error``, ``inconclusive``...) or the solver verdict."""
    detail: str = ""
    """Why it failed, one line (empty when it passed)."""
    program: str = ""
    record: ExecutionRecord | None = field(default=None, repr=False)

    @property
    def inconclusive(self) -> bool:
        return self.reward is None

    @property
    def value(self) -> float:
        """The reward as a number trainers can add: 0.0 when inconclusive (check
        :attr:`inconclusive` before using it as a verdict)."""
        return float(self.reward) if self.reward is not None else 0.0

    @property
    def passed(self) -> bool:
        return self.status in ("success", "correct")


# -- labels -----------------------------------------------------------------------------------
def parse_label(label: Any) -> dict[str, Any]:
    """A label as a dict: a mapping, a JSON object string, or (solver rows) a bare answer
    such as ``42`` or ``"infeasible"``."""
    if label is None or (isinstance(label, str) and not label.strip()):
        return {}  # the problem may come from ``info`` (verl's extra_info)
    if isinstance(label, Mapping):
        return dict(label)
    if isinstance(label, bool):
        raise ExecrlError(f"label {label!r} is not an execrl label")
    if isinstance(label, int | float):
        return {"answer": label}
    if isinstance(label, bytes | bytearray):
        label = label.decode("utf-8", errors="replace")
    if not isinstance(label, str):
        raise ExecrlError(f"label of type {type(label).__name__} is not an execrl label")
    try:
        parsed = json.loads(label)
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict):
        return parsed
    if isinstance(parsed, int | float) and not isinstance(parsed, bool):
        return {"answer": parsed}
    if label.strip().lower() in ("infeasible", "unbounded"):
        return {"answer": label.strip().lower()}
    raise ExecrlError(
        f"label {label[:80]!r} is not execrl's JSON; write the dataset with "
        "execrl.integrations.rows.row_label"
    )


def resolve_row(
    label: Any,
    info: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> Row:
    """The :class:`Row` a label describes (see the module's docstring for the forms), with
    ``info`` overriding the label and ``defaults`` after both. A problem that cannot be found
    or a malformed label raises :class:`~execrl.errors.ExecrlError` (never a silent 0.0).
    A label given as a string is resolved once per process (rows are kept by the SHA-256 of
    label, ``info`` and ``defaults``: an inline label is megabytes of JSON, and trainers build
    one environment or reward call per rollout)."""
    if not isinstance(label, str):
        return _resolve_row(label, info, defaults)
    key = hashlib.sha256(
        json.dumps([label, info, defaults], sort_keys=True, default=str).encode()
    ).hexdigest()
    with _CACHE_LOCK:
        if key in _ROWS:
            _ROWS.move_to_end(key)
            return _ROWS[key]
    row = _resolve_row(label, info, defaults)
    with _CACHE_LOCK:
        _ROWS[key] = row
        while len(_ROWS) > ROW_CACHE_SIZE:
            _ROWS.popitem(last=False)
    return row


def _resolve_row(
    label: Any, info: Mapping[str, Any] | None, defaults: Mapping[str, Any] | None
) -> Row:
    truth = parse_label(label)
    info = dict(info or {})
    defaults = dict(defaults or {})

    def pick(name: str, default: Any) -> Any:
        for place in (info, truth, defaults):
            if place.get(name) not in (None, ""):
                return place[name]
        return default

    if "answer" in truth and not _carries_tests(truth):
        from execrl.problems.optim import parse_answer

        reward = pick("reward", DEFAULT_SOLVER_REWARD)
        if "stage" in defaults and isinstance(reward, str):
            reward = {"preset": reward, "stage": defaults["stage"]}
        answer = parse_answer(truth["answer"], where="the label's answer")
        return Row(None, env=None, reward=reward, language="python", answer=answer)
    problem = _label_problem(truth, info)
    if not problem.tests:
        raise ExecrlError(
            f"the label's problem {problem.id!r} has no tests: every completion would pass; "
            "give the tests ('tests' in the problem, or 'inputs'/'outputs')"
        )
    return Row(
        problem,
        env=pick("env", DEFAULT_ENV),
        reward=pick("reward", DEFAULT_REWARD),
        language=find_language(str(pick("language", "python"))).name,
    )


def check_settings(env: Any = DEFAULT_ENV, reward: Any = DEFAULT_REWARD) -> None:
    """Fail now, with execrl's message, on an env or reward an adapter was configured with
    that execrl does not know (``dense_raw`` included), rather than at the first rollout."""
    from execrl.rewards import reward as build_reward

    environment(env)
    if reward != DENSE_RAW:
        build_reward(reward)


def row_label(
    problem: Problem,
    *,
    env: str | Mapping[str, Any] | None = None,
    reward: str | Mapping[str, Any] | None = None,
    language: str | None = None,
    problem_source: str | Path | None = None,
    inline: bool = False,
) -> dict[str, Any]:
    """The label of a row for ``problem`` (JSON-serialisable): a reference to it
    (``problem_id`` and ``problem_source`` when given), or with ``inline=True`` the whole
    problem, tests included, so the row needs no problem files at training time."""
    label: dict[str, Any] = {}
    if inline:
        label["problem"] = problem.model_dump(mode="json")
    else:
        label["problem_id"] = problem.id
        if problem_source is not None:
            label["problem_source"] = str(problem_source)
    for name, value in (("env", env), ("reward", reward)):
        if value is not None:
            label[name] = value if isinstance(value, str) else dict(value)
    if language is not None:
        label["language"] = find_language(language).name
    return label


def _carries_tests(truth: Mapping[str, Any]) -> bool:
    return any(key in truth for key in ("problem", "problem_id", "inputs", "tests"))


def _label_problem(truth: dict[str, Any], info: dict[str, Any]) -> Problem:
    if isinstance(truth.get("problem"), Mapping):
        return _inline_problem(dict(truth["problem"]))
    if "inputs" in truth or "tests" in truth:
        return _inline_problem(_tests_row(truth), foreign=True)
    problem_id = info.get("problem_id") or truth.get("problem_id")
    if not problem_id:
        raise ExecrlError(
            f"label {json.dumps(truth, default=str)[:120]} names no problem: give "
            "'problem_id', an inline 'problem', or the tests ('inputs'/'outputs' or 'tests')"
        )
    source = (
        info.get("problem_source")
        or truth.get("problem_source")
        or os.environ.get(PROBLEMS_ENV_VAR)
        or BUNDLED
    )
    return load_row_problem(str(source), str(problem_id))


def _tests_row(truth: dict[str, Any]) -> dict[str, Any]:
    """Inline tests in other people's forms, as the row their loader reads."""
    if "inputs" in truth:
        return {"kind": "verl", "row": {"reward_model": {"ground_truth": truth}}}
    return {"kind": "deepcoder", "row": truth}


INLINE_CACHE_SIZE = 256
"""Inline problems parsed per process, kept by the SHA-256 of their JSON (a label may carry
megabytes of tests: the cache keeps digests, not the texts)."""
ROW_CACHE_SIZE = 1024
"""String labels resolved per process (:func:`resolve_row`), kept by digest."""

_INLINE: collections.OrderedDict[str, Problem] = collections.OrderedDict()
_ROWS: collections.OrderedDict[str, Row] = collections.OrderedDict()
_CACHE_LOCK = threading.Lock()


def _inline_problem(data: dict[str, Any], *, foreign: bool = False) -> Problem:
    text = json.dumps([foreign, data], sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode()).hexdigest()
    with _CACHE_LOCK:
        if digest in _INLINE:
            _INLINE.move_to_end(digest)
            return _INLINE[digest]
    problem = _parse_inline(data, foreign)
    with _CACHE_LOCK:
        _INLINE[digest] = problem
        while len(_INLINE) > INLINE_CACHE_SIZE:
            _INLINE.popitem(last=False)
    return problem


def _parse_inline(data: dict[str, Any], foreign: bool) -> Problem:
    from execrl.problems._validation import parse_problem
    from execrl.problems.verl_rows import deepcoder_row_to_dict, verl_row_to_dict

    try:
        if foreign:
            convert = verl_row_to_dict if data["kind"] == "verl" else deepcoder_row_to_dict
            data = convert(data["row"], "the label", "label")
        data = dict(data)
        data.setdefault("id", "label")
        data.setdefault("title", data["id"])
        data.setdefault("statement", "")
        return parse_problem(data, where="the label's problem")
    except LoaderError as exc:
        raise ExecrlError(str(exc)) from exc


@functools.cache
def load_row_problem(source: str, problem_id: str) -> Problem:
    """One problem of a source, cached per process. Folder sources read only that problem's
    folder; file sources are read once and indexed."""
    if source == BUNDLED or Path(source).is_dir():
        return load_problem(source, problem_id)
    index = _problem_index(source)
    if problem_id not in index:
        raise ExecrlError(
            f"no problem with id {problem_id!r} in {source}; check the row's problem_source "
            f"or ${PROBLEMS_ENV_VAR}"
        )
    return index[problem_id]


@functools.cache
def _problem_index(source: str) -> dict[str, Problem]:
    return {p.id: p for p in load_problems(source)}


# -- scoring ----------------------------------------------------------------------------------
def completion_program(completion: str, row: Row) -> str:
    """The program in a completion: its last fenced block of the row's language (any of its
    names), else the usual rule (:func:`execrl.extract.extract_code`)."""
    entry = row.problem.entry_point if row.problem is not None else None
    return extract_code(completion, entry, language=find_language(row.language))


def score_rows(
    completions: Sequence[str], rows: Sequence[Row], *, executor: Executor
) -> list[RowScore]:
    """Score each completion on its row, in order; every execution is spread over the pool at
    once (one call per distinct (env, reward), usually one)."""
    if len(completions) != len(rows):
        raise ExecrlError(f"got {len(completions)} completions for {len(rows)} rows")
    results: list[RowScore | None] = [None] * len(rows)
    by_key: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_key.setdefault(row.key, []).append(i)
    for indices in by_key.values():
        first = rows[indices[0]]
        score = _score_code if first.kind == "code" else _score_solver
        try:
            scores = score([completions[i] for i in indices], [rows[i] for i in indices], executor)
        except ExecutionError as exc:  # the sandbox or the service, not the programs
            scores = [failed_infrastructure(rows[i], str(exc)) for i in indices]
        for i, one in zip(indices, scores, strict=True):
            results[i] = one
    return results  # type: ignore[return-value]


async def ascore_row(completion: str, row: Row, *, executor: Executor) -> RowScore:
    """:func:`score_rows` for one completion, awaited on the caller's event loop (a code
    row's execution through ``executor.arun``; a solver row on a thread)."""
    if row.kind == "solver":
        (one,) = await asyncio.to_thread(_score_solver, [completion], [row], executor)
        return one
    assert row.problem is not None
    env = environment(row.env)
    plan = env.plan(row.problem)
    program = completion_program(completion, row)
    request = env.request(row.problem, program, plan=plan, language=row.language)
    try:
        record = await executor.arun(request)
    except ExecutionError as exc:  # the sandbox or the service, not the program
        return failed_infrastructure(row, str(exc), program)
    reward_spec = _execrl_reward(row)
    ((reward, outcome),) = rescore(row.problem, [record], env=env, reward=reward_spec, plan=plan)
    return _dense(row, code_score(Scored(reward, outcome, record, program)))


def feedback_message(
    row: Row,
    score: RowScore,
    *,
    turn: int = 1,
    max_turns: int | None = None,
    config: FeedbackConfig | None = None,
) -> str:
    """The user message after a failing attempt (the multi-turn episodes' feedback,
    docs/multiturn.md): which visible tests failed, with input, expected and actual output.
    An inconclusive run says the sandbox, not the program, failed."""
    if score.inconclusive:
        return (
            "The program could not be run (a sandbox failure, not your program): "
            f"{score.detail or 'inconclusive'}. Send the program again."
        )
    if row.problem is None or score.record is None:
        return f"Your program was judged {score.status}: {score.detail}".rstrip(": ")
    return format_feedback(row.problem, score.record, config, turn=turn, max_turns=max_turns)


def failed_infrastructure(row: Row, why: str, program: str = "") -> RowScore:
    """The :class:`RowScore` of a completion the executor could not run at all (no server
    answered, the pool is gone): inconclusive, with the reason."""
    keys = SCORE_KEYS if row.kind == "code" else SOLVER_SCORE_KEYS
    metrics = {key: 0.0 for key in keys} | {"inconclusive": 1.0}
    return RowScore(None, metrics, "inconclusive", f"the executor failed: {why}", program)


def code_score(scored: Scored) -> RowScore:
    """A code row's :class:`RowScore` from execrl's :class:`~execrl.rewards.scoring.Scored`."""
    outcome, record = scored.outcome, scored.record
    tests = outcome.tests
    passed = sum(t.verdict is Verdict.SUCCESS for t in tests)
    reward = None if outcome.inconclusive or scored.reward is None else float(scored.reward)
    failed = record.failed()
    metrics = {
        "score": reward if reward is not None else 0.0,
        "c_cor": float(outcome.c_cor),
        "c_strict": float(outcome.c_strict),
        "g": float(outcome.g),
        "q": float(outcome.q),
        "timeout_fraction": float(outcome.timeout_fraction),
        "inconclusive": float(reward is None),
        "tests_passed_fraction": passed / len(tests) if tests else 0.0,
    }
    status = "inconclusive" if reward is None else str(failed[0].status if failed else "success")
    detail = failed[0].detail if failed else ""
    return RowScore(reward, metrics, status, detail, scored.program, record)


def _score_code(completions: list[str], rows: list[Row], executor: Executor) -> list[RowScore]:
    """Rows sharing one (env, reward): one Group per (problem, language), results in order."""
    groups: dict[tuple[int, str], list[int]] = {}
    problems: dict[int, Problem] = {}
    for i, row in enumerate(rows):
        assert row.problem is not None
        problems[id(row.problem)] = row.problem
        groups.setdefault((id(row.problem), row.language), []).append(i)
    batch = [
        Group(
            problems[pid],
            [completion_program(completions[i], rows[i]) for i in indices],
            language=language,
        )
        for (pid, language), indices in groups.items()
    ]
    first = rows[0]
    scored = score_batch(
        batch, env=first.env, reward=_execrl_reward(first), executor=executor, progress=False
    )
    out: list[RowScore | None] = [None] * len(rows)
    for indices, group_scores in zip(groups.values(), scored, strict=True):
        for i, one in zip(indices, group_scores, strict=True):
            out[i] = _dense(first, code_score(one))
    return out  # type: ignore[return-value]


def _execrl_reward(row: Row) -> Any:
    """The reward execrl computes for the row (``dense_raw`` is read off its outcome)."""
    return "correctness" if row.reward == DENSE_RAW else row.reward


def _dense(row: Row, score: RowScore) -> RowScore:
    """``dense_raw`` rows: the fraction of tests passed is the reward."""
    if row.reward != DENSE_RAW or score.reward is None:
        return score
    fraction = score.metrics["tests_passed_fraction"]
    return dataclasses.replace(score, reward=fraction, metrics=score.metrics | {"score": fraction})


def _score_solver(completions: list[str], rows: list[Row], executor: Executor) -> list[RowScore]:
    from execrl.rewards.solver import score_solver_responses, solver_reward_config

    scores = score_solver_responses(
        completions,
        [row.answer for row in rows],
        reward=solver_reward_config(rows[0].reward),
        executor=executor,
    )
    out = []
    for one in scores:
        metrics = solver_metrics(one)
        status = str(one.verdict)
        out.append(RowScore(one.reward, metrics, status, one.run.detail, one.parsed.code or ""))
    return out


def solver_metrics(one: Any) -> dict[str, float]:
    """:data:`SOLVER_SCORE_KEYS` of one :class:`~execrl.rewards.solver.SolverScore`."""
    return {
        "score": one.reward if one.reward is not None else 0.0,
        "format": one.format_score,
        "execution": one.execution_score,
        "accuracy": one.accuracy_score,
        "bonus": one.bonus_score,
        "correct": float(one.correct),
        "inconclusive": float(one.reward is None),
    }


__all__ = [
    "DEFAULT_ENV",
    "DEFAULT_REWARD",
    "DENSE_RAW",
    "PROBLEMS_ENV_VAR",
    "SCORE_KEYS",
    "SOLVER_SCORE_KEYS",
    "Row",
    "RowScore",
    "ascore_row",
    "check_settings",
    "code_score",
    "completion_program",
    "failed_infrastructure",
    "feedback_message",
    "load_row_problem",
    "parse_label",
    "resolve_row",
    "row_label",
    "score_rows",
    "solver_metrics",
]
