"""The reference-duration store: campaigns of measured reference durations (spec §1, §6).

A *campaign* is one measurement of every (problem, test, reference) triple with one executor
setting, with every rerun kept and the machine that ran it (``ExecutionRecord.machine``: the
server's or Ray node's with a remote executor, not the caller's). Rewards read reference
durations from a chosen campaign (optionally through a calibration map fitted against a
fresher campaign); candidates are never calibrated.

On disk a store is a folder::

    <root>/campaigns/<campaign id>.jsonl.gz    header line, then one line per triple
    <root>/campaigns/in-progress.jsonl         the campaign being measured: its settings, then
                                               one line per finished run (appended and
                                               flushed as each finishes; ``resume`` goes on)
    <root>/calibrations/<name>.json            a fitted map (see execrl.timing.calibration)
"""

from __future__ import annotations

import gzip
import json
import math
import os
import random
import statistics
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from execrl.errors import DataError, ExecrlError, UsageError, describe_validation_error
from execrl.problems.models import Problem, ReferenceLabel
from execrl.results import ResultsFile, read_rows
from execrl.sandbox.counting import require_valgrind, seconds_as
from execrl.sandbox.limits import TIMING_UNITS, ExecutionOptions, Limits, TimingMetric, is_counted
from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import Status, TestResult
from execrl.timing.pool import Calibration, ReferencePool

Aggregate = Literal["median", "mean"]


def describe_timing(timing: str) -> str:
    """How a report names ``timing``'s durations: "cpu time", "instructions", ... (a count is
    never called a time)."""
    return f"{timing} time" if not is_counted(timing) else TIMING_UNITS[timing]


class ExecutorSettings(BaseModel):
    """How the durations were measured."""

    model_config = ConfigDict(frozen=True)

    backend: str = "local-forkserver"
    isolation: list[str] = Field(default_factory=list)
    workers: int = 1
    reserve_host_core: bool = True
    reruns: int = 1
    shuffled: bool = True
    timing: TimingMetric = "cpu"
    """The ``ExecutionOptions.timing`` the references ran with (campaigns stored before counts
    existed read as ``cpu``). A counted campaign (``instructions``, ``cycles_estimate``) keeps
    the native run's CPU and wall times too."""


class Measurement(BaseModel):
    """One (problem, test, reference) triple: its status and every rerun's durations."""

    model_config = ConfigDict(frozen=True)

    problem_id: str
    test_id: str
    reference: str
    statuses: list[Status]
    cpu_s: list[float]
    wall_s: list[float]
    instructions: list[int | None] | None = None
    """Per rerun, in a counted campaign: the instructions the reference executed (None for a
    rerun that did not pass: only passing tests are counted). None in a campaign timed by a
    clock, and in campaigns stored before counts existed."""
    cycles_estimate: list[float | None] | None = None
    """Per rerun, in a ``cycles_estimate`` campaign: the estimated cycles (as above)."""
    machines: list[str | None] | None = None
    """Per rerun: the ``MachineFingerprint.key`` of the machine that ran it (its fingerprint
    is in ``CampaignInfo.machines``); None for a rerun whose executor stamped no machine, and
    the whole list None in campaigns stored before machines were kept per row."""

    def values(self, timing: TimingMetric = "cpu") -> list[float]:
        """Every rerun's duration in ``timing``'s unit (``TIMING_UNITS``): seconds, or a count;
        NaN for a rerun without one (a count of a rerun that did not pass, or a campaign that
        did not count)."""
        if not is_counted(timing):
            return list(getattr(self, f"{timing}_s"))
        counts = getattr(self, timing)
        if counts is None:
            return [math.nan] * len(self.statuses)
        return [math.nan if c is None else float(c) for c in counts]

    def has(self, timing: TimingMetric) -> bool:
        """Whether any rerun has a ``timing`` duration (seconds always exist)."""
        return any(math.isfinite(v) for v in self.values(timing))

    def duration(
        self,
        timing: TimingMetric = "cpu",
        aggregate: Aggregate = "median",
        cap_s: float = 10.0,
        per_second: float | None = None,
    ) -> float | None:
        """Aggregate over the successful reruns; a rerun that timed out counts at the cap (for a
        count, ``cap_s`` at ``per_second`` counts per CPU second: ``seconds_as``); None when no
        rerun succeeded or timed out (the reference is missing here)."""
        cap = seconds_as(cap_s, timing, per_second)
        values = [
            (cap if status is Status.TIMEOUT else d)
            for status, d in zip(self.statuses, self.values(timing), strict=True)
            if status is Status.TIMEOUT or (status is Status.SUCCESS and math.isfinite(d))
        ]
        if not values:
            return None
        return statistics.median(values) if aggregate == "median" else statistics.fmean(values)


