"""The whole pipeline (``synthesize``) and the labelling stages alone (``label_problems``).

A run's folder holds ``run.json`` (the settings' fingerprint), one JSONL file per stage,
``costs.jsonl``, ``cache.jsonl``, ``train.jsonl`` + ``train_meta.jsonl`` and the report.
A new run refuses a folder that holds another run; ``resume=True`` continues one with the
same settings (the budget, concurrency and retries may differ).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execrl.errors import UsageError
from execrl.problems.optim import OptimProblem
from execrl.rewards.solver.execution import solver_executor
from execrl.sandbox.protocol import Executor
from execrl.synthesis.client import LLMClient, PromptCache, Spending
from execrl.synthesis.config import (
    EndpointSettings,
    RunSettings,
    SynthesisConfig,
    settings_fingerprint,
)
from execrl.synthesis.context import STAGES, RunContext, SynthesisStopped
from execrl.synthesis.filtering import run_filter, write_training_set
from execrl.synthesis.generation import run_augment, run_generate, run_judge
from execrl.synthesis.prompts import load_prompts
from execrl.synthesis.report import build_report
from execrl.synthesis.solving import run_label, run_repair, run_solve

LABEL_STAGES = ("solve", "repair", "label")
RUN_FILE = "run.json"


@dataclass(frozen=True)
class SynthesisResult:
    """What a run left in its folder, and whether it finished."""

    folder: Path
    complete: bool
    stopped: str | None
    """Why it stopped early (one line), None when complete."""
    report: dict[str, Any]

    @property
    def train_file(self) -> Path:
        return self.folder / "train.jsonl"


def synthesize(
    seeds: list[OptimProblem],
    config: SynthesisConfig,
    out: str | Path,
    *,
    run: RunSettings | None = None,
    resume: bool = False,
    executor: Executor | None = None,
) -> SynthesisResult:
    """Stages a-h on ``seeds``; the training set is ``out/train.jsonl``. A spent budget
    stops cleanly (``complete=False``); an endpoint that fails after its retries raises
    :class:`SynthesisStopped` naming the stage and row (the finished rows are saved)."""
    if not seeds:
        raise UsageError("no seed problems: give at least one (the bundled set: 'bundled')")

    def stages(ctx: RunContext) -> list[dict]:
        rows = run_generate(ctx)
        rows = run_augment(ctx, rows)
        rows = run_judge(ctx, rows)
        rows = run_solve(ctx, rows)
        rows = run_repair(ctx, rows)
        rows = run_label(ctx, rows)
        return run_filter(ctx, rows)

    return _run(seeds, config, Path(out), run, resume, executor, STAGES, stages, "synthesize")


def label_problems(
    problems: list[OptimProblem],
    config: SynthesisConfig,
    out: str | Path,
    *,
    run: RunSettings | None = None,
    resume: bool = False,
    executor: Executor | None = None,
) -> SynthesisResult:
    """Stages d-f (solve, repair, label) on problems a user already has; each problem's
    ``answer`` is its known answer, which the report compares with the label."""
    if not problems:
        raise UsageError("no problems to label")
    inputs = [
        {
            "id": p.id,
            "question": p.question,
            "reference_answer": p.answer,
            "provenance": {
                "seed_id": p.id,
                "scenario": None,
                "templates": {},
                "model": None,
                "parent": None,
            },
        }
        for p in problems
    ]

    def stages(ctx: RunContext) -> list[dict]:
        return run_label(ctx, run_repair(ctx, run_solve(ctx, inputs)))

    return _run(problems, config, Path(out), run, resume, executor, LABEL_STAGES, stages, "label")


def _run(
    seeds: list[OptimProblem],
    config: SynthesisConfig,
    folder: Path,
    run: RunSettings | None,
    resume: bool,
    executor: Executor | None,
    stage_names: tuple[str, ...],
    stages: Callable[[RunContext], list[dict]],
    command: str,
) -> SynthesisResult:
    run = run or RunSettings()
    prompts = load_prompts(config)
    _claim_folder(folder, command, settings_fingerprint(config, _digest(seeds)), resume)
    spending = Spending(run.budget)
    cache = PromptCache(run.cache or folder / "cache.jsonl")

    def client(settings: EndpointSettings | None) -> LLMClient:
        settings = settings or config.endpoint
        return LLMClient(settings, run, cache=cache, spending=spending, seed=config.seed)

    baseline = client(config.baseline) if config.baseline and command == "synthesize" else None
    with ExitStack() as stack:
        if executor is None:
            executor = stack.enter_context(solver_executor(workers=run.workers))
        ctx = RunContext(
            config=config,
            run=run,
            prompts=prompts,
            folder=folder,
            client=client(config.endpoint),
            judge=client(config.judge),
            solver=client(config.solver),
            baseline=baseline,
            executor=executor,
            spending=spending,
            seeds=seeds,
        )
        try:
            final = stages(ctx)
        except SynthesisStopped as exc:
            report = build_report(folder, stage_names, f"stopped: {exc}")
            if not exc.budget:
                raise
            return SynthesisResult(folder, False, str(exc), report)
    write_training_set(folder, final)
    return SynthesisResult(folder, True, None, build_report(folder, stage_names, "complete"))


def _claim_folder(folder: Path, command: str, fingerprint: str, resume: bool) -> None:
    marker = folder / RUN_FILE
    if marker.exists():
        try:
            held = json.loads(marker.read_text(encoding="utf-8"))
        except ValueError:
            held = {}
        if not resume:
            raise UsageError(
                f"{folder} already holds a run; continue it with `resume` or "
                "choose a new output folder"
            )
        if held.get("command") != command or held.get("fingerprint") != fingerprint:
            raise UsageError(
                f"{folder} holds a {held.get('command', 'different')} run with other settings "
                "or seeds; resume it with the same ones, or choose a new output folder"
            )
        return
    if resume and folder.exists() and any(folder.iterdir()):
        raise UsageError(f"{folder} holds no run to resume (no {RUN_FILE})")
    folder.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"command": command, "fingerprint": fingerprint}) + "\n")


def _digest(problems: list[OptimProblem]) -> str:
    text = json.dumps([[p.id, p.question, p.answer] for p in problems])
    return hashlib.sha256(text.encode()).hexdigest()
