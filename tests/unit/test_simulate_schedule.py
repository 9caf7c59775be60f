"""Stored runs from campaigns and records, quality scores, bands and the schedule, with values
worked out by hand."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from execrl.errors import ExecrlError
from execrl.problems.models import Problem, Reference, ReferenceLabel, StdioTest, TestGroup
from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.records import ExecutionRecord, Status, TestResult
from execrl.simulate import (
    Schedule,
    StoredRuns,
    quality_scores,
    runs_from_campaign,
    runs_from_records,
    synthetic_runs,
)
from execrl.simulate.runs import FAILURE, INCONCLUSIVE, SUCCESS, TIMEOUT
from execrl.simulate.schedule import aligned_quality, band_members, metric_values
from execrl.timing.store import (
    Campaign,
    CampaignInfo,
    ExecutorSettings,
    Measurement,
)

CAP = 2.0


def problem(refs=("fast", "mid", "slow", "wrong"), tests=3) -> Problem:
    items = [
        StdioTest(id="c0", group=TestGroup.ORIGINAL, input="1\n", output="1\n"),
        StdioTest(id="x0", group=TestGroup.EXTRA, input="2\n", output="2\n"),
    ]
    items += [
        StdioTest(id=f"o{i}", group=TestGroup.OPTIMIZATION, input="3" * (i + 1), output="3")
        for i in range(tests)
    ]
    references = [
        Reference(
            name=n,
            code="pass",
            label=ReferenceLabel.INCORRECT if n == "wrong" else ReferenceLabel.CORRECT,
        )
        for n in refs
    ]
    return Problem(id="p", time_limit_s=CAP, tests=items, references=references)


def record(name: str, results: dict[str, tuple[Status, float]]) -> ExecutionRecord:
    rows = [TestResult(test_id=t, status=s, cpu_s=d, wall_s=d * 2) for t, (s, d) in results.items()]
    return ExecutionRecord(problem_id="p", program_sha256="0" * 64, program_name=name, results=rows)


OK = Status.SUCCESS


def test_records_give_verdicts_durations_and_the_pool():
    records = [
        record("fast", {"c0": (OK, 0.01), "x0": (OK, 0.01), "o0": (OK, 0.1), "o1": (OK, 0.2)}),
        record(
            "mid",
            {
                "c0": (OK, 0.01),
                "x0": (Status.WRONG_ANSWER, 0.01),
                "o0": (Status.TIMEOUT, 2.0),
                "o1": (OK, 0.4),
                "o2": (OK, 0.5),
            },
        ),
        record("wrong", {"c0": (OK, 0.01)}),  # an incorrect reference is not simulated
        record("other", {"c0": (OK, 0.01)}),  # nor a program that is no reference
    ]
    (runs,) = runs_from_records([problem()], records)
    assert runs.names == ["fast", "mid"]  # "slow" has no record
    stored = {r.name: r.durations_s for r in runs.problem.references}
    assert stored == {
        "fast": {"o0": 0.1, "o1": 0.2},
        "mid": {"o0": CAP, "o1": 0.4, "o2": 0.5},
        "slow": {},
        "wrong": {},
    }
    arrays = StoredRuns.from_problem_runs([runs])
    assert arrays.status[0, :, 0].tolist() == [SUCCESS, SUCCESS, 4]  # o2 not run
    assert arrays.status[0, :, 1].tolist() == [TIMEOUT, SUCCESS, SUCCESS]
    assert arrays.cor_status[0, :, 1].tolist() == [SUCCESS, FAILURE]
    assert arrays.cor_original[0].tolist() == [True, False]
    assert arrays.io_length[0].tolist() == [2, 3, 4]
    wall = StoredRuns.from_problem_runs(runs_from_records([problem()], records, timing="wall"))
    assert wall.duration[0, 1, 1] == 0.8
    with pytest.raises(ExecrlError, match="two records for reference 'fast'"):
        runs_from_records([problem()], records + records[:1])
    with pytest.raises(ExecrlError, match="no correct reference"):
        runs_from_records([problem()], records[2:])


def campaign(measurements: list[Measurement]) -> Campaign:
    info = CampaignInfo(
        id="c1",
        created_at=datetime.now(UTC),
        machine=MachineFingerprint(hostname="h", cpu_model="c", cores=2, kernel="k", python="3"),
        settings=ExecutorSettings(),
        problems=["p"],
    )
    return Campaign(info=info, measurements=measurements)


def m(test: str, ref: str, statuses: list[Status], cpu: list[float]) -> Measurement:
    return Measurement(
        problem_id="p", test_id=test, reference=ref, statuses=statuses, cpu_s=cpu, wall_s=cpu
    )


def test_a_campaign_gives_the_medians_and_keeps_only_measured_tests():
    TO, WA, INC = Status.TIMEOUT, Status.WRONG_ANSWER, Status.INCONCLUSIVE
    c = campaign(
        [
            m("o0", "fast", [OK, OK, OK], [0.3, 0.1, 0.2]),  # median 0.2
            m("o1", "fast", [TO, OK, TO], [2.1, 0.5, 2.2]),  # median of (cap, 0.5, cap): cap
            m("o0", "mid", [WA, WA, INC], [0.4, 0.6, 0.0]),  # commonest failure, its median
            m("o1", "mid", [INC, INC, INC], [0.0, 0.0, 0.0]),
        ]
    )
    (runs,) = runs_from_campaign([problem()], c)
    assert [t.id for t in runs.problem.optimization_tests] == ["o0", "o1"]  # o2 never measured
    assert runs.correctness_measured is False
    arrays = StoredRuns.from_problem_runs([runs])
    assert arrays.status[0, :, 0].tolist() == [SUCCESS, TIMEOUT]
    assert arrays.duration[0, :, 0].tolist() == [0.2, CAP]
    assert arrays.status[0, :, 1].tolist() == [FAILURE, INCONCLUSIVE]
    assert arrays.duration[0, 0, 1] == 0.5
    assert (arrays.cor_status[0, :, :2] == SUCCESS).all()  # correctness assumed
    assert np.isnan(arrays.pool_raw()[0, :, 1]).all()  # no usable duration for "mid"
    with pytest.raises(ExecrlError, match="measured none of these problems"):
        runs_from_campaign([problem().model_copy(update={"id": "q"})], c)


def pool_runs(durations: list[list[float]]) -> StoredRuns:
    """One problem, references in columns, tests in rows (NaN: not run)."""
    D = np.array(durations, dtype=float)
    T, R = D.shape
    runs = synthetic_runs(1, T, R, correctness_tests=1)
    status = np.where(np.isnan(D), 4, SUCCESS).astype(np.int8)[None]
    return StoredRuns(
        runs.problem_ids,
        runs.references,
        runs.cap_s,
        runs.opt_valid,
        runs.io_length,
        status,
        D[None],
        runs.ref_valid,
        runs.cor_valid,
        runs.cor_original,
        runs.cor_status,
        runs.cor_duration,
    )


def test_quality_is_one_minus_the_mean_percentile_among_the_others():
    runs = pool_runs([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [5.0, 4.0, np.nan]])
    # ref 0: faster than both on t0, t1 (0/2, 0/2), slower than the one other on t2 (1/1)
    # ref 1: 1/2, 2/2, 0/1 → mean 1/2 ; ref 2: 2/2, 1/2 (t2 missing) → mean 3/4
    assert quality_scores(runs)[0].tolist() == pytest.approx([1 - 1 / 3, 1 - 1 / 2, 1 - 3 / 4])
    alone = pool_runs([[1.0, np.nan], [np.nan, 2.0]])
    assert np.isnan(quality_scores(alone)).all()  # never measured with another reference


def test_bands_fall_back_to_the_nearest_reference():
    quality = np.array([[0.0, 0.5, 1.0, np.nan], [0.2, 0.2, np.nan, np.nan]])
    assert band_members(quality, 0.5, 0.05).tolist() == [
        [False, True, False, False],
        [True, True, False, False],  # nothing within ±0.05: both nearest (tied)
    ]


def test_the_schedule_weighs_every_problem_equally_at_every_point():
    runs = synthetic_runs(5, 6, 8, seed=1)
    exact = Schedule.build(runs, points=11)
    assert exact.x.tolist() == pytest.approx([i / 10 for i in range(11)])
    assert exact.half_width == pytest.approx(0.05)
    total = (exact.even + exact.odd).sum(axis=(1, 2))
    assert total == pytest.approx(np.ones(11))
    assert np.array_equal(exact.even, exact.odd)
    per_problem = (exact.even + exact.odd).sum(axis=2)
    assert per_problem == pytest.approx(np.full((11, 5), 1 / 5))
    drawn = Schedule.build(runs, points=11, draws=3, seed=7)
    counts = (drawn.even + drawn.odd) * 15  # 5 problems × 3 draws per point
    assert np.allclose(counts, np.round(counts)) and counts.sum(axis=(1, 2)) == pytest.approx(15)
    assert drawn.even.sum(axis=(1, 2)) == pytest.approx(np.full(11, 8 / 15))  # samples 0, 2 … 14
    again = Schedule.build(runs, points=11, draws=3, seed=7)
    assert np.array_equal(drawn.even, again.even)
    # a constant value gives a flat curve, and NaN values are left out of the means
    values = np.full(runs.ref_valid.shape, 0.25)
    assert exact.curve(values) == pytest.approx(np.full(11, 0.25))
    values[:, ::2] = np.nan
    assert exact.curve(values)[np.isfinite(exact.curve(values))] == pytest.approx(0.25)


def test_quality_from_other_runs_is_aligned_by_problem_and_reference():
    runs = synthetic_runs(3, 5, 4, seed=2)
    other = synthetic_runs(3, 5, 4, seed=3)
    assert np.array_equal(aligned_quality(other, runs), quality_scores(other))
    schedule = Schedule.build(runs, quality=quality_scores(other))
    assert np.array_equal(schedule.quality, quality_scores(other))
    with pytest.raises(ExecrlError, match="shape"):
        Schedule.build(runs, quality=np.zeros((2, 2)))


def test_schedule_errors_say_what_to_change():
    runs = synthetic_runs(2, 3, 3)
    for kwargs, message in (
        ({"points": 1}, "at least 2 points"),
        ({"draws": 0}, "draws=0"),
        ({"half_width": 2.0}, "half-width"),
    ):
        with pytest.raises(ExecrlError, match=message):
            Schedule.build(runs, **kwargs)


def test_metric_values():
    r = np.array([-1.0, 0.0, 0.5, 1.0, np.nan])
    assert metric_values(r, "reward")[:4].tolist() == [0.0, 0.5, 0.75, 1.0]
    assert metric_values(r, "pass")[:4].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert np.isnan(metric_values(r, "pass")[4])
    with pytest.raises(ExecrlError, match="unknown curve metric"):
        metric_values(r, "median")  # type: ignore[arg-type]
