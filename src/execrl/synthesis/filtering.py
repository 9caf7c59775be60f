"""Stages g-h: drop near-duplicates and problems too easy for a baseline, then write the
training set.

- **filter**, in this order: ``benchmark_duplicate`` — TF-IDF cosine (see
  :mod:`execrl.synthesis.similarity`) at least ``dedup_threshold`` with a question of a file
  named in ``decontaminate``; ``duplicate`` — the same with an earlier kept row; ``too_easy``
  — the baseline model, asked ``baseline_attempts`` times with the training prompt
  (:func:`execrl.rewards.solver.solver_messages`), answered the label (within the tolerance)
  at least ``baseline_max_right`` times. No baseline: no difficulty filter.
- **write**: ``train.jsonl`` in execrl's ``optim`` problem format (``execrl train`` with
  ``reward.kind: solver`` reads it as ``data.problems``): the label as ``answer``, the chosen
  model's features, the chosen response as ``reference``, ``source: synthesis``; and
  ``train_meta.jsonl`` beside it, one row per problem with its consensus score, features
  and provenance (the problem format takes no other fields).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from execrl.problems.optim import OptimProblem, load_optim_problems
from execrl.rewards.solver.prompts import solver_messages
from execrl.synthesis.client import Meter
from execrl.synthesis.context import RunContext, derived, dropped, run_stage
from execrl.synthesis.rows import Row, kept
from execrl.synthesis.similarity import cosine_similarities
from execrl.synthesis.solving import execute

SOURCE = "synthesis"


def duplicate_verdicts(
    items: list[tuple[str, str]], benchmarks: list[tuple[str, str]], threshold: float
) -> list[tuple[str, str] | None]:
    """Per ``(id, question)``: ``(reason, detail)`` when it is a near-duplicate, else None.
    Earlier questions win: a later one is compared with the earlier ones that were kept."""
    if not items:
        return []
    sims = cosine_similarities([text for _, text in items] + [text for _, text in benchmarks])
    n = len(items)
    verdicts: list[tuple[str, str] | None] = []
    kept_so_far: list[int] = []
    for i in range(n):
        verdict = None
        if benchmarks:
            j = int(sims[i, n:].argmax())
            if sims[i, n + j] >= threshold:
                detail = f"TF-IDF cosine {sims[i, n + j]:.3f} with {benchmarks[j][0]}"
                verdict = ("benchmark_duplicate", detail)
        if verdict is None and kept_so_far:
            j = max(kept_so_far, key=lambda k: sims[i, k])
            if sims[i, j] >= threshold:
                verdict = ("duplicate", f"TF-IDF cosine {sims[i, j]:.3f} with {items[j][0]}")
        if verdict is None:
            kept_so_far.append(i)
        verdicts.append(verdict)
    return verdicts


def benchmark_questions(files: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(where, question)`` of every problem in the decontamination files."""
    out = []
    for file in files:
        for problem in load_optim_problems(file):
            out.append((f"{Path(file).name}:{problem.id}", problem.question))
    return out


def run_filter(ctx: RunContext, rows: list[Row]) -> list[Row]:
    cfg = ctx.config
    verdicts = duplicate_verdicts(
        [(row["id"], row["question"]) for row in rows],
        benchmark_questions(cfg.decontaminate),
        cfg.dedup_threshold,
    )
    verdict_of = {row["id"]: v for row, v in zip(rows, verdicts, strict=True)}

    def process(row: Row, meter: Meter) -> list[Row]:
        verdict = verdict_of[row["id"]]
        if verdict is not None:
            return [dropped(row, *verdict)]
        if ctx.baseline is None:
            return [derived(row)]
        right = baseline_right(ctx, row, meter)
        info = {"baseline_right": right, "baseline_attempts": cfg.baseline_attempts}
        if right >= cfg.baseline_max_right:
            detail = f"the baseline answered right in {right} of {cfg.baseline_attempts}"
            return [dropped(row, "too_easy", detail, **info)]
        return [derived(row, **info)]

    return kept(run_stage(ctx, "filter", rows, process).rows)


def baseline_right(ctx: RunContext, row: Row, meter: Meter) -> int:
    """How many of the baseline's attempts report the label (0 without a baseline)."""
    if ctx.baseline is None:
        return 0
    problem = OptimProblem(id=row["id"], question=row["question"], answer=row["label"])
    messages = solver_messages(problem)
    replies = [
        ctx.baseline.chat(messages, meter, attempt=k) for k in range(ctx.config.baseline_attempts)
    ]
    records = execute(ctx, replies, meter)
    return sum(ctx.config.tolerance.matches(r["answer"], row["label"]) for r in records)


def kind_of(row: Row) -> str:
    if row["label"] in ("infeasible", "unbounded"):
        return row["label"]
    f = row["features"]
    return "milp" if (f.get("n_binary") or 0) + (f.get("n_integer") or 0) else "lp"


def write_training_set(folder: Path, rows: list[Row]) -> tuple[Path, Path]:
    """``train.jsonl`` (problems) and ``train_meta.jsonl`` (their scores and provenance)."""
    problems, meta = [], []
    for row in rows:
        f = row["features"]
        problem = OptimProblem(
            id=row["id"],
            question=row["question"],
            answer=row["label"],
            direction=f.get("direction"),
            kind=kind_of(row),  # type: ignore[arg-type]
            n_binary=f.get("n_binary"),
            n_integer=f.get("n_integer"),
            n_constraints=f.get("n_constraints"),
            reference=row["response"],
            source=SOURCE,
        )
        problems.append(problem.model_dump(mode="json", exclude={"incorrect"}))
        meta.append(
            {
                "id": row["id"],
                "label": row["label"],
                "consensus": row["consensus"],
                "score": row["score"],
                "chosen_role": row["chosen_role"],
                "majority_answer": row["majority_answer"],
                "features": f,
                "provenance": row["provenance"],
                "reference_answer": row.get("reference_answer"),
            }
        )
    train, train_meta = folder / "train.jsonl", folder / "train_meta.jsonl"
    _write_atomically(train, problems)
    _write_atomically(train_meta, meta)
    return train, train_meta


def _write_atomically(path: Path, rows: list[dict]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    os.replace(tmp, path)
