"""The training report and ``execrl report``: built from a run folder's files alone."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
import yaml

from execrl.cli.main import main
from execrl.errors import DataError
from execrl.rl.train_report import pass_rate_trend, reward_trend, summary_lines, verdict

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


def _line_rollouts(intercept, slope, steps, spread):
    """Two rollouts per step, the line's value ± spread: their mean lies on the line exactly."""
    return [
        {"step": s, "reward": intercept + slope * s + sign * spread}
        for s in steps
        for sign in (-1, 1)
    ]


def test_reward_trend_recovers_a_known_slope_and_each_steps_band():
    trend = reward_trend(_line_rollouts(0.5, 0.1, range(1, 11), spread=0.2))
    assert trend.steps == tuple(range(1, 11))
    assert trend.slope == pytest.approx(0.1) and trend.intercept == pytest.approx(0.5)
    # Every resample of steps keeps the same line: the interval closes on the slope.
    assert trend.slope_low == pytest.approx(0.1) and trend.slope_high == pytest.approx(0.1)
    assert trend.mean[0] == pytest.approx(0.6) and trend.rollouts == (2,) * 10
    # Two values ±0.2: standard error 0.2, so the band is mean ± 1.96 × 0.2.
    assert trend.low[0] == pytest.approx(0.6 - 0.392, abs=1e-4)
    assert trend.high[0] == pytest.approx(0.6 + 0.392, abs=1e-4)
    assert trend.smoothed[0] == pytest.approx(0.7)  # steps 1-3 pooled (a window of 5, clipped)
    assert trend.smoothed[4] == pytest.approx(1.0)  # steps 3-7
    assert trend.fitted()[-1] == pytest.approx(1.5)
    assert trend.sentence() == (
        "training reward: +0.100 per step (95% CI +0.100 … +0.100) over 10 steps, "
        "20 rollouts: rising (the interval lies above 0)"
    )


def test_the_slope_is_least_squares_over_rollouts_and_its_interval_holds_it():
    rng = random.Random(1)
    rows = [
        {"step": s, "reward": 1.0 - 0.03 * s + rng.gauss(0, 0.4)}
        for s in range(20)
        for _ in range(rng.randint(2, 9))  # unequal rollouts per step
    ]
    trend = reward_trend(rows)
    x = np.array([r["step"] for r in rows], dtype=float)
    y = np.array([r["reward"] for r in rows])
    slope, intercept = np.polyfit(x, y, 1)
    assert trend.slope == pytest.approx(slope) and trend.intercept == pytest.approx(intercept)
    assert trend.slope_low < trend.slope < trend.slope_high
    assert trend.slope_high - trend.slope_low < 0.03  # a slope of −0.03 is told from 0
    assert "falling (the interval lies below 0)" in trend.sentence()
    assert reward_trend(rows).to_dict() == trend.to_dict()  # the bootstrap is seeded


def test_a_flat_noisy_reward_holds_zero_and_says_so():
    rng = random.Random(2)
    rows = [{"step": s, "reward": float(rng.random() < 0.3)} for s in range(10) for _ in range(8)]
    trend = reward_trend(rows)
    assert trend.slope_low < 0 < trend.slope_high
    assert trend.sentence().endswith("no trend distinguishable from noise (the interval holds 0)")


def test_inconclusive_rollouts_are_left_out_and_few_steps_get_no_interval():
    rows = [{"step": 1, "reward": 0.0}, {"step": 1, "reward": None}, {"step": 2, "reward": 1.0}]
    trend = reward_trend(rows)
    assert trend.rollouts == (1, 1) and trend.slope == pytest.approx(1.0)
    assert math.isnan(trend.slope_low) and math.isnan(trend.low[0])
    assert trend.to_dict()["slope_low"] is None and trend.to_dict()["low"] == [None, None]
    assert "(no interval with fewer than 3 steps)" in trend.sentence()
    assert reward_trend([]).sentence() == "training reward: no trend (0 step(s) with a reward)"


def test_a_rollout_row_without_a_step_or_reward_is_a_data_error():
    with pytest.raises(DataError, match=r"rollout row 2: needs an integer 'step'.*step=None"):
        reward_trend([{"step": 1, "reward": 0.0}, {"reward": 1.0}])


def test_the_report_shows_the_reward_trend_and_dynamic_sampling_when_logged(tmp_path):
    run = _run(tmp_path, (0.1, 0.05), (0.3, 0.05))
    rollouts = _line_rollouts(-1.0, 0.5, (1, 2, 3), spread=0.5)
    (run / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rollouts))
    assert main(["report", str(run)]) == 0
    page = (run / "report" / "index.html").read_text()
    assert "training reward: +0.500 per step (95% CI +0.500 … +0.500) over 3 steps" in page
    assert (run / "report" / "reward_trend.png").stat().st_size > 1000
    assert "Dynamic sampling" not in page  # the rows hold no sampling columns
    rows = [json.loads(line) for line in (run / "metrics.jsonl").open()]
    for row, (drawn, dropped) in zip(rows, [(6, 2), (4, 0), (8, 4)], strict=True):
        row |= {"groups_drawn": drawn, "groups_dropped": dropped}
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["report", str(run)]) == 0
    page = (run / "report" / "index.html").read_text()
    assert "18 groups drawn over 3 steps, 6 of them dropped" in page and "(33%)" in page
    assert summary_lines(run) == [
        verdict(json.loads((run / "evaluations.json").read_text())),
        reward_trend(rollouts).sentence(),
    ]


def test_the_pass_rate_trend_is_absolute_where_a_calibrated_reward_is_flat():
    """Rewards the same every step (a group-calibrated reward) while the share of passing
    rollouts goes 0, 1/4, 2/4, 3/4: the pass-rate slope is exactly 0.25 per step, the reward's 0;
    inconclusive rollouts (reward None) are left out of both."""
    rows = [
        {"step": step, "reward": 0.5, "passed": i < step - 1}
        for step in (1, 2, 3, 4)
        for i in range(4)
    ] + [{"step": 2, "reward": None, "passed": True}]
    passing = pass_rate_trend(rows, resamples=200)
    assert passing.quantity == "training pass rate"
    assert passing.slope == pytest.approx(0.25, abs=1e-12)
    assert passing.mean == pytest.approx((0.0, 0.25, 0.5, 0.75))
    assert passing.sentence().startswith("training pass rate: +0.250 per step")
    assert reward_trend(rows, resamples=200).slope == pytest.approx(0.0, abs=1e-12)
