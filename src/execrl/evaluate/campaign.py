"""Executing an evaluation: every model's samples and the references in one shuffled campaign.

Spec §5: models are compared only after they are executed *together*, with the references
their speed is ranked against. All (program, problem) requests — every sample of every model
on all of its problem's tests, every correct reference on the optimization tests — are put in
one list and shuffled with a seed, so slow drift of the machine (thermal state, neighbours,
caches) falls on every model and on the references alike instead of on whoever ran last.
Every per-test verdict and duration is stored (see :mod:`execrl.evaluate.folder`), each
run appended to the folder's files as it finishes: an interrupted campaign keeps every run
that finished, and ``resume=True`` runs only the rest, in the same shuffled order.
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime
from typing import Any

from execrl.errors import ExecrlError, UsageError, deprecated_names
from execrl.evaluate.folder import (
    MANIFEST_FILE,
    RECORDS_FILE,
    CampaignInfo,
    EvalFolder,
    ManifestEntry,
    Sample,
    entry_key,
    restrict_optimization_tests,
)
from execrl.problems.models import Problem, ReferenceLabel, time_limit_error
from execrl.results import ResultsFile
from execrl.sandbox.counting import require_valgrind
from execrl.sandbox.limits import ExecutionOptions, Limits, TimingMetric, is_counted
from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.protocol import ExecutionRequest, Executor
from execrl.sandbox.records import program_sha256


def campaign_requests(
    problems: list[Problem],
    samples: list[Sample],
    *,
    cap_s: float | None = None,
    repeats: int = 1,
    timing: TimingMetric = "cpu",
) -> list[tuple[ManifestEntry, ExecutionRequest]]:
    """One request per sample (all of its problem's tests, under the hard cap, no early stop)
    and one per correct reference (the optimization tests), in that order, unshuffled."""
    by_id = {p.id: p for p in problems}
    options = ExecutionOptions(repeats=repeats, timing=timing)

    out = []
    for s in samples:
        problem = by_id.get(s.problem_id)
        if problem is None:
            raise ExecrlError(f"a sample of {s.model!r} answers unknown problem {s.problem_id!r}")
        request = ExecutionRequest.for_problem(
            problem,
            s.program,
            limits=Limits.for_problem(problem, cap_s=cap_s),
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
                limits=Limits.for_problem(problem, cap_s=cap_s),
                options=options,
                program_name=f"reference/{ref.name}",
                language=ref.language,
            )
            entry = ManifestEntry(
                kind="reference",
                problem_id=problem.id,
                reference=ref.name,
                program_sha256=program_sha256(request.program),
            )
            out.append((entry, request))
    return out


def run_eval_campaign(
    folder: EvalFolder,
    executor: Executor,
    *,
    seed: int = 0,
    cap_s: float | None = None,
    repeats: int = 1,
    timing: TimingMetric = "cpu",
    max_optimization_tests: int | None = None,
    progress: bool = True,
    resume: bool = False,
) -> CampaignInfo:
    """Execute every stored sample and every correct reference in one shuffled order and store
    the records with their manifest in ``folder``, each run as it finishes. ``resume``
    continues an interrupted campaign (same settings): the runs it finished are kept, runs
    of samples replaced since are dropped, and only the others execute."""
    if cap_s is not None and (why := time_limit_error(cap_s)) is not None:
        raise UsageError(f"`cap_s` {why}")
    if repeats < 1:
        raise UsageError(f"repeats must be >= 1, got {repeats}")
    if max_optimization_tests is not None and max_optimization_tests < 1:
        raise UsageError(f"max_optimization_tests must be >= 1, got {max_optimization_tests}")
    if is_counted(timing):
        require_valgrind()  # before anything is written or run
    settings = {
        "seed": seed,
        "cap_s": cap_s,
        "repeats": repeats,
        "timing": timing,
        "max_optimization_tests": max_optimization_tests,
    }
    earlier_wall_s = _check_resume(folder, settings) if resume else 0.0
    samples = folder.samples()
    if not samples:
        raise UsageError(f"{folder.path}: no samples to execute; run `execrl eval sample` first")
    problems = [
        restrict_optimization_tests(p, max_optimization_tests)
        for p in folder.problems(restrict=False)
    ]
    pairs = campaign_requests(problems, samples, cap_s=cap_s, repeats=repeats, timing=timing)
    random.Random(seed).shuffle(pairs)  # interleave models and references (module docstring)
    entries = [entry for entry, _ in pairs]
    wanted = {entry_key(e): e.program_sha256 for e in entries}
    kept = []
    if resume:  # the runs still wanted: a sample replaced since has another program
        kept = [
            (e, r)
            for e, r in folder.finished_runs()
            if wanted.get(entry_key(e)) == e.get("program_sha256")
        ]
        folder.keep_runs(kept)
    done = {entry_key(e) for e, _ in kept}
    todo = [(entry, request) for entry, request in pairs if entry_key(entry) not in done]
    # The folder has no finished campaign until this one completes.
    folder.write_manifest(folder.manifest().model_copy(update={"campaign": None}))
    folder.start_campaign(settings, earlier_wall_s)
    started = time.perf_counter()
    machines: dict[str, dict[str, Any]] = {}  # the executing machines, by key
    with (
        ResultsFile(folder.path / RECORDS_FILE, resume=resume) as records_out,
        ResultsFile(folder.path / MANIFEST_FILE, resume=resume) as manifest_out,
    ):
        try:
            records = executor.run_batch(
                [request for _, request in todo], progress=progress, description="eval campaign"
            )
            for (entry, _), record in zip(todo, records, strict=True):
                records_out.write(record)  # the record first: a manifest row always has one
                manifest_out.write(entry)
                if record.machine is not None:
                    machines.setdefault(record.machine.key, record.machine.model_dump())
        finally:
            folder.start_campaign(settings, earlier_wall_s + time.perf_counter() - started)
    info = CampaignInfo(
        created_at=datetime.now(UTC),
        seed=seed,
        cap_s=cap_s,
        repeats=repeats,
        timing=timing,
        workers=executor.workers,
        max_optimization_tests=max_optimization_tests,
        machine=next(iter(machines.values()), None) or MachineFingerprint.current().model_dump(),
        machines=list(machines.values()),
        isolation=list(executor.isolation),
        samples=sum(e.kind == "sample" for e in entries),
        references=sum(e.kind == "reference" for e in entries),
        wall_s=earlier_wall_s + time.perf_counter() - started,
    )
    folder.finish_campaign(info)
    return info


def _check_resume(folder: EvalFolder, settings: dict) -> float:
    """The wall time an interrupted campaign took so far; a UsageError if there is none or
    it ran with other settings."""
    partial = folder.partial_settings()
    if partial is None:
        raise UsageError(f"{folder.path}: no interrupted campaign to resume")
    differ = [
        f"{key}={partial['settings'].get(key)!r}"
        for key, value in settings.items()
        if partial["settings"].get(key) != value
    ]
    if differ:
        raise UsageError(
            f"{folder.path}: the interrupted campaign ran with {', '.join(differ)}; "
            "resume it with the same settings"
        )
    return float(partial.get("wall_s") or 0.0)


__getattr__ = deprecated_names(__name__, {"run_campaign": (__name__, "run_eval_campaign")})
