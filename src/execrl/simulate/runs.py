"""Stored runs: what the simulator replays instead of executing anything (spec §7).

For every problem, each correct reference has one :class:`~execrl.sandbox.ExecutionRecord`
(per-test verdicts and durations). The same records give the reference pool ``H(x)``: a
reference's stored duration on an optimization test is its measured duration where it
succeeded, the problem's time limit where it timed out (spec §1), and missing otherwise.

Two forms, one content:

- :class:`ProblemRuns` — a Problem whose correct references carry those pool durations, and
  the records. This is what execrl's own per-outcome path (``Environment.outcome`` and the
  rewards) consumes.
- :class:`StoredRuns` — the same data as padded numpy arrays over (problem, test, reference),
  for the vectorised engine. ``StoredRuns.from_problem_runs`` builds it from ProblemRuns and
  ``StoredRuns.problem_runs(i)`` goes back (materialising a Problem when the runs were made
  without one, as for the synthetic corpus).

Runs come from a timing campaign (``runs_from_campaign``; only optimization tests are measured
there, so every reference passes its correctness tests) or from scoring records
(``runs_from_records``: the JSONL that ``execrl score`` writes, or ``save_records``).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from execrl.errors import ExecrlError
from execrl.problems.models import (
    Problem,
    Reference,
    ReferenceLabel,
    StdioTest,
    TestGroup,
)
from execrl.sandbox.counting import seconds_as
from execrl.sandbox.limits import TimingMetric, is_counted
from execrl.sandbox.records import ExecutionRecord, Status, TestResult

# Per-test verdict codes of the arrays (the spec's four states, plus "not run": a test of the
# problem missing from the record, which an environment counts as a failure).
SUCCESS, TIMEOUT, FAILURE, INCONCLUSIVE, NOT_RUN = 0, 1, 2, 3, 4
_CODES = {Status.SUCCESS: SUCCESS, Status.TIMEOUT: TIMEOUT, Status.INCONCLUSIVE: INCONCLUSIVE}
_STATUSES = {
    SUCCESS: Status.SUCCESS,
    TIMEOUT: Status.TIMEOUT,
    FAILURE: Status.WRONG_ANSWER,
    INCONCLUSIVE: Status.INCONCLUSIVE,
}


def status_code(status: Status) -> int:
    """The array code of a sandbox status (every status without its own state is a failure)."""
    return _CODES.get(status, FAILURE)


def pool_durations(
    record: ExecutionRecord, test_ids: Iterable[str], cap_s: float, timing: TimingMetric
) -> dict[str, float]:
    """A reference's stored durations on ``test_ids``: the measured duration where it
    succeeded, ``cap_s`` (on ``timing``'s scale) where it timed out; other tests are missing
    (spec §1)."""
    results = {r.test_id: r for r in record.results}
    out = {}
    for test_id in test_ids:
        result = results.get(test_id)
        if result is None:
            continue
        if result.status is Status.SUCCESS:
            out[test_id] = result.duration_s(timing)
        elif result.status is Status.TIMEOUT:
            out[test_id] = cap_s
    return out


@dataclass(frozen=True)
class ProblemRuns:
    """One problem and one record per correct reference; the problem's correct references
    carry the pool durations the records give (others carry none)."""

    problem: Problem
    records: dict[str, ExecutionRecord]
    """Reference name → its record, in the problem's reference order."""
    timing: TimingMetric = "cpu"
    correctness_measured: bool = True
    """False when the correctness tests were not run (a campaign): their verdicts are assumed
    successes and they carry no durations."""
    count_rate: float | None = None
    """Counts per second at which a counted timing's timeouts are stored at the problem's
    limit (None = the default rate; unused for cpu and wall)."""

    @classmethod
    def build(
        cls,
        problem: Problem,
        records: dict[str, ExecutionRecord],
        *,
        timing: TimingMetric = "cpu",
        correctness_measured: bool = True,
        count_rate: float | None = None,
    ) -> ProblemRuns:
        """Keep the correct references that have a record, and store their pool durations
        (a counted ``timing`` needs records that hold counts: ``check_counted``)."""
        from execrl.envs.environment import check_counted

        correct = [r.name for r in problem.references_labelled(ReferenceLabel.CORRECT)]
        kept = {name: records[name] for name in correct if name in records}
        for record in kept.values():
            check_counted(record, timing)
        kept = {
            name: r if r.timing == timing else r.model_copy(update={"timing": timing})
            for name, r in kept.items()
        }
        opt_ids = [t.id for t in problem.optimization_tests]
        cap = seconds_as(problem.time_limit_s, timing, count_rate)
        refs = [
            ref.model_copy(
                update={
                    "durations_s": pool_durations(kept[ref.name], opt_ids, cap, timing)
                    if ref.name in kept
                    else {}
                }
            )
            for ref in problem.references
        ]
        return cls(
            problem.model_copy(update={"references": refs}),
            kept,
            timing,
            correctness_measured,
            count_rate,
        )

    @property
    def names(self) -> list[str]:
        return list(self.records)


# --------------------------------------------------------------------------------------------
# The array form


@dataclass(frozen=True, eq=False)
class StoredRuns:
    """Padded arrays over problems ``p``, optimization tests ``t``, correctness tests ``c`` and
    references ``h`` (``valid`` masks mark the real entries)."""

    problem_ids: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    cap_s: np.ndarray
    """(P,) each problem's own time limit (the hard cap when the environment sets none)."""
    opt_valid: np.ndarray
    """(P, T) real optimization tests."""
    io_length: np.ndarray
    """(P, T) ``len(u_t) + len(v_t)`` in characters (for the length filter)."""
    status: np.ndarray
    """(P, T, R) int8 verdict code of reference h on optimization test t."""
    duration: np.ndarray
    """(P, T, R) its measured duration in the timing's unit, seconds or a count (NaN where
    not run)."""
    ref_valid: np.ndarray
    """(P, R) real references."""
    cor_valid: np.ndarray
    """(P, C) real correctness tests."""
    cor_original: np.ndarray
    """(P, C) correctness tests in T0 (the others are T+)."""
    cor_status: np.ndarray
    """(P, C, R) int8 verdict codes on the correctness tests."""
    cor_duration: np.ndarray
    """(P, C, R) durations on the correctness tests."""
    timing: TimingMetric = "cpu"
    correctness_measured: bool = True
    source: tuple[ProblemRuns, ...] | None = field(default=None, repr=False)
    """The ProblemRuns these arrays were built from, when there are any."""
    count_rate: float | None = None
    """Counts per second for a counted timing: each problem's limit on the count scale is
    ``seconds_as(cap_s, timing, count_rate)`` (None = the default rate)."""

    @property
    def unit_caps(self) -> np.ndarray:
        """(P,) each problem's limit on the timing's scale (``cap_s`` for cpu and wall)."""
        return seconds_as(self.cap_s, self.timing, self.count_rate)

    @property
    def shape(self) -> tuple[int, int, int]:
        """(problems, optimization tests, references) after padding."""
        return self.status.shape  # type: ignore[return-value]

    def __len__(self) -> int:
        return len(self.problem_ids)

    @property
    def pairs(self) -> int:
        """How many (problem, reference) pairs there are."""
        return int(self.ref_valid.sum())

    def pool_raw(self) -> np.ndarray:
        """(P, T, R) stored pool durations before sanitising: the duration where the reference
        succeeded, the problem's limit (on the timing's scale) where it timed out, NaN
        otherwise."""
        cap = self.unit_caps[:, None, None]
        raw = np.where(self.status == SUCCESS, self.duration, np.nan)
        raw = np.where(self.status == TIMEOUT, cap, raw)
        valid = self.opt_valid[:, :, None] & self.ref_valid[:, None, :]
        return np.where(valid, raw, np.nan)

    def subset(self, index: Sequence[int] | slice) -> StoredRuns:
        """The runs of some problems (same padding)."""
        idx = np.arange(len(self))[index]
        source = tuple(self.source[i] for i in idx) if self.source is not None else None
        return StoredRuns(
            tuple(self.problem_ids[i] for i in idx),
            tuple(self.references[i] for i in idx),
            self.cap_s[idx],
            self.opt_valid[idx],
            self.io_length[idx],
            self.status[idx],
            self.duration[idx],
            self.ref_valid[idx],
            self.cor_valid[idx],
            self.cor_original[idx],
            self.cor_status[idx],
            self.cor_duration[idx],
            self.timing,
            self.correctness_measured,
            source,
            self.count_rate,
        )

    # -- to and from ProblemRuns -----------------------------------------------------------
    @classmethod
    def from_problem_runs(cls, runs: Sequence[ProblemRuns]) -> StoredRuns:
        if not runs:
            raise ExecrlError("no problems with stored runs of correct references to simulate")
        timings = {r.timing for r in runs}
        if len(timings) > 1:
            raise ExecrlError(f"the runs mix timing metrics {sorted(timings)}; use one")
        rates = {r.count_rate for r in runs}
        if len(rates) > 1:
            raise ExecrlError(f"the runs mix count rates {sorted(rates, key=str)}; use one")
        P = len(runs)
        T = max(len(r.problem.optimization_tests) for r in runs)
        C = max(len(r.problem.correctness_tests) for r in runs)
        R = max(max(len(r.records), 1) for r in runs)
        out = _empty_arrays(P, T, C, R)
        for p, pr in enumerate(runs):
            _fill(out, p, pr)
        return cls(
            tuple(r.problem.id for r in runs),
            tuple(tuple(r.names) for r in runs),
            timing=timings.pop(),
            correctness_measured=all(r.correctness_measured for r in runs),
            source=tuple(runs),
            count_rate=rates.pop(),
            **out,
        )

    def check_reward(self, reward_fn) -> None:
        """Refuse a reward these runs cannot replay: the naive baseline over the correctness
        tests needs their durations, which a campaign does not measure."""
        from execrl.rewards.compositions import NaiveReward

        if (
            isinstance(reward_fn, NaiveReward)
            and reward_fn.over == "correctness"
            and not self.correctness_measured
        ):
            raise ExecrlError(
                f"{reward_fn.name} needs the correctness tests' durations, which a timing "
                "campaign does not measure; use scoring records (`records`) or over=optimization"
            )

    def problem_runs(self, p: int) -> ProblemRuns:
        """Problem ``p`` as a ProblemRuns: the one it was built from, or a materialised one
        (stdio tests of the stored lengths, references with the stored runs)."""
        if self.source is not None:
            return self.source[p]
        return _materialise(self, p)


def _empty_arrays(P: int, T: int, C: int, R: int) -> dict[str, np.ndarray]:
    return {
        "cap_s": np.full(P, 10.0),
        "opt_valid": np.zeros((P, T), bool),
        "io_length": np.zeros((P, T), np.int64),
        "status": np.full((P, T, R), NOT_RUN, np.int8),
        "duration": np.full((P, T, R), np.nan),
        "ref_valid": np.zeros((P, R), bool),
        "cor_valid": np.zeros((P, C), bool),
        "cor_original": np.zeros((P, C), bool),
        "cor_status": np.full((P, C, R), NOT_RUN, np.int8),
        "cor_duration": np.full((P, C, R), np.nan),
    }


def _fill(out: dict[str, np.ndarray], p: int, runs: ProblemRuns) -> None:
    from execrl.envs.operators import io_length

    problem = runs.problem
    out["cap_s"][p] = problem.time_limit_s
    opt, cor = problem.optimization_tests, problem.correctness_tests
    out["opt_valid"][p, : len(opt)] = True
    out["io_length"][p, : len(opt)] = [io_length(t) for t in opt]
    out["cor_valid"][p, : len(cor)] = True
    out["cor_original"][p, : len(cor)] = [t.group is TestGroup.ORIGINAL for t in cor]
    for h, record in enumerate(runs.records.values()):
        out["ref_valid"][p, h] = True
        results = {r.test_id: r for r in record.results}
        for prefix, tests in (("", opt), ("cor_", cor)):
            for t, test in enumerate(tests):
                result = results.get(test.id)
                if result is not None:
                    out[f"{prefix}status"][p, t, h] = status_code(result.status)
                    out[f"{prefix}duration"][p, t, h] = result.duration_s(runs.timing)


def _materialise(runs: StoredRuns, p: int) -> ProblemRuns:
    """A Problem and records holding exactly problem ``p``'s arrays."""
    T = int(runs.opt_valid[p].sum())
    C = int(runs.cor_valid[p].sum())
    tests = []
    for c in range(C):
        group = TestGroup.ORIGINAL if runs.cor_original[p, c] else TestGroup.EXTRA
        tests.append(StdioTest(id=f"cor-{c:03d}", group=group, input="1\n", output="1\n"))
    for t in range(T):
        n = int(runs.io_length[p, t])
        tests.append(
            StdioTest(
                id=f"opt-{t:03d}",
                group=TestGroup.OPTIMIZATION,
                input="x" * max(n - 1, 0),
                output="0" if n >= 1 else "",
            )
        )
    names = runs.references[p]
    references = [Reference(name=n, code="pass\n", label=ReferenceLabel.CORRECT) for n in names]
    problem = Problem(
        id=runs.problem_ids[p],
        time_limit_s=float(runs.cap_s[p]),
        tests=tests,
        references=references,
    )
    records = {}
    for h, name in enumerate(names):
        results = []
        for prefix, ids in (("cor_", range(C)), ("", range(T))):
            kind = "cor" if prefix else "opt"
            for t in ids:
                code = int(getattr(runs, f"{prefix}status")[p, t, h])
                if code == NOT_RUN:
                    continue
                d = float(getattr(runs, f"{prefix}duration")[p, t, h])
                results.append(stored_result(f"{kind}-{t:03d}", _STATUSES[code], d, runs.timing))
        records[name] = ExecutionRecord(
            problem_id=problem.id,
            program_sha256="0" * 64,
            program_name=name,
            results=results,
            timing=runs.timing,
        )
    return ProblemRuns.build(
        problem,
        records,
        timing=runs.timing,
        correctness_measured=runs.correctness_measured,
        count_rate=runs.count_rate,
    )


def stored_result(test_id: str, status: Status, d: float, timing: str) -> TestResult:
    """A TestResult holding one stored duration ``d`` as ``timing`` reads it: both clocks for
    cpu and wall; for a count, the count of a passing test (a failure has none)."""
    if not is_counted(timing):
        return TestResult(test_id=test_id, status=status, cpu_s=d, wall_s=d)
    if status is not Status.SUCCESS:
        return TestResult(test_id=test_id, status=status)
    count = round(d) if timing == "instructions" else d
    return TestResult(test_id=test_id, status=status, **{timing: count})


# --------------------------------------------------------------------------------------------
# Loaders


def runs_from_campaign(
    problems: Sequence[Problem],
    campaign,
    *,
    timing: TimingMetric = "cpu",
    aggregate: Literal["median", "mean"] = "median",
    count_rate: float | None = None,
) -> list[ProblemRuns]:
    """ProblemRuns from a timing campaign (``execrl.timing.store.Campaign``).

    A campaign measures the correct references on optimization tests only, so: the problem
    keeps the optimization tests the campaign measured (others are left out, so they do not
    count as "not run"), and every correctness test is a success without a duration. Per
    (test, reference), over the reruns that succeeded or timed out (timeouts at the limit),
    the ``aggregate`` duration is the stored one — a success below the limit, a timeout at or
    above it; with no such rerun the verdict is the commonest failure (or inconclusive when
    every rerun was). With a counted ``timing`` the limit is a count at ``count_rate``, and
    the campaign must have counted by that metric."""
    check_campaign_timing(campaign, timing)
    by_problem: dict[str, dict[tuple[str, str], object]] = {}
    for m in campaign.measurements:
        by_problem.setdefault(m.problem_id, {})[(m.test_id, m.reference)] = m
    out = []
    for problem in problems:
        measured = by_problem.get(problem.id)
        if not measured:
            continue
        tests_measured = {test_id for test_id, _ in measured}
        tests = [
            t for t in problem.tests if t.group != TestGroup.OPTIMIZATION or t.id in tests_measured
        ]
        kept = problem.model_copy(update={"tests": tests})
        records = {}
        for ref in kept.references_labelled(ReferenceLabel.CORRECT):
            results = [
                TestResult(test_id=t.id, status=Status.SUCCESS) for t in kept.correctness_tests
            ]
            for test in kept.optimization_tests:
                m = measured.get((test.id, ref.name))
                if m is not None:
                    results.append(
                        _campaign_result(m, kept.time_limit_s, timing, aggregate, count_rate)
                    )
            if len(results) > len(kept.correctness_tests):
                records[ref.name] = ExecutionRecord(
                    problem_id=kept.id,
                    program_sha256="0" * 64,
                    program_name=ref.name,
                    results=results,
                    timing=timing,
                )
        if records:
            out.append(
                ProblemRuns.build(
                    kept, records, timing=timing, correctness_measured=False, count_rate=count_rate
                )
            )
    if not out:
        chosen = ", ".join(p.id for p in problems[:5])
        raise ExecrlError(
            f"campaign {campaign.info.id} measured none of these problems ({chosen}…); run "
            "`execrl timing campaign` on them or pick the problems it covers"
        )
    return out


def check_campaign_timing(campaign, timing: str) -> None:
    """A counted timing reads counts: refuse a campaign that counted by another metric (or
    none). A clock can be read from any campaign (a counted one keeps its native times)."""
    measured = getattr(campaign.info.settings, "timing", "cpu")
    if is_counted(timing) and measured != timing:
        raise ExecrlError(
            f"campaign {campaign.info.id} was timed by {measured}, so it holds no {timing}; "
            f"read it with timing={measured!r}, or measure a campaign with `timing` {timing}"
        )


def _campaign_result(
    m, cap_s: float, timing: TimingMetric, aggregate: str, count_rate: float | None
) -> TestResult:
    """One triple's stored verdict and duration (a timeout at ``cap_s`` seconds, converted
    to a count at ``count_rate`` for a counted timing)."""
    d = m.duration(timing, aggregate, cap_s, count_rate)
    if d is not None:
        status = Status.SUCCESS if d < seconds_as(cap_s, timing, count_rate) else Status.TIMEOUT
        return stored_result(m.test_id, status, d, timing)
    if all(s is Status.INCONCLUSIVE for s in m.statuses):
        return TestResult(test_id=m.test_id, status=Status.INCONCLUSIVE)
    failed = [s for s in m.statuses if s is not Status.INCONCLUSIVE]
    status = Counter(failed).most_common(1)[0][0]
    clock = "wall" if timing == "wall" else "cpu"  # (a failure is not counted: its CPU time)
    times = [v for s, v in zip(m.statuses, getattr(m, f"{clock}_s"), strict=True) if s is status]
    return stored_result(m.test_id, status, statistics.median(times), clock)


def runs_from_records(
    problems: Sequence[Problem],
    records: Iterable[ExecutionRecord],
    *,
    timing: TimingMetric = "cpu",
    count_rate: float | None = None,
) -> list[ProblemRuns]:
    """ProblemRuns from scoring records (one per correct reference, ``program_name`` = the
    reference's name); records of other programs are ignored. A counted ``timing`` needs
    counted records (a clear error otherwise)."""
    by_problem: dict[str, dict[str, ExecutionRecord]] = {}
    for record in records:
        named = by_problem.setdefault(record.problem_id, {})
        if record.program_name in named:
            raise ExecrlError(
                f"two records for reference {record.program_name!r} of {record.problem_id}; "
                "keep one record per reference (one scoring run)"
            )
        named[record.program_name] = record
    out = []
    for problem in problems:
        named = by_problem.get(problem.id, {})
        runs = ProblemRuns.build(problem, named, timing=timing, count_rate=count_rate)
        if runs.records:
            out.append(runs)
    if not out:
        raise ExecrlError(
            "the records hold no correct reference of these problems; make them with "
            "`execrl score` on the same problem set"
        )
    return out


def load_runs(
    problems: Sequence[Problem],
    *,
    campaign=None,
    records: str | Path | None = None,
    timing: TimingMetric = "cpu",
    count_rate: float | None = None,
) -> StoredRuns:
    """StoredRuns from a campaign or a records file (exactly one); ``count_rate`` puts the
    limits in seconds on a counted timing's scale (None = the default rate)."""
    if (campaign is None) == (records is None):
        raise ExecrlError("give the stored runs: a timing campaign or a records file")
    if campaign is not None:
        found = runs_from_campaign(problems, campaign, timing=timing, count_rate=count_rate)
        return StoredRuns.from_problem_runs(found)
    from execrl.envs.screening import read_records

    return StoredRuns.from_problem_runs(
        runs_from_records(problems, read_records(records), timing=timing, count_rate=count_rate)
    )
