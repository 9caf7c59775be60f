"""Scoring a run of named programs into a results file (what ``execrl score --programs`` does):
the reference durations chosen, checked or measured, every program scored under an environment
and a reward (:func:`execrl.rewards.streaming.iter_scored`), one JSONL row per program written
(and flushed) as each is scored, and an interrupted run resumed.

    from execrl.evaluate.programs import Program
    from execrl.problems import load_bundled
    from execrl.rewards.program_scores import score_programs
    from execrl.rewards.score_config import env_and_reward
    from execrl.sandbox import LocalExecutor

    (problem,) = load_bundled(["edit-distance"])
    env, reward_fn = env_and_reward("mc", "collapsed")
    programs = [Program(problem.id, ref.name, ref.code) for ref in problem.references[:2]]
    with LocalExecutor(workers=2) as executor:
        scores = score_programs(programs, {problem.id: problem}, "runs/scores.jsonl",
                                env=env, reward_fn=reward_fn, executor=executor)
    print(scores.rewards)        # [1.0, 1.0]: one per row, None for an inconclusive run

Reference durations (``references``): ``"measure"`` runs every correct reference on the
optimization tests on the same executor as the programs (spec §5: compare what ran
together) and saves them as a timing-store campaign beside the results
(:func:`execrl.timing.measured.measured_store`), ``"stored"`` uses those in the problems, and
any other value is a saved campaign (file, or store folder for its latest). A resumed run that
measured scores the rest against the durations its rows already used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from execrl.envs.environment import Environment
from execrl.problems.models import Problem, ReferenceLabel
from execrl.results import ResultsFile, Row
from execrl.rewards.compositions import RewardFn
from execrl.rewards.score_rows import check_resumable, program_key, row_key, score_row
from execrl.rewards.streaming import NamedProgram, group_indices, iter_scored, language_of
from execrl.sandbox.executor_source import ExecutorSource, executor_in_use
from execrl.sandbox.protocol import Executor
from execrl.timing.measured import (
    latest_measured,
    measure_campaign,
    measured_store,
    read_campaign,
    save_measured,
    with_campaign_durations,
)
from execrl.timing.store import Campaign


class MeasuredReferences(NamedTuple):
    """The reference durations a run measured, saved as a timing-store campaign."""

    campaign_file: Path
    """Where the campaign was saved (beside the results file)."""
    references: int
    """How many (problem, reference) pairs were measured."""
    problems: int
    """Over how many problems."""


@dataclass(frozen=True)
class ProgramScores:
    """A scoring run's results file, read back: every row, those of an earlier run first."""

    path: Path
    rows: list[Row]
    resumed: int
    """How many of ``rows`` an earlier (interrupted) run had scored."""

    @property
    def rewards(self) -> list[float | None]:
        """Each row's reward; None where the execution was inconclusive (the sandbox
        failed, not the program)."""
        return [row.get("reward") for row in self.rows]

    @property
    def inconclusive(self) -> int:
        return sum(r is None for r in self.rewards)