class CampaignInfo(BaseModel):
    """The header of a campaign file."""

    id: str
    created_at: datetime
    machine: MachineFingerprint
    """The machine that ran the references: the one in ``machines`` (the first of several);
    the calling machine only where no run recorded one (and in campaigns stored before the
    executing machine was kept, which stored the caller's)."""
    machines: list[MachineFingerprint] = Field(default_factory=list)
    """Every machine that ran a rerun of this campaign, in the order they first appear (empty
    in campaigns stored before the executing machine was kept)."""
    settings: ExecutorSettings
    problems: list[str]
    note: str = ""


class Campaign(BaseModel):
    info: CampaignInfo
    measurements: list[Measurement]

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def timing(self) -> TimingMetric:
        """The timing the campaign was run with (its counts, if counted; seconds always)."""
        return self.info.settings.timing

    @property
    def machines(self) -> list[MachineFingerprint]:
        """The machines that ran its reruns (for a campaign stored before they were kept:
        its one ``machine``)."""
        return list(self.info.machines) or [self.info.machine]

    def require(self, timing: TimingMetric) -> None:
        """A DataError (one line) when ``timing`` is a count this campaign does not hold."""
        if not is_counted(timing) or any(m.has(timing) for m in self.measurements):
            return
        why = (
            "but no passing test was counted"
            if timing == self.timing
            else f"and holds no {timing} counts"
        )
        raise DataError(
            f"campaign {self.id} was measured with timing={self.timing} {why}; measure one "
            f"with `execrl timing campaign --timing {timing}`"
        )

    def durations(
        self,
        timing: TimingMetric = "cpu",
        aggregate: Aggregate = "median",
        cap_s: float = 10.0,
        per_second: float | None = None,
    ) -> dict[str, dict[str, dict[str, float]]]:
        """``{problem: {reference: {test: duration}}}`` in ``timing``'s unit (triples without
        a duration left out; a timeout at ``cap_s``, as a count at ``per_second``)."""
        self.require(timing)
        out: dict[str, dict[str, dict[str, float]]] = {}
        for m in self.measurements:
            d = m.duration(timing, aggregate, cap_s, per_second)
            if d is not None:
                out.setdefault(m.problem_id, {}).setdefault(m.reference, {})[m.test_id] = d
        return out

    def pool(
        self,
        problem: Problem,
        *,
        cap_s: float | None = None,
        timing: TimingMetric = "cpu",
        aggregate: Aggregate = "median",
        calibration: Calibration | None = None,
        per_second: float | None = None,
    ) -> ReferencePool:
        """The reference pool this campaign gives ``problem``'s optimization tests
        (sanitised under ``cap_s``, default the problem's limit, which a count's pool takes
        at ``per_second``; calibrated if a map is given)."""
        cap = cap_s or problem.time_limit_s
        stored = self.durations(timing, aggregate, cap, per_second).get(problem.id, {})
        return ReferencePool.from_mapping(
            stored,
            [t.id for t in problem.optimization_tests],
            cap_s=seconds_as(cap, timing, per_second),
            calibration=calibration,
        )

    def with_durations(
        self, problems: Sequence[Problem], timing: TimingMetric = "cpu"
    ) -> list[Problem]:
        """Copies of ``problems`` whose references carry this campaign's durations (in
        ``timing``'s unit: a count for a counted timing)."""
        out = []
        for problem in problems:
            stored = self.durations(timing, cap_s=problem.time_limit_s).get(problem.id, {})
            refs = [
                r.model_copy(update={"durations_s": stored.get(r.name, {})})
                for r in problem.references
            ]
            out.append(problem.model_copy(update={"references": refs}))
        return out


