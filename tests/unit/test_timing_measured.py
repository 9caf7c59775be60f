"""Measured reference durations as a timing-store campaign: read back under the scorer's cap
and count rate, the old JSON format refused with what to do, a count only from a counted
campaign."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from execrl.cli.main import main
from execrl.errors import LoaderError
from execrl.problems.models import Problem, Reference, StdioTest
from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.records import Status
from execrl.timing.measured import (
    OLD_FORMAT,
    latest_measured,
    measured_store,
    read_campaign,
    save_measured,
    with_campaign_durations,
)
from execrl.timing.store import (
    Campaign,
    CampaignInfo,
    DurationStore,
    ExecutorSettings,
    Measurement,
)


def problem() -> Problem:
    return Problem(
        id="p",
        statement="add",
        tests=[
            StdioTest(id="c1", input="1", output="1", group="original"),
            StdioTest(id="o1", input="2", output="2", group="optimization"),
            StdioTest(id="o2", input="3", output="3", group="optimization"),
        ],
        references=[
            Reference(name="fast", code="x", label="correct", durations_s={"o1": 9.0}),
            Reference(name="other", code="y", label="correct", durations_s={"o1": 7.0}),
            Reference(name="wrong", code="z", label="incorrect"),
        ],
        time_limit_s=2.0,
    )


def campaign(timing: str = "cpu", created: int = 1) -> Campaign:
    """``fast`` took 0.1 s on o1 and timed out on o2 (counted: 10⁸ instructions on o1)."""
    counted = {"instructions": [10**8]} if timing != "cpu" else {}
    measurements = [
        Measurement(
            problem_id="p",
            test_id="o1",
            reference="fast",
            statuses=[Status.SUCCESS],
            cpu_s=[0.1],
            wall_s=[0.2],
            **counted,
        ),
        Measurement(
            problem_id="p",
            test_id="o2",
            reference="fast",
            statuses=[Status.TIMEOUT],
            cpu_s=[2.0],
            wall_s=[2.0],
            **({"instructions": [None]} if counted else {}),
        ),
    ]
    info = CampaignInfo(
        id=f"2026010{created}-000000-host",
        created_at=datetime(2026, 1, created, tzinfo=UTC),
        machine=MachineFingerprint.current(),
        settings=ExecutorSettings(timing=timing),
        problems=["p"],
    )
    return Campaign(info=info, measurements=measurements)


def durations(problems: dict[str, Problem]) -> dict[str, dict[str, float]]:
    return {r.name: r.durations_s for r in problems["p"].references}


def test_durations_are_read_under_the_scorers_cap():
    got = with_campaign_durations({"p": problem()}, campaign(), timing="cpu", caps_s={"p": 1.5})
    # fast: measured (timeout at the cap); other: not measured, keeps its own; wrong untouched
    assert durations(got) == {"fast": {"o1": 0.1, "o2": 1.5}, "other": {"o1": 7.0}, "wrong": {}}
    wall = with_campaign_durations({"p": problem()}, campaign(), timing="wall", caps_s={"p": 2})
    assert durations(wall)["fast"] == {"o1": 0.2, "o2": 2.0}


def test_a_count_times_out_at_the_cap_converted_at_the_scorers_rate():
    for rate in (1e9, 2e9):
        got = with_campaign_durations(
            {"p": problem()},
            campaign("instructions"),
            timing="instructions",
            caps_s={"p": 1.0},
            per_second=rate,
        )
        assert durations(got)["fast"] == {"o1": 1e8, "o2": rate}


def test_a_count_from_a_campaign_that_did_not_count_is_refused():
    with pytest.raises(LoaderError, match="measured by cpu, but the environment is timed by"):
        with_campaign_durations(
            {"p": problem()}, campaign(), timing="instructions", caps_s={"p": 1.0}, where="f"
        )


def test_a_problem_the_campaign_did_not_measure_is_refused():
    other = problem().model_copy(update={"id": "q"})
    with pytest.raises(LoaderError, match=r"saved\.jsonl\.gz: no measured durations for q"):
        with_campaign_durations(
            {"p": problem(), "q": other},
            campaign(),
            timing="cpu",
            caps_s={"p": 1.0, "q": 1.0},
            where="saved.jsonl.gz",
        )


def test_saved_campaigns_read_back_by_file_and_by_store(tmp_path: Path):
    store = measured_store(tmp_path / "score-x.jsonl")
    assert store == tmp_path / "score-x.references"
    assert latest_measured(store) is None
    first = save_measured(campaign(created=1), store)
    save_measured(campaign(created=2), store)
    assert read_campaign(first).id == "20260101-000000-host"
    assert read_campaign(store).id == "20260102-000000-host"  # a folder: its latest
    assert latest_measured(store).id == "20260102-000000-host"


def test_the_old_format_is_refused_saying_how_to_measure_again(tmp_path: Path):
    old = tmp_path / "x.references.json"
    old.write_text(json.dumps({"format": OLD_FORMAT, "durations_s": {}}))
    with pytest.raises(LoaderError, match="old execrl-reference-durations/1 format") as err:
        read_campaign(old)
    assert "--references measure" in str(err.value) and "execrl timing campaign" in str(err.value)
    with pytest.raises(LoaderError, match="expected 'measure', 'stored' or a saved timing"):
        read_campaign(tmp_path / "missing.jsonl.gz")


def test_report_command_writes_a_stored_campaigns_report(tmp_path: Path, monkeypatch, capsys):
    """``execrl report ID|latest`` builds the timing report itself (no second trip through
    the command line), where ``execrl timing report`` puts it."""
    monkeypatch.setenv("EXECRL_TIMING_DIR", str(tmp_path))
    measurements = [
        Measurement(
            problem_id="p",
            test_id=f"o{t}",
            reference=ref,
            statuses=[Status.SUCCESS] * 2,
            cpu_s=[0.1 * (i + 1) * (t + 1), 0.12 * (i + 1) * (t + 1)],
            wall_s=[0.2, 0.25],
        )
        for i, ref in enumerate(["a", "b", "c"])
        for t in range(3)
    ]
    stored = campaign().model_copy(update={"measurements": measurements})
    DurationStore().save(stored)
    for name in ("latest", "2026"):
        assert main(["report", name]) == 0
        page = tmp_path / "reports" / stored.id / "index.html"
        assert f"timing campaign: {page}" in capsys.readouterr().out and page.is_file()
