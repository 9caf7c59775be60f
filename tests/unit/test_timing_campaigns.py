"""A campaign's life in the store (make it, save, count what failed) and the ``execrl timing
list`` table, on a hand-made campaign."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from execrl.errors import OutputError
from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.records import Status
from execrl.timing import campaigns
from execrl.timing.store import (
    Campaign,
    CampaignInfo,
    DurationStore,
    ExecutorSettings,
    Measurement,
)

OK, TO, INC = Status.SUCCESS, Status.TIMEOUT, Status.INCONCLUSIVE


def campaign(*statuses: list[Status]) -> Campaign:
    info = CampaignInfo(
        id="c1",
        created_at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        machine=MachineFingerprint(hostname="h", cpu_model="c", cores=2, kernel="k", python="3"),
        settings=ExecutorSettings(),
        problems=["p"],
        note="first",
    )
    measurements = [
        Measurement(problem_id="p", test_id=f"t{i}", reference="r", statuses=s,
                    cpu_s=[0.1] * len(s), wall_s=[0.1] * len(s))
        for i, s in enumerate(statuses)
    ]  # fmt: skip
    return Campaign(info=info, measurements=measurements)


def test_triples_with_a_failed_and_with_an_inconclusive_rerun():
    c = campaign([OK, OK], [OK, TO], [INC, OK], [TO, INC])
    assert campaigns.unsuccessful(c) == (2, 2)


def test_a_saved_campaign_is_listed_and_its_journal_goes(tmp_path):
    store = DurationStore(tmp_path / "store")
    campaigns.prepare_store(store)
    store.journal_path.write_text("")
    path = campaigns.save_campaign(store, campaign([OK, OK, OK]))
    assert path.is_file() and not store.journal_path.exists()
    header, rows = campaigns.campaigns_table(store)
    assert header == campaigns.LIST_COLUMNS
    timing, reruns = ExecutorSettings().timing, ExecutorSettings().reruns
    assert rows == [
        ["c1", "2026-01-02 03:04", store.load("c1").info.machine.describe(), timing,
         str(reruns), "1", "1", "first"],
    ]  # fmt: skip


def test_a_store_that_cannot_be_made_is_one_output_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OutputError, match="cannot create the store"):
        campaigns.prepare_store(DurationStore(blocker / "store"))