# --------------------------------------------------------------------------------------------
# Running a campaign


def run_campaign(
    problems: Sequence[Problem],
    executor,
    *,
    reruns: int = 3,
    max_tests: int | None = None,
    seed: int = 0,
    note: str = "",
    progress: bool = True,
    on_pass: Callable[[int], None] | None = None,
    journal: str | Path | None = None,
    resume: bool = False,
    timing: TimingMetric = "cpu",
) -> Campaign:
    """Run every correct reference on its problem's optimization tests ``reruns`` times — each
    rerun a full shuffled pass over all (problem, reference) pairs, so slow drift and
    neighbouring runs do not line up with one solution — without any fallback: an
    inconclusive run stays inconclusive (and gives no duration). ``max_tests`` keeps the
    first N optimization tests per problem (by input size) to make a campaign cheaper.

    With a ``journal`` file, every run is appended to it as it finishes, so an interrupted
    campaign keeps them; ``resume`` reads the journal back (same problems and settings) and
    runs only what is missing, in the same shuffled order.

    With a counted ``timing`` (``instructions``, ``cycles_estimate``) every passing test is
    also counted under Valgrind, and the campaign keeps each rerun's count beside the native
    run's CPU and wall times (what ``calibration.fit_count_rate`` fits); without a working
    Valgrind it is a ConfigError before anything runs."""
    if is_counted(timing):
        require_valgrind()
    if reruns < 1:
        raise UsageError(f"reruns must be >= 1, got {reruns}")
    if max_tests is not None and max_tests < 1:
        raise UsageError(f"max_tests must be >= 1, got {max_tests}")
    tests_of = {}
    for p in problems:
        tests = list(p.optimization_tests)
        if max_tests:
            tests = sorted(tests, key=lambda t: len(getattr(t, "input", "")))[:max_tests]
        tests_of[p.id] = tests
    pairs = [(p, ref) for p in problems for ref in p.references_labelled(ReferenceLabel.CORRECT)]
    if not pairs:
        raise UsageError("no correct references to measure in these problems")
    caller = MachineFingerprint.current()  # (where no record says where it ran)
    header = {
        "kind": "header",
        "created_at": datetime.now(UTC).isoformat(),
        "problems": [p.id for p in problems],
        "reruns": reruns,
        "max_tests": max_tests,
        "seed": seed,
        "note": note,
        "timing": timing,
    }
    runs: list[dict] = []
    out = None
    if journal is not None:
        if resume:
            header, runs = _resumed(Path(journal), header)
        out = ResultsFile(journal, key=_run_key, resume=resume)
        if not resume:
            out.write(header)
    done = {_run_key(run) for run in runs}
    rng = random.Random(seed)
    try:
        for rerun in range(reruns):
            order = pairs[:]
            rng.shuffle(order)  # (every rerun's order is drawn, so a resumed one is the same)
            order = [(p, ref) for p, ref in order if (rerun, p.id, ref.name) not in done]
            requests = [
                ExecutionRequest.for_problem(
                    p,
                    ref.code,
                    tests=tests_of[p.id],
                    limits=Limits.for_problem(p),
                    options=ExecutionOptions(repeats=1, timing=timing),
                    program_name=ref.name,
                    language=ref.language,
                )
                for p, ref in order
            ]
            description = f"campaign rerun {rerun + 1}/{reruns}"
            for record in executor.run_batch(requests, progress=progress, description=description):
                run = {
                    "kind": "run",
                    "rerun": rerun,
                    "problem_id": record.problem_id,
                    "reference": record.program_name,
                    "machine": record.machine.model_dump() if record.machine else None,
                    "results": [_result_row(r, timing) for r in record.results],
                }
                runs.append(run)
                if out is not None:
                    out.write(run)
            if on_pass:
                on_pass(rerun)
    finally:
        if out is not None:
            out.close()
    return _campaign(header, runs, caller, executor)


