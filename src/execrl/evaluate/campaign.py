"""Executing an evaluation: every model's samples and the references in one shuffled campaign.

Spec §5: models are compared only after they are executed *together*, with the references
their speed is ranked against. All (program, problem) requests — every sample of every model
on all of its problem's tests, every correct reference on the optimization tests — are put in
one list and shuffled with a seed, so slow drift of the machine (thermal state, neighbours,
caches) falls on every model and on the references alike instead of on whoever ran last.
Every per-test verdict and duration is stored (see :mod:`execrl.evaluate.folder`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal, Protocol

from execrl.errors import ExecrlError
from execrl.evaluate.folder import (
    CampaignInfo,
    EvalFolder,
    ManifestEntry,
    Sample,
    restrict_optimization_tests,
)
from execrl.problems.models import Problem, ReferenceLabel
from execrl.sandbox.executor import ExecutionRequest
from execrl.sandbox.limits import ExecutionOptions, Limits
from execrl.sandbox.records import ExecutionRecord, program_sha256
from execrl.timing.store import MachineFingerprint


class Executor(Protocol):
    def run_batch(
        self, requests: Iterable[ExecutionRequest], *, progress: bool = True, description: str
    ) -> Iterable[ExecutionRecord]: ...


def campaign_requests(
    problems: list[Problem],
    samples: list[Sample],
    *,
    cap_s: float | None = None,
    repeats: int = 1,
    timing: Literal["cpu", "wall"] = "cpu",
) -> list[tuple[ManifestEntry, ExecutionRequest]]:
    """One request per sample (all of its problem's tests, under the hard cap, no early stop)
    and one per correct reference (the optimization tests), in that order, unshuffled."""
    by_id = {p.id: p for p in problems}
    options = ExecutionOptions(repeats=repeats, timing=timing)

    def limits(problem: Problem) -> Limits:
        return Limits(timeout_s=cap_s or problem.time_limit_s, memory_mb=problem.memory_limit_mb)

    out = []
    for s in samples:
        problem = by_id.get(s.problem_id)
        if problem is None:
            raise ExecrlError(f"a sample of {s.model!r} answers unknown problem {s.problem_id!r}")
        request = ExecutionRequest.for_problem(
            problem,
            s.program,
            limits=limits(problem),
            options=options,
            program_name=f"{s.model}#{s.index}",
        )
        entry = ManifestEntry(
            kind="sample",
            problem_id=problem.id,
            model=s.model,
            index=s.index,
            program_sha256=program_sha256(request.program),
        )
        out.append((entry, request))
    for problem in problems:
        if not problem.optimization_tests:
            continue
        for ref in problem.references_labelled(ReferenceLabel.CORRECT):
            request = ExecutionRequest.for_problem(
                problem,
                ref.code,
                tests=problem.optimization_tests,
                limits=limits(problem),
                options=options,
                program_name=f"reference/{ref.name}",
            )
            entry = ManifestEntry(
                kind="reference",
                problem_id=problem.id,
                reference=ref.name,
                program_sha256=program_sha256(request.program),
            )
            out.append((entry, request))
    return out


def run_campaign(
    folder: EvalFolder,
    executor: Executor,
    *,
    seed: int = 0,
    cap_s: float | None = None,
    repeats: int = 1,
    timing: Literal["cpu", "wall"] = "cpu",
    max_optimization_tests: int | None = None,
    progress: bool = True,
) -> CampaignInfo:
    """Execute every stored sample and every correct reference in one shuffled order and store
    the records with their manifest in ``folder``."""
    if cap_s is not None and not 0 < cap_s <= 600:
        raise ExecrlError(f"the cap must lie in (0, 600] seconds, got {cap_s}")
    if max_optimization_tests is not None and max_optimization_tests < 1:
        raise ExecrlError(f"max_optimization_tests must be >= 1, got {max_optimization_tests}")
    samples = folder.samples()
    if not samples:
        raise ExecrlError(f"{folder.path}: no samples to execute; run `execrl eval sample` first")
    problems = [
        restrict_optimization_tests(p, max_optimization_tests)
        for p in folder.problems(restrict=False)
    ]
    pairs = campaign_requests(problems, samples, cap_s=cap_s, repeats=repeats, timing=timing)
    random.Random(seed).shuffle(pairs)  # interleave models and references (module docstring)
    entries = [entry for entry, _ in pairs]
    started = time.perf_counter()
    records = list(
        executor.run_batch(
            [request for _, request in pairs], progress=progress, description="eval campaign"
        )
    )
    info = CampaignInfo(
        created_at=datetime.now(UTC),
        seed=seed,
        cap_s=cap_s,
        repeats=repeats,
        timing=timing,
        workers=getattr(executor, "workers", 1),
        max_optimization_tests=max_optimization_tests,
        machine=MachineFingerprint.current().model_dump(),
        isolation=list(getattr(executor, "isolation", [])),
        samples=sum(e.kind == "sample" for e in entries),
        references=sum(e.kind == "reference" for e in entries),
        wall_s=time.perf_counter() - started,
    )
    folder.write_campaign(info, entries, records)
    return info
