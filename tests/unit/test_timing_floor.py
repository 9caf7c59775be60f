"""``execrl timing floor``: the machine's own CPU-time noise for identical work."""

from __future__ import annotations

import json
import math
import os

import pytest

from execrl.cli.main import main
from execrl.sandbox.machine import MachineFingerprint
from execrl.timing.floor import FloorReport, lag1_autocorrelation, measure_floor


def report(runs: list[float]) -> FloorReport:
    return FloorReport(machine=MachineFingerprint.current(), core=0, runs=runs)


def test_lag1_autocorrelation_by_hand():
    assert lag1_autocorrelation([1.0, 2.0] * 10) == pytest.approx(-1.0)
    # two regimes, each held for a while: neighbours agree except once. The pairs are
    # a = 1×10, 2×9 and b = 1×9, 2×10: var a = var b = 90/361, cov = 81/361 -> r = 0.9
    assert lag1_autocorrelation([1.0] * 10 + [2.0] * 10) == pytest.approx(0.9)
    assert math.isnan(lag1_autocorrelation([1.0, 1.0, 1.0]))  # constant: undefined
    assert math.isnan(lag1_autocorrelation([1.0, 2.0]))  # too short


def test_report_statistics_and_verdicts():
    noisy = report([0.020, 0.020, 0.033, 0.033])
    assert noisy.mean == pytest.approx(0.0265)
    assert noisy.cv == pytest.approx(0.0065 / 0.0265)  # population std 6.5 ms
    assert noisy.spread == pytest.approx(1.65)
    assert noisy.verdict().startswith("noisy: identical work varies by 24.5%")
    assert "measured together" in noisy.verdict()  # lag-1 of a held regime is high
    quiet = report([0.0200, 0.0201, 0.0199, 0.0200])
    assert quiet.cv < 0.01 and quiet.verdict().startswith("quiet:")
    header, (row,) = noisy.table()
    assert dict(zip(header, row, strict=True))["max/min"] == "1.65"


def test_measure_floor_pins_one_core_and_restores_the_affinity():
    before = os.sched_getaffinity(0)
    core = min(before)
    seen = []
    result = measure_floor(
        0.3,
        run_ms=5,
        core=core,
        work=lambda n: seen.append(os.sched_getaffinity(0)) or sum(range(n)),
    )
    assert os.sched_getaffinity(0) == before
    assert all(s == {core} for s in seen) and result.core == core
    assert len(result.runs) >= 3 and all(r > 0 for r in result.runs)
    # sized to ~5 ms of CPU; generous bounds for a shared machine
    assert 0.5e-3 < sorted(result.runs)[len(result.runs) // 2] < 50e-3
    with pytest.raises(ValueError, match="not available"):
        measure_floor(0.1, core=10_000)


def test_cli_prints_the_table_and_saves_the_runs(tmp_path, capsys):
    out = tmp_path / "floor.json"
    code = main(["timing", "floor", "--seconds", "0.5", "--run-ms", "5", "--out", str(out)])
    saved = FloorReport.model_validate(json.loads(out.read_text()))
    assert code == (0 if saved.cv <= 0.05 else 1)
    shown = capsys.readouterr().out
    assert "CPU time of identical work" in shown and f"{len(saved.runs)}" in shown


def test_cli_mistakes_are_one_line(capsys):
    assert main(["timing", "floor", "--core", "10000"]) == 2
    assert "--core 10000: not available to this process" in capsys.readouterr().err
    assert main(["timing", "floor", "--seconds", "0"]) == 2
