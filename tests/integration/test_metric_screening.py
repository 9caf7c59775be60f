"""Screening the ranking metrics on real reruns of two bundled problems' references."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from execrl.cli.main import main
from execrl.envs.metrics import RANKING_METRICS
from execrl.envs.screening import ScreeningReport, screen_metrics
from execrl.problems import ReferenceLabel, load_bundled
from execrl.sandbox.limits import ExecutionOptions
from execrl.sandbox.protocol import ExecutionRequest
from execrl.sandbox.records import ExecutionRecord, save_records

# Both problems label their references' tiers "slow: …", "mid: …", "fast: …".
PROBLEM_IDS = ("coin-change-ways", "connected-components")


@pytest.fixture(scope="module")
def problems():
    return [p for p in load_bundled() if p.id in PROBLEM_IDS]


@pytest.fixture(scope="module")
def records(problems, executor) -> list[ExecutionRecord]:
    """Every correct reference on 3 optimization tests, 3 reruns each (about 20 s)."""
    requests = [
        ExecutionRequest.for_problem(
            problem,
            ref.code,
            tests=problem.optimization_tests[:3],
            options=ExecutionOptions(repeats=3),
            program_name=ref.name,
        )
        for problem in problems
        for ref in problem.references
        if ref.label is ReferenceLabel.CORRECT
    ]
    return list(executor.run_batch(requests, progress=False))


@pytest.fixture(scope="module")
def report(problems, records) -> ScreeningReport:
    return screen_metrics(problems, records, timing="cpu")


def test_every_metric_is_screened_on_every_reference(report, problems):
    assert [r.metric for r in report.rows] == list(RANKING_METRICS)
    assert report.problems == 2 and report.reruns == 3
    correct = sum(r.label is ReferenceLabel.CORRECT for p in problems for r in p.references)
    assert len(report.solutions) == correct
    assert all(len(s.scores["mean_percentile"]) == 3 for s in report.solutions)


def _tier_mean(report: ScreeningReport, problem_id: str, prefix: str) -> float:
    values = [
        s.mean_score("mean_percentile")
        for s in report.solutions
        if s.problem_id == problem_id and s.tier.startswith(prefix)
    ]
    return sum(values) / len(values)


def test_the_fastest_tier_ranks_ahead_of_the_slowest(report):
    for problem_id in PROBLEM_IDS:
        fast, slow = (
            _tier_mean(report, problem_id, "fast:"),
            _tier_mean(report, problem_id, "slow:"),
        )
        assert fast < slow, (problem_id, fast, slow)
        # the slow tier's single reference is slower than every other on these large inputs
        assert slow > 75


def test_axes_are_finite_and_in_range(report):
    for row in report.rows:
        assert 0 <= row.harshness <= 1, row
        assert 0 <= row.dynamic_range <= 1, row
        assert math.isfinite(row.rerun_std) and row.rerun_std >= 0, row
        assert -1 <= row.agreement <= 1, row
    kept = report.row("mean_percentile")
    # strong and weak references are far apart, and rerun 1 orders them like the others do
    assert kept.dynamic_range > 0.5
    assert kept.agreement > 0.5


def test_cli_prints_the_table_and_writes_report_and_png(records, tmp_path: Path, capsys):
    path = save_records(records, tmp_path / "refs.jsonl")
    png, out = tmp_path / "screen.png", tmp_path / "screen.json"
    code = main(["metrics", "screen", str(path), "--plot", str(png), "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "mean_percentile" in printed and "agreement" in printed
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads(out.read_text())
    assert [r["metric"] for r in saved["rows"]] == list(RANKING_METRICS)


def test_cli_user_errors_are_one_line_and_exit_2(records, tmp_path: Path, capsys):
    assert main(["metrics", "screen", str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"LoaderError: {tmp_path / 'missing.jsonl'}: no such records file"
    )
    stray = [records[0].model_copy(update={"problem_id": "no-such-problem"})]
    path = save_records(stray, tmp_path / "stray.jsonl")
    assert main(["metrics", "screen", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-problem" in err and "--source" in err
