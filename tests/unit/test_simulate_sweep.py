"""The screening grid, the sweep (its curves against the per-pair path), ranking, degenerate
flags and the package's public names."""

from __future__ import annotations

import importlib
from dataclasses import replace

import numpy as np
import pytest

from execrl.errors import ExecrlError
from execrl.rewards import reward
from execrl.simulate import (
    FAMILIES,
    REWARD_SHAPES,
    Engine,
    Schedule,
    environment_grid,
    simulate,
    sweep,
    synthetic_runs,
)
from execrl.simulate.schedule import metric_values
from execrl.simulate.sweep import _rank


def test_the_grid_of_spec_section_2():
    grid = environment_grid()
    sizes = {f: sum(p.family == f for p in grid) for f in FAMILIES}
    assert sizes == {
        "rlvr": 1,
        "mc": 1,
        "mc_mo": 1,
        "abs_filter": 7 * 7 * 8,
        "len_filter": 7 * 7 * 8,
        "rel_filter": 9 * 7 * 8,
        "abs_timeout": 7 * 8,
        "rel_timeout": 9 * 8,
        "ranked_timeout": 9 * 8,
        "qar": 9,
        "qp": 9,
    }
    assert len({p.name for p in grid}) == len(grid) == 1509  # every name distinct
    point = next(p for p in grid if p.name == "abs_filter(a=2, limit=0.5, rho=0.1)")
    assert point.params == {"a": 2.0, "limit": 0.5, "rho": 0.1}
    assert len(REWARD_SHAPES) == 28
    assert len({reward(r).name for r in REWARD_SHAPES}) == 28
    with pytest.raises(ExecrlError, match="unknown families"):
        environment_grid(["qp", "nope"])


def awkward():
    return synthetic_runs(
        6,
        12,
        9,
        seed=4,
        quantum_s=0.002,
        missing_rate=0.02,
        inconclusive_rate=0.005,
        flaky_share=0.3,
        flaky_failure_rate=0.1,
        wrong_extra_share=0.2,
    )


@pytest.mark.parametrize(("metric", "draws"), [("reward", None), ("pass", None), ("reward", 3)])
def test_sweep_curves_equal_the_per_pair_curves(metric, draws):
    runs = awkward()
    schedule = Schedule.build(runs, points=11, draws=draws, seed=2)
    rng = np.random.default_rng(0)
    everything = environment_grid()
    grid = [everything[i] for i in sorted(rng.choice(len(everything), 120, replace=False))]
    grid += environment_grid(["rlvr", "mc", "mc_mo", "qar", "qp"])
    # chunks of 2 problems: the sums over chunks must add up too
    result = sweep(
        runs, grid, schedule=schedule, metric=metric, progress=False, chunk_elements=2 * 12 * 9
    )
    engine = Engine(runs)
    for e, point in enumerate(grid):
        for w, name in enumerate(REWARD_SHAPES):
            even, odd = engine.rewards(point.config, reward(name))
            expected = schedule.curve(metric_values(even, metric), metric_values(odd, metric))
            assert result.curves[e, w] == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_a_single_simulation_through_either_path():
    runs = awkward()
    fast = simulate(runs, "qp(p=0.3)", "multitask(graded, map=bucket)")
    slow = simulate(runs, "qp(p=0.3)", "multitask(graded, map=bucket)", path="replay")
    assert np.array_equal(fast.curve, slow.curve, equal_nan=True)
    assert fast.diagnostics == slow.diagnostics
    assert fast.environment == "qp(p=0.3)" and fast.reward == "multitask(graded, map=bucket)"


def test_degenerate_configurations_are_flagged_and_ranked_last():
    base = synthetic_runs(30, 20, 20, seed=1, flaky_share=0.0, inconclusive_rate=0.0)
    # every run succeeds in 0.6 to 1.0 s; reference h is a little slower than h − 1
    rng = np.random.default_rng(0)
    speed = 0.6 + 0.02 * np.arange(20) + rng.uniform(0, 0.005, size=(30, 20, 20))
    runs = replace(base, status=np.zeros_like(base.status), duration=speed)
    grid = environment_grid(["rlvr", "mc", "abs_timeout", "qp"])
    result = sweep(runs, grid, progress=False)
    flags = {(r["environment"], r["reward"]): r["degenerate"] for r in result.rows}
    # every correct reference passes every original test: nothing to learn
    assert flags["rlvr", "correctness"] == "rewards everything"
    assert flags["rlvr", "collapsed(binary)"] == "rewards everything"
    # a few references fail an extra test (3 %): the curve is near 0.97 and flat
    assert flags["mc", "correctness"] == "flat"
    # a 0.5 s limit with no tolerance: every reference times out on every test
    assert flags["abs_timeout(limit=0.5, rho=0)", "optimization(binary)"] == "rewards nothing"
    # a 2 s limit: none does
    assert flags["abs_timeout(limit=2, rho=0)", "optimization(binary)"] == "rewards everything"
    assert flags["qp(p=0.3)", "optimization(binary)"] == ""
    ranks = [r["rank"] for r in result.rows]
    first_degenerate = ranks.index(None)
    assert all(r is None for r in ranks[first_degenerate:])
    assert ranks[:first_degenerate] == list(range(1, first_degenerate + 1))


def test_rank_is_the_mean_of_three_ranks():
    def row(name, deviation, correlation, steepness, degenerate=""):
        return {
            "environment": name,
            "deviation": deviation,
            "correlation": correlation,
            "steepness": steepness,
            "degenerate": degenerate,
        }

    rows = [
        row("a", 0.1, 0.9, 0.5),  # ranks 1, 2, 2 → 5/3
        row("b", 0.2, 0.95, 0.6),  # ranks 2, 1, 1 → 4/3
        row("c", 0.3, float("nan"), 0.1),  # ranks 3, 3 (NaN last), 3 → 3
        row("d", 0.0, 1.0, 1.0, "flat"),  # degenerate: not ranked
    ]
    _rank(rows)
    assert [(r["environment"], r["rank"]) for r in rows] == [
        ("a", 2),
        ("b", 1),
        ("c", 3),
        ("d", None),
    ]
    assert rows[0]["score"] == pytest.approx(5 / 3) and rows[1]["score"] == pytest.approx(4 / 3)


def test_identical_curves_are_folded_in_the_displayed_table():
    runs = synthetic_runs(10, 10, 12, seed=3)
    result = sweep(
        runs, environment_grid(["qp"]), ["collapsed(graded, map=linear)"], progress=False
    )
    # a graded reward ignores the gate: the nine gates give one curve
    (row,) = result.distinct(5)
    assert row["same"] == 8


def test_sweep_refuses_an_empty_grid_and_unknown_metrics():
    runs = synthetic_runs(2, 3, 3)
    with pytest.raises(ExecrlError, match="at least one environment"):
        sweep(runs, [], progress=False)
    with pytest.raises(ExecrlError, match="unknown curve metric"):
        sweep(runs, environment_grid(["rlvr"]), metric="mean", progress=False)  # type: ignore[arg-type]


def _isort_key(name: str) -> tuple[int, str]:
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_public_names_are_sorted_and_resolve():
    module = importlib.import_module("execrl.simulate")
    assert list(module.__all__) == sorted(module.__all__, key=_isort_key)
    for name in module.__all__:
        assert getattr(module, name) is not None
