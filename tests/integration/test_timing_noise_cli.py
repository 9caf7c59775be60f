"""``execrl timing noise | report | contention | drift`` through the real CLI entry point and
the real sandbox, on a tiny campaign: 2 small bundled problems, 2 optimization tests each,
2 reruns (~5 s per campaign on 2 cores; the whole file well under a minute)."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest

from execrl.cli.main import main
from execrl.timing.contention import busy_loops

PROBLEMS = ("edit-distance", "max-subarray-sum")
"""Small optimization inputs: every reference finishes a test in ~10–150 ms."""


@pytest.fixture(autouse=True)
def keep_affinity():
    """The sandbox pins its host process to one core; give this process its cores back."""
    cpus = os.sched_getaffinity(0)
    yield
    os.sched_setaffinity(0, cpus)


def campaign(store: Path) -> None:
    ids = [arg for pid in PROBLEMS for arg in ("--id", pid)]
    args = ["timing", "campaign", *ids, "--max-tests", "2", "--reruns", "2"]
    assert main([*args, "--store", str(store)]) == 0


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    cpus = os.sched_getaffinity(0)
    root = tmp_path_factory.mktemp("timing")
    campaign(root)
    os.sched_setaffinity(0, cpus)
    return root


@pytest.fixture(scope="module")
def contention_json(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("contention") / "contention.json"
    args = ["timing", "contention", "--id", PROBLEMS[0], "--loads", "0,1", "--reruns", "3"]
    assert main([*args, "--max-tests", "2", "--out", str(out)]) == 0
    return out


def test_noise_prints_every_table(store: Path, capsys):
    assert main(["timing", "noise", "--store", str(store), "--per-test"]) == 0
    out = capsys.readouterr().out
    for title in ("summary", "ordering stability", "per solution", "per test"):
        assert title in out
    assert all(pid in out for pid in PROBLEMS)


def test_contention_reports_cpu_and_wall_per_load(contention_json: Path):
    report = json.loads(contention_json.read_text())
    results = report["results"]
    assert [r["load"] for r in results] == [0, 1]
    assert [r["busy_loops"] for r in results] == [0, report["machine"]["cores"]]
    for r in results:
        assert r["solutions"] >= 3
        for key in ("cpu_std_median", "cpu_std_mean", "wall_std_median", "wall_std_mean"):
            assert math.isfinite(r[key]) and 0 <= r[key] <= 100
    assert not busy_loops_left()


def busy_loops_left() -> bool:
    """Any process still running the contention busy loop (the hogs must all be gone)."""
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if b"os.getppid() == parent" in (proc / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def test_report_html_references_pngs_that_exist(store: Path, contention_json: Path, tmp_path):
    out = tmp_path / "report"
    args = ["timing", "report", "--store", str(store), "--contention", str(contention_json)]
    assert main([*args, "--out", str(out)]) == 0
    html = (out / "index.html").read_text()
    images = re.findall(r'<img src="([^"]+)"', html)
    assert {"noise.png", "contention.png"} <= set(images)
    assert all((out / name).stat().st_size > 0 for name in images)
    assert "<table>" in html


def test_drift_against_a_fresh_calibration(store: Path, capsys):
    """A second campaign, a map fitted between the two, then the sentinels rerun now: the
    verdict depends on the machine's load, so only the exit code's meaning is checked."""
    campaign(store)
    stored, fresh = sorted(p.name.split(".")[0] for p in (store / "campaigns").iterdir())
    args = ["timing", "calibrate", "--stored", stored, "--fresh", fresh, "--name", "now"]
    assert main([*args, "--store", str(store)]) == 0
    code = main(["timing", "drift", "--calibration", "now", "--store", str(store)])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert ("DRIFTED" in out) == (code == 1)
    assert "fresh / predicted" in out


@pytest.mark.parametrize(
    "args",
    [
        ["timing", "noise", "--store", "{empty}"],
        ["timing", "contention", "--loads", "0,x"],
        ["timing", "contention", "--reruns", "1"],
        ["timing", "drift", "--calibration", "missing", "--store", "{empty}"],
        ["timing", "report", "--store", "{store}", "--contention", "{bad}"],
        ["timing", "drift", "--calibration", "x", "--sentinel", "no-colon", "--store", "{empty}"],
    ],
)
def test_user_mistakes_exit_2_with_one_line(args, store: Path, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    paths = {"{empty}": str(tmp_path / "empty"), "{store}": str(store), "{bad}": str(bad)}
    assert main([paths.get(a, a) for a in args]) == 2
    err = capsys.readouterr().err.strip()
    assert re.match(r"(Execrl|Usage|Config|Data|Output)Error: ", err) and "\n" not in err


def test_busy_loops_are_killed_when_the_block_raises():
    with pytest.raises(KeyboardInterrupt), busy_loops(2) as pids:
        assert len(pids) == 2 and all(Path(f"/proc/{pid}").exists() for pid in pids)
        raise KeyboardInterrupt
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
