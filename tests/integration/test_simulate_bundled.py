"""The simulator on real stored runs of bundled problems: a small timing campaign and the
records ``execrl score`` writes, both made by the real sandbox here. The vectorised engine
must equal execrl's per-outcome code on them; presets that reward everything are flagged; the
CLI writes its reports. The full bundled set is the slow test at the end."""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import numpy as np
import pytest

from execrl.cli.main import main
from execrl.errors import ExecrlError
from execrl.problems.io import load_problems, select_problems
from execrl.rewards import reward
from execrl.simulate import (
    REWARD_SHAPES,
    Engine,
    environment_grid,
    load_runs,
    replay_rewards,
    simulate,
    sweep,
)
from execrl.timing.store import DurationStore

PROBLEMS = ("edit-distance", "knapsack-01", "staircase-climb")
"""Small optimization inputs, references 10-60x apart (see test_timing_campaign.py)."""

PRESETS = [
    "rlvr",
    "mc",
    "mc_mo",
    "abs_filter",
    "len_filter(L=1000, limit=0.1, rho=0)",
    "rel_filter(r=50, limit=0.1, rho=0.5)",
    "abs_timeout(limit=0.1, rho=0)",
    "rel_timeout(p=50, rho=0)",
    "ranked_timeout(p=30, rho=0)",
    "ranked_timeout(p=60, agg=median, rho=0.5)",
    "qar(p=0.3)",
    "qp(p=0.3)",
]


def campaign(root: Path, ids: tuple[str, ...], max_tests: int) -> DurationStore:
    affinity = os.sched_getaffinity(0)
    try:
        args = [arg for p in ids for arg in ("--id", p)]
        code = main(
            [
                "timing",
                "campaign",
                *args,
                "--max-tests",
                str(max_tests),
                "--reruns",
                "1",
                "--store",
                str(root),
            ]
        )
    finally:
        # --jobs 1 keeps execrl's own process off the timed core; give the tests it back
        os.sched_setaffinity(0, affinity)
    assert code == 0
    return DurationStore(root)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> DurationStore:
    """One small campaign: 3 problems × 5 correct references × 3 tests, one pass (~10 s)."""
    return campaign(tmp_path_factory.mktemp("simulate-timing"), PROBLEMS, 3)


@pytest.fixture(scope="module")
def problems():
    return select_problems(load_problems("bundled"), list(PROBLEMS))


def assert_paths_agree(runs, presets, rewards) -> None:
    engine = Engine(runs)
    for spec in presets:
        from execrl.envs.presets import environment

        env = environment(spec)
        for name in rewards:
            fast = engine.rewards(env.config, reward(name))
            slow = replay_rewards(runs, env, name)
            assert agree(fast[0], slow[0]) and agree(fast[1], slow[1]), (spec, name)


ULPS = 4
"""As in the engine's unit test: numpy's ``log10`` may be an ulp from ``math.log10``, and
``c_cor + m - 1`` carries that ulp of 1.0 into smaller rewards, so the paths agree to within
a few units in the last place of 1.0 (or of the larger value), NaNs in the same places."""


def agree(fast: np.ndarray, slow: np.ndarray) -> bool:
    fast, slow = np.asarray(fast, float), np.asarray(slow, float)
    if not np.array_equal(np.isnan(fast), np.isnan(slow)):
        return False
    scale = np.maximum(1.0, np.maximum(np.abs(fast), np.abs(slow)))
    ok = np.isnan(fast) | (np.abs(fast - slow) <= ULPS * np.spacing(scale))
    return bool(ok.all())


def test_campaign_runs_replay_through_both_paths_to_the_last_bits(store, problems):
    runs = load_runs(problems, campaign=store.load())
    assert runs.problem_ids == PROBLEMS and runs.pairs == 15 and runs.shape == (3, 3, 5)
    assert not runs.correctness_measured
    assert_paths_agree(runs, PRESETS, REWARD_SHAPES)
    with pytest.raises(ExecrlError, match="campaign does not measure"):
        simulate(runs, "mc", "naive(over=correctness)")


def test_presets_that_reward_everything_are_flagged(store, problems):
    runs = load_runs(problems, campaign=store.load())
    grid = environment_grid(["rlvr", "mc", "mc_mo", "abs_timeout", "qp"])
    result = sweep(runs, grid, progress=False)
    flags = {(r["environment"], r["reward"]): r["degenerate"] for r in result.rows}
    for family in ("rlvr", "mc"):  # every correct reference passes: nothing to climb
        for shape in ("correctness", "collapsed(binary)", "optimization(binary)"):
            assert flags[family, shape] == "rewards everything"
    # with the problems' own limits (5 s) as the cap no reference times out here
    assert flags["mc_mo", "collapsed(binary)"] == "rewards everything"
    # a ranking gate separates fast from slow references
    assert flags["qp(p=0.3)", "collapsed(binary)"] == ""
    ranked = result.ranked
    assert ranked and all(r["family"] in ("abs_timeout", "qp", "mc_mo") for r in ranked)
    best = simulate(runs, ranked[0]["environment"], ranked[0]["reward"])
    assert best.curve == pytest.approx(np.array(ranked[0]["curve"]), abs=1e-12)


