"""The vectorised engine against execrl's own per-outcome code (``Environment.outcome`` on
each stored record against the other references, then the reward): every signal and every
reward must be equal to within ``ULPS`` units in the last place of 1.0 (signals and
rewards live in [-1, 1]; numpy's ``log10`` and ``math.log10`` may differ by one ulp,
depending on the numpy build, and ``c_cor + m - 1`` carries that ulp of 1.0 into smaller
rewards), for every (problem, reference) pair of corpora built to be awkward — durations
on a coarse clock (ties), runs missing from the records, failures, inconclusive runs, flaky
references, problems of different sizes (padding) and a cap below the problems' limits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from execrl.envs.presets import environment
from execrl.rewards import reward
from execrl.rewards.maps import MAPS
from execrl.simulate import REWARD_SHAPES, Engine, StoredRuns, replay_problem, synthetic_runs
from execrl.simulate.engine import VECTOR_MAPS, reward_values
from execrl.simulate.runs import ProblemRuns

REWARDS = [
    *REWARD_SHAPES,
    "naive(map=linear, over=correctness)",
    "naive(map=log, over=correctness)",
]

ENVIRONMENTS = [
    "rlvr",
    "mc",
    "mc_mo",
    "abs_filter",
    "abs_filter(a=0.1, limit=0.05, rho=0)",
    "len_filter(L=1000, limit=0.1, rho=0.2)",
    "rel_filter(r=30, limit=0.2, rho=0.05)",
    "rel_filter(r=90, limit=1, rho=0)",
    "abs_timeout(limit=0.1, rho=0.02)",
    "rel_timeout(p=10, rho=0.1)",
    "rel_timeout(p=50, rho=0)",
    "ranked_timeout(p=10, rho=0.1)",
    "ranked_timeout(p=90, rho=0.5)",
    "ranked_timeout(p=30, agg=median, rho=0.1)",
    "qar(p=0.3)",
    "qar(p=0.5)",
    "qp(p=0.3)",
    "qp(p=0.7)",
    "qp(p=0.3, cap_s=0.5)",
    {"preset": "abs_filter", "aggregate": "median", "a": 0.2},
    {
        "filter": {"kind": "relative", "r": 40},
        "limit": {"kind": "ranked", "p": 40},
        "ranking": "qp",
        "gate": 0.4,
        "tolerance": 0.3,
    },
    {
        "filter": {"kind": "absolute", "a": 0.3},
        "limit": {"kind": "relative", "p": 60},
        "ranking": "qar",
        "gate": 0.5,
        "drop_unreferenced": False,
    },
    {"correctness": "original", "limit": {"kind": "absolute", "seconds": 0.2}, "ranking": "qar"},
]


def awkward_runs(seed: int) -> StoredRuns:
    return synthetic_runs(
        4,
        15,
        9,
        correctness_tests=5,
        seed=seed,
        quantum_s=0.002,
        missing_rate=0.03,
        inconclusive_rate=0.005,
        flaky_share=0.3,
        flaky_failure_rate=0.1,
        wrong_extra_share=0.2,
    )


def ragged_runs() -> StoredRuns:
    """Problems with 9, 7 and 4 references and 15, 11 and 15 tests: padding in every axis."""
    full = awkward_runs(11)
    out = []
    for p, keep_refs, keep_tests in ((0, 9, 15), (1, 7, 11), (2, 4, 15)):
        runs = full.problem_runs(p)
        names = list(runs.records)[:keep_refs]
        opt = [t.id for t in runs.problem.optimization_tests][:keep_tests]
        tests = [t for t in runs.problem.tests if t.group != "optimization" or t.id in opt]
        problem = runs.problem.model_copy(update={"tests": tests})
        out.append(ProblemRuns.build(problem, {n: runs.records[n] for n in names}))
    return StoredRuns.from_problem_runs(out)


def per_outcome(runs: StoredRuns, env) -> dict[tuple[int, int], tuple]:
    """(Outcome, {reward: (even, odd)}) of every pair through execrl's own code."""
    out = {}
    fns = [reward(r) for r in REWARDS]
    for p in range(len(runs)):
        for h, (_, _, _, outcome) in enumerate(
            replay_problem(runs.problem_runs(p), env, "correctness")
        ):
            out[p, h] = outcome, {f.name: (f(outcome, 0), f(outcome, 1)) for f in fns}
    return out


ULPS = 4
"""How many units in the last place of 1.0 (or of the larger value, when bigger) two floats
computed by different libraries may differ."""


def same(mine: float, theirs: float | None) -> bool:
    if theirs is None:
        return math.isnan(mine)
    if math.isnan(mine) or math.isnan(theirs):
        return math.isnan(mine) and math.isnan(theirs)
    return abs(mine - theirs) <= ULPS * math.ulp(max(1.0, abs(mine), abs(theirs)))


