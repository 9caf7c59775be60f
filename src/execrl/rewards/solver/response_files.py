"""Scoring and evaluating a file of responses (what ``execrl solver score | eval`` do).

A responses file holds ``{"problem_id", "response"}`` rows (:func:`read_responses`); each
row's ground truth is its own ``answer`` or the problem set's. Scores are written to a
:class:`~execrl.results.ResultsFile` as each finishes, one row per response, keyed by its
place, problem and text, and tagged with the settings it was scored with, so an interrupted
run resumes exactly where it stopped and never mixes rows scored another way::

    rows = read_responses("responses.jsonl")
    answers = ground_truths(rows, problems_for(rows, "bundled"), responses="responses.jsonl")
    settings = ScoreSettings(reward="paper", stage=1, answers="last-number", timeout_s=10)
    scored = score_responses(rows, answers, settings, executor=ex, out="scores.jsonl",
                             resume=True, responses="responses.jsonl")

:func:`score_responses` is the whole of ``execrl solver score`` (it opens the results file,
checks resumed rows, and scores the rest); it is made of :func:`check_resumed`,
:func:`unscored` and :func:`score_response_rows`, for a caller that holds its own
:class:`~execrl.results.ResultsFile`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from execrl.errors import DataError, LoaderError, UsageError
from execrl.problems.optim import BUNDLED, Answer, OptimProblem, load_optim_problems
from execrl.results import ResultsFile, Row
from execrl.rewards.solver.evaluation import ResponseRow, unavailable_module
from execrl.rewards.solver.rewards import Verdict, iter_solver_scores, solver_reward_config
from execrl.sandbox.executor_source import ExecutorSource, executor_in_use
from execrl.sandbox.limits import Limits
from execrl.sandbox.protocol import Executor

SCORE_TERMS = ("format", "execution", "accuracy", "bonus")
"""The numeric terms every score row carries besides ``reward``."""


@dataclass(frozen=True)
class ScoreSettings:
    """What a score depends on besides the response: a resumed row must share all of it."""

    reward: str
    """The reward preset (``paper`` or ``authors``)."""
    stage: int
    """1: format + execution + accuracy; 2: plus the advanced-modelling bonus."""
    answers: str
    """The answer convention (how the printed answer is read)."""
    timeout_s: float
    """The CPU-time limit per program, seconds."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- ground truths ------------------------------------------------------------------------------
def problems_for(
    rows: Sequence[ResponseRow], source: str | Path = BUNDLED, *, format: str | None = None
) -> dict[str, OptimProblem]:
    """The problems (by id) of ``source`` that rows without their own answer refer to; none
    are loaded when every row has one."""
    if all(r.answer is not None for r in rows):
        return {}
    return {p.id: p for p in load_optim_problems(source, format=format)}


def ground_truths(
    rows: Sequence[ResponseRow],
    problems: dict[str, OptimProblem],
    *,
    responses: str | Path,
    source: str | Path = BUNDLED,
) -> list[Answer]:
    """Each row's ground truth: its own ``answer``, else its problem's; a row naming no known
    problem is a LoaderError naming the line of ``responses``."""
    answers: list[Answer] = []
    for row in rows:
        if row.answer is not None:
            answers.append(row.answer)
        elif row.problem_id in problems:
            answers.append(problems[row.problem_id].answer)
        else:
            raise LoaderError(
                f"{responses}, line {row.line}: no problem {row.problem_id!r} in "
                f"{source}; pass `problems`, or give the row an 'answer'"
            )
    return answers


def samples_by_problem(
    rows: Sequence[ResponseRow],
    answers: Sequence[Answer],
    problems: dict[str, OptimProblem],
    *,
    responses: str | Path,
) -> tuple[list[OptimProblem], list[list[str]]]:
    """The problems the rows answer (in first-seen order, each with its row's ground truth)
    and the K responses of each; two rows giving one problem different answers are a
    DataError naming both lines."""
    chosen: dict[str, OptimProblem] = {}
    samples: dict[str, list[str]] = {}
    first: dict[str, ResponseRow] = {}
    for row, answer in zip(rows, answers, strict=True):
        if row.problem_id not in chosen:
            first[row.problem_id] = row
            chosen[row.problem_id] = _with_answer(problems.get(row.problem_id), row, answer)
        elif answer != chosen[row.problem_id].answer:
            raise DataError(
                f"{responses}, line {row.line}: answer {answer!r} for problem "
                f"{row.problem_id!r}, which line {first[row.problem_id].line} gives as "
                f"{chosen[row.problem_id].answer!r}; one ground truth per problem"
            )
        samples.setdefault(row.problem_id, []).append(row.response)
    return list(chosen.values()), [samples[pid] for pid in chosen]


def _with_answer(base: OptimProblem | None, row: ResponseRow, answer: Answer) -> OptimProblem:
    if base is not None:
        return base.model_copy(update={"answer": answer})
    return OptimProblem(id=row.problem_id, question="-", answer=answer, source="given")


# -- score rows ---------------------------------------------------------------------------------
def response_key(index: int, row: ResponseRow) -> tuple[int, str, str]:
    """What identifies a scored response: its place, its problem and its text's SHA-256."""
    return (index, row.problem_id, text_sha256(row.response))