def _result_row(result: TestResult, timing: TimingMetric) -> list:
    """One test of one run in the journal: ``[test, status, cpu_s, wall_s]``, and in a counted
    campaign its ``instructions`` and ``cycles_estimate`` (null where not counted)."""
    row = [result.test_id, result.status.value, result.cpu_s, result.wall_s]
    if is_counted(timing):
        row += [result.instructions, result.cycles_estimate]
    return row


def _run_key(row: dict) -> tuple:
    return (row.get("rerun"), row.get("problem_id"), row.get("reference"))


def _resumed(path: Path, header: dict) -> tuple[dict, list[dict]]:
    """The header and finished runs of an interrupted campaign's journal, checked against
    the settings of the campaign that resumes it."""
    if not path.is_file():
        raise UsageError(f"{path}: no interrupted campaign to resume")
    rows = read_rows(path)
    if not rows or rows[0].get("kind") != "header":
        raise DataError(f"{path}: not a campaign journal (no header line); delete it")
    stored = {"timing": "cpu", **rows[0]}  # (journals from before counts: cpu)
    differ = [
        f"{key}={stored.get(key)!r}"
        for key in ("problems", "reruns", "max_tests", "seed", "timing")
        if stored.get(key) != header[key]
    ]
    if differ:
        shown = ", ".join(d if len(d) < 60 else d[:57] + "..." for d in differ)
        raise UsageError(
            f"{path}: the interrupted campaign ran with {shown}; resume it with the same "
            "problems and settings"
        )
    return stored, [row for row in rows[1:] if row.get("kind") == "run"]


def _campaign(header: dict, runs: list[dict], caller: MachineFingerprint, executor) -> Campaign:
    timing = header.get("timing", "cpu")
    collected: dict[tuple[str, str, str], list[tuple]] = {}
    machines: dict[str, MachineFingerprint] = {}
    for run in sorted(runs, key=lambda r: r["rerun"]):  # (stable: each rerun's own order)
        machine = _run_machine(run)
        if machine is not None:
            machines.setdefault(machine.key, machine)
        for test_id, status, *values in run["results"]:
            key = (run["problem_id"], test_id, run["reference"])
            ran_on = machine.key if machine else None
            collected.setdefault(key, []).append((Status(status), ran_on, *values))
    measurements = [
        _measurement(pid, tid, ref, values, timing)
        for (pid, tid, ref), values in sorted(collected.items())
    ]
    created = datetime.fromisoformat(header["created_at"])
    machine = next(iter(machines.values()), caller)
    info = CampaignInfo(
        id=f"{created:%Y%m%d-%H%M%S}-{machine.hostname}",
        created_at=created,
        machine=machine,
        machines=list(machines.values()),
        settings=ExecutorSettings(
            isolation=list(getattr(executor, "isolation", [])),
            workers=getattr(executor, "workers", 1),
            reruns=header["reruns"],
            timing=timing,
        ),
        problems=header["problems"],
        note=header["note"],
    )
    return Campaign(info=info, measurements=measurements)


def _run_machine(run: dict) -> MachineFingerprint | None:
    """The machine a journal's run row says ran it (None: not recorded)."""
    stamped = run.get("machine")
    if not stamped:
        return None
    try:
        return MachineFingerprint.model_validate(stamped)
    except ValidationError as exc:
        raise DataError(
            f"a campaign run of {run.get('problem_id')!r} names no machine "
            f"({describe_validation_error(exc)})"
        ) from None


def _measurement(pid: str, tid: str, ref: str, reruns: list[tuple], timing: str) -> Measurement:
    """A triple's reruns ``(status, machine key, cpu_s, wall_s[, instructions,
    cycles_estimate])`` as a Measurement: counts kept for a counted timing (estimated cycles
    for that timing only)."""
    column = list(zip(*reruns, strict=True))
    counts = {}
    if is_counted(timing):
        counts["instructions"] = list(column[4])
        if timing == "cycles_estimate":
            counts["cycles_estimate"] = list(column[5])
    return Measurement(
        problem_id=pid,
        test_id=tid,
        reference=ref,
        statuses=list(column[0]),
        machines=list(column[1]),
        cpu_s=list(column[2]),
        wall_s=list(column[3]),
        **counts,
    )


