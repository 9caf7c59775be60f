"""What every stage is given (:class:`RunContext`) and the loop that runs a stage over its
input rows (:func:`run_stage`): skip the inputs already done, process the rest ``concurrency``
at a time, write each input's rows in input order, and turn a stop into one line that names
the stage and the row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from execrl.errors import ExecrlError
from execrl.problems.optim import OptimProblem
from execrl.sandbox.protocol import Executor
from execrl.synthesis.client import BudgetExhausted, LLMClient, Meter, Spending
from execrl.synthesis.config import RunSettings, SynthesisConfig
from execrl.synthesis.prompts import Prompts
from execrl.synthesis.rows import Row, StageFile, ordered_map

STAGES = ("generate", "augment", "judge", "solve", "repair", "label", "filter")
"""The stages that write a row file, in order (``write`` makes the training set from the
last)."""


class SynthesisStopped(ExecrlError):
    """A stage could not finish a row: the message names the stage, the row and why.
    Every row finished before it is on disk; ``--resume`` goes on from there."""

    def __init__(self, message: str, *, budget: bool = False) -> None:
        super().__init__(message)
        self.budget = budget


@dataclass
class RunContext:
    """One run's settings and services, passed to every stage."""

    config: SynthesisConfig
    run: RunSettings
    prompts: Prompts
    folder: Path
    client: LLMClient
    """The generator (generate, augment)."""
    judge: LLMClient
    solver: LLMClient
    """The solver roles (solve, repair)."""
    baseline: LLMClient | None
    executor: Executor
    spending: Spending
    seeds: list[OptimProblem]


StageFn = Callable[[Row, Meter], list[Row]]


def run_stage(ctx: RunContext, stage: str, inputs: list[Row], process: StageFn) -> StageFile:
    """Run ``process`` on every input row not done yet; returns the finished stage file."""
    file = StageFile(ctx.folder, stage)
    done = file.done_parents()
    todo = [row for row in inputs if row["id"] not in done]

    def one(row: Row) -> tuple[list[Row], Meter]:
        meter = Meter()
        return process(row, meter), meter

    current = None
    try:
        for row, (rows, meter) in ordered_map(one, todo, jobs=ctx.run.concurrency):
            current = row
            file.append(row["id"], rows, meter)
    except BudgetExhausted as exc:
        where = _next_row(todo, current)
        raise SynthesisStopped(
            f"stopped cleanly at stage {stage}, row {where}: {exc}; every finished row is "
            "saved; run again with `resume` (and a larger budget) to go on",
            budget=True,
        ) from None
    except ExecrlError as exc:
        where = _next_row(todo, current)
        raise SynthesisStopped(f"stage {stage}, row {where}: {exc}") from None
    return file


def _next_row(todo: list[Row], current: Row | None) -> str:
    if current is None:
        return todo[0]["id"] if todo else "?"
    index = next(i for i, r in enumerate(todo) if r is current)
    return todo[index + 1]["id"] if index + 1 < len(todo) else current["id"]


def derived(row: Row, **changes: object) -> Row:
    """A copy of ``row`` for the next stage (its bookkeeping fields reset)."""
    out = {k: v for k, v in row.items() if k not in ("input", "kept", "reason", "detail")}
    out.update(kept=True, reason=None, detail=None)
    out.update(changes)
    return out


def dropped(row: Row, reason: str, detail: str, **changes: object) -> Row:
    """``row`` marked as dropped with a reason code and its one-line detail."""
    return derived(row, kept=False, reason=reason, detail=detail, **changes)