def score_programs(
    programs: Sequence[NamedProgram],
    problems: Mapping[str, Problem],
    out: str | Path,
    *,
    env: Environment,
    reward_fn: RewardFn,
    executor: ExecutorSource,
    references: str | None = None,
    resume: bool = False,
    progress: bool = True,
    on_measured: Callable[[MeasuredReferences], None] | None = None,
    on_unreferenced: Callable[[Problem], None] | None = None,
) -> ProgramScores:
    """Score ``programs`` (each answering a problem of ``problems``) under ``env`` and
    ``reward_fn`` into the JSONL file ``out``, one row per program (see the module docstring
    for ``references``; default: ``"measure"`` when the environment ranks, filters or limits
    by reference durations, else ``"stored"``). With ``resume``, the rows already in ``out``
    are kept and only the programs they lack are scored; they must have been scored the
    same way (a UsageError otherwise). Everything a caller can get wrong is checked before
    ``executor`` runs anything. ``on_measured`` is told about freshly measured references,
    ``on_unreferenced`` of each problem with no stored durations to rank against.
    ``executor``: open, or a function that opens one when a program is left to score."""
    out = Path(out)
    references = references or ("measure" if env.config.needs_references else "stored")
    earlier = latest_measured(measured_store(out)) if references == "measure" and resume else None
    problems = _with_given_references(problems, env, references, earlier, str(measured_store(out)))
    measuring = references == "measure" and earlier is None
    with ResultsFile(out, key=row_key, resume=resume) as results:  # fails now if unwritable
        check_resumable(results.rows, str(results.path), env, reward_fn, references)
        rows = list(results.rows)
        todo = [p for p in programs if not results.has(_key(p))]
        if todo:
            with executor_in_use(executor) as pool:
                if measuring:
                    problems = _measure(problems, env, pool, out, progress, on_measured)
                elif references == "stored" and env.config.needs_references:
                    _tell_unreferenced(problems, on_unreferenced)
                scored = iter_scored(
                    todo,
                    problems,
                    env=env,
                    reward_fn=reward_fn,
                    executor=pool,
                    group_of=group_indices(programs),
                    progress=progress,
                )
                for _, one in scored:
                    row = score_row(one, reward_fn, references)
                    results.write(row)  # flushed: an interruption keeps every finished row
                    rows.append(row)
    return ProgramScores(results.path, rows, results.resumed)


def _key(program: NamedProgram) -> tuple:
    return program_key(program.problem_id, program.code, program.name, language_of(program))


def _with_given_references(
    problems: Mapping[str, Problem],
    env: Environment,
    references: str,
    earlier: Campaign | None,
    earlier_where: str,
) -> dict[str, Problem]:
    """The problems with the durations known before anything runs: those an earlier run of a
    resumed file measured, or a saved campaign's; checked to be in the environment's unit (a
    DataError now)."""
    if earlier is not None:  # score the rest against the durations the rows already in it used
        problems = apply_campaign(problems, earlier, env, earlier_where)
    elif references not in ("measure", "stored"):
        problems = apply_campaign(problems, read_campaign(references), env, references)
    if references != "measure" or earlier is not None:
        check_reference_units(problems, env)
    return dict(problems)


def apply_campaign(
    problems: Mapping[str, Problem], campaign: Campaign, env: Environment, where: str
) -> dict[str, Problem]:
    """The problems with the campaign's durations, read under the environment's timing, cap
    and count rate."""
    return with_campaign_durations(
        problems,
        campaign,
        timing=env.timing_for(),
        caps_s={pid: env.cap_for(p) for pid, p in problems.items()},
        per_second=env.config.count_rate,
        where=where,
    )


def _measure(
    problems: Mapping[str, Problem],
    env: Environment,
    executor: Executor,
    out: Path,
    progress: bool,
    on_measured: Callable[[MeasuredReferences], None] | None,
) -> dict[str, Problem]:
    """Fresh durations for every correct reference on the optimization tests, measured on the
    same machine and executor as the programs, saved as a timing-store campaign beside
    ``out`` so the scores can be reproduced against them."""
    campaign = measure_campaign(
        list(problems.values()), executor, timing=env.timing_for(), progress=progress
    )
    saved = save_measured(campaign, measured_store(out))
    pairs = {(m.problem_id, m.reference) for m in campaign.measurements}
    if on_measured is not None:
        on_measured(MeasuredReferences(saved, len(pairs), len(problems)))
    return apply_campaign(problems, campaign, env, str(saved))


def check_reference_units(problems: Mapping[str, Problem], env: Environment) -> None:
    """Stored or saved reference durations must be of the environment's timing (seconds for
    cpu and wall, counts for a counted one): a DataError now, before any sandbox starts."""
    if env.config.needs_references:
        for problem in problems.values():
            env.pool(problem)


def _tell_unreferenced(
    problems: Mapping[str, Problem], on_unreferenced: Callable[[Problem], None] | None
) -> None:
    if on_unreferenced is None:
        return
    for problem in problems.values():
        if not any(r.durations_s for r in problem.references_labelled(ReferenceLabel.CORRECT)):
            on_unreferenced(problem)
