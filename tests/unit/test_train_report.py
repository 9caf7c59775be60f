"""The training report and ``execrl report``: built from a run folder's files alone."""

from __future__ import annotations

import json

import pytest
import yaml

from execrl.cli.main import main
from execrl.rl.train_report import verdict

ROW = {
    "reward_std": 0.5,
    "kl": 0.0,
    "clip_frac_low": 0.0,
    "clip_frac_high": 0.0,
    "length_mean": 80.0,
    "execution_failure_rate": 0.25,
    "rollout_s": 40.0,
    "update_s": 20.0,
}


def _evaluation(label, pass_at_1, stderr, problems=10):
    per_problem = {f"p{i}": pass_at_1 for i in range(problems)}
    return {"label": label, "step": 0, "samples": 4, "temperature": 0.7,
            "pass_at_1": pass_at_1, "stderr": stderr, "per_problem": per_problem}  # fmt: skip


def _run(tmp_path, before, after):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text(yaml.safe_dump({"preset": "rlvr", "group_size": 6}))
    rows = [
        {**ROW, "step": s, "reward_mean": r, "pass_rate": p, "zero_advantage_rate": z}
        for s, r, p, z in [(1, -1.0, 0.0, 1.0), (2, -0.5, 0.25, 0.5), (3, 0.0, 0.5, 0.25)]
    ]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    evaluations = {"before": _evaluation("before", *before), "after": _evaluation("after", *after)}
    (run / "evaluations.json").write_text(json.dumps(evaluations))
    return run


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ((0.1, 0.05), (0.3, 0.05), "an improvement larger than its noise (±0.141)"),
        ((0.1, 0.05), (0.2, 0.05), "a change within its noise (±0.141, two standard errors)"),
        ((0.4, 0.05), (0.1, 0.05), "a drop larger than its noise (±0.141)"),
    ],
)
def test_verdict_compares_the_change_with_two_standard_errors(tmp_path, before, after, expected):
    evaluations = json.loads((_run(tmp_path, before, after) / "evaluations.json").read_text())
    sentence = verdict(evaluations)
    assert expected in sentence
    assert f"from {before[0]:.3f} to {after[0]:.3f}" in sentence


def test_execrl_report_rebuilds_a_training_run_report(tmp_path, capsys):
    run = _run(tmp_path, (0.1, 0.05), (0.3, 0.05))
    assert main(["report", str(run)]) == 0
    page = (run / "report" / "index.html").read_text()
    assert "an improvement larger than its noise" in page
    assert "2 of 3 steps had a learning signal" not in page  # rows lack 'updated': all count
    assert "3 of 3 steps had a learning signal" in page
    for png in ("reward.png", "optimisation.png"):
        assert (run / "report" / png).stat().st_size > 1000
    assert "training run" in capsys.readouterr().out


def test_execrl_report_names_what_it_accepts_for_an_unknown_path(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "not a training run" in capsys.readouterr().err


def test_the_report_shows_the_spec_6_execution_monitor_when_the_run_logged_it(tmp_path):
    run = _run(tmp_path, (0.1, 0.05), (0.3, 0.05))
    assert main(["report", str(run)]) == 0  # rows from before the monitor: no section
    assert "Execution (spec §6)" not in (run / "report" / "index.html").read_text()
    monitor = [  # (resolved, fallback, exposure, burst) per step
        (1.0, 0.0, 0.0, 0), (0.9, 0.1, 0.4686, 1), (0.95, 0.05, 0.2649, 0)
    ]  # fmt: skip
    rows = [json.loads(line) for line in (run / "metrics.jsonl").open()]
    for row, (resolved, fallback, exposure, burst) in zip(rows, monitor, strict=True):
        row |= {"monitor/resolved_rate": resolved, "monitor/fallback_rate": fallback,
                "monitor/unknown_rate": 0.0, "monitor/timeout_rate": 0.0,
                "monitor/exposure": exposure, "monitor/burst": burst}  # fmt: skip
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["report", str(run)]) == 0
    page = (run / "report" / "index.html").read_text()
    assert "Execution (spec §6)" in page
    assert "resolved without fallback: 0.950 on average (lowest 0.900)" in page
    assert "0.469" in page and "bursts at steps [2]" in page
    assert (run / "report" / "execution.png").stat().st_size > 1000