@pytest.mark.parametrize("corpus", ["awkward-0", "awkward-1", "ragged"])
def test_signals_and_rewards_equal_the_per_outcome_path(corpus):
    runs = ragged_runs() if corpus == "ragged" else awkward_runs(int(corpus[-1]))
    # the arrays survive the round trip through Problems and ExecutionRecords
    back = StoredRuns.from_problem_runs([runs.problem_runs(p) for p in range(len(runs))])
    for name in ("status", "duration", "io_length", "cor_status", "cor_duration", "ref_valid"):
        assert np.array_equal(getattr(back, name), getattr(runs, name), equal_nan=True), name
    engine = Engine(runs)
    mismatches = []
    for spec in ENVIRONMENTS:
        env = environment(spec)
        signals = engine.signals(env.config)
        fns = [reward(r) for r in REWARDS]
        values = {f.name: (reward_values(f, signals, 0), reward_values(f, signals, 1)) for f in fns}
        for (p, h), (outcome, rewards) in per_outcome(runs, env).items():
            fields = {
                "c_cor": outcome.c_cor,
                "c_strict": outcome.c_strict,
                "g": outcome.g,
                "q": outcome.q,
                "timeout_fraction": outcome.timeout_fraction,
                "q_dur": outcome.q_dur,
                "inconclusive": outcome.inconclusive,
            }
            for field, theirs in fields.items():
                if not same(float(getattr(signals, field)[p, h]), theirs):
                    mismatches.append((env.name, p, h, field))
            for name, (even, odd) in rewards.items():
                mine_even, mine_odd = values[name][0][p, h], values[name][1][p, h]
                if not (same(mine_even, even) and same(mine_odd, odd)):
                    mismatches.append((env.name, p, h, name))
        # padding stays out of everything
        assert np.isnan(values["correctness"][0][~runs.ref_valid]).all()
    assert not mismatches, mismatches[:10]


def test_the_corpus_exercises_every_awkward_case():
    runs = awkward_runs(0)
    codes = set(np.unique(runs.status).tolist())
    assert codes == {0, 1, 2, 3, 4}  # success, timeout, failure, inconclusive, not run
    pool = runs.pool_raw()
    finite = pool[np.isfinite(pool)]
    assert len(np.unique(finite)) < len(finite) / 2  # plenty of exact ties


def test_vector_maps_equal_the_scalar_maps():
    q = np.concatenate(
        [
            np.linspace(0, 1, 2001),
            [k / n for n in range(1, 130) for k in range(n + 1)],
            [1e-7, 1e-6, 1.1e-6, 0.1 + 1e-6, 0.9999999],
        ]
    )
    for name in VECTOR_MAPS:
        vector = VECTOR_MAPS[name](q).tolist()
        scalar = [MAPS[name](float(v)) for v in q]
        assert all(same(a, b) for a, b in zip(vector, scalar, strict=True)), name


def test_fast_mode_counts_exactly_and_sums_naive_durations_closely():
    runs = awkward_runs(2)
    exact = Engine(runs)
    fast = Engine(runs, fast=True, absolute_limits=[0.05, 0.1, 0.5], ranked_percentiles=[10, 30])
    for spec in [
        "abs_timeout(limit=0.1, rho=0.1)",
        "len_filter(L=1000, limit=0.05, rho=0)",
        "rel_filter(r=50, limit=0.5, rho=0.2)",
        "qp(p=0.3)",
        "mc_mo",
        "ranked_timeout(p=30, rho=0.1)",
        "abs_timeout(limit=0.3, rho=0)",
    ]:
        config = environment(spec).config
        a, b = exact.signals(config), fast.signals(config)
        for field in ("c_cor", "c_strict", "g", "q", "timeout_fraction", "inconclusive"):
            assert np.array_equal(getattr(a, field), getattr(b, field), equal_nan=True), field
        assert np.allclose(a.naive_optimization, b.naive_optimization, rtol=1e-14, equal_nan=True)


def test_a_stored_timing_other_than_the_environments_is_refused():
    from execrl.errors import ExecrlError

    config = environment({"timing": "wall"}).config
    with pytest.raises(ExecrlError, match="is timed by wall but the stored runs hold cpu"):
        Engine(awkward_runs(0)).signals(config)


def test_leave_one_out_quantiles_equal_numpys_on_each_reduced_pool():
    """Bit for bit, including the rounding of numpy's interpolation (γ ≥ 0.5 branch)."""
    from execrl.simulate.engine import _loo_quantile

    runs = synthetic_runs(3, 40, 12, seed=5, missing_rate=0.1, flaky_share=0.5)
    pool = Engine(runs)._pool(None)
    for p in (10, 25, 50, 62.5, 90, 100):
        mine = _loo_quantile(pool, p)
        for t, h in np.ndindex(40, 12):
            for problem in range(3):
                row = np.delete(pool.D[problem, t], h)
                if np.isnan(row).all():
                    assert np.isnan(mine[problem, t, h])
                else:
                    assert mine[problem, t, h] == np.nanpercentile(row, p), (p, problem, t, h)


def test_a_calibrated_pool_replays_exactly_too():
    """Γ maps the references' durations, never the candidate's: every candidate then differs
    from its own pool entry, which sends it through the engine's general paths."""
    runs = awkward_runs(3)
    engine = Engine(runs, calibration=lambda d: 0.8 * d + 0.003)
    shapes = ["collapsed", "two_gate(graded, map=bucket)", "naive(map=log)"]
    for spec in [
        "qp(p=0.3)",
        "qar(p=0.5)",
        "rel_timeout(p=50, rho=0.1)",
        "abs_filter",
        "ranked_timeout(p=30, rho=0)",
    ]:
        env = environment(spec)
        for name in shapes:
            fast = engine.rewards(env.config, reward(name))
            for p in range(len(runs)):
                rows = replay_problem(
                    runs.problem_runs(p), env, name, calibration=lambda d: 0.8 * d + 0.003
                )
                for h, (_, even, odd, _) in enumerate(rows):
                    assert same(fast[0][p, h], even) and same(fast[1][p, h], odd), (spec, name)
