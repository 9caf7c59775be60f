"""Evaluating a model on optimisation problems: pass@1, execution rate, error breakdown.

K sampled responses per problem are run (all at once on the pool, with a progress bar) and
judged against the ground truth with the evaluation tolerance (relative error < 1e-6):

- **pass@1** — the mean over problems of the fraction of correct samples (the unbiased
  pass@1 estimate with K samples);
- **execution rate** — the share of samples whose code runs and reports a value;
- **breakdown** — samples per category: ``extraction_failed``, ``timeout``,
  ``execution_error``, ``wrong_answer``, ``correct`` (and ``solver_unavailable``, code needing
  a solver that is not installed or licensed here, and ``inconclusive``, the sandbox's
  failures: both are infrastructure failures, left out of both rates), overall and per
  benchmark (problem source); ``unavailable_solvers`` counts the missing solvers by module;
- with K ≥ 2, the accuracy of value-only majority voting and of instance-enhanced
  self-consistency.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from execrl.errors import DataError, LoaderError, OutputError, UsageError
from execrl.problems.optim import Answer, OptimProblem, parse_answer
from execrl.report import pyplot
from execrl.results import iter_rows
from execrl.rewards.solver.answers import DEFAULT_CONVENTION, AnswerSpec
from execrl.rewards.solver.consistency import instance_enhanced_vote, majority_vote
from execrl.rewards.solver.execution import run_solver_codes
from execrl.rewards.solver.parsing import parse_response
from execrl.rewards.solver.rewards import (
    RELATIVE,
    SolverScore,
    Tolerance,
    Verdict,
    solver_reward,
    solver_reward_config,
)
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Executor

CATEGORIES = tuple(v.value for v in Verdict)
_NOT_CONCLUSIVE = (Verdict.INCONCLUSIVE, Verdict.SOLVER_UNAVAILABLE)
_MODULE_IN_DETAIL = re.compile(r"solver not available[^:]*: (?:[\w ]+\()?(\w+)")
_LICENSED_IN_DETAIL = re.compile(r"\b(gurobi|copt|cplex|mosek|xpress)", re.IGNORECASE)


def unavailable_module(detail: str) -> str:
    """The solver module a ``solver_unavailable`` run's detail names (``unknown`` if none)."""
    if "(licence)" in detail:
        found = _LICENSED_IN_DETAIL.search(detail)
        name = found.group(1).lower() if found else "unknown"
        return {"gurobi": "gurobipy", "copt": "coptpy"}.get(name, name)
    found = _MODULE_IN_DETAIL.search(detail)
    return found.group(1) if found else "unknown"


class Summary(BaseModel):
    """Rates and counts over one set of samples."""

    n_problems: int
    n_samples: int
    pass_at_1: float | None
    """None when no sample was conclusive."""
    execution_rate: float | None
    breakdown: dict[str, int]
    """Samples per verdict category (every category present, zeros included)."""
    majority_accuracy: float | None = None
    """Value-only majority voting, over problems with at least two samples."""
    instance_enhanced_accuracy: float | None = None
    """Instance-enhanced self-consistency, over the same problems."""
    unavailable_solvers: dict[str, int] = {}
    """Samples scored ``solver_unavailable``, per solver module (``gurobipy``, …)."""


class EvaluationReport(BaseModel):
    tolerance: str
    overall: Summary
    by_source: dict[str, Summary]


@dataclass(frozen=True)
class EvaluationResult:
    report: EvaluationReport
    scores: list[list[SolverScore]]
    """Per problem, per sample, in the order given."""


