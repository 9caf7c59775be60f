"""The reference store with counts: Measurements keep each rerun's count, campaigns say which
timing they ran with, aggregation and the journal work on counts, and old campaigns load."""

from __future__ import annotations

import gzip
import json
import math

import pytest

from execrl.errors import DataError, UsageError
from execrl.problems import load_bundled
from execrl.sandbox.counting import seconds_as
from execrl.sandbox.records import Status, TestResult
from execrl.timing.store import (
    DurationStore,
    Measurement,
    _campaign,
    _result_row,
    describe_timing,
    load_campaign,
    run_campaign,
    triples,
)
from tests.unit.timing_counts._counted import MACHINE, counted_campaign, measurement, ok


def test_duration_aggregates_counts_not_seconds():
    m = measurement(("p", "t", "a"), [ok(0.010, 1_000), ok(0.030, 1_000), ok(0.020, 1_000)])
    assert m.duration("instructions") == 1_000
    assert m.duration("instructions", "mean") == 1_000
    assert m.duration("cpu") == pytest.approx(0.020)


def test_a_timeout_counts_at_the_cap_converted_at_the_rate():
    m = measurement(("p", "t", "a"), [ok(0.1, 500), (Status.TIMEOUT, 2.0, None)])
    # median of [500, cap]: the cap of 2 s at 1e3 instructions per second is 2,000
    assert m.duration("instructions", cap_s=2.0, per_second=1e3) == pytest.approx(1_250)
    default_cap = seconds_as(2.0, "instructions")
    assert m.duration("instructions", "mean", cap_s=2.0) == pytest.approx((500 + default_cap) / 2)
    assert m.duration("cpu", cap_s=2.0) == pytest.approx(1.05)  # seconds stay seconds


def test_a_passing_rerun_without_a_count_gives_no_count():
    m = measurement(("p", "t", "a"), [ok(0.1, None), (Status.WRONG_ANSWER, 0.1, None)])
    assert m.duration("instructions") is None
    assert m.values("instructions") == [pytest.approx(math.nan, nan_ok=True)] * 2
    assert not m.has("instructions")


def test_cycles_estimate_is_read_from_its_own_field():
    m = measurement(("p", "t", "a"), [ok(0.1, 700)], cycles=True)
    assert m.duration("cycles_estimate") == 1_400.0
    assert m.duration("instructions") == 700


def test_campaign_remembers_its_timing_and_durations_are_counts():
    c = counted_campaign(
        "c1",
        [
            measurement(("p", "t1", "a"), [ok(0.01, 100), ok(0.02, 100)]),
            measurement(("p", "t1", "b"), [ok(0.05, 900), ok(0.04, 900)]),
        ],
    )
    assert c.timing == "instructions"
    assert c.durations("instructions") == {"p": {"a": {"t1": 100}, "b": {"t1": 900}}}
    assert [values for *_, values in triples(c, "instructions")] == [[100, 100], [900, 900]]


def test_asking_a_clock_campaign_for_counts_is_a_one_line_error():
    m = Measurement(
        problem_id="p", test_id="t", reference="a",
        statuses=[Status.SUCCESS], cpu_s=[0.1], wall_s=[0.2],
    )  # fmt: skip
    c = counted_campaign("old", [m], timing="cpu")
    with pytest.raises(DataError) as err:
        c.durations("instructions")
    assert "timing=cpu" in str(err.value) and "--timing instructions" in str(err.value)
    assert "\n" not in str(err.value)
    assert c.durations("cpu") == {"p": {"a": {"t": 0.1}}}


def test_a_counted_campaign_round_trips_through_the_store(tmp_path):
    c = counted_campaign("20261201-000000-test", [measurement(("p", "t", "a"), [ok(0.1, 42)])])
    store = DurationStore(tmp_path)
    store.save(c)
    loaded = store.load()
    assert loaded.timing == "instructions"
    assert loaded.measurements[0].instructions == [42]
    assert loaded.measurements[0].duration("instructions") == 42


