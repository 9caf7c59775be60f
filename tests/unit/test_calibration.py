"""Calibration maps stored → fresh (spec §6): fits, leave-one-problem-out figures worked out by
hand, JSON round trips, and maps applied to references through ReferencePool."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest

from execrl.errors import ExecrlError
from execrl.problems import load_bundled
from execrl.sandbox.machine import MachineFingerprint
from execrl.sandbox.records import Status
from execrl.timing.calibration import (
    CalibrationMap,
    calibrate,
    choose,
    cross_validate,
    fit_map,
    load_calibration,
    pair_campaigns,
    save_calibration,
    spearman,
)
from execrl.timing.pool import ReferencePool
from execrl.timing.store import (
    Campaign,
    CampaignInfo,
    DurationStore,
    ExecutorSettings,
    Measurement,
)

MACHINE = MachineFingerprint(
    hostname="test", cpu_model="toy", cores=2, kernel="6.0", python="3.11.7"
)


def campaign(campaign_id: str, runs: dict[tuple[str, str, str], list]) -> Campaign:
    """A campaign from ``{(problem, test, reference): [seconds or (status, seconds), ...]}``."""
    measurements = []
    for (problem, test, ref), values in sorted(runs.items()):
        pairs = [v if isinstance(v, tuple) else (Status.SUCCESS, v) for v in values]
        measurements.append(
            Measurement(
                problem_id=problem,
                test_id=test,
                reference=ref,
                statuses=[s for s, _ in pairs],
                cpu_s=[d for _, d in pairs],
                wall_s=[2 * d for _, d in pairs],
            )
        )
    info = CampaignInfo(
        id=campaign_id,
        created_at=datetime(2026, 11, 29, tzinfo=UTC),
        machine=MACHINE,
        settings=ExecutorSettings(reruns=max(len(v) for v in runs.values())),
        problems=sorted({p for p, _, _ in runs}),
    )
    return Campaign(info=info, measurements=measurements)


def synthetic(fresh_of, *, problems: int = 4, per_problem: int = 12, seed: int = 0):
    """Stored durations spread over 1 ms … 2 s and fresh = ``fresh_of(stored)`` exactly."""
    rng = np.random.default_rng(seed)
    stored, fresh = {}, {}
    for p in range(problems):
        for i in range(per_problem):
            s = float(np.exp(rng.uniform(np.log(0.001), np.log(2.0))))
            key = (f"p{p}", f"t{i % 3}", f"r{i}")
            stored[key], fresh[key] = [s], [float(fresh_of(s))]
    return campaign("stored", stored), campaign("fresh", fresh)


# --------------------------------------------------------------------------------------------
# Fits recover known maps


def test_affine_data_gives_the_affine_map_back():
    report = calibrate(*synthetic(lambda s: 1.3 * s + 0.002))
    a, b = report.maps["affine"].params
    assert a == pytest.approx(1.3, rel=1e-9)
    assert b == pytest.approx(0.002, rel=1e-6)
    assert report.maps["affine"].metrics.r2_cv == pytest.approx(1.0, abs=1e-12)
    # quadratic fits it as well (a ≈ 0) but has more parameters; the others are worse
    assert report.chosen.kind == "affine"
    assert report.maps["multiplicative"].metrics.r2_cv < 1 - 1e-6


def test_power_and_quadratic_data_give_their_maps_back():
    power = calibrate(*synthetic(lambda s: 0.8 * s**1.1))
    assert power.maps["power"].params == pytest.approx([0.8, 1.1], rel=1e-9)
    assert power.chosen.kind == "power"
    quadratic = calibrate(*synthetic(lambda s: 0.5 * s * s + 1.2 * s + 0.001))
    assert quadratic.maps["quadratic"].params == pytest.approx([0.5, 1.2, 0.001], rel=1e-6)
    assert quadratic.chosen.kind == "quadratic"


def test_a_tie_goes_to_the_map_with_fewer_parameters():
    report = calibrate(*synthetic(lambda s: 1.3 * s))
    # all four fit f = 1.3·s exactly; multiplicative has one parameter
    assert all(m.metrics.r2_cv == pytest.approx(1.0) for m in report.maps.values())
    assert report.chosen.kind == "multiplicative"
    assert report.chosen.params == pytest.approx([1.3])
    assert choose([report.maps["quadratic"], report.maps["affine"]]).kind == "affine"


def test_noisy_affine_data_is_still_fitted_closely():
    rng = np.random.default_rng(1)
    report = calibrate(
        *synthetic(lambda s: (1.3 * s + 0.002) * (1 + rng.normal(0, 0.02)), per_problem=40)
    )
    a, b = report.maps["affine"].params
    assert a == pytest.approx(1.3, rel=0.02)
    assert abs(b - 0.002) < 0.005
    assert report.chosen.metrics.r2_cv > 0.99


# --------------------------------------------------------------------------------------------
# Leave-one-problem-out, by hand

#   problem A: s=1 → f=2      problem B: s=2 → f=2      problem C: s=1 → 1, s=3 → 3
TOY_STORED = {("A", "t", "r"): [1.0], ("B", "t", "r"): [2.0], ("C", "t1", "r"): [1.0]}
TOY_STORED[("C", "t2", "r")] = [3.0]
TOY_FRESH = {("A", "t", "r"): [2.0], ("B", "t", "r"): [2.0], ("C", "t1", "r"): [1.0]}
TOY_FRESH[("C", "t2", "r")] = [3.0]
FRESH = np.array([2.0, 2.0, 1.0, 3.0])  # pairs are sorted: A, B, C/t1, C/t2


def toy_pairs():
    return pair_campaigns(campaign("s", TOY_STORED), campaign("f", TOY_FRESH))


def r2(predicted) -> float:
    return 1 - np.sum((FRESH - predicted) ** 2) / np.sum((FRESH - FRESH.mean()) ** 2)


def test_multiplicative_leave_one_problem_out_by_hand():
    # a = Σsf / Σs² on the two other problems:
    #   without A: (4 + 1 + 9)/(4 + 1 + 9) = 1      → A: 1
    #   without B: (2 + 1 + 9)/(1 + 1 + 9) = 12/11  → B: 24/11
    #   without C: (2 + 4)/(1 + 4) = 1.2            → C: 1.2, 3.6
    predicted, m = cross_validate("multiplicative", toy_pairs())
    expected = np.array([1.0, 24 / 11, 1.2, 3.6])
    np.testing.assert_allclose(predicted, expected)
    assert m.r2_cv == pytest.approx(r2(expected))
    assert m.rmse_cv_s == pytest.approx(math.sqrt(np.mean((expected - FRESH) ** 2)))
    assert m.bias_by_problem == pytest.approx({"A": -0.5, "B": 1 / 11, "C": 0.2})
    assert (m.triples, m.problems) == (4, 3)
    # pooled ranks: stored [.5, 2, .5, 3] vs fresh [1.5, 1.5, 0, 3] → 3.75/4.5;
    # predicted [0, 2, 1, 3] vs fresh → 3/√(5·4.5) (each fold has its own map)
    assert m.spearman_before == pytest.approx(3.75 / 4.5)
    assert m.spearman_after == pytest.approx(3 / math.sqrt(22.5))
    # within a problem: A and B have one triple (undefined), C agrees perfectly
    assert m.within_spearman_before == m.within_spearman_after == 1.0


def test_affine_leave_one_problem_out_by_hand():
    #   without A: B and C lie on f = s                      → A: 1
    #   without B: (1,2), (1,1), (3,3): slope 0.75, b = 0.75 → B: 2.25
    #   without C: (1,2), (2,2): f = 2                       → C: 2, 2
    predicted, m = cross_validate("affine", toy_pairs())
    expected = np.array([1.0, 2.25, 2.0, 2.0])
    np.testing.assert_allclose(predicted, expected, atol=1e-12)
    assert m.r2_cv == pytest.approx(r2(expected))
    assert m.bias_by_problem == pytest.approx({"A": -0.5, "B": 0.125, "C": (1.0 - 1 / 3) / 2})


def test_spearman_matches_pearson_on_average_ranks():
    assert spearman(np.array([1, 2, 3, 4]), np.array([10, 20, 30, 40])) == pytest.approx(1.0)
    assert spearman(np.array([1, 2, 3, 4]), np.array([4, 3, 2, 1])) == pytest.approx(-1.0)
    assert math.isnan(spearman(np.array([1.0, 1.0]), np.array([1.0, 2.0])))
    assert math.isnan(spearman(np.array([1.0]), np.array([1.0])))


# --------------------------------------------------------------------------------------------
# Pairing


def test_pairing_uses_stored_median_fresh_mean_and_successful_reruns_only():
    stored = campaign(
        "s",
        {
            ("A", "t", "r"): [1.0, 2.0, 9.0],  # median 2
            ("A", "t", "only-stored"): [1.0],
            ("A", "t", "failed"): [(Status.WRONG_ANSWER, 1.0)],
            ("B", "t", "r"): [(Status.TIMEOUT, 5.0), 3.0],  # a timeout is not a duration
        },
    )
    fresh = campaign(
        "f",
        {
            ("A", "t", "r"): [1.0, 2.0, 9.0],  # mean 4
            ("A", "t", "failed"): [1.0],
            ("B", "t", "r"): [(Status.INCONCLUSIVE, 0.0), 4.0],
            ("B", "t", "only-fresh"): [1.0],
        },
    )
    pairs = pair_campaigns(stored, fresh)
    assert list(zip(pairs.problems, pairs.references, strict=True)) == [("A", "r"), ("B", "r")]
    np.testing.assert_allclose(pairs.stored_s, [2.0, 3.0])
    np.testing.assert_allclose(pairs.fresh_s, [4.0, 4.0])
    np.testing.assert_allclose(pair_campaigns(stored, fresh, timing="wall").stored_s, [4.0, 6.0])


def test_nothing_to_pair_or_one_problem_is_a_user_error():
    a = campaign("a", {("A", "t", "r"): [1.0]})
    b = campaign("b", {("B", "t", "r"): [1.0]})
    with pytest.raises(ExecrlError, match="share no"):
        calibrate(a, b)
    with pytest.raises(ExecrlError, match="at least 2 problems"):
        calibrate(a, campaign("c", {("A", "t", "r"): [2.0]}))


# --------------------------------------------------------------------------------------------
# Saving, loading, applying


def test_map_json_round_trip_through_the_store(tmp_path):
    store = DurationStore(tmp_path)
    chosen = calibrate(*synthetic(lambda s: 1.3 * s + 0.002)).chosen
    path = save_calibration(store, chosen, "node-a")
    assert path == tmp_path / "calibrations" / "node-a.json"
    loaded = load_calibration(store, "node-a")
    assert loaded == chosen
    assert loaded.fitted_on == ["stored", "fresh"]
    x = np.array([0.001, 0.5, 2.0])
    np.testing.assert_allclose(loaded(x), chosen(x))


def test_undefined_figures_survive_the_round_trip(tmp_path):
    store = DurationStore(tmp_path)
    _, metrics = cross_validate("multiplicative", toy_pairs())
    cmap = fit_map("multiplicative", np.array([1.0]), np.array([2.0])).model_copy(
        update={"metrics": metrics.model_copy(update={"within_spearman_before": math.nan})}
    )
    save_calibration(store, cmap, "toy")
    assert math.isnan(load_calibration(store, "toy").metrics.within_spearman_before)


def test_loading_a_missing_or_broken_map_says_what_exists(tmp_path):
    store = DurationStore(tmp_path)
    save_calibration(store, fit_map("affine", np.array([1.0, 2.0]), np.array([1.0, 2.0])), "ok")
    with pytest.raises(ExecrlError, match=r"no calibration map 'nope'.*have: ok"):
        load_calibration(store, "nope")
    (store.calibrations_dir / "broken.json").write_text("{}")
    with pytest.raises(ExecrlError, match="not a calibration map"):
        load_calibration(store, "broken")
    with pytest.raises(ExecrlError, match="plain file name"):
        save_calibration(store, load_calibration(store, "ok"), "../escape")


def test_reference_pool_calibrates_references_and_clamps_to_the_cap():
    cmap = CalibrationMap(kind="affine", params=[2.0, 0.1], fitted_on=["s", "f"])
    stored = {"fast": {"t1": 0.2, "t2": 0.0}, "slow": {"t1": 0.6}}
    pool = ReferencePool.from_mapping(stored, ["t1", "t2"], cap_s=1.0, calibration=cmap)
    # fast/t1: 2·0.2 + 0.1 = 0.5; fast/t2: invalid 0 → ψ = cap = 1 → 2.1 → clamped to 1;
    # slow/t1: 1.3 → clamped to 1; slow/t2: missing stays missing
    np.testing.assert_allclose(pool.durations, [[0.5, 1.0], [1.0, np.nan]])


def test_campaign_pool_applies_the_map_to_references():
    (problem,) = load_bundled(["edit-distance"])
    test_id = problem.optimization_tests[0].id
    stored = campaign("s", {(problem.id, test_id, "dp-row-zip"): [0.01, 0.02, 0.03]})
    cmap = CalibrationMap(kind="multiplicative", params=[1.5], fitted_on=["s", "f"])
    raw = stored.pool(problem)
    calibrated = stored.pool(problem, calibration=cmap)
    row = 0  # the pool's rows follow the problem's optimization tests
    assert raw.durations[row, 0] == pytest.approx(0.02)
    assert calibrated.durations[row, 0] == pytest.approx(0.03)