def test_cli_run_and_sweep_write_their_reports(store, tmp_path, capsys):
    at = ["--campaign", "latest", "--store", str(store.root)]
    ids = [arg for p in PROBLEMS for arg in ("--id", p)]
    out = tmp_path / "run"
    code = main(
        [
            "simulate",
            "run",
            *ids,
            *at,
            "--env",
            "rlvr",
            "--env",
            "qp(p=0.3)",
            "--reward",
            "collapsed",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "rewards everything" in text and "qp(p=0.3)" in text
    assert (out / "index.html").is_file() and (out / "curves-1.png").stat().st_size > 5000
    out = tmp_path / "sweep"
    code = main(
        [
            "simulate",
            "sweep",
            *ids,
            *at,
            "--families",
            "rlvr,mc,abs_timeout,qp",
            "--top",
            "5",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    html = (out / "index.html").read_text()
    for name in ("Ranked configurations", "Degenerate configurations", "Heatmaps"):
        assert name in html
    for family in ("rlvr", "mc", "abs_timeout", "qp"):
        assert (out / f"heatmap-{family}.png").stat().st_size > 5000
    with (out / "configurations.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == (1 + 1 + 56 + 9) * 28
    rlvr = {r["reward"]: r["degenerate"] for r in rows if r["family"] == "rlvr"}
    assert rlvr["correctness"] == rlvr["collapsed(binary)"] == "rewards everything"
    assert rlvr["naive(map=linear, over=optimization)"] == "flat"  # no tests to time: r = 0
    assert all(rlvr.values())


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``execrl score`` on one bundled problem: real records of every reference on every
    test, correctness tests included (~20 s)."""
    path = tmp_path_factory.mktemp("simulate-records") / "score.jsonl"
    assert main(["score", "--id", "staircase-climb", "--out", str(path)]) == 0
    return path


def test_scoring_records_replay_with_real_correctness_verdicts(records, capsys):
    problems = select_problems(load_problems("bundled"), ["staircase-climb"])
    runs = load_runs(problems, records=records)
    assert runs.correctness_measured and runs.pairs == 5  # the incorrect ones are left out
    assert (runs.cor_status[runs.cor_valid[:, :, None] & runs.ref_valid[:, None, :]] == 0).all()
    shapes = [
        "correctness",
        "collapsed",
        "additive(graded, map=linear)",
        "naive(map=log, over=correctness)",
        "naive(map=linear)",
    ]
    assert_paths_agree(runs, ["mc", "abs_timeout(limit=0.2, rho=0.1)", "qp(p=0.5)"], shapes)
    code = main(
        [
            "simulate",
            "run",
            "--id",
            "staircase-climb",
            "--records",
            str(records),
            "--env",
            "qp(p=0.5)",
            "--path",
            "replay",
        ]
    )
    assert code == 0
    assert "records" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give the stored runs: exactly one of"),
        (["--synthetic", "3", "--records", "x.jsonl"], "(got --records, --synthetic)"),
        (["--synthetic", "3", "--id", "knapsack-01"], "--id selects problems of SOURCE"),
        (["--synthetic", "3", "--env", "qp(p=2)"], "environment qp(p=2): p must be in [0, 1]"),
        (["--synthetic", "3", "--reward", "fastest"], "unknown reward 'fastest'"),
        (["--campaign", "nope", "--store", "{store}"], "campaign 'nope' not found"),
        (["--synthetic", "3", "--points", "1"], "at least 2 points"),
    ],
)
def test_user_errors_exit_2_with_one_line(store, capsys, argv, message):
    argv = [a.replace("{store}", str(store.root)) for a in argv]
    assert main(["simulate", "run", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert re.match(r"(Execrl|Usage|Config|Data|Output)Error: ", err) and "\n" not in err
    assert message in err


@pytest.mark.slow
def test_the_whole_bundled_set(tmp_path):
    """Every bundled problem (2 optimization tests each, one pass), the whole grid plus one
    impossible environment (a 1 µs limit), the report: presets that reward everything or
    nothing are flagged, the heatmaps are there (~1 minute)."""
    from execrl.envs.presets import environment
    from execrl.simulate import GridPoint
    from execrl.simulate.report import write_sweep_report

    store = campaign(tmp_path / "store", (), 2)
    problems = load_problems("bundled")
    runs = load_runs(problems, campaign=store.load())
    assert len(runs) == len(problems) == 30
    impossible = environment("abs_timeout(limit=0.000001, rho=0)").config
    grid = [*environment_grid(), GridPoint("impossible", {}, impossible)]
    result = sweep(runs, grid, progress=False)
    flags = {(r["environment"], r["reward"]): r["degenerate"] for r in result.rows}
    for family in ("rlvr", "mc"):
        assert flags[family, "correctness"] == "rewards everything"
        assert flags[family, "collapsed(binary)"] == "rewards everything"
    assert flags[impossible.name, "collapsed(binary)"] == "rewards nothing"
    assert flags[impossible.name, "optimization(binary)"] == "rewards nothing"
    assert result.ranked and result.ranked[0]["degenerate"] == ""
    page = write_sweep_report(result, tmp_path / "report")
    assert "Heatmaps" in page.read_text()
    assert len(list((tmp_path / "report").glob("heatmap-*.png"))) == 12