def test_a_campaign_stored_before_counts_still_loads(tmp_path):
    """The header and measurement lines as they were written before issue 20."""
    header = {
        "id": "20261101-000000-old",
        "created_at": "2026-11-01T00:00:00Z",
        "machine": MACHINE.model_dump(),
        "settings": {"backend": "local-forkserver", "isolation": [], "workers": 1,
                     "reserve_host_core": True, "reruns": 1, "shuffled": True},
        "problems": ["p"],
        "note": "",
    }  # fmt: skip
    line = {"problem_id": "p", "test_id": "t", "reference": "a", "statuses": ["success"],
            "cpu_s": [0.25], "wall_s": [0.3]}  # fmt: skip
    path = tmp_path / "old.jsonl.gz"
    with gzip.open(path, "wt") as f:
        f.write(json.dumps(header) + "\n" + json.dumps(line) + "\n")
    campaign = load_campaign(path)
    assert campaign.timing == "cpu"
    assert campaign.measurements[0].instructions is None
    assert campaign.durations() == {"p": {"a": {"t": 0.25}}}


def test_journal_rows_keep_counts_and_build_measurements():
    passed = TestResult(test_id="t", status=Status.SUCCESS, cpu_s=0.1, wall_s=0.2,
                        instructions=1234, cycles_estimate=2000.0)  # fmt: skip
    failed = TestResult(test_id="u", status=Status.WRONG_ANSWER, cpu_s=0.1, wall_s=0.2)
    assert _result_row(passed, "cpu") == ["t", "success", 0.1, 0.2]
    assert _result_row(passed, "instructions") == ["t", "success", 0.1, 0.2, 1234, 2000.0]
    header = {"created_at": "2026-12-01T00:00:00+00:00", "problems": ["p"], "reruns": 2,
              "note": "", "timing": "cycles_estimate"}  # fmt: skip
    rows = [_result_row(r, "cycles_estimate") for r in (passed, failed)]
    runs = [{"rerun": k, "problem_id": "p", "reference": "a", "results": rows} for k in range(2)]
    campaign = _campaign(header, runs, MACHINE, executor=None)
    assert campaign.timing == "cycles_estimate"
    by_test = {m.test_id: m for m in campaign.measurements}
    assert by_test["t"].instructions == [1234, 1234]
    assert by_test["t"].cycles_estimate == [2000.0, 2000.0]
    assert by_test["u"].duration("cycles_estimate") is None


def test_pool_of_a_counted_campaign_caps_at_the_converted_limit():
    problem = load_bundled()[0]
    tests = [t.id for t in problem.optimization_tests][:2]
    names = [r.name for r in problem.references][:2]
    ms = [
        measurement((problem.id, tests[0], names[0]), [ok(0.1, 5_000)]),
        measurement((problem.id, tests[0], names[1]), [(Status.TIMEOUT, 9.0, None)]),
    ]
    pool = counted_campaign("c", ms).pool(problem, timing="instructions", per_second=1e4)
    cap = problem.time_limit_s * 1e4
    assert pool.cap_s == pytest.approx(cap)
    column = pool.durations[0]
    assert sorted(column.tolist()) == pytest.approx([5_000, cap])


def test_reports_never_call_a_count_a_time():
    assert describe_timing("cpu") == "cpu time"
    assert describe_timing("instructions") == "instructions"
    assert describe_timing("cycles_estimate") == "cycles"


def test_resume_refuses_a_journal_measured_with_another_timing(tmp_path):
    problems = [p for p in load_bundled() if p.id == "staircase-climb"]
    journal = tmp_path / "in-progress.jsonl"
    header = {
        "kind": "header",
        "created_at": "2026-12-01T00:00:00+00:00",
        "problems": ["staircase-climb"],
        "reruns": 1,
        "max_tests": None,
        "seed": 0,
        "note": "",
    }  # fmt: skip  (a journal from before counts: no timing, so cpu)
    journal.write_text(json.dumps(header) + "\n")
    with pytest.raises(UsageError, match="timing='cpu'"):
        run_campaign(problems, None, reruns=1, journal=journal, resume=True, timing="wall")
