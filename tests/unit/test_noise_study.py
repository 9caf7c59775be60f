"""The noise study (spec §5, §6) reproduces its qualitative result with fixed seeds, and its
metrics do the arithmetic the docs promise (ties count half, the floor, shared noise)."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from itertools import pairwise

import numpy as np
import pytest

from execrl.cli import timing_noise_study
from execrl.errors import ExecrlError
from execrl.timing.noise_study import (
    ADDITIVE_SDS_S,
    FLOOR_S,
    SHORT,
    Noise,
    NoiseStudy,
    draw,
    observe,
    plot_noise_study,
    run_noise_study,
    timeout_decisions,
    win_rate_decisions,
)

INDEPENDENT, SHARED = 0.0, 1.0
# Monte-Carlo slack for "weakly decreasing/increasing": with common random numbers the curves
# move by at most 0.004 the wrong way at 2,000 trials; the standard error of a point is ≤ 0.011.
SLACK = 0.01


@pytest.fixture(scope="module")
def study() -> NoiseStudy:
    return run_noise_study(seed=0, trials=2000)


def point(study: NoiseStudy, regime: str, kind: str, sd: float, share: float) -> dict:
    return {
        r.metric: r.accuracy
        for r in study.vs_noise
        if (r.regime, r.noise_kind, r.noise_sd, r.shared_share) == (regime, kind, sd, share)
    }


def curves(rows, x: str, *keys: str) -> dict[tuple, list[tuple[float, float]]]:
    out = defaultdict(list)
    for r in rows:
        out[tuple(getattr(r, k) for k in keys)].append((getattr(r, x), r.accuracy))
    return {k: sorted(v) for k, v in out.items()}


# -- the qualitative result ----------------------------------------------------------------------
def test_short_tests_large_shared_additive_noise_timeout_near_chance_win_rate_well_above(study):
    # seed 0: timeout 0.592 (oracle) / 0.594 (best τ); win rate 0.855
    acc = point(study, "short", "additive", ADDITIVE_SDS_S[-1], SHARED)
    assert acc["timeout_oracle"] <= 0.65
    assert acc["timeout_best"] <= 0.65
    assert acc["win_rate"] >= 0.8


def test_short_tests_large_independent_additive_noise_defeats_both_metrics(study):
    # seed 0: timeout 0.568 / 0.574, win rate 0.562. No metric can do much better: the paired
    # difference has sd 0.71 s against a mean gap of 0.02 s over 35 tests.
    acc = point(study, "short", "additive", ADDITIVE_SDS_S[-1], INDEPENDENT)
    assert max(acc.values()) <= 0.65
    assert abs(acc["win_rate"] - acc["timeout_oracle"]) <= 0.05


def test_long_tests_both_metrics_usable_at_every_noise_and_win_rate_not_worse(study):
    long_points = defaultdict(dict)
    for r in study.vs_noise:
        if r.regime == "long":
            long_points[(r.noise_kind, r.noise_sd, r.shared_share)][r.metric] = r.accuracy
    assert len(long_points) == 2 * (8 + 6)
    for setting, acc in long_points.items():
        assert min(acc.values()) >= 0.8, setting
        assert acc["win_rate"] >= acc["timeout_oracle"], setting
        assert acc["win_rate"] >= acc["timeout_best"], setting


def test_without_noise_both_metrics_identify_b(study):
    for regime in ("short", "long"):
        for kind in ("additive", "multiplicative"):
            for share in (INDEPENDENT, SHARED):
                acc = point(study, regime, kind, 0.0, share)
                assert min(acc.values()) >= 0.99, (regime, kind, share, acc)


def test_accuracy_falls_weakly_with_noise_size(study):
    series = curves(study.vs_noise, "noise_sd", "regime", "noise_kind", "shared_share", "metric")
    assert len(series) == 2 * 2 * 2 * 3
    for key, points in series.items():
        accuracies = [acc for _, acc in points]
        assert all(b <= a + SLACK for a, b in pairwise(accuracies)), key
        assert accuracies[-1] <= accuracies[0], key


def test_more_tests_raise_win_rate_accuracy(study):
    series = curves(study.vs_tests, "tests", "regime", "shared_share", "metric")
    for (regime, share, metric), points in series.items():
        if metric != "win_rate":
            continue
        accuracies = [acc for _, acc in points]
        assert all(b >= a - SLACK for a, b in pairwise(accuracies)), (regime, share)
    # seed 0, short tests, independent additive noise of 0.1 s: 0.631 on 5 tests, 0.783 on 35
    short = [acc for _, acc in series[("short", INDEPENDENT, "win_rate")]]
    assert short[-1] - short[0] >= 0.1


def test_a_threshold_sweep_never_beats_the_win_rate_on_short_tests_with_shared_noise(study):
    rows = [r for r in study.vs_threshold if r.regime == "short" and r.shared_share == SHARED]
    win = next(r.accuracy for r in rows if r.metric == "win_rate")
    assert max(r.accuracy for r in rows if r.metric == "timeout") < win - 0.1


# -- the arithmetic ------------------------------------------------------------------------------
def test_ties_count_half():
    same = np.array([[1.0, 2.0, 3.0, 4.0]])
    assert timeout_decisions(same, same, np.array([[2.5]])).tolist() == [0.5]
    assert win_rate_decisions(same, same).tolist() == [0.5]
    b = np.array([[0.5, 3.0, 2.0, 5.0]])  # B wins on tests 0 and 2, loses on 1 and 3: 2 of 4
    assert win_rate_decisions(same, b).tolist() == [0.5]
    assert win_rate_decisions(same, b * 0 + 0.1).tolist() == [1.0]
    assert timeout_decisions(same, b, np.array([[2.5]])).tolist() == [0.5]  # 2 timeouts each
    assert timeout_decisions(same, same * 0.5, np.array([[2.5]])).tolist() == [1.0]


def test_shared_noise_cancels_in_the_paired_difference_and_the_floor_holds():
    draws = draw(SHORT, trials=50, rng=np.random.default_rng(1))
    obs_a, obs_b = observe(draws, Noise(kind="additive", sd=0.05, shared_share=1.0))
    above = (obs_a > FLOOR_S) & (obs_b > FLOOR_S)
    assert np.allclose((obs_a - obs_b)[above], (draws.true_a - draws.true_b)[above])
    obs_a, obs_b = observe(draws, Noise(kind="additive", sd=1.0))
    assert obs_a.min() == FLOOR_S and obs_b.min() == FLOOR_S


def test_fixed_seed_fixed_numbers_and_trials_validated():
    assert run_noise_study(seed=3, trials=40) == run_noise_study(seed=3, trials=40)
    assert run_noise_study(seed=3, trials=40) != run_noise_study(seed=4, trials=40)
    with pytest.raises(ExecrlError, match="trials"):
        run_noise_study(trials=0)


def test_command_writes_the_curves_and_four_pngs(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    parser = argparse.ArgumentParser()
    timing_noise_study.register(parser.add_subparsers())
    args = parser.parse_args(["study", "--trials", "20", "--seed", "1", "--out", str(tmp_path)])
    assert args.handler(args) == 0
    assert "win rate" in capsys.readouterr().out
    report = NoiseStudy.model_validate_json((tmp_path / "noise_study.json").read_text())
    assert (report.seed, report.trials) == (1, 20)
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == [
        f"noise-study-vs-{name}.png" for name in ("noise", "shared", "tests", "threshold")
    ]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in tmp_path.glob("*.png"))


def test_plot_without_matplotlib_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ExecrlError, match=r"pip install 'execrl\[plot\]'"):
        plot_noise_study(run_noise_study(trials=5), tmp_path)
