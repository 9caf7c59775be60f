"""A campaign's life in the duration store, around :func:`~execrl.timing.store.run_campaign`:
make the store, save the finished campaign (its journal then goes), count the triples that
failed, fit and save a counted campaign's count rate, and the tables of ``execrl timing
list | calibrate`` as text cells.

    store = DurationStore(root)
    prepare_store(store)
    campaign = run_campaign(problems, executor, journal=store.journal_path, reruns=3)
    path = save_campaign(store, campaign)
    failed, inconclusive = unsuccessful(campaign)
"""

from __future__ import annotations

from pathlib import Path

from execrl.errors import OutputError
from execrl.report import Table
from execrl.sandbox.limits import TimingMetric, is_counted
from execrl.sandbox.records import Status
from execrl.timing.calibration import (
    CalibrationReport,
    CountRate,
    fit_count_rate,
    save_count_rate,
)
from execrl.timing.store import Campaign, DurationStore

"""(header, rows): every cell a string."""

LIST_COLUMNS = ["id", "date (UTC)", "machine", "timing", "reruns", "problems", "triples", "note"]
CALIBRATION_COLUMNS = ["map", "formula", "R²_CV", "RMSE", "ρ pooled", "ρ in-problem"]
CALIBRATION_COLUMNS += ["|bias| mean", "|bias| max"]


def prepare_store(store: DurationStore) -> None:
    """Make the store's campaigns folder (before any sandbox starts); an OutputError saying
    why when it cannot be made."""
    try:
        store.campaigns_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(
            f"{store.campaigns_dir}: cannot create the store ({exc.strerror or exc})"
        ) from None


def save_campaign(store: DurationStore, campaign: Campaign) -> Path:
    """Save a finished campaign and drop its journal; where it was saved. When it cannot be
    written, an OutputError that says the runs are still in the journal."""
    try:
        path = store.save(campaign)
    except OSError as exc:
        raise OutputError(
            f"{store.campaigns_dir}: cannot save the campaign ({exc.strerror or exc}); its "
            f"runs are kept in {store.journal_path}"
        ) from None
    store.journal_path.unlink(missing_ok=True)
    return path


def unsuccessful(campaign: Campaign) -> tuple[int, int]:
    """Triples with at least one rerun that failed or timed out, and with one inconclusive."""
    inconclusive = sum(Status.INCONCLUSIVE in m.statuses for m in campaign.measurements)
    failed = sum(
        any(s not in (Status.SUCCESS, Status.INCONCLUSIVE) for s in m.statuses)
        for m in campaign.measurements
    )
    return failed, inconclusive


def save_campaign_rate(store: DurationStore, campaign: Campaign) -> tuple[CountRate, Path]:
    """Fit the executing machine's count rate on a counted campaign and save it under the
    campaign's id; a DataError (from :func:`fit_count_rate`) when no passing test was counted,
    a UsageError when its reruns ran on several machines (a rate is one machine's)."""
    rate = fit_count_rate(campaign)
    return rate, save_count_rate(store, rate, campaign.id)


def campaigns_table(store: DurationStore) -> Table:
    """One row per stored campaign: id, date, machine, timing, reruns, problems, triples, note."""
    rows = []
    for campaign_id in store.ids():
        campaign = store.load(campaign_id)
        info = campaign.info
        rows.append([
            info.id, f"{info.created_at:%Y-%m-%d %H:%M}", describe_machines(campaign),
            info.settings.timing, str(info.settings.reruns), str(len(info.problems)),
            str(len(campaign.measurements)), info.note,
        ])  # fmt: skip
    return LIST_COLUMNS, rows


def describe_machines(campaign: Campaign) -> str:
    """The machine a campaign ran on (its hardware: the id names the host), or how many and
    which."""
    machines = campaign.machines
    if len(machines) == 1:
        return machines[0].describe()
    return f"{len(machines)} machines: {', '.join(m.hostname for m in machines)}"


def calibration_table(report: CalibrationReport, timing: TimingMetric) -> Table:
    """One row per fitted map (the chosen one marked ✓): formula, R²_CV, RMSE (ms, or counts
    for a counted timing), Spearman before → after (pooled and in-problem) and the bias."""
    rows = []
    for r in report.rows:
        rmse = f"{r['rmse_cv']:,.0f}" if is_counted(timing) else f"{r['rmse_cv']:.2f}"
        rows.append([
            f"{r['map']} ✓" if r["chosen"] else str(r["map"]), str(r["formula"]),
            f"{r['r2_cv']:.4f}", rmse,
            f"{r['spearman_before']:.3f} → {r['spearman_after']:.3f}",
            f"{r['within_before']:.3f} → {r['within_after']:.3f}",
            f"{r['mean_abs_bias']:.1%}", f"{r['max_abs_bias']:.1%}",
        ])  # fmt: skip
    header = [report.rmse_label if c == "RMSE" else c for c in CALIBRATION_COLUMNS]
    return header, rows