def evaluate_solver_samples(
    problems: Sequence[OptimProblem],
    samples: Sequence[Sequence[str]],
    *,
    tolerance: Tolerance = RELATIVE,
    executor: Executor,
    limits: Limits | None = None,
    progress: bool = True,
    answers: AnswerSpec = DEFAULT_CONVENTION,
) -> EvaluationResult:
    """Run and judge K responses per problem (``samples[i]`` belongs to ``problems[i]``);
    ``answers``: the answer convention (how printed answers are read)."""
    if len(problems) != len(samples):
        raise UsageError(
            f"{len(problems)} problems but {len(samples)} sample lists; pass one list each"
        )
    if not problems:
        raise UsageError("no problems to evaluate; pass at least one problem and its samples")
    for problem, group in zip(problems, samples, strict=True):
        if isinstance(group, str) or not group:
            what = "a string" if isinstance(group, str) else "no samples"
            raise UsageError(
                f"problem {problem.id!r}: {what}; pass a list of one or more responses"
            )
        for j, sample in enumerate(group):
            if not isinstance(sample, str):
                raise UsageError(
                    f"problem {problem.id!r}, sample {j}: expected a string, got "
                    f"{type(sample).__name__}"
                )
    config = solver_reward_config("paper", tolerance=tolerance)
    parsed = [[parse_response(r) for r in group] for group in samples]
    flat = [p.code for group in parsed for p in group]
    runs = iter(
        run_solver_codes(flat, executor=executor, limits=limits, progress=progress, answers=answers)
    )
    scores = [
        [solver_reward(p, next(runs), problem.answer, config) for p in group]
        for problem, group in zip(problems, parsed, strict=True)
    ]
    return EvaluationResult(summarise_evaluation(problems, scores, tolerance=tolerance), scores)


def summarise_evaluation(
    problems: Sequence[OptimProblem],
    scores: Sequence[Sequence[SolverScore]],
    *,
    tolerance: Tolerance = RELATIVE,
) -> EvaluationReport:
    """The report from already scored samples (a pure function)."""
    sources: dict[str, list[int]] = {}
    for i, problem in enumerate(problems):
        sources.setdefault(problem.source, []).append(i)
    everything = list(range(len(problems)))
    return EvaluationReport(
        tolerance=tolerance.name,
        overall=_summary(problems, scores, everything, tolerance),
        by_source={
            source: _summary(problems, scores, indices, tolerance)
            for source, indices in sorted(sources.items())
        },
    )


def _summary(
    problems: Sequence[OptimProblem],
    scores: Sequence[Sequence[SolverScore]],
    indices: list[int],
    tolerance: Tolerance,
) -> Summary:
    breakdown = dict.fromkeys(CATEGORIES, 0)
    unavailable: dict[str, int] = {}
    per_problem, executed, conclusive = [], 0, 0
    majority, enhanced = [], []
    for i in indices:
        group = [s for s in scores[i] if s.verdict not in _NOT_CONCLUSIVE]
        for s in scores[i]:
            breakdown[s.verdict.value] += 1
            if s.verdict is Verdict.SOLVER_UNAVAILABLE:
                module = unavailable_module(s.run.detail)
                unavailable[module] = unavailable.get(module, 0) + 1
        if not group:
            continue
        conclusive += len(group)
        executed += sum(s.run.completed and s.run.answer is not None for s in group)
        per_problem.append(sum(s.correct for s in group) / len(group))
        if len(group) >= 2:
            truth = problems[i].answer
            answers = [s.run.answer if s.run.completed else None for s in group]
            vote = majority_vote(answers, tolerance=tolerance)
            majority.append(tolerance.matches(vote.answer, truth))
            features = [s.run.features() for s in group]
            vote = instance_enhanced_vote(features, tolerance=tolerance)
            enhanced.append(tolerance.matches(vote.answer, truth))
    return Summary(
        n_problems=len(indices),
        n_samples=sum(len(scores[i]) for i in indices),
        pass_at_1=_mean(per_problem),
        execution_rate=executed / conclusive if conclusive else None,
        breakdown=breakdown,
        majority_accuracy=_mean(majority),
        instance_enhanced_accuracy=_mean(enhanced),
        unavailable_solvers=dict(sorted(unavailable.items())),
    )


def _mean(values: Sequence[float | bool]) -> float | None:
    return sum(values) / len(values) if values else None


