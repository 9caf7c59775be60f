"""``execrl timing campaign | list | calibrate`` through the real CLI entry point and the real
sandbox: two small campaigns on three bundled problems, then a calibration map between them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from execrl.cli.main import main
from execrl.timing.calibration import load_calibration
from execrl.timing.store import DurationStore

PROBLEMS = ("edit-distance", "knapsack-01", "staircase-climb")
"""Small optimization inputs and references 10-60x apart (15-900 ms). knapsack-01's wide
spread keeps the leave-one-problem-out R² well clear of rerun noise on a loaded machine (two
problems alone sometimes fell below 0.8). Two campaigns of 3 tests x 2 reruns take ~30 s on 2
idle cores, ~60 s on loaded ones."""


def at(store: DurationStore) -> list[str]:
    return ["--store", str(store.root)]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    """Two campaigns, one after the other, in a fresh store."""
    root = tmp_path_factory.mktemp("timing")
    affinity = os.sched_getaffinity(0)
    try:
        for note in ("first", "second"):
            ids = [arg for p in PROBLEMS for arg in ("--id", p)]
            small = ["--max-tests", "3", "--reruns", "2"]
            code = main(["timing", "campaign", *ids, *small, "--store", str(root), "--note", note])
            assert code == 0
    finally:
        # --jobs 1 keeps execrl's own process off the timed core; give the tests it back
        os.sched_setaffinity(0, affinity)
    return DurationStore(root)


def test_campaigns_are_saved_with_every_rerun(store: DurationStore):
    ids = store.ids()
    assert len(ids) == 2
    campaign = store.load(ids[0])
    assert campaign.info.note == "first"
    assert campaign.info.problems == list(PROBLEMS)
    assert len(campaign.measurements) == 3 * 5 * 3  # tests × correct references × problems
    assert all(len(m.cpu_s) == 2 for m in campaign.measurements)


def test_list_shows_the_campaigns(store: DurationStore, capsys):
    assert main(["timing", "list", *at(store)]) == 0
    out = capsys.readouterr().out
    assert all(campaign_id in out for campaign_id in store.ids())


def test_calibrate_saves_a_map_that_predicts_held_out_problems(store: DurationStore, capsys):
    first, second = store.ids()
    code = main(
        ["timing", "calibrate", "--stored", first, "--fresh", second, "--name", "real", *at(store)]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert all(kind in out for kind in ("multiplicative", "affine", "power", "quadratic"))
    cmap = load_calibration(store, "real")
    assert cmap.fitted_on == [first, second]
    assert cmap.metrics.triples == 45
    # Real reruns on a machine the rest of the suite is loading: the ranks of 45 durations
    # spanning ~15-900 ms agree robustly; R² moves with the load, so its bar is lower.
    assert cmap.metrics.spearman_after > 0.85
    assert cmap.metrics.r2_cv > 0.5
    # the default name is the fresh campaign's id
    assert main(["timing", "calibrate", "--stored", first, "--fresh", second, *at(store)]) == 0
    assert load_calibration(store, second).kind == cmap.kind


def test_user_errors_exit_2_with_one_line(store: DurationStore, tmp_path: Path, capsys):
    assert main(["timing", "calibrate", "--stored", "nope", "--fresh", "x", *at(store)]) == 2
    assert "campaign 'nope' not found" in capsys.readouterr().err
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert main(["timing", "list", "--store", str(a_file)]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["timing", "list", "--store", str(tmp_path / "empty")]) == 0
    assert "no campaigns" in capsys.readouterr().out