def score_row_key(row: Row) -> tuple[Any, Any, Any]:
    """:func:`response_key` read back from a written score row."""
    return (row.get("index"), row.get("problem_id"), row.get("response_sha256"))


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def is_score_row(row: Row) -> bool:
    """A row :func:`score_response_rows` wrote: the reward, its terms and a verdict."""
    numbers = [row.get(term) for term in SCORE_TERMS]
    reward = row.get("reward")
    return (
        all(isinstance(x, int | float) and not isinstance(x, bool) for x in numbers)
        and (reward is None or isinstance(reward, int | float))
        and isinstance(row.get("verdict"), str)
        and isinstance(row.get("scored_with"), dict)
    )


def check_resumed(
    kept: Sequence[Row],
    rows: Sequence[ResponseRow],
    settings: ScoreSettings,
    *,
    out: str | Path,
    responses: str | Path,
) -> None:
    """The rows ``kept`` from an interrupted run's ``out`` must be scores of these responses,
    scored with these settings; a UsageError saying which options differ otherwise."""
    keys = {response_key(i, row) for i, row in enumerate(rows)}
    wanted = settings.as_dict()
    ours = [score_row_key(row) in keys and is_score_row(row) for row in kept]
    other = [row for row, mine in zip(kept, ours, strict=True) if mine]
    other = [row for row in other if row["scored_with"] != wanted]
    if other:
        was = other[0]["scored_with"]
        given = [f"`{k}` {was.get(k)}" for k in wanted if was.get(k) != wanted[k]]
        raise UsageError(
            f"`resume`: {len(other)} rows in {out} were scored with {', '.join(given)}; "
            "resume with the same options, or drop `resume` to score everything again"
        )
    foreign = ours.count(False)
    if foreign:
        raise UsageError(
            f"`resume`: {foreign} of the {len(kept)} rows in {out} are not "
            f"scores of the responses in {responses} (another file, or it changed); "
            "drop `resume` to score everything again, or give another `out`"
        )


def score_response_rows(
    rows: Sequence[ResponseRow],
    answers: Sequence[Answer],
    settings: ScoreSettings,
    *,
    executor: Executor | None,
    limits: Limits | None = None,
    out: ResultsFile | None = None,
    progress: bool = False,
) -> list[Row]:
    """Every response's score row, in order: the rows ``out`` already holds (resumed), then
    the others as each is scored, each written (and flushed) to ``out`` as soon as it is.
    ``executor`` may be None when nothing is left to score (:func:`unscored`)."""
    done = {row.get("index"): row for row in (out.rows if out is not None else [])}
    todo = unscored(rows, out)
    if todo and executor is None:
        raise UsageError(f"{len(todo)} responses to score and no executor to run them")
    config = solver_reward_config(settings.reward, stage=settings.stage, answers=settings.answers)
    if todo:
        scores = iter_solver_scores(
            [rows[i].response for i in todo],
            [answers[i] for i in todo],
            reward=config,
            executor=executor,
            limits=limits,
            progress=progress,
        )
        for i, score in zip(todo, scores, strict=True):
            done[i] = _score_row(i, rows[i], score.to_dict(), settings)
            if out is not None:
                out.write(done[i])  # flushed: it survives an interruption from here on
    return [done[i] for i in range(len(rows))]


def score_responses(
    rows: Sequence[ResponseRow],
    answers: Sequence[Answer],
    settings: ScoreSettings,
    *,
    executor: ExecutorSource,
    limits: Limits | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    responses: str | Path = "the responses",
    progress: bool = False,
    on_resumed: Callable[[int], None] | None = None,
) -> list[Row]:
    """Every response's score row, in order (``execrl solver score``): with ``out``, each
    written to that JSONL file as soon as it is scored, and with ``resume`` the rows already
    in it kept (they must be scores of these ``responses`` under these settings: a UsageError
    before anything runs otherwise; ``on_resumed`` is told how many). ``executor``: open, or
    a function that opens one, called only when a response is left to score."""
    results = ResultsFile(out, key=score_row_key, resume=resume) if out is not None else None
    with results or nullcontext() as file:  # (an unwritable out fails now, not after the work)
        kept = file.rows if file is not None else []
        check_resumed(kept, rows, settings, out=out or "", responses=responses)
        if kept and on_resumed is not None:
            on_resumed(len(kept))
        todo = unscored(rows, file)
        with executor_in_use(executor) if todo else nullcontext() as pool:
            return score_response_rows(
                rows, answers, settings, executor=pool, limits=limits, out=file, progress=progress
            )


def unscored(rows: Sequence[ResponseRow], out: ResultsFile | None) -> list[int]:
    """The indices of the rows ``out`` holds no score of (all of them without ``out``)."""
    return [i for i, row in enumerate(rows) if out is None or not out.has(response_key(i, row))]


def _score_row(index: int, row: ResponseRow, score: dict[str, Any], settings: ScoreSettings) -> Row:
    return {
        "index": index,
        "problem_id": row.problem_id,
        "response_sha256": text_sha256(row.response),
        **score,
        "scored_with": settings.as_dict(),
    }


def mean_reward(scored: Sequence[Row]) -> tuple[float | None, int]:
    """The mean reward over the rows that got one (None when none did), and their number."""
    rewards = [r["reward"] for r in scored if r["reward"] is not None]
    return (sum(rewards) / len(rewards) if rewards else None), len(rewards)


def unavailable_solvers(scored: Sequence[Row]) -> dict[str, int]:
    """How many rows were scored ``solver_unavailable``, per missing solver module."""
    missing: dict[str, int] = {}
    for r in scored:
        if r["verdict"] == Verdict.SOLVER_UNAVAILABLE.value:
            module = unavailable_module(r.get("detail") or "")
            missing[module] = missing.get(module, 0) + 1
    return missing