def plot_breakdown(report: EvaluationReport, path: str | Path) -> Path:
    """A PNG: one stacked bar of verdict shares per benchmark (and overall)."""
    plt = pyplot("breakdown plots")

    path = Path(path)
    rows = [("overall", report.overall), *report.by_source.items()]
    colours = {
        "correct": "tab:green",
        "wrong_answer": "tab:orange",
        "execution_error": "tab:red",
        "timeout": "tab:purple",
        "extraction_failed": "tab:gray",
        "solver_unavailable": "tab:blue",
        "inconclusive": "black",
    }
    fig, ax = plt.subplots(figsize=(10, 1.4 + 0.45 * len(rows)))
    for y, (_, summary) in enumerate(rows):
        left = 0.0
        for category in CATEGORIES:
            share = summary.breakdown[category] / max(summary.n_samples, 1)
            label = category if y == 0 else None
            ax.barh(y, share, left=left, color=colours[category], label=label)
            left += share
    ax.set_yticks(range(len(rows)), [name for name, _ in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of samples")
    ax.set_title(f"solver evaluation (tolerance {report.tolerance})", fontsize=10)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    fig.tight_layout()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write the plot ({exc.strerror or exc})") from None
    finally:
        plt.close(fig)
    return path


@dataclass(frozen=True)
class ResponseRow:
    """One row of a responses file: a problem id, a response, optionally its ground truth."""

    problem_id: str
    response: str
    answer: Answer | None = None
    line: int = 0
    """Its line in the file (0: not read from a file)."""


def read_responses(path: str | Path) -> list[ResponseRow]:
    """A JSONL file (``.jsonl`` or ``.jsonl.gz``) of ``{"problem_id", "response"}`` rows (K
    rows per problem for K samples); an ``answer`` field, when present, overrides the problem
    set's ground truth. A malformed row, or a file with no rows, is a DataError naming the
    file (and line)."""
    path = Path(path)
    if not path.exists():
        raise LoaderError(f"{path}: no such file")
    rows = []
    for lineno, row in _numbered_rows(path):
        where = f"{path}, line {lineno}"
        response = row.get("response")
        if not isinstance(response, str):
            got = "none" if response is None else type(response).__name__
            raise DataError(f"{where}: 'response' must be a string (the model's text), got {got}")
        problem_id = row.get("problem_id", row.get("id"))
        if problem_id is None:
            raise DataError(f"{where}: no 'problem_id' (the id of the problem it answers)")
        if isinstance(problem_id, bool) or not isinstance(problem_id, str | int):
            raise DataError(
                f"{where}: 'problem_id' must be a string or an integer, got {problem_id!r}"
            )
        if not str(problem_id).strip():
            raise DataError(f"{where}: 'problem_id' is empty")
        answer = row.get("answer")
        parsed = None if answer is None else parse_answer(answer, where=f"{where}: answer")
        rows.append(ResponseRow(str(problem_id), response, parsed, lineno))
    if not rows:
        raise DataError(
            f"{path}: no responses (the file has no rows); expected JSON lines "
            '{"problem_id": ..., "response": ...}'
        )
    return rows


def _numbered_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, row) of a JSON-lines file; undecodable, non-JSON and non-object lines
    are DataErrors naming the file and line (:func:`execrl.results.iter_rows`)."""
    if path.name.endswith(".gz"):  # (gzip members carry no line numbers of their own)
        yield from enumerate(iter_rows(path, drop_torn=False), start=1)
        return
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
    data = data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark (Windows editors)
    if data.lstrip().startswith(b"["):
        raise DataError(
            f"{path}: a JSON array; expected JSON lines, one "
            '{"problem_id": ..., "response": ...} object per line'
        )
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(
                f"{path}, line {lineno}: not UTF-8 text (byte {exc.start}: "
                f"{line[exc.start : exc.start + 4]!r}); re-encode the file as UTF-8"
            ) from None
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{path}, line {lineno}: not valid JSON ({exc.msg}, column {exc.colno})"
            ) from None
        if not isinstance(row, dict):
            raise DataError(
                f"{path}, line {lineno}: expected a JSON object, got {type(row).__name__}"
            )
        yield lineno, row