# --------------------------------------------------------------------------------------------
# The store on disk


class DurationStore:
    """Campaigns and calibration maps in a folder (default ``$EXECRL_TIMING_DIR`` or
    ``runs/timing``)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root or os.environ.get("EXECRL_TIMING_DIR") or "runs/timing")

    @property
    def campaigns_dir(self) -> Path:
        return self.root / "campaigns"

    @property
    def calibrations_dir(self) -> Path:
        return self.root / "calibrations"

    @property
    def journal_path(self) -> Path:
        """The campaign being measured (or interrupted): see :func:`run_campaign`."""
        return self.campaigns_dir / "in-progress.jsonl"

    def interrupted(self) -> int | None:
        """How many runs an interrupted campaign finished; None if there is none."""
        if not self.journal_path.is_file():
            return None
        return sum(row.get("kind") == "run" for row in read_rows(self.journal_path))

    def save(self, campaign: Campaign) -> Path:
        self.campaigns_dir.mkdir(parents=True, exist_ok=True)
        path = self.campaigns_dir / f"{campaign.id}.jsonl.gz"
        tmp = path.with_name(path.name + ".tmp")  # (a half-written campaign is never listed)
        with gzip.open(tmp, "wt", encoding="utf-8") as f:
            f.write(campaign.info.model_dump_json() + "\n")
            for m in campaign.measurements:
                f.write(m.model_dump_json() + "\n")
        tmp.replace(path)
        return path

    def ids(self) -> list[str]:
        """Campaign ids, oldest first."""
        if not self.campaigns_dir.is_dir():
            return []
        return sorted(
            p.name.removesuffix(".jsonl.gz") for p in self.campaigns_dir.glob("*.jsonl.gz")
        )

    def load(self, campaign_id: str | None = None) -> Campaign:
        """A campaign by id (or unique prefix); the latest when ``campaign_id`` is None."""
        ids = self.ids()
        if not ids:
            raise ExecrlError(f"no campaigns in {self.campaigns_dir}; run `execrl timing campaign`")
        if campaign_id is None:
            chosen = ids[-1]
        else:
            matches = [i for i in ids if i.startswith(campaign_id)]
            if len(matches) != 1:
                raise ExecrlError(
                    f"campaign {campaign_id!r} {'is ambiguous' if matches else 'not found'} in "
                    f"{self.campaigns_dir} (have: {', '.join(ids[-5:])})"
                )
            chosen = matches[0]
        return load_campaign(self.campaigns_dir / f"{chosen}.jsonl.gz")

    def infos(self) -> list[CampaignInfo]:
        return [self.load(i).info for i in self.ids()]


def load_campaign(path: str | Path) -> Campaign:
    path = Path(path)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = [line for line in f if line.strip()]
    except (OSError, EOFError) as exc:  # (EOFError: a gzip file cut short)
        reason = getattr(exc, "strerror", None) or str(exc) or "cut short"
        raise DataError(f"{path}: cannot read campaign ({reason})") from None
    except UnicodeDecodeError:
        raise DataError(f"{path}: not a campaign file (not UTF-8 text inside)") from None
    if not lines:
        raise DataError(f"{path}: empty campaign file")
    try:
        info = CampaignInfo.model_validate_json(lines[0])
        measurements = [Measurement.model_validate_json(line) for line in lines[1:]]
    except ValidationError as exc:
        raise DataError(f"{path}: not a campaign file ({describe_validation_error(exc)})") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not a campaign file ({exc})") from None
    return Campaign(info=info, measurements=measurements)


def triples(campaign: Campaign, timing: TimingMetric = "cpu") -> Iterable[tuple]:
    """(problem, test, reference, [per-rerun durations of successful reruns]), in ``timing``'s
    unit (a DataError when it is a count the campaign does not hold)."""
    campaign.require(timing)
    for m in campaign.measurements:
        values = [
            d
            for s, d in zip(m.statuses, m.values(timing), strict=True)
            if s is Status.SUCCESS and math.isfinite(d)
        ]
        yield m.problem_id, m.test_id, m.reference, values
